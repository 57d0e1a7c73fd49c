/* test_topology.c - scope of communicators (contract note 12) and the CPU-link verdict (notes 22-23). */
#include "nn_config.h"
#include "nn_test.h"
#include "topology.h"

#define AMD "cpu vendor=AuthenticAMD family=25 model=17\n"
#define REF AMD \
  "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=1\ngpu 3 bus=04:00.0 numa=1\n" \
  "gpu 4 bus=05:00.0 numa=0\ngpu 5 bus=06:00.0 numa=0\ngpu 6 bus=07:00.0 numa=0\ngpu 7 bus=08:00.0 numa=0\n"

static void test_scope_reference(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF);
  assert_int_equal(nn_topology_scope(cfg, 4, 1), NN_SCOPE_INTRA);    /* TP=4: GPUs 0-3 / 4-7 */
  assert_int_equal(nn_topology_scope(cfg, 2, 1), NN_SCOPE_INTRA);
  assert_int_equal(nn_topology_scope(cfg, 1, 1), NN_SCOPE_INTRA);
  assert_int_equal(nn_topology_scope(cfg, 8, 1), NN_SCOPE_CROSS);    /* TP=8 */
  assert_int_equal(nn_topology_scope(cfg, 5, 1), NN_SCOPE_CROSS);    /* more than 4 per node */
  assert_int_equal(nn_topology_scope(cfg, 3, 1), NN_SCOPE_UNKNOWN);  /* 3 does not divide 8 */
  assert_int_equal(nn_topology_scope(cfg, 16, 2), NN_SCOPE_CROSS);   /* 8 per node */
  assert_int_equal(nn_topology_scope(cfg, 8, 2), NN_SCOPE_INTRA);    /* 4 per node */
  assert_int_equal(nn_topology_scope(cfg, 7, 2), NN_SCOPE_UNKNOWN);  /* not an integer per node */
  assert_int_equal(nn_topology_scope(cfg, 4, 0), NN_SCOPE_UNKNOWN);
  nn_config_free(cfg);
}

static void test_scope_interleaved_and_single(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n"
                                    "gpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=1\n");
  assert_int_equal(nn_topology_scope(cfg, 2, 1), NN_SCOPE_UNKNOWN);  /* blocks {0,1} straddle */
  assert_int_equal(nn_topology_scope(cfg, 3, 1), NN_SCOPE_CROSS);
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=3\ngpu 1 bus=02:00.0 numa=3\n");
  assert_int_equal(nn_topology_scope(cfg, 64, 1), NN_SCOPE_INTRA);   /* one NUMA node: always intra */
  nn_config_free(cfg);
  cfg = nn_test_parse("rule algo=ring\n");
  assert_int_equal(nn_topology_scope(cfg, 4, 1), NN_SCOPE_UNKNOWN);  /* no GPUs */
  nn_config_free(cfg);
  assert_int_equal(nn_topology_scope(NULL, 4, 1), NN_SCOPE_UNKNOWN);
}

static void test_cpu_kind(void **state) {
  (void)state;
  char *info = nn_test_write_file("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                  "model\t\t: 143\nmodel name\t: Xeon\n\nprocessor\t: 1\nvendor_id\t: X\n");
  struct nn_config *cfg = nn_test_parse("gpu 0 bus=01:00.0 numa=0\n");
  struct nn_cpu_kind cpu;
  char err[256];
  assert_int_equal(nn_topology_cpu_kind(cfg, info, &cpu, err, sizeof err), 0);
  assert_string_equal(cpu.vendor, "GenuineIntel");
  assert_int_equal(cpu.family, 6);
  assert_int_equal(cpu.model, 143);
  assert_int_equal(cpu.from_cpuinfo, 1);
  assert_true(nn_topology_cpu_link_gbps(&cpu) == 22.0);
  assert_int_equal(nn_topology_cpu_kind(cfg, "/nonexistent/cpuinfo", &cpu, err, sizeof err), -1);
  assert_non_null(strstr(err, "unreadable"));
  nn_config_free(cfg);
  nn_test_remove_file(info);
}

static void test_link_model(void **state) {
  (void)state;
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0}, spr = {"GenuineIntel", 6, 0xCF, 0},
                     icx = {"GenuineIntel", 6, 0x6A, 0}, old = {"GenuineIntel", 6, 0x3F, 0}, other = {"Weird", -1, -1, 0};
  assert_true(nn_topology_cpu_link_gbps(&amd) == 16.0);
  assert_true(nn_topology_cpu_link_gbps(&spr) == 40.0);
  assert_true(nn_topology_cpu_link_gbps(&icx) == 10.0);
  assert_true(nn_topology_cpu_link_gbps(&old) == 6.0);
  assert_true(nn_topology_cpu_link_gbps(&other) == 5000.0);
  assert_true(nn_topology_search_floor_gbps(120) == 18.0);
  assert_true(nn_topology_search_floor_gbps(0) == 18.0);
  assert_true(nn_topology_search_floor_gbps(90) == 3.0);
}

static void test_verdict(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF);
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0}, spr = {"GenuineIntel", 6, 207, 0};
  struct nn_topo_verdict v;
  nn_topology_verdict(cfg, &amd, 0, &v);          /* AMD, unknown sm: hazard */
  assert_int_equal(v.serve, 0);
  assert_non_null(strstr(v.reason, "16 GB/s"));
  assert_non_null(strstr(v.reason, "18 GB/s"));
  nn_topology_verdict(cfg, &amd, 90, &v);         /* Hopper: floor 3 GB/s */
  assert_int_equal(v.serve, 1);
  nn_topology_verdict(cfg, &spr, 120, &v);        /* modelled 40 GB/s */
  assert_int_equal(v.serve, 1);
  nn_config_free(cfg);
  cfg = nn_test_parse(REF "topology mode=numa\n");
  nn_topology_verdict(cfg, &amd, 120, &v);
  assert_int_equal(v.serve, 1);
  nn_config_free(cfg);
  cfg = nn_test_parse(REF "topology mode=off\n");
  nn_topology_verdict(cfg, &spr, 90, &v);
  assert_int_equal(v.serve, 0);
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0 sm=120\ngpu 1 bus=02:00.0 numa=0 sm=120\n");
  nn_topology_verdict(cfg, &amd, 0, &v);          /* one NUMA node: always safe */
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.sm, 120);
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0 sm=90\ngpu 1 bus=02:00.0 numa=1 sm=120\n");
  assert_int_equal(nn_topology_declared_sm(cfg), -1);
  nn_topology_verdict(cfg, &amd, 0, &v);
  assert_int_equal(v.serve, 0);
  nn_config_free(cfg);
}

static void test_describe_sockets(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF);
  char buf[64];
  nn_topology_describe_sockets(cfg, buf, sizeof buf);
  assert_string_equal(buf, "NUMA0=4 NUMA1=4");
  nn_config_free(cfg);
  nn_topology_describe_sockets(NULL, buf, sizeof buf);
  assert_string_equal(buf, "no GPUs mapped");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scope_reference), cmocka_unit_test(test_scope_interleaved_and_single),
    cmocka_unit_test(test_cpu_kind), cmocka_unit_test(test_link_model), cmocka_unit_test(test_verdict),
    cmocka_unit_test(test_describe_sockets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
