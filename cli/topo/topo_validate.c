/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_validate.c - checks a topology XML against NCCL's parser rules and a mapping:
 * the two passes over one file (the raw text, topo_scan.c; the parsed tree, topo_tree.c),
 * whose findings topo_report.c collects. */
#include "cli/topo/topo_validate.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "cli/topo/topo_check.h"
#include "fileread.h"

/* ---------------------------------------------------------------- driver */

static int parse_options(void) {
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
             XML_PARSE_IGNORE_ENC;
#if LIBXML_VERSION >= 21300
  opts |= XML_PARSE_NO_XXE;
#endif
  return opts;
}

xmlDocPtr nn_topo_xml_read(const char *name, const char *buf, size_t len, const char *encoding,
                           char *why, size_t whysz, int *line) {
  xmlParserCtxtPtr ctxt = len <= INT32_MAX ? xmlNewParserCtxt() : NULL;
  *line = -1;
  if (!ctxt) {
    snprintf(why, whysz, "%s", len <= INT32_MAX ? "out of memory" : "too large");
    return NULL;
  }
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, encoding, parse_options());
  if (!doc) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    snprintf(why, whysz, "%s", e && e->message ? e->message : "unknown error");
    why[strcspn(why, "\r\n")] = 0;
    *line = e && e->line > 0 ? e->line : 0;
  }
  xmlFreeParserCtxt(ctxt);
  return doc;
}

static void parse_and_check(const char *name, const char *buf, size_t len,
                            const struct nn_config *cfg, struct nn_topo_report *rep) {
  char msg[256];
  int line;
  /* UTF-8 forced (and the declaration's encoding ignored): libxml2 reads exactly the
   * bytes the raw scan saw. */
  xmlDocPtr doc = nn_topo_xml_read(name, buf, len, "UTF-8", msg, sizeof msg, &line);
  if (!doc) {
    nn_topo_report_add(rep, line > 0 ? line : 0, 0, "%s%s",
                       line >= 0 ? "not well-formed XML: " : "", msg);
    return;
  }
  nn_topo_check_tree(doc, cfg, rep);
  xmlFreeDoc(doc);
}

int nn_topo_validate_buffer(const char *name, const char *buf, size_t len,
                            const struct nn_config *cfg, struct nn_topo_report *rep) {
  int from = rep->n;
  if (len > NN_TOPO_VALIDATE_MAX_BYTES) {
    nn_topo_report_add(rep, 0, 0, "%zu bytes, larger than the %u-byte limit: refused", len,
                       NN_TOPO_VALIDATE_MAX_BYTES);
    return rep->errors;
  }
  if (len == 0) {
    nn_topo_report_add(rep, 0, 0, "empty file: NCCL needs <system version=\"1\">");
    return rep->errors;
  }
  /* The raw pass first: it decides whether libxml2 may see the text at all. */
  if (nn_topo_scan_text(buf, len, rep)) parse_and_check(name, buf, len, cfg, rep);
  nn_topo_report_sort(rep, from);
  return rep->errors;
}

/* Reads a regular file of at most NN_TOPO_VALIDATE_MAX_BYTES (the one bounded reader);
 * returns a malloc'd buffer, or NULL with the reason reported. */
static char *read_capped(const char *path, size_t *len, struct nn_topo_report *rep) {
  char *buf = NULL, why[512];
  if (nn_file_read(AT_FDCWD, path, NN_FILE_BARE, NN_TOPO_VALIDATE_MAX_BYTES, &buf, len, why,
                   sizeof why))
    nn_topo_report_add(rep, 0, 0, "%s", why);
  return buf;
}

int nn_topo_validate_file(const char *path, const struct nn_config *cfg,
                          struct nn_topo_report *rep) {
  size_t len = 0;
  char *buf = read_capped(path, &len, rep);
  if (!buf) return rep->errors;
  nn_topo_validate_buffer(path, buf, len, cfg, rep);
  free(buf);
  return rep->errors;
}
