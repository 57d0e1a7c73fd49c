/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_validate.h - checks an existing NCCL topology XML (NCCL_TOPO_FILE) against
 * the rules of NCCL's own small parser (NCCL 2.28.9 src/graph/xml.cc: no declaration,
 * no tabs between elements, an element's attributes on one line, names and values of
 * at most 255 bytes, 16 attributes and 128 children) and, optionally,
 * against a mapping (CLI only; libxml2 is linked directly).
 *
 * The file is untrusted: it is size-capped, must be a regular file, and is parsed
 * from memory with network, entity substitution and DTD loading off; a DOCTYPE is
 * refused before libxml2 sees the text. The raw bytes are scanned as well, since
 * several of NCCL's rules (tabs, the XML declaration, one line per element, single
 * spaces, no entities) are invisible in a parsed tree.
 */
#ifndef NCCL_NUMA_TOPO_VALIDATE_H
#define NCCL_NUMA_TOPO_VALIDATE_H

#include <stddef.h>
#include <stdio.h>

#include "nn_config.h"

#define NN_TOPO_VALIDATE_MAX_BYTES (1u << 20) /* larger files are refused unread */
#define NN_TOPO_VALIDATE_MAX_PROBLEMS 200     /* beyond this, problems are counted only */

/* One finding; line 0 means the whole file. */
struct nn_topo_problem {
  int line;
  int warning; /* 1: NCCL copes, but the file is probably not what was meant */
  char *msg;
};

/* Findings of one validation. Zero-initialise before use; free with
 * nn_topo_report_free. */
struct nn_topo_report {
  struct nn_topo_problem *items;
  int n, cap;
  int errors, warnings; /* totals, including dropped ones */
  int dropped;          /* not stored because of NN_TOPO_VALIDATE_MAX_PROBLEMS */
};

/* Validates `len` bytes named `name`; with `cfg`, also reports every disagreement
 * with the mapping (a GPU missing, under another numaid, a GPU not in the mapping).
 * Findings are appended to rep, sorted by line. Returns rep->errors. */
int nn_topo_validate_buffer(const char *name, const char *buf, size_t len,
                            const struct nn_config *cfg, struct nn_topo_report *rep);

/* Reads `path` safely (regular file, at most NN_TOPO_VALIDATE_MAX_BYTES, no
 * blocking on FIFOs) and validates it. Returns rep->errors; a file that cannot be
 * read is one error at line 0. */
int nn_topo_validate_file(const char *path, const struct nn_config *cfg,
                          struct nn_topo_report *rep);

/* Prints each finding as "NAME:LINE: problem" ("NAME: problem" for line 0;
 * warnings as "NAME:LINE: warning: problem"), then a count of dropped ones. */
void nn_topo_report_print(const struct nn_topo_report *rep, const char *name, FILE *out);

/* Frees the findings and zeroes rep, ready for the next validation. */
void nn_topo_report_free(struct nn_topo_report *rep);

#endif
