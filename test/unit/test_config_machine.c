/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_machine.c - the mapping parser, config_machine.c: what the machine is: gpu, numa and
 * cpu lines, limits, the host side. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void test_gpu_errors(void **state) {
  (void)state;
  expect_err("gpu\n", 1, "gpu: missing index");
  expect_err("gpu bus=01:00.0 numa=0\n", 1, "gpu: missing index");
  expect_err("gpu x bus=01:00.0 numa=0\n", 1, "gpu: bad index 'x' (expected 0-1023)");
  expect_err("gpu -1 bus=01:00.0 numa=0\n", 1, "gpu: bad index '-1'");
  expect_err("gpu 1024 bus=01:00.0 numa=0\n", 1, "gpu: bad index '1024'");
  expect_err("gpu 99999999999999999999999 bus=01:00.0 numa=0\n", 1, "gpu: bad index");
  expect_err("gpu 0 numa=0\n", 1, "gpu: missing bus=");
  expect_err("gpu 0 bus=01:00.0\n", 1, "gpu: missing numa=");
  expect_err("gpu 0 bus=01:00.0 numa=1024\n", 1,
             "gpu: bad numa '1024' (expected a NUMA node 0-1023)");
  expect_err("gpu 0 bus=01:00.0 numa=-1\n", 1, "gpu: bad numa '-1'");
  expect_err("gpu 0 bus=01:20.0 numa=0\n", 1, "gpu: bad bus id '01:20.0'");
  expect_err("gpu 0 bus=01:00.0 numa=0 host=xyz\n", 1, "gpu: bad host id 'xyz'");
  expect_err(GPUS2 "gpu 1 bus=03:00.0 numa=0\n", 3, "gpu: duplicate index 1 (first on line 2)");
  expect_err(GPUS2 "gpu 2 bus=00000000:02:00.0 numa=0\n", 3,
             "gpu: duplicate bus id 0000:02:00.0 (first on line 2)");
  expect_err("gpu 0 bus=01:00.0 numa=0 host=81:00.0\ngpu 1 bus=02:00.0 numa=0 host=0000:81:00.0\n",
             2, "gpu: duplicate host id 0000:81:00.0 (first on line 1)");
  expect_err("gpu 0 bus=01:00.0 numa=0 color=red\n", 1, "gpu: unknown key 'color'");
  expect_err("gpu 0 bus=01:00.0 numa=0 bus=02:00.0\n", 1, "gpu: key 'bus' given twice");
  expect_err("gpu 0 bus=01:00.0 numa=0 NUMA=0\n", 1, "gpu: key 'numa' given twice");
  expect_err("gpu 0 bus=01:00.0 numa=0 extra\n", 1, "gpu: expected KEY=VALUE, got 'extra'");
  expect_err("gpu 0 bus=01:00.0 numa=0 =5\n", 1, "gpu: expected KEY=VALUE, got '=5'");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=9\n", 1, "gpu: bad sm '9' (expected major*10+minor");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=1000\n", 1, "gpu: bad sm '1000'");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=12.0\n", 1, "gpu: bad sm '12.0'");
  expect_err("gpu 0 bus= numa=0\n", 1, "gpu: bad bus id ''");
}

static void test_gpu_missing_index(void **state) {
  (void)state;
  /* reported at the last gpu line, even with other lines after it */
  expect_err("gpu 0 bus=01:00.0 numa=0\n# c\ngpu 2 bus=02:00.0 numa=0\nrule algo=ring\n", 3,
             "gpu: index 1 missing (2 gpu lines need indices 0-1, each once)");
  expect_err("gpu 3 bus=01:00.0 numa=0\n", 1, "gpu: index 0 missing");
  expect_err("gpu 5 bus=01:00.0 numa=0\ngpu 6 bus=02:00.0 numa=0\ngpu 7 bus=03:00.0 numa=0\n", 3,
             "gpu: index 0, 1, 2 missing");
}

static void test_gpu_sm(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok("gpu 0 bus=01:00.0 numa=0 sm=10\ngpu 1 bus=02:00.0 numa=0 sm=999\n");
  assert_int_equal(c->gpus[0].sm, 10);
  assert_int_equal(c->gpus[1].sm, 999);
  nn_config_free(c);
}

static void test_numa_limits(void **state) {
  (void)state;
  /* 64 distinct nodes, ids up to 1023, pass; a 65th fails */
  size_t cap = 70 * 64;
  char *buf = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < 64; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:00.0 numa=%d\n", i, i, 1023 - i);
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(nn_config_numa_count(c), 64);
  assert_int_equal(nn_config_max_gpus_per_numa(c), 1);
  nn_config_free(c);
  snprintf(buf + len, cap - len, "gpu 64 bus=ff:00.0 numa=5\n");
  expect_err(buf, 65, "at most 64 distinct NUMA nodes");
  /* a rejected line does not use up a node: 63 nodes, a bad line on a new node, then
   * a good line on another new node gives the bad line's error only */
  len = 0;
  for (int i = 0; i < 63; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:00.0 numa=%d\n", i, i, 1023 - i);
  len +=
    (size_t)snprintf(buf + len, cap - len, "gpu 63 bus=zz numa=5\ngpu 64 bus=fe:00.0 numa=6\n");
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, NULL, &d), -1);
  assert_int_equal(d.n, 1);
  assert_true(has_msg(&d, NAME ":64: ", "gpu: bad bus id 'zz'"));
  nn_diag_clear(&d);
  free(buf);
}

