/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gpukit.c - the GPU kit's CPU-side pieces: the driver's output read back by the
 * project's nccl-tests parser, and the NCCL log parsers on excerpts in the formats of
 * NCCL 2.28.9 and 2.30.7 (test/fixtures/nccl-logs). Run from the repository root. */
#include "nn_test.h"

#include "cli/sweep/nccltests.h"
#include "driver_format.h"
#include "nclog.h"

#define LOGS "test/fixtures/nccl-logs/"

/* A sweep printed exactly as nn_coll_driver prints it. */
static char *print_sweep(int check, long wrong_at_2k, size_t *len) {
  struct nn_drv_rank ranks[2] = {{.pid = 42, .device = 0, .bus = 0x17, .name = "NVIDIA H200"},
                                 {.pid = 42, .device = 0, .bus = 0x17, .name = "NVIDIA H200"}};
  struct nn_drv_run r = {.op = "all_reduce",
                         .nccl_code = 23007,
                         .headers_code = 23007,
                         .nthreads = 2,
                         .minb = 8,
                         .maxb = 8192,
                         .factor = 4,
                         .warmup = 1,
                         .iters = 5,
                         .check = check,
                         .host = "h200",
                         .ranks = ranks,
                         .nranks = 2};
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  assert_non_null(f);
  nn_drv_print_header(f, &r);
  for (size_t b = 8; b <= 8192; b *= 4) {
    double t[2] = {10e-6 + (double)b * 1e-9, 11e-6 + (double)b * 1e-9};
    long w[2] = {0, b == 2048 ? wrong_at_2k : 0};
    nn_drv_print_row(f, &r, b, b / 4, t, w);
  }
  nn_drv_print_footer(f, &r, wrong_at_2k, 0.5);
  fclose(f);
  return buf;
}

static void driver_rows_parse(void **state) {
  (void)state;
  size_t len;
  char *out = print_sweep(1, 0, &len);
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(nn_nccltests_parse(out, len, &r, err, sizeof err), 0);
  assert_int_equal(r.n_rows, 6); /* 8, 32, 128, 512, 2048, 8192 */
  assert_int_equal(r.rows[5].size, 8192);
  assert_int_equal(r.rows[5].count, 2048);
  assert_string_equal(r.rows[0].type, "float");
  assert_int_equal(r.rows[0].root, -1);
  /* 8192 B in 18.192 us: algbw 0.45 GB/s, busbw x 2(n-1)/n = 1 for two ranks */
  assert_true(r.rows[5].oop.time_us > 18.18 && r.rows[5].oop.time_us < 18.20);
  assert_true(r.rows[5].oop.algbw > 0.44 && r.rows[5].oop.algbw < 0.46);
  assert_true(r.rows[5].oop.busbw == r.rows[5].oop.algbw);
  assert_true(r.rows[5].inplace.present && r.rows[5].inplace.wrong_known);
  for (int i = 0; i < r.n_rows; i++) assert_false(nn_nccltests_row_failed(&r.rows[i]));
  assert_int_equal(r.nccl_code, 23007);
  assert_int_equal(r.n_ranks, 2);
  assert_int_equal(r.n_threads, 2);
  assert_string_equal(r.device_name, "NVIDIA H200");
  assert_true(r.concluded);
  nn_nccltests_free(&r);
  free(out);
}

static void driver_wrong_and_unchecked(void **state) {
  (void)state;
  size_t len;
  char *out = print_sweep(1, 3, &len);
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(nn_nccltests_parse(out, len, &r, err, sizeof err), 0);
  assert_true(nn_nccltests_row_failed(&r.rows[4])); /* 2048 B in place: 3 wrong */
  assert_false(nn_nccltests_row_failed(&r.rows[3]));
  assert_int_equal(r.oob_count, 3);
  nn_nccltests_free(&r);
  free(out);
  out = print_sweep(0, 0, &len);
  assert_int_equal(nn_nccltests_parse(out, len, &r, err, sizeof err), 0);
  assert_false(r.rows[0].oop.wrong_known); /* -c 0 prints N/A */
  nn_nccltests_free(&r);
  free(out);
}

