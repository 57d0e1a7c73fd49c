/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_tree.c - the validator's tree pass (cli/topo/topo_tree.c): what NCCL needs of a cpu,
 * and a GPU the file puts under another node than the mapping. */
#include "nn_test.h"

#include "cli/topo/topo_check.h"

static struct nn_topo_report check(const char *xml, const char *mapping) {
  char why[256] = "";
  int line = 0;
  xmlDocPtr doc = nn_topo_xml_read("t.xml", xml, strlen(xml), NULL, why, sizeof why, &line);
  if (!doc) fail_msg("does not parse: %s", why);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  if (mapping)
    assert_int_equal(nn_config_parse("m.conf", mapping, strlen(mapping), NULL, &cfg, &d), 0);
  struct nn_topo_report r = {0};
  nn_topo_check_tree(doc, cfg, &r);
  xmlFreeDoc(doc);
  nn_config_free(cfg);
  nn_diag_clear(&d);
  return r;
}

static int has(const struct nn_topo_report *r, int line, int warning, const char *sub) {
  for (int i = 0; i < r->n; i++)
    if (r->items[i].line == line && r->items[i].warning == warning && strstr(r->items[i].msg, sub))
      return 1;
  return 0;
}

static void test_cpu_needs(void **state) {
  (void)state;
  struct nn_topo_report r =
    check("<system version=\"1\">\n <cpu affinity=\"ff\">\n"
          "  <pci busid=\"0000:01:00.0\" class=\"0x030000\"/>\n </cpu>\n</system>\n",
          NULL);
  assert_int_equal(r.errors, 3);
  assert_true(has(&r, 2, 0, "cpu without numaid (NCCL requires it)"));
  assert_true(has(&r, 2, 0, "affinity 'ff' is not a sysfs cpumap"));
  assert_true(has(&r, 2, 0, "has no arch (x86_64, arm64 or ppc64)"));
  nn_topo_report_free(&r);
}

static void test_against_mapping(void **state) {
  (void)state;
  struct nn_topo_report r = check(
    "<system version=\"1\">\n"
    " <cpu numaid=\"1\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"26\" modelid=\"2\">\n"
    "  <pci busid=\"0000:01:00.0\" class=\"0x030000\"/>\n </cpu>\n</system>\n",
    "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(r.errors, 1);
  assert_int_equal(r.warnings, 1);
  assert_true(
    has(&r, 3, 0,
        "GPU 0 (0000:01:00.0) is under numaid 1, but the mapping (line 1) puts it on NUMA node 0"));
  assert_true(has(&r, 2, 1, "has no affinity"));
  nn_topo_report_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu_needs),
                                     cmocka_unit_test(test_against_mapping)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