static void test_gpu_limit(void **state) {
  (void)state;
  /* 1024 GPUs is the maximum; a 1025th line is refused by name */
  size_t cap = 1100 * 48;
  char *buf = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < 1024; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:%02x.%d numa=%d\n", i,
                            i / 32 / 8, i / 8 % 32, i % 8, i % 4);
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(c->n_gpus, 1024);
  assert_int_equal(c->gpus[1023].index, 1023);
  nn_config_free(c);
  snprintf(buf + len, cap - len, "gpu 0 bus=ff:00.0 numa=0\n");
  expect_err(buf, 1025, "gpu: too many gpu lines (at most 1024)");
  free(buf);
}

static void test_host_side(void **state) {
  (void)state;
  struct nn_parse_opts hs = {.flags = NN_PARSE_HOST_SIDE};
  static const char host_map[] =
    "# generated by nccl-numa discover --proxmox-vm; nccl-numa: host-side mapping\n"
    "gpu 0 numa=1 host=0000:f1:00.0\n"
    "gpu 1 numa=0 host=71:00.0\n";
  struct nn_config *c = parse_opts(host_map, &hs);
  assert_int_equal(c->host_side, 1);
  assert_int_equal(c->gpus[0].has_bus, 0);
  assert_int_equal(c->gpus[0].has_host, 1);
  assert_int_equal(c->gpus[1].numa, 0);
  nn_config_free(c);
  /* without the flag, bus= is required, and the hint names --host-side */
  expect_err(host_map, 2,
             "gpu: missing bus= (this is a host-side mapping: check it with --host-side");
  /* with the flag, host= is required; bus= may still be given */
  expect_err_len_opts("gpu 0 bus=01:00.0 numa=0\n", 25, 1,
                      "gpu: missing host= (a host-side mapping needs it)", &hs);
  c = parse_opts("gpu 0 bus=01:00.0 numa=0 host=81:00.0\n", &hs);
  assert_int_equal(c->gpus[0].has_bus, 1);
  assert_int_equal(c->host_side, 0);
  nn_config_free(c);
  /* the marker is found in any comment line, before or after the gpu lines */
  c = parse_ok("env NCCL_SOCKET_IFNAME=nccl-numa\n# note: nccl-numa: host-side mapping\n");
  assert_int_equal(c->host_side, 1);
  nn_config_free(c);
}

static void test_numa_lines(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 "numa 0 cpus=0-3,8,10-11\nnuma 7 cpus=100\n");
  assert_int_equal(c->n_numas, 2); /* node 7 holds no GPU: accepted */
  assert_string_equal(nn_config_find_numa(c, 7)->cpus, "100");
  assert_int_equal(nn_config_numa_count(c), 2);
  nn_config_free(c);
  expect_err("numa 0\n", 1, "numa: missing cpus=");
  expect_err("numa cpus=0-3\n", 1, "numa: missing node");
  expect_err("numa 1024 cpus=0\n", 1, "numa: bad node '1024'");
  expect_err("numa 0 cpus=0-3\nnuma 0 cpus=4-7\n", 2,
             "numa: second line for node 0 (first on line 1)");
  expect_err("numa 0 cpus=\n", 1, "numa: bad cpus list '': the list is empty");
  expect_err("numa 0 cpus=0-3,\n", 1, "numa: bad cpus list '0-3,': an item is empty");
  expect_err("numa 0 cpus=3-1\n", 1, "range 3-1 is inverted");
  expect_err("numa 0 cpus=a-b\n", 1, "expected N or N-M items separated by commas");
  expect_err("numa 0 cpus=0-3-5\n", 1, "expected N or N-M items");
  expect_err("numa 0 cpus=-3\n", 1, "expected N or N-M items");
  expect_err("numa 0 cpus=4096\n", 1, "CPU numbers go up to 4095");
  expect_err("numa 0 cpus=0 cpus=1\n", 1, "numa: key 'cpus' given twice");
  expect_err("numa 0 cpus=0 mem=1\n", 1, "numa: unknown key 'mem'");
  /* 28 words = 8*28 + 27 = 251 characters fit; 29 words = 260 do not */
  c = parse_ok("numa 0 cpus=0-895\n");
  nn_config_free(c);
  expect_err("numa 0 cpus=0-895,896\n", 1,
             "CPU 896 makes an affinity mask of 260 characters, over NCCL's 255-character");
  expect_err("numa 0 cpus=4095\n", 1, "over NCCL's 255-character attribute limit");
}

