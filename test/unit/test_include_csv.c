/* SPDX-License-Identifier: BSD-3-Clause */
/* test_include_csv.c - NVIDIA example-tuner CSV rules through `include-csv` and
 * NCCL_TUNER_CONFIG_FILE, in order, with errors naming both files. */
#include <stdarg.h>
#include <sys/stat.h>

#include "cache.h"
#include "nn_config.h"
#include "nn_test.h"

static char dir[64];
static char first_warn[1024];

static void log_line(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  (void)self; (void)level; (void)subsys;
  if (!first_warn[0]) snprintf(first_warn, sizeof first_warn, "%s", msg);
}
static const struct nn_logger logger = {log_line};

static const char *put(const char *name, const char *text) { return nn_test_put(dir, name, text); }

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-csv-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(dir);
}

static const char *CSV =
    "# NVIDIA example tuner format\n"
    "collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n"
    "allreduce,0,65536,tree,simple,2,1,-1,-1,-1\n"
    "allgather,-1,-1,ring,-1,-1,-1,8,1,0\n";

static void test_include_in_order(void **state) {
  (void)state;
  put("rules.csv", CSV);
  const char *map = put("m.conf", "rule coll=broadcast algo=ring\ninclude-csv rules.csv\nrule coll=reduce proto=ll\n");
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(map, NULL, &cfg, &d), 0);
  assert_int_equal(cfg->n_rules, 4);
  assert_int_equal(cfg->rules[0].coll, NN_COLL_BROADCAST);
  assert_int_equal(cfg->rules[1].coll, NN_COLL_ALLREDUCE);
  assert_int_equal(cfg->rules[1].algo, NN_ALGO_TREE);
  assert_int_equal(cfg->rules[1].proto, NN_PROTO_SIMPLE);
  assert_int_equal(cfg->rules[1].channels, 2);
  assert_true(cfg->rules[1].bytes_hi == 65536);
  assert_int_equal(cfg->rules[1].line, 3);
  assert_non_null(strstr(cfg->rules[1].file, "/rules.csv"));     /* relative to the mapping's dir */
  assert_int_equal(cfg->rules[2].pipeops, 1);
  assert_int_equal(cfg->rules[2].regbuff, 0);
  assert_true(cfg->rules[2].ranks_lo == 8 && cfg->rules[2].ranks_hi == 8);
  assert_int_equal(cfg->rules[3].coll, NN_COLL_REDUCE);
  nn_config_free(cfg);
}

static void test_include_errors(void **state) {
  (void)state;
  put("bad.csv", "allreduce,0,10,bogus,simple,2,1,-1\n");
  const char *map = put("b.conf", "include-csv bad.csv\ninclude-csv missing.csv\ninclude-csv\n");
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(map, NULL, &cfg, &d), -1);
  assert_null(cfg);
  assert_int_equal(d.n, 3);
  assert_non_null(strstr(d.msgs[0], "b.conf:1: include-csv: "));
  assert_non_null(strstr(d.msgs[0], "bad.csv:1: unknown algorithm 'bogus'"));
  assert_non_null(strstr(d.msgs[1], "b.conf:2: include-csv: "));
  assert_non_null(strstr(d.msgs[1], "missing.csv: cannot open"));
  assert_non_null(strstr(d.msgs[2], "b.conf:3: include-csv: expected exactly one path"));
  nn_diag_clear(&d);
}

static void test_tuner_config_file_variable(void **state) {
  (void)state;
  const char *csv = put("env.csv", CSV);
  setenv("NCCL_TUNER_CONFIG_FILE", csv, 1);
  const char *norules = put("norules.conf", "gpu 0 bus=01:00.0 numa=0\n");
  setenv("NCCL_NUMA_CONFIG", norules, 1);
  struct nn_cfgver *v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cfgver_status(v), NN_CFG_OK);
  assert_int_equal(nn_cfgver_config(v)->n_rules, 2);              /* the mapping has none: CSV used */
  nn_cache_release(v);
  const char *rules = put("rules.conf", "rule algo=ring\n");
  setenv("NCCL_NUMA_CONFIG", rules, 1);
  v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cfgver_config(v)->n_rules, 1);              /* the mapping's rules win */
  nn_cache_release(v);
  setenv("NCCL_TUNER_CONFIG_FILE", put("worse.csv", "allreduce,0,10,ring,simple,2\n"), 1);
  const char *again = put("again.conf", "gpu 0 bus=02:00.0 numa=0\n");
  setenv("NCCL_NUMA_CONFIG", again, 1);
  v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cfgver_status(v), NN_CFG_INVALID);          /* a bad CSV rejects the version */
  first_warn[0] = 0;
  nn_cfgver_warn_rejected(v, &logger, "pass-through");
  assert_non_null(strstr(first_warn, "worse.csv:1:"));
  nn_cache_release(v);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  unsetenv("NCCL_NUMA_CONFIG");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_include_in_order), cmocka_unit_test(test_include_errors),
    cmocka_unit_test(test_tuner_config_file_variable),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
