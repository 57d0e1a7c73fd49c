/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_refused.c - the env plugin never serves from a mapping a name that loads code,
 * names a file or chooses a peer (NCCL_NET_PLUGIN, which NCCL dlopens; NCCL_COMM_ID,
 * which names the bootstrap root; NCCL_DEBUG_FILE and NCCL_TOPO_DUMP_FILE aimed at the
 * dynamic linker's preload file), WARNs once per file version for each refused line, and
 * serves the rest of the file. The real environment still wins for every name. */
#include "env_fixture.h"

#include <sys/stat.h>

#include "env.h"

static const char *MAPPING = "env NCCL_NET_PLUGIN=/tmp/evil.so\n"
                             "env NCCL_PROFILER_PLUGIN=/tmp/evil.so\n"
                             "env NCCL_TUNER_PLUGIN=/tmp/evil.so\n"
                             "env NCCL_COMM_ID=203.0.113.7:5555\n"
                             "env NCCL_DEBUG_FILE=/etc/ld.so.preload\n"
                             "env NCCL_TOPO_DUMP_FILE=/etc/ld.so.preload\n"
                             "env NCCL_TOPO_FILE=/tmp/evil.xml\n"
                             "env NCCL_SOCKET_IFNAME=lo\n"
                             "env NCCL_P2P_LEVEL=SYS\n";
static const char *const refused[] = {
  "NCCL_NET_PLUGIN", "NCCL_PROFILER_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_COMM_ID",
  "NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE",  "NCCL_TOPO_FILE"};
#define N_REFUSED ((int)(sizeof refused / sizeof refused[0]))

static char base[64], conf[128];

/* env_log keeps the WARNs. */
static int warning(int level, const char *fmt, const char *msg) {
  (void)fmt;
  (void)msg;
  return level == NN_NCCL_LOG_WARN;
}

static int setup(void **state) {
  (void)state;
  if (env_fixture_dir(base, sizeof base, "/tmp/nn-envref-XXXXXX")) return -1;
  env_log.keep = warning;
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  FILE *f = fopen(conf, "w");
  if (!f) return -1;
  fputs(MAPPING, f);
  fclose(f);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  for (int i = 0; i < N_REFUSED; i++) unsetenv(refused[i]);
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_P2P_LEVEL");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(base);
}

static void test_refused_not_served(void **state) {
  (void)state;
  for (int comm = 0; comm < 3; comm++) { /* three communicators of one process */
    assert_int_equal(nn_env_init(2, 28, 9, "", env_logger, 2), 0);
    assert_null(nn_env_get("NCCL_TOPO_FILE")); /* no GPUs: nothing generated, the line not served */
    for (int i = 0; i < N_REFUSED; i++)
      if (nn_env_get(refused[i]))
        fail_msg("%s served from the mapping: %s", refused[i], nn_env_get(refused[i]));
    assert_string_equal(nn_env_get("NCCL_SOCKET_IFNAME"), "lo");
    assert_string_equal(nn_env_get("NCCL_P2P_LEVEL"), "SYS");
  }
  /* one WARN per refused line, once for the file version, each naming file and line */
  assert_int_equal(env_log.n, N_REFUSED);
  for (int i = 0; i < N_REFUSED; i++) {
    char want[256];
    snprintf(want, sizeof want, "nccl-numa: %s:%d: env: %s refused, not served: ", conf, i + 1,
             refused[i]);
    if (!strstr(env_log.text, want)) fail_msg("no WARN '%s' in:\n%s", want, env_log.text);
  }
  assert_non_null(strstr(env_log.text, "the rest of the file applies"));
  /* the real environment is the user's own: it still wins */
  setenv("NCCL_NET_PLUGIN", "/opt/my/net.so", 1);
  assert_string_equal(nn_env_get("NCCL_NET_PLUGIN"), "/opt/my/net.so");
  unsetenv("NCCL_NET_PLUGIN");
  assert_int_equal(nn_env_finalize(), 0);
}

/* The value that smashed NCCL 2.28.9's stack in ncclGetUniqueId (3000 x 'A' as
 * NCCL_SOCKET_IFNAME, copied unbounded into a 64-byte buffer by parseStringList): getEnv
 * never answers it, one WARN names file, line, name and rule, the next line is served. */
static void test_bad_value_not_served(void **state) {
  (void)state;
  char path[160], line[3100];
  snprintf(path, sizeof path, "%s/values.conf", base);
  memset(line, 'A', 3000);
  line[3000] = 0;
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "env NCCL_SOCKET_IFNAME=%s\nenv NCCL_IB_HCA=mlx5_0:1\nenv NCCL_IB_SL=99\n", line);
  fclose(f);
  setenv("NCCL_NUMA_CONFIG", path, 1);
  unsetenv("NCCL_IB_HCA");
  unsetenv("NCCL_IB_SL");
  env_log_clear();
  for (int comm = 0; comm < 2; comm++) {
    assert_int_equal(nn_env_init(2, 28, 9, "", env_logger, 2), 0);
    if (nn_env_get("NCCL_SOCKET_IFNAME"))
      fail_msg("served %.40s...", nn_env_get("NCCL_SOCKET_IFNAME"));
    assert_null(nn_env_get("NCCL_IB_SL"));
    assert_string_equal(nn_env_get("NCCL_IB_HCA"), "mlx5_0:1"); /* proves the file was read */
  }
  assert_int_equal(env_log.n, 2);
  char want[256];
  snprintf(want, sizeof want, "nccl-numa: %s:1: env: NCCL_SOCKET_IFNAME='AAAA", path);
  if (!strstr(env_log.text, want)) fail_msg("no WARN '%s' in:\n%s", want, env_log.text);
  assert_non_null(
    strstr(env_log.text, "longer than 255 bytes; NCCL_SOCKET_IFNAME takes [^][=]NAME[:PORT]"));
  snprintf(want, sizeof want,
           "%s:3: env: NCCL_IB_SL='99' refused, not served: NCCL_IB_SL takes decimal digits, "
           "0 to 15",
           path);
  if (!strstr(env_log.text, want)) fail_msg("no WARN '%s' in:\n%s", want, env_log.text);
  assert_true(strlen(env_log.text) < 2000); /* the value is quoted short, never whole */
  assert_int_equal(nn_env_finalize(), 0);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
}

