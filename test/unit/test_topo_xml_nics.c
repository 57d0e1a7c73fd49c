/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_xml_nics.c - NICs in the served topology (topo_xml.c): each under its node's CPU
 * as NCCL reads a NIC's <pci> (class 0x02..., no nic/net child), the one-socket file with that
 * socket's NICs only (visible.c), and a NIC without bus= refused. */
#include "nn_test.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "topo_xml.h"
#include "visible.h"

#define REF_NICS "test/fixtures/config/ref-nics.conf"

static struct nn_config *load(const char *path) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  struct nn_parse_opts o = {0};
  assert_int_equal(nn_config_load(path, &o, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

static char *generate(const struct nn_config *cfg) {
  struct nn_cpu_kind cpu;
  char err[512];
  assert_int_equal(nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err), 0);
  char *xml = NULL;
  size_t len = 0;
  if (nn_topo_xml_generate(cfg, &cpu, "/nonexistent-nn-sysfs", &xml, &len, err, sizeof err))
    fail_msg("not generated: %s", err);
  return xml;
}

/* The numaid of the cpu holding <pci busid=bus>, checked to have class `cls` and no child;
 * -2 when the bus id is not in the file. Parsed strictly (no recovery). */
static long cpu_of(const char *xml, const char *bus, const char *cls) {
  xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "t.xml", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  long numaid = -2;
  for (xmlNodePtr c = xmlDocGetRootElement(doc)->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    for (xmlNodePtr p = c->children; p; p = p->next) {
      xmlChar *b = p->type == XML_ELEMENT_NODE ? xmlGetProp(p, BAD_CAST "busid") : NULL;
      if (b && !strcmp((char *)b, bus)) {
        xmlChar *k = xmlGetProp(p, BAD_CAST "class"), *n = xmlGetProp(c, BAD_CAST "numaid");
        assert_string_equal((char *)k, cls);
        assert_null(p->children);
        numaid = strtol((char *)n, NULL, 10);
        xmlFree(k);
        xmlFree(n);
      }
      xmlFree(b);
    }
  }
  xmlFreeDoc(doc);
  return numaid;
}

static void test_nics_on_their_sockets(void **state) {
  (void)state;
  struct nn_config *cfg = load(REF_NICS);
  char *xml = generate(cfg);
  assert_int_equal(cpu_of(xml, "0000:09:00.0", "0x020000"), 0); /* mlx5_0, host node 0 */
  assert_int_equal(cpu_of(xml, "0000:0a:00.0", "0x020000"), 1); /* mlx5_1, host node 1 */
  assert_int_equal(cpu_of(xml, "0000:05:00.0", "0x030000"), 0);
  assert_int_equal(cpu_of(xml, "0000:01:00.0", "0x030000"), 1);
  /* the GPUs first, then the node's NIC */
  assert_true(strstr(xml, "0000:08:00.0") < strstr(xml, "0000:09:00.0"));
  assert_true(strstr(xml, "0000:09:00.0") < strstr(xml, "numaid=\"1\""));
  free(xml);
  nn_config_free(cfg);
}

static void test_one_socket_keeps_its_nics(void **state) {
  (void)state;
  struct nn_config *cfg = load(REF_NICS);
  struct nn_visible vis;
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_resolve(cfg, "4,5,6,7", NULL, &vis);
  assert_int_equal(vis.kind, NN_VISIBLE_ONE_NODE);
  nn_visible_view(cfg, &vis, own, &view);
  assert_int_equal(view.n_nics, 1);
  char *xml = generate(&view);
  assert_int_equal(cpu_of(xml, "0000:09:00.0", "0x020000"), 0);
  assert_int_equal(cpu_of(xml, "0000:0a:00.0", "0x020000"), -2); /* the other socket's NIC */
  assert_null(strstr(xml, "numaid=\"1\""));
  free(xml);
  nn_visible_resolve(cfg, "1,0", NULL, &vis);
  nn_visible_view(cfg, &vis, own, &view);
  assert_int_equal(view.n_nics, 1);
  assert_string_equal(view.nics[0].name, "mlx5_1");
  assert_int_equal(cfg->n_nics, 2); /* the mapping itself is untouched */
  nn_config_free(cfg);
}

static void test_nic_without_bus_refused(void **state) {
  (void)state;
  struct nn_config *cfg = load(REF_NICS);
  cfg->nics[1].has_bus = 0;
  struct nn_cpu_kind cpu;
  char err[512];
  assert_int_equal(nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err), 0);
  char *xml = NULL;
  size_t len = 0;
  assert_int_equal(nn_topo_xml_generate(cfg, &cpu, NULL, &xml, &len, err, sizeof err), -1);
  assert_null(xml);
  assert_non_null(strstr(err, "line 16: NIC 1 has no bus="));
  nn_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nics_on_their_sockets),
    cmocka_unit_test(test_one_socket_keeps_its_nics),
    cmocka_unit_test(test_nic_without_bus_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
