/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_summary.c - what a topology file says about the GPUs, for `check`; see
 * topo_summary.h. It reads the same files as the validator, with the same limits,
 * but only for the facts check compares with the mapping. */
#include "cli/topo/topo_summary.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "cli/topo/topo_check.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"

/* A decimal or 0x-hex attribute value, else `fallback`. */
static int attr_int(xmlNodePtr n, const char *name, int fallback) {
  const char *v = nn_topo_xml_attr(n, name);
  int x = fallback;
  if (!v) return fallback;
  if (nn_int_parse(v, 0, INT32_MAX, &x) == 0) return x;
  /* 0x and at most 7 hex digits, as NCCL writes familyid and modelid; a leading 0 is
   * decimal above, never octal. */
  if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X') || strlen(v + 2) > 7) return fallback;
  return nn_int_parse_base(v, 16, 0, INT32_MAX, &x) == 0 ? x : fallback;
}

static void collect_pci(xmlNodePtr n, int numa, struct nn_topo_summary *s, int *count) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE || xmlStrcmp(k->name, (const xmlChar *)"pci")) continue;
    const char *bus = nn_topo_xml_attr(k, "busid"), *cls = nn_topo_xml_attr(k, "class");
    struct nn_busid b;
    if (bus && cls && !strncmp(cls, "0x03", 4) && !nn_busid_parse(bus, &b) &&
        s->n_gpus < NN_TOPO_SUMMARY_MAX_GPUS) {
      s->gpus[s->n_gpus].bus = b;
      s->gpus[s->n_gpus++].numaid = numa;
      (*count)++;
    }
    collect_pci(k, numa, s, count);
  }
}

static void summarise(xmlNodePtr root, struct nn_topo_summary *s) {
  for (xmlNodePtr n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xmlStrcmp(n->name, (const xmlChar *)"cpu")) continue;
    int count = 0;
    collect_pci(n, attr_int(n, "numaid", -1), s, &count);
    if (!count) continue;
    s->n_cpus_with_gpus++;
    const char *v = nn_topo_xml_attr(n, "vendor");
    snprintf(s->vendor, sizeof s->vendor, "%s", v ? v : "");
    s->family = attr_int(n, "familyid", -1);
    s->model = attr_int(n, "modelid", -1);
  }
}

int nn_topo_summarise_file(const char *path, size_t max, struct nn_topo_summary *s, char *why,
                           size_t whysz) {
  char *buf = NULL;
  size_t len = 0;
  if (nn_file_read(AT_FDCWD, path, NN_FILE_BARE, max, &buf, &len, why, whysz)) return -1;
  int doctype = memmem(buf, len, "<!DOCTYPE", 9) || memmem(buf, len, "<!ENTITY", 8);
  char perr[256];
  int pline;
  xmlDocPtr doc =
    len > 0 && !doctype ? nn_topo_xml_read(path, buf, len, NULL, perr, sizeof perr, &pline) : NULL;
  free(buf);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  int rc = -1;
  if (doctype) nn_errbuf_set(why, whysz, "has a DOCTYPE, which nccl-numa does not read");
  else if (!doc || !root)
    nn_errbuf_set(why, whysz, "does not parse as XML (NCCL then fails communicator creation)");
  else if (xmlStrcmp(root->name, (const xmlChar *)"system"))
    nn_errbuf_set(why, whysz, "root element is <%.40s>, not <system>", (const char *)root->name);
  else {
    memset(s, 0, sizeof *s);
    s->family = s->model = -1;
    summarise(root, s);
    rc = 0;
  }
  if (doc) xmlFreeDoc(doc);
  return rc;
}
