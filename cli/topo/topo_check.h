/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_check.h - the parts of the topology validator (topo_validate.h) and of the
 * summary `check` reads (topo_summary.h), shared between their files and nothing else:
 * topo_report.c collects findings, topo_scan.c reads the raw bytes as NCCL's parser does,
 * topo_tree.c checks the tree libxml2 parsed, and topo_validate.c drives the two passes.
 */
#ifndef NCCL_NUMA_CLI_TOPO_CHECK_H
#define NCCL_NUMA_CLI_TOPO_CHECK_H

#include <stddef.h>

#include <libxml/tree.h>

#include "cli/topo/topo_validate.h"
#include "nn_config.h"

/* Appends one finding (printf-style) at `line` (0: the whole file), an error unless
 * `warning`. Counted even when NN_TOPO_VALIDATE_MAX_PROBLEMS or memory stops it being
 * stored, so the totals stay true. */
void nn_topo_report_add(struct nn_topo_report *r, int line, int warning, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

/* Sorts the findings from index `from` on by line, stably: findings of one line keep the
 * order they were found in. */
void nn_topo_report_sort(struct nn_topo_report *r, int from);

/* The raw pass over `len` bytes: a byte-order mark, NUL bytes, tabs, then the markup
 * as NCCL's reader sees it (declaration, comments, tags and their attributes, text).
 * Returns 1 when the text may be handed to libxml2, 0 when it must not be (a NUL byte,
 * or a DOCTYPE or ENTITY anywhere: entity declarations never reach the parser). */
int nn_topo_scan_text(const char *buf, size_t len, struct nn_topo_report *rep);

/* The tree pass: root, element nesting, cpu and pci attributes, counts NCCL caps and,
 * with `cfg`, every disagreement with the mapping. */
void nn_topo_check_tree(xmlDocPtr doc, const struct nn_config *cfg, struct nn_topo_report *rep);

/* The plain text of an attribute of `n`; "" when it holds entity references (NCCL would
 * read them literally), NULL when absent. */
const char *nn_topo_xml_attr(xmlNodePtr n, const char *name);

/* The source line of `n`, 0 when libxml2 does not know it. */
int nn_topo_xml_line(xmlNodePtr n);

/* The one place a topology file is parsed (the validator and the summary): `len` bytes
 * named `name` with the network, messages on stderr and XXE off, line numbers past 65535,
 * the encoding a declaration names ignored (`encoding` NULL: libxml2 detects it). The
 * caller has refused a DOCTYPE already. Returns the tree (free with xmlFreeDoc), or NULL
 * with the reason in why and in *line libxml2's line of it (0: none), or -1 when the
 * text was never parsed (out of memory, too large). */
xmlDocPtr nn_topo_xml_read(const char *name, const char *buf, size_t len, const char *encoding,
                           char *why, size_t whysz, int *line);

#endif