static void bus_factors(void **state) {
  (void)state;
  assert_true(nn_drv_bus_factor("all_reduce", 4) == 1.5);
  assert_true(nn_drv_bus_factor("all_gather", 4) == 0.75);
  assert_true(nn_drv_bus_factor("reduce_scatter", 1) == 0.0);
}

static void plugins_both_releases(void **state) {
  (void)state;
  size_t len;
  char *log = nn_test_slurp(LOGS "2.28.9-one-rank.log", &len);
  struct nn_nclog_plugins p;
  nn_nclog_plugins(log, len, &p);
  assert_int_equal(p.nccl_code, 22809);
  assert_string_equal(p.env_name, "nccl-numa");
  assert_int_equal(p.env_abi, 1);
  assert_string_equal(p.tuner_name, "nccl-numa");
  assert_int_equal(p.tuner_abi, 5);
  free(log);
  log = nn_test_slurp(LOGS "2.30.7-one-rank.log", &len);
  nn_nclog_plugins(log, len, &p);
  assert_int_equal(p.nccl_code, 23007);
  assert_int_equal(p.env_abi, 2);
  assert_int_equal(p.tuner_abi, 6);
  free(log);
}

static void expected_abis(void **state) {
  (void)state;
  int env, tuner;
  nn_nclog_expected_abi(21903, &env, &tuner); /* older than every row: no plugin at all */
  assert_true(env == 0 && tuner == 0);
  nn_nclog_expected_abi(22105, &env, &tuner);
  assert_true(env == 0 && tuner == 2);
  nn_nclog_expected_abi(22304, &env, &tuner);
  assert_true(env == 0 && tuner == 3);
  nn_nclog_expected_abi(22707, &env, &tuner);
  assert_true(env == 0 && tuner == 4);
  nn_nclog_expected_abi(22806, &env, &tuner);
  assert_true(env == 0 && tuner == 5);
  nn_nclog_expected_abi(22809, &env, &tuner);
  assert_true(env == 1 && tuner == 5);
  nn_nclog_expected_abi(23003, &env, &tuner);
  assert_true(env == 1 && tuner == 6);
  nn_nclog_expected_abi(23203, &env, &tuner);
  assert_true(env == 2 && tuner == 6);
}

static void init_lines(void **state) {
  (void)state;
  size_t len;
  char *log = nn_test_slurp(LOGS "2.28.9-one-rank.log", &len);
  struct nn_nclog_init in;
  nn_nclog_init(log, len, &in);
  assert_int_equal(in.tuner_abi, 5);
  assert_string_equal(in.tuner_config, "/work/kit/one-rank.conf");
  assert_string_equal(in.tuner_hash, "3fa01c7e");
  assert_string_equal(in.env_hash, "3fa01c7e");
  assert_int_equal(in.n_ranks, 1);
  assert_int_equal(in.n_nodes, 1);
  assert_string_equal(in.scope, "intra");
  assert_int_equal(in.env_abi, 1); /* env plugin v1: the plugin's own stderr line */
  assert_string_equal(in.env_config, "/work/kit/one-rank.conf");
  assert_string_equal(in.env_status, "ok");
  assert_string_equal(in.served, "/proc/self/fd/7");
  assert_string_equal(in.served_file, "/run/user/0/nccl-numa/topo-5f2e.xml");
  assert_string_equal(in.nccl_topo_file, "/proc/self/fd/7");
  free(log);
}

static void init_line_without_version(void **state) {
  (void)state;
  const char *log =
    "h:1:1 [0] NCCL INFO nccl-numa: tuner v3, config /etc/nccl-numa.conf (NUMA0=2), comm 0x1 "
    "nRanks 2 nNodes 1 scope cross, 0 of 0 rules apply, x\n";
  struct nn_nclog_init in;
  nn_nclog_init(log, strlen(log), &in);
  assert_int_equal(in.tuner_abi, 3);
  assert_string_equal(in.tuner_config, "/etc/nccl-numa.conf");
  assert_string_equal(in.scope, "cross");
  assert_int_equal(in.env_abi, 0);
  assert_string_equal(in.served, "");
}

