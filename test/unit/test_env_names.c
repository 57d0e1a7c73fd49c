/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_names.c - what a mapping's `env` line may serve (plugin/core/env_names.c): the
 * allow-list sorted and served, and each kind of refusal in words. */
#include "nn_test.h"

#include "env_names.h"

static void test_allowed(void **state) {
  (void)state;
  int n = 0;
  for (; nn_env_allowed_name(n); n++) {
    assert_null(nn_env_refusal(nn_env_allowed_name(n)));
    if (n)
      assert_true(strcmp(nn_env_allowed_name(n - 1), nn_env_allowed_name(n)) <
                  0); /* sorted, no duplicates: bsearch */
  }
  assert_true(n > 20);
  assert_null(nn_env_refusal("NCCL_P2P_DISABLE"));
  assert_null(nn_env_refusal("NCCL_SOCKET_IFNAME"));
}

static void test_refused(void **state) {
  (void)state;
  const char *names[] = {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN",    "NCCL_DEBUG_FILE",
                         "NCCL_TOPO_FILE",  "NCCL_COMM_ID",         "NCCL_NUMA_CONFIG",
                         "LD_PRELOAD",      "NCCL_NOT_A_REAL_NAME", NULL};
  for (int i = 0; names[i]; i++) {
    const char *why = nn_env_refusal(names[i]);
    if (!why) fail_msg("%s was allowed", names[i]);
    else assert_true(strlen(why) > 10);
  }
  const char *plugin = nn_env_refusal("NCCL_NET_PLUGIN");
  assert_non_null(plugin);
  assert_non_null(strstr(plugin, "librar"));
}

/* The value grammar: for each kind, what is served and what is refused, and the rule named. */
static void value_is(const char *name, const char *value, int ok) {
  char why[640];
  const char *r = nn_env_value_refusal(name, value, why, sizeof why);
  if (ok && r) fail_msg("%s=%.60s refused: %s", name, value, r);
  if (!ok && !r) fail_msg("%s=%.60s served", name, value);
  if (!ok && !strstr(r, name)) fail_msg("the refusal does not name %s: %s", name, r);
}

static void test_values_numbers(void **state) {
  (void)state;
  value_is("NCCL_IB_SL", "0", 1);
  value_is("NCCL_IB_SL", "15", 1);
  value_is("NCCL_IB_SL", "16", 0);
  value_is("NCCL_IB_SL", "-1", 0);
  value_is("NCCL_IB_SL", "0x1", 0);
  value_is("NCCL_IB_SL", " 1", 0);
  value_is("NCCL_BUFFSIZE", "4194304", 1);
  value_is("NCCL_BUFFSIZE", "99999999999999999999999", 0); /* strtoll would saturate */
  value_is("NCCL_P2P_DISABLE", "1", 1);
  value_is("NCCL_P2P_DISABLE", "2", 0);
  value_is("NCCL_MAX_NCHANNELS", "64", 1);
  value_is("NCCL_MAX_NCHANNELS", "65", 0);
  value_is("NCCL_IB_SL", "", 1); /* "": NCCL's default */
}

static void test_values_words(void **state) {
  (void)state;
  value_is("NCCL_DEBUG", "info", 1);
  value_is("NCCL_DEBUG", "LOUD", 0);
  value_is("NCCL_SOCKET_FAMILY", "AF_INET6", 1);
  value_is("NCCL_SOCKET_FAMILY", "af_inet6", 0); /* NCCL compares with strcmp */
  value_is("NCCL_P2P_LEVEL", "SYS", 1);
  value_is("NCCL_P2P_LEVEL", "5", 1);
  value_is("NCCL_P2P_LEVEL", "99999999999", 0); /* wraps to -1 in ncclGetLevel: an index */
  value_is("NCCL_ALGO", "ring", 1);
  value_is("NCCL_ALGO", "^NVLS,PAT;allreduce:tree,ring;broadcast:ring", 1);
  value_is("NCCL_ALGO", "ring;tree", 0); /* a second section without a function */
  value_is("NCCL_ALGO", "warp", 0);
  value_is("NCCL_PROTO", "LL,Simple;allreduce:^LL", 1);
  value_is("NCCL_PROTO", "LL,,Simple", 0);
  value_is("NCCL_DEBUG_SUBSYS", "^INIT,COLL", 1);
  value_is("NCCL_DEBUG_SUBSYS", "INIT,NOPE", 0);
}

