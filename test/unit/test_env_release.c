/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_release.c - what NCCL can run from a mapping's `env` lines (env_names.h): numbers as
 * NCCL reads them (no leading zero: base-0 strtoll), buffer, chunk and FIFO floors, LL128 never
 * forced on, NCCL_ALGO always leaving a PCIe machine an algorithm; the forms a release reads
 * (IB_HCA's rail form and 32 entries, CTA_POLICY's names, P2P level numbers, the policy names of
 * 2.28.3 and 2.30.7); and, through the env plugin, a name the loaded release does not read
 * served with one WARN naming the release, a value it would misread not served. Which release
 * reads what is a fact of the release table, checked here to change once, in release order. */
#include "nn_test.h"

#include <stddef.h>
#include <sys/stat.h>

#include "env.h"
#include "env_names.h"
#include "nccl_abi.h"
#include "nccl_model.h"

static void value_is(const char *name, const char *value, int ok) {
  char why[640];
  const char *r = nn_env_value_refusal(name, value, why, sizeof why);
  if (ok && r) fail_msg("%s=%.60s refused: %s", name, value, r);
  if (!ok && !r) fail_msg("%s=%.60s served", name, value);
  if (!ok && !strstr(r, name)) fail_msg("the refusal does not name %s: %s", name, r);
}

static void refused_because(const char *name, const char *value, const char *why) {
  char buf[640];
  const char *r = nn_env_value_refusal(name, value, buf, sizeof buf);
  if (!r || !strstr(r, why)) fail_msg("%s=%s: wanted a refusal saying '%s', got %s", name, value, why, r ? r : "none");
}

static void test_numbers_as_nccl_reads_them(void **state) {
  (void)state;
  value_is("NCCL_MAX_NCHANNELS", "08", 0);   /* strtoll base 0: 0, then 1 channel */
  value_is("NCCL_IB_TIMEOUT", "010", 0);     /* octal: 8 */
  value_is("NCCL_IB_TIMEOUT", "10", 1);
  value_is("NCCL_IB_SL", "0", 1);
  value_is("NCCL_IB_SL", "00", 0);
  value_is("NCCL_P2P_LEVEL", "7", 1);         /* ncclGetLevel clamps old numbers above 5 to SYS */
  value_is("NCCL_P2P_LEVEL", "99", 1);
  value_is("NCCL_P2P_LEVEL", "100", 0);
  value_is("NCCL_NET_GDR_LEVEL", "6", 1);
}

static void test_floors(void **state) {
  (void)state;
  value_is("NCCL_BUFFSIZE", "4095", 0);          /* a zero Simple chunk (test_env_floors.c) */
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
  value_is("NCCL_WORK_FIFO_BYTES", "1000000", 0);   /* not a power of two: NCCL ignores it */
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
  refused_because("NCCL_ALGO", "nvlstree,collnetdirect,collnetchain", "every collective would fail");
  refused_because("NCCL_ALGO", "^Ring,Tree,PAT", "every collective would fail");
  refused_because("NCCL_ALGO", "ring;allreduce:NVLS", "every collective would fail");
  value_is("NCCL_ALGO", "NVLS,Ring", 1);
  value_is("NCCL_ALGO", "^NVLS,NVLSTree,CollNetDirect,CollNetChain", 1);
  value_is("NCCL_ALGO", "LL128", 0);   /* a protocol, not an algorithm */
}

static void test_release_forms(void **state) {
  (void)state;
  value_is("NCCL_IB_HCA", "mlx5_0:1:0:1,mlx5_1::0:0", 1);   /* 2.30.7's hca:port:rail:plane */
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

/* note of release `code` for NAME=value: serve and the note's text ("" for none). */
static const char *note_of(int code, const char *name, const char *value, const char *release, int *serve) {
  static char buf[640];
  const char *n = nn_env_release_note(name, value, nn_nccl_release_find(code, NULL), release, serve, buf, sizeof buf);
  return n ? n : "";
}

static void test_release_notes(void **state) {
  (void)state;
  int serve, old = NN_NCCL_VERSION(2, 28, 9), new = NN_NCCL_VERSION(2, 30, 7);
  assert_non_null(strstr(note_of(old, "NCCL_IB_HCA", "mlx5_1::0:0", "2.28.9", &serve), "NCCL 2.28.9 reads an empty port"));
  assert_int_equal(serve, 0);
  assert_string_equal(note_of(old, "NCCL_IB_HCA", "mlx5_0:1:0:1", "2.28.9", &serve), "");
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(new, "NCCL_IB_HCA", "mlx5_1::0:0", "2.30.7", &serve), "");
  assert_non_null(strstr(note_of(old, "NCCL_CTA_POLICY", "ZERO", "2.28.9", &serve), "only as a number"));
  assert_int_equal(serve, 0);
  assert_string_equal(note_of(old, "NCCL_CTA_POLICY", "2", "2.28.9", &serve), "");
  assert_string_equal(note_of(new, "NCCL_CTA_POLICY", "ZERO", "2.30.7", &serve), "");
  assert_non_null(strstr(note_of(old, "NCCL_NET_MERGE_POLICY", "RAIL", "2.28.9", &serve),
                         "NCCL 2.28.9 does not read NCCL_NET_MERGE_POLICY"));
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(new, "NCCL_NET_MERGE_POLICY", "RAIL", "2.30.7", &serve), "");
  assert_non_null(strstr(note_of(new, "NCCL_SHM_MEMCPY_MODE", "1", "2.30.7", &serve),
                         "NCCL 2.30.7 no longer reads NCCL_SHM_MEMCPY_MODE"));
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(old, "NCCL_SHM_MEMCPY_MODE", "1", "2.28.9", &serve), "");
  assert_string_equal(note_of(old, "NCCL_NETDEVS_POLICY", "ALL", "2.28.9", &serve), "");
}