static void test_cpulist_helpers(void **state) {
  (void)state;
  uint32_t mask[NN_CPUMASK_WORDS];
  char err[96], buf[300];
  assert_int_equal(nn_cpulist_parse("0-31,64-95", mask, err, sizeof err), 95);
  assert_int_equal(nn_cpumask_format(mask, 95, buf, sizeof buf), 26);
  assert_string_equal(buf, "ffffffff,00000000,ffffffff");
  assert_int_equal(nn_cpulist_parse("33,1", mask, err, sizeof err), 33);
  assert_int_equal(nn_cpumask_format(mask, 63, buf, sizeof buf), 17);
  assert_string_equal(buf, "00000002,00000002");
  assert_int_equal(nn_cpumask_format(mask, 63, buf, 17), -1); /* no room for the NUL */
  assert_int_equal(nn_cpulist_parse("1,,2", mask, err, sizeof err), -1);
  assert_string_equal(err, "an item is empty");
  assert_int_equal(nn_cpulist_parse(NULL, NULL, NULL, 0), -1);
}

static char *cpuinfo_file(const char *vendor, int family, int model) {
  char text[256];
  snprintf(text, sizeof text,
           "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
           "model name\t: Test CPU\n\nprocessor\t: 1\nvendor_id\t: Other\n",
           vendor, family, model);
  return nn_test_write_file(text);
}

static void test_cpu_lines(void **state) {
  (void)state;
  char *amd = cpuinfo_file("AuthenticAMD", 25, 17);
  char *intel = cpuinfo_file("GenuineIntel", 6, 143);
  struct nn_parse_opts on_amd = {.cpuinfo_path = amd}, on_intel = {.cpuinfo_path = intel};
  const char *gi = "cpu vendor=genuineintel\n";
  expect_err_len_opts(gi, strlen(gi), 1,
                      "cpu: vendor=GenuineIntel needs family= and model=", &on_amd);
  expect_err_len_opts("cpu vendor=GenuineIntel family=6\n", 33, 1,
                      "needs family= and model=", &on_amd);
  struct nn_config *c = parse_opts(gi, &on_intel);
  assert_string_equal(c->cpu.vendor, "GenuineIntel");
  assert_int_equal(c->cpu.family, -1); /* as written; the host supplies it */
  nn_config_free(c);
  c = parse_opts("cpu vendor=GenuineIntel family=0x6 model=0xCF\n", &on_amd);
  assert_int_equal(c->cpu.family, 6);
  assert_int_equal(c->cpu.model, 207);
  assert_int_equal(c->cpu.line, 1);
  nn_config_free(c);
  struct nn_parse_opts missing = {.cpuinfo_path = "/nonexistent/cpuinfo"};
  expect_err_len_opts(gi, strlen(gi), 1, "this host's /nonexistent/cpuinfo does not describe",
                      &missing);
  c = parse_opts("cpu vendor=AuthenticAMD\n", &missing);
  assert_int_equal(c->cpu.present, 1);
  nn_config_free(c);
  expect_err("cpu family=25\n", 1, "cpu: missing vendor=");
  expect_err("cpu vendor=CentaurHauls\n", 1,
             "cpu: unknown vendor 'CentaurHauls' (expected AuthenticAMD or GenuineIntel)");
  expect_err("cpu vendor=AuthenticAMD\ncpu vendor=AuthenticAMD\n", 2,
             "cpu: second cpu line (first on line 1)");
  expect_err("cpu vendor=AuthenticAMD family=x\n", 1, "cpu: bad family 'x'");
  expect_err("cpu vendor=AuthenticAMD model=0x\n", 1, "cpu: bad model '0x'");
  expect_err("cpu vendor=AuthenticAMD model=65536\n", 1, "cpu: bad model '65536'");
  expect_err("cpu vendor=AuthenticAMD stepping=1\n", 1, "cpu: unknown key 'stepping'");
  char vendor[16];
  int fam, mod;
  assert_int_equal(nn_cpuinfo_read(intel, vendor, &fam, &mod), 0);
  assert_string_equal(vendor, "GenuineIntel");
  assert_int_equal(fam, 6);
  assert_int_equal(mod, 143);
  assert_int_equal(nn_cpuinfo_read("/nonexistent", vendor, &fam, &mod), -1);
  nn_test_remove_file(amd);
  nn_test_remove_file(intel);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gpu_errors), cmocka_unit_test(test_gpu_missing_index),
    cmocka_unit_test(test_gpu_sm),     cmocka_unit_test(test_numa_limits),
    cmocka_unit_test(test_gpu_limit),  cmocka_unit_test(test_host_side),
    cmocka_unit_test(test_numa_lines), cmocka_unit_test(test_cpulist_helpers),
    cmocka_unit_test(test_cpu_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
