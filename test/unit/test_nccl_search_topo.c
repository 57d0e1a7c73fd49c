/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_search_topo.c - the system NCCL's search runs on: built from a mapping (served and
 * flat views) and read from sysfs as each release reads it. */
#include "nccl_model.h"
#include "nccl_search.h"
#include "nccl_search_topo.h"
#include "nn_config.h"
#include "nn_test.h"
#include "topology.h"

/* The served view of a mapping: one CPU per NUMA node in ascending order, GPUs in index order
 * under it, ranks in bus order; NCCL's flat view: one CPU numaid -1. */
static void test_build_from_mapping(void **state) {
  (void)state;
  struct nn_config *cfg =
    nn_test_parse("cpu vendor=AuthenticAMD family=25 model=17\n"
                  "gpu 0 bus=81:00.0 numa=1 pcie=5x16\ngpu 1 bus=01:00.0 numa=0 pcie=4x8\n"
                  "gpu 2 bus=82:00.0 numa=1\ngpu 3 bus=02:00.0 numa=0\n");
  const struct nn_nccl_release *r = nn_nccl_release_find(NN_NCCL_VERSION(2, 31, 2), NULL);
  struct nn_cpu_kind cpu = {"AuthenticAMD", 25, 17, 0};
  struct nn_pcie_link links[4] = {{5, 16, NN_LINK_CONFIG},
                                  {4, 8, NN_LINK_CONFIG},
                                  {0, 0, NN_LINK_ASSUMED},
                                  {0, 0, NN_LINK_ASSUMED}};
  struct nn_search_topo t;
  char err[128];
  assert_int_equal(cfg->gpus[0].pcie_gen, 5);
  assert_int_equal(cfg->gpus[1].pcie_width, 8);
  assert_int_equal(nn_search_topo_build(r, cfg, &cpu, 90, links, NULL, &t, err, sizeof err), 0);
  assert_int_equal(t.n_cpus, 2);
  assert_int_equal(t.cpu_numa[0], 0);
  assert_int_equal(t.gpu_rank[0], 0); /* GPU 1, bus 01 */
  assert_int_equal(t.gpu_rank[1], 1); /* GPU 3, bus 02 */
  assert_int_equal(t.gpu_rank[2], 2); /* GPU 0, bus 81 */
  assert_true(t.gpu_link_gbps[0] == 12.0f);
  assert_true(t.gpu_link_gbps[2] == 48.0f);
  assert_true(t.gpu_link_gbps[3] == 48.0f); /* unknown: assumed gen5 x16 */
  assert_true(t.cpu_link_gbps == 24.0f);
  int flat[4] = {-1, -1, -1, -1};
  assert_int_equal(nn_search_topo_build(r, cfg, &cpu, 90, links, flat, &t, err, sizeof err), 0);
  assert_int_equal(t.n_cpus, 1);
  assert_int_equal(t.cpu_numa[0], -1);
  nn_config_free(cfg);
  const char *bad_keys[] = {"pcie=7x16", "pcie=4x3",   "pcie=4",
                            "pcie=x16",  "pcie=4x16x", "pcie=gen4x16"};
  for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
    char text[128];
    struct nn_config *c2 = NULL;
    struct nn_diag d = {0};
    snprintf(text, sizeof text, "gpu 0 bus=01:00.0 numa=0 %s\n", bad_keys[i]);
    assert_int_equal(nn_config_parse("t.conf", text, strlen(text), NULL, &c2, &d), -1);
    assert_true(d.n >= 1 && strstr(d.msgs[0], "t.conf:1: gpu: bad pcie"));
    nn_diag_clear(&d);
  }
}

/* sysfs as each release reads it: 2.28 the lower of the GPU's and its port's maximum,
 * 2.30.7+ the GPU's current link (NVML's answer); `stable` always the maximum. */