static void test_values_interfaces(void **state) {
  (void)state;
  char big[3001];
  memset(big, 'A', 3000);
  big[3000] = 0;
  value_is("NCCL_SOCKET_IFNAME", big, 0); /* smashed NCCL 2.28.9's stack */
  char n63[64], n64[65];
  memset(n63, 'e', 63);
  n63[63] = 0;
  memset(n64, 'e', 64);
  n64[64] = 0;
  value_is("NCCL_SOCKET_IFNAME", n63, 1);
  value_is("NCCL_SOCKET_IFNAME", n64, 0);
  value_is("NCCL_SOCKET_IFNAME", "^=eth0,ib0.100,enp1s0f1", 1);
  value_is("NCCL_SOCKET_IFNAME", "=^eth0", 0);
  value_is("NCCL_IB_HCA", "mlx5_0:1,mlx5_1:1", 1);
  value_is("NCCL_IB_HCA", "mlx5_0:", 1); /* an empty port: any port (2.30.7; test_env_release.c) */
  value_is("NCCL_IB_HCA", "mlx5_0:70000", 0);
  value_is("NCCL_IB_HCA", "mlx5 0", 0);
  value_is("NCCL_IB_HCA", "a,,b", 0);
  char list[200] = "";
  for (int i = 0; i < 16; i++) strcat(list, i ? ",e" : "e");
  value_is("NCCL_SOCKET_IFNAME", list, 1);
  strcat(list, ",e");
  value_is("NCCL_SOCKET_IFNAME", list, 0); /* 17 entries */
  char why[640];
  assert_non_null(nn_env_value_refusal("NCCL_SOCKET_IFNAME", big, why, sizeof why));
  assert_non_null(strstr(why, "longer than 255 bytes"));
}

/* Every allowed name has a rule in words, and refuses a value of 256 bytes. */
static void test_every_name_bounded(void **state) {
  (void)state;
  char big[257], rule[512], why[640];
  memset(big, '1', 256);
  big[256] = 0;
  for (int i = 0; nn_env_allowed_name(i); i++) {
    const char *name = nn_env_allowed_name(i);
    assert_true(strlen(nn_env_value_rule(name, rule, sizeof rule)) > 10);
    assert_non_null(nn_env_value_refusal(name, big, why, sizeof why));
  }
  assert_string_equal(nn_env_value_rule("NCCL_NET_PLUGIN", rule, sizeof rule), "");
}

/* What NCCL can run (env_names.h): numbers as NCCL reads them, floors, LL128 and algorithms,
 * and the forms later releases read. */
static void refused_because(const char *name, const char *value, const char *why) {
  char buf[640];
  const char *r = nn_env_value_refusal(name, value, buf, sizeof buf);
  if (!r || !strstr(r, why))
    fail_msg("%s=%s: wanted a refusal saying '%s', got %s", name, value, why, r ? r : "none");
}

static void test_numbers_as_nccl_reads_them(void **state) {
  (void)state;
  value_is("NCCL_MAX_NCHANNELS", "08", 0); /* strtoll base 0: 0, then 1 channel */
  value_is("NCCL_IB_TIMEOUT", "010", 0);   /* octal: 8 */
  value_is("NCCL_IB_TIMEOUT", "10", 1);
  value_is("NCCL_IB_SL", "0", 1);
  value_is("NCCL_IB_SL", "00", 0);
  value_is("NCCL_P2P_LEVEL", "7", 1); /* ncclGetLevel clamps old numbers above 5 to SYS */
  value_is("NCCL_P2P_LEVEL", "99", 1);
  value_is("NCCL_P2P_LEVEL", "100", 0);
  value_is("NCCL_NET_GDR_LEVEL", "6", 1);
}