static void topology_print(void **state) {
  (void)state;
  size_t len;
  char *log = nn_test_slurp(LOGS "2.28.9-one-rank.log", &len);
  struct nn_nclog_topo t;
  nn_nclog_topo(log, len, &t);
  assert_true(t.found);
  assert_true(t.max_bw == 24.0);
  assert_int_equal(t.n_cpus, 2);
  assert_int_equal(t.cpus[1].numa, 1);
  assert_int_equal(t.cpus[1].vendor, 2);
  assert_int_equal(t.n_links, 3);
  assert_string_equal(t.links[0].type, "SYS");
  assert_true(t.links[0].bw == 16.0);
  assert_string_equal(t.links[0].to, "CPU/0-1");
  assert_string_equal(t.links[1].type, "PCI");
  assert_int_equal(t.links[1].from_numa, 1);
  assert_string_equal(t.links[1].to, "GPU/0-17000");
  free(log);
}

static void tuning_lines(void **state) {
  (void)state;
  size_t len;
  char *log = nn_test_slurp(LOGS "2.30.7-two-ranks-rules.log", &len);
  struct nn_nclog_choice *c = NULL;
  int n = nn_nclog_tuning(log, len, &c);
  assert_int_equal(n, 22 + 4); /* the COLL lines ("opCount") are not choices */
  assert_string_equal(c[0].func, "AllReduce");
  assert_int_equal(c[0].bytes, 8);
  assert_string_equal(c[0].algo, "RING");
  assert_string_equal(c[0].proto, "SIMPLE");
  assert_string_equal(c[n - 1].func, "AllGather");
  assert_int_equal(c[n - 1].bytes, 524288);
  assert_int_equal(nn_nclog_nbytes(&c[n - 1], 2), 1048576); /* one rank's part logged */
  assert_int_equal(nn_nclog_nbytes(&c[0], 2), 8);
  free(c);
  free(log);
  assert_string_equal(nn_nclog_func_name("reducescatter"), "ReduceScatter");
  assert_null(nn_nclog_func_name("alltoall"));
}

static void dump_placement(void **state) {
  (void)state;
  size_t len;
  char *xml = nn_test_slurp(LOGS "dump-two-cpus.xml", &len);
  struct nn_busid bus;
  assert_int_equal(nn_busid_parse("17:00.0", &bus), 0);
  int numa = -1, gpu = 0;
  char err[256];
  assert_int_equal(nn_nclog_dump_numa(xml, len, &bus, &numa, &gpu, err, sizeof err), 0);
  assert_int_equal(numa, 1);
  assert_true(gpu);
  assert_int_equal(nn_busid_parse("0000:18:00.0", &bus), 0);
  assert_int_equal(nn_nclog_dump_numa(xml, len, &bus, &numa, &gpu, err, sizeof err), -1);
  assert_non_null(strstr(err, "no <pci busid=\"0000:18:00.0\">"));
  struct nn_nclog_cpu_kind k;
  assert_int_equal(nn_nclog_dump_cpu_kind(xml, len, 1, &k), 0);
  assert_string_equal(k.vendor, "AuthenticAMD");
  assert_string_equal(k.arch, "x86_64");
  assert_true(k.family == 25 && k.model == 17);
  assert_int_equal(nn_nclog_dump_cpu_kind(xml, len, 2, &k), -1);
  const char *evil = "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><system>&e;</system>";
  assert_int_equal(nn_nclog_dump_numa(evil, strlen(evil), &bus, &numa, &gpu, err, sizeof err), -1);
  free(xml);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(driver_rows_parse),
    cmocka_unit_test(driver_wrong_and_unchecked),
    cmocka_unit_test(bus_factors),
    cmocka_unit_test(plugins_both_releases),
    cmocka_unit_test(expected_abis),
    cmocka_unit_test(init_lines),
    cmocka_unit_test(init_line_without_version),
    cmocka_unit_test(topology_print),
    cmocka_unit_test(tuning_lines),
    cmocka_unit_test(dump_placement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