static void test_sysfs(void **state) {
  (void)state;
  char root[] = "/tmp/nn-sysfs-XXXXXX", port[200], dev[300], cmd[1400];
  assert_non_null(mkdtemp(root));
  snprintf(port, sizeof port, "%s/sys/devices/pci0000:00/0000:00:01.0", root);
  snprintf(dev, sizeof dev, "%s/0000:01:00.0", port);
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s %s/sys/bus/pci/devices && ln -s %s %s/sys/bus/pci/devices/0000:01:00.0",
           dev, root, dev, root);
  assert_int_equal(system(cmd), 0);
  nn_test_put_file(dev, "max_link_speed", "32.0 GT/s PCIe\n");
  nn_test_put_file(dev, "max_link_width", "16\n");
  nn_test_put_file(dev, "current_link_speed", "2.5 GT/s PCIe\n");
  nn_test_put_file(dev, "current_link_width", "16\n");
  nn_test_put_file(dev, "numa_node", "1\n");
  nn_test_put_file(port, "max_link_speed", "16.0 GT/s PCIe\n");
  nn_test_put_file(port, "max_link_width", "16\n");
  struct nn_busid bus = {0, 1, 0, 0}, none = {0, 2, 0, 0};
  struct nn_pcie_link l;
  const struct nn_nccl_release *r228 = nn_nccl_release_find(22809, NULL),
                               *r230 = nn_nccl_release_find(23007, NULL);
  assert_int_equal(nn_search_read_sysfs_link(r228, root, &bus, 0, &l), 0);
  assert_int_equal(l.gen, 4); /* the port's 16 GT/s */
  assert_int_equal(l.width, 16);
  assert_int_equal(l.origin, NN_LINK_SYSFS);
  assert_int_equal(nn_search_read_sysfs_link(r230, root, &bus, 0, &l), 0);
  assert_int_equal(l.gen, 1); /* idle GPU: current 2.5 GT/s */
  assert_int_equal(nn_search_read_sysfs_link(r230, root, &bus, 1, &l), 0);
  assert_int_equal(l.gen, 4);
  assert_int_equal(nn_search_read_sysfs_link(r228, root, &none, 0, &l), -1);
  assert_int_equal(nn_search_read_sysfs_numa(root, &bus), 1);
  assert_int_equal(nn_search_read_sysfs_numa(root, &none), -1);
  nn_test_put_file(dev, "numa_node", "-1\n");
  assert_int_equal(nn_search_read_sysfs_numa(root, &bus), -1);
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  assert_int_equal(system(cmd), 0);
}

/* What the search does not model is refused with the reason: no GPUs, more GPUs than it
 * covers, more NUMA nodes holding GPUs than it covers. */
static void expect_refused(int n_gpus, int numa_mod, const char *want) {
  char text[4096] = "";
  size_t len = 0;
  for (int g = 0; g < n_gpus; g++)
    len += (size_t)snprintf(text + len, sizeof text - len, "gpu %d bus=%02x:00.0 numa=%d\n", g,
                            g + 1, g % numa_mod);
  struct nn_config *cfg = n_gpus ? nn_test_parse(text) : NULL;
  const struct nn_nccl_release *r = nn_nccl_release_find(NN_NCCL_VERSION(2, 28, 9), NULL);
  struct nn_cpu_kind cpu = {"AuthenticAMD", 25, 17, 0};
  struct nn_search_topo t;
  char err[128] = "";
  assert_int_equal(nn_search_topo_build(r, cfg, &cpu, 90, NULL, NULL, &t, err, sizeof err), -1);
  assert_string_equal(err, want);
  nn_config_free(cfg);
}

static void test_refused(void **state) {
  (void)state;
  expect_refused(0, 1, "the mapping has no gpu lines");
  expect_refused(NN_SEARCH_MAX_GPUS + 1, 2, "33 GPUs: the prediction covers at most 32");
  expect_refused(NN_SEARCH_MAX_CPUS + 1, NN_SEARCH_MAX_CPUS + 1,
                 "more than 16 NUMA nodes hold GPUs");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_build_from_mapping),
    cmocka_unit_test(test_sysfs),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