/* Each release-dependent name's fact: some row has it, and along the table (oldest first) it
 * changes at most once, from 0 to 1: a release reads a name from some release on (or stops). */
static void test_release_facts_in_order(void **state) {
  (void)state;
  int n, facts = 0;
  const struct nn_nccl_release *t = nn_nccl_release_table(&n);
  for (int i = 0; nn_env_allowed_name(i); i++) {
    int gone;
    size_t fact = nn_env_release_fact(i, &gone);
    if (!fact) continue;
    facts++;
    assert_true(nn_nccl_release_since(fact) > 0);
    for (int r = 1; r < n; r++) {
      int before = *(const int *)(const void *)((const char *)&t[r - 1] + fact);
      int now = *(const int *)(const void *)((const char *)&t[r] + fact);
      if (before && !now) fail_msg("%s: the fact is set for row %d but not for row %d", nn_env_allowed_name(i), r - 1, r);
    }
  }
  assert_int_equal(facts, 4);   /* NETDEVS_POLICY, NET_MERGE_POLICY, SHM_MEMCPY_MODE, SHM_USE_CUDA_MEMCPY */
  assert_true(nn_nccl_release_since(offsetof(struct nn_nccl_release, env_ib_hca_rail)) > 0);
  assert_true(nn_nccl_release_since(offsetof(struct nn_nccl_release, env_cta_policy_names)) > 0);
}

/* Through the env plugin, as NCCL 2.28.9 and 2.30.7 load it. */
static char base[64], conf[128], warns[8192];

__attribute__((format(printf, 5, 6)))
static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)flags; (void)file; (void)line;
  if (level != NN_NCCL_LOG_WARN) return;
  size_t len = strlen(warns);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(warns + len, sizeof warns - len - 1, fmt, ap);
  va_end(ap);
  strcat(warns, "\n");
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p++) n++;
  return n;
}

static void test_served_by_release(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-envrel-XXXXXX");
  assert_non_null(mkdtemp(base));
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  FILE *f = fopen(conf, "w");
  assert_non_null(f);
  fputs("env NCCL_SHM_MEMCPY_MODE=1\nenv NCCL_IB_HCA=mlx5_1::0:0\nenv NCCL_NET_MERGE_POLICY=RAIL\n", f);
  fclose(f);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  setenv("XDG_RUNTIME_DIR", base, 1);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  const char *names[] = {"NCCL_SHM_MEMCPY_MODE", "NCCL_IB_HCA", "NCCL_NET_MERGE_POLICY"};
  for (int i = 0; i < 3; i++) unsetenv(names[i]);
  warns[0] = 0;
  for (int comm = 0; comm < 2; comm++) assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
  assert_string_equal(nn_env_get("NCCL_SHM_MEMCPY_MODE"), "1");
  assert_null(nn_env_get("NCCL_IB_HCA"));                         /* 2.28.9 would read port 0 */
  assert_string_equal(nn_env_get("NCCL_NET_MERGE_POLICY"), "RAIL");  /* ignored by 2.28.9 */
  assert_int_equal(count(warns, "m.conf:2: env: NCCL 2.28.9 reads an empty port"), 1);
  assert_int_equal(count(warns, "m.conf:3: env: NCCL 2.28.9 does not read NCCL_NET_MERGE_POLICY"), 1);
  assert_int_equal(count(warns, "NCCL_SHM_MEMCPY_MODE"), 0);
  nn_env_finalize();
  warns[0] = 0;
  assert_int_equal(nn_env_init(2, 30, 7, "", logger, 2), 0);
  assert_string_equal(nn_env_get("NCCL_IB_HCA"), "mlx5_1::0:0");
  assert_string_equal(nn_env_get("NCCL_SHM_MEMCPY_MODE"), "1");
  assert_int_equal(count(warns, "m.conf:1: env: NCCL 2.30.7 no longer reads NCCL_SHM_MEMCPY_MODE: served, and ignored"), 1);
  assert_int_equal(count(warns, "env: NCCL 2.30.7"), 1);
  nn_env_finalize();
  unsetenv("NCCL_NUMA_CONFIG");
  assert_int_equal(nn_test_remove_tree(base), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numbers_as_nccl_reads_them), cmocka_unit_test(test_floors),
      cmocka_unit_test(test_algorithms_and_protocols),   cmocka_unit_test(test_release_forms),
      cmocka_unit_test(test_release_notes),              cmocka_unit_test(test_release_facts_in_order),
      cmocka_unit_test(test_served_by_release),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