static void test_floors(void **state) {
  (void)state;
  value_is("NCCL_BUFFSIZE", "4095", 0); /* a zero Simple chunk (test_env_floors.c) */
  value_is("NCCL_BUFFSIZE", "65535", 0);
  value_is("NCCL_BUFFSIZE", "65536", 1);
  value_is("NCCL_LL_BUFFSIZE", "255", 0);
  value_is("NCCL_LL_BUFFSIZE", "4096", 1);
  value_is("NCCL_LL128_BUFFSIZE", "16383", 0);
  value_is("NCCL_LL128_BUFFSIZE", "262144", 1);
  value_is("NCCL_P2P_PCI_CHUNKSIZE", "7", 0);
  value_is("NCCL_P2P_PCI_CHUNKSIZE", "8192", 1);
  value_is("NCCL_CHUNK_SIZE", "1", 0);
  value_is("NCCL_WORK_FIFO_BYTES", "1048576", 1);
  value_is("NCCL_WORK_FIFO_BYTES", "1000000", 0); /* not a power of two: NCCL ignores it */
  value_is("NCCL_WORK_FIFO_BYTES", "32768", 0);
  value_is("NCCL_WORK_FIFO_BYTES", "65536", 1);
}

static void test_algorithms_and_protocols(void **state) {
  (void)state;
  refused_because("NCCL_PROTO", "LL128", "LL128 may not be forced on");
  refused_because("NCCL_PROTO", "LL,LL128,Simple", "LL128 may not be forced on");
  refused_because("NCCL_PROTO", "Simple;allreduce:LL128", "LL128 may not be forced on");
  value_is("NCCL_PROTO", "^LL128", 1);
  value_is("NCCL_PROTO", "LL,Simple;allreduce:^LL128", 1);
  refused_because("NCCL_ALGO", "NVLS", "every collective would fail");
  refused_because("NCCL_ALGO", "nvlstree,collnetdirect,collnetchain",
                  "every collective would fail");
  refused_because("NCCL_ALGO", "^Ring,Tree,PAT", "every collective would fail");
  refused_because("NCCL_ALGO", "ring;allreduce:NVLS", "every collective would fail");
  value_is("NCCL_ALGO", "NVLS,Ring", 1);
  value_is("NCCL_ALGO", "^NVLS,NVLSTree,CollNetDirect,CollNetChain", 1);
  value_is("NCCL_ALGO", "LL128", 0); /* a protocol, not an algorithm */
}

static void test_release_forms(void **state) {
  (void)state;
  value_is("NCCL_IB_HCA", "mlx5_0:1:0:1,mlx5_1::0:0", 1); /* 2.30.7's hca:port:rail:plane */
  value_is("NCCL_IB_HCA", "mlx5_0:", 1);
  value_is("NCCL_IB_HCA", "mlx5_0:1:0:1:2", 0);
  value_is("NCCL_IB_HCA", "mlx5_0:1:40000", 0);
  value_is("NCCL_IB_HCA", "mlx5_0:01", 0);
  char list[200] = "";
  for (int i = 0; i < 32; i++) strcat(list, i ? ",m" : "m");
  value_is("NCCL_IB_HCA", list, 1);        /* MAX_IB_DEVS */
  value_is("NCCL_SOCKET_IFNAME", list, 0); /* MAX_IFS 16 */
  strcat(list, ",m");
  value_is("NCCL_IB_HCA", list, 0);
  value_is("NCCL_SOCKET_IFNAME", "eth0::1", 0);
  value_is("NCCL_CTA_POLICY", "EFFICIENCY|ZERO", 1);
  value_is("NCCL_CTA_POLICY", "efficiency", 1);
  value_is("NCCL_CTA_POLICY", "2", 1);
  value_is("NCCL_CTA_POLICY", "3", 0);
  value_is("NCCL_CTA_POLICY", "ZERO||DEFAULT", 0);
  value_is("NCCL_NET_MERGE_POLICY", "rail", 1);
  value_is("NCCL_NET_MERGE_POLICY", "BOTH", 0);
  value_is("NCCL_NETDEVS_POLICY", "AUTO", 1);
  value_is("NCCL_NETDEVS_POLICY", "max:2", 1);
  value_is("NCCL_NETDEVS_POLICY", "MAX:0", 0);
  value_is("NCCL_NETDEVS_POLICY", "MAX:", 0);
  value_is("NCCL_NETDEVS_POLICY", "MAX:65", 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_allowed),
                                     cmocka_unit_test(test_refused),
                                     cmocka_unit_test(test_values_numbers),
                                     cmocka_unit_test(test_values_words),
                                     cmocka_unit_test(test_numbers_as_nccl_reads_them),
                                     cmocka_unit_test(test_floors),
                                     cmocka_unit_test(test_algorithms_and_protocols),
                                     cmocka_unit_test(test_release_forms),
                                     cmocka_unit_test(test_values_interfaces),
                                     cmocka_unit_test(test_every_name_bounded)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