/* What the loaded release reads (env_names.h nn_env_release_note), through the env plugin as
 * NCCL 2.28.9 and 2.30.7 load it: a name it does not read served with one WARN naming the
 * release, a value it would misread not served. */
static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p++) n++;
  return n;
}

static void test_served_by_release(void **state) {
  (void)state;
  char rel[160];
  snprintf(rel, sizeof rel, "%s/rel.conf", base);
  FILE *f = fopen(rel, "w");
  assert_non_null(f);
  fputs("env NCCL_SHM_MEMCPY_MODE=1\nenv NCCL_IB_HCA=mlx5_1::0:0\nenv NCCL_NET_MERGE_POLICY=RAIL\n",
        f);
  fclose(f);
  setenv("NCCL_NUMA_CONFIG", rel, 1);
  const char *names[] = {"NCCL_SHM_MEMCPY_MODE", "NCCL_IB_HCA", "NCCL_NET_MERGE_POLICY"};
  for (int i = 0; i < 3; i++) unsetenv(names[i]);
  env_log.text[0] = 0;
  for (int comm = 0; comm < 2; comm++)
    assert_int_equal(nn_env_init(2, 28, 9, "", env_logger, 2), 0);
  assert_string_equal(nn_env_get("NCCL_SHM_MEMCPY_MODE"), "1");
  assert_null(nn_env_get("NCCL_IB_HCA"));                           /* 2.28.9 would read port 0 */
  assert_string_equal(nn_env_get("NCCL_NET_MERGE_POLICY"), "RAIL"); /* ignored by 2.28.9 */
  assert_int_equal(count(env_log.text, "rel.conf:2: env: NCCL 2.28.9 reads an empty port"), 1);
  assert_int_equal(
    count(env_log.text, "rel.conf:3: env: NCCL 2.28.9 does not read NCCL_NET_MERGE_POLICY"), 1);
  assert_int_equal(count(env_log.text, "NCCL_SHM_MEMCPY_MODE"), 0);
  nn_env_finalize();
  env_log.text[0] = 0;
  assert_int_equal(nn_env_init(2, 30, 7, "", env_logger, 2), 0);
  assert_string_equal(nn_env_get("NCCL_IB_HCA"), "mlx5_1::0:0");
  assert_string_equal(nn_env_get("NCCL_SHM_MEMCPY_MODE"), "1");
  assert_int_equal(count(env_log.text, "rel.conf:1: env: NCCL 2.30.7 no longer reads "
                                       "NCCL_SHM_MEMCPY_MODE: served, and ignored"),
                   1);
  assert_int_equal(count(env_log.text, "env: NCCL 2.30.7"), 1);
  nn_env_finalize();
  setenv("NCCL_NUMA_CONFIG", conf, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_refused_not_served),
                                     cmocka_unit_test(test_bad_value_not_served),
                                     cmocka_unit_test(test_served_by_release)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
