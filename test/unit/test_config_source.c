/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_source.c - the configuration found and loaded as the plugin does: --config,
 * NCCL_NUMA_CONFIG, the default path; NCCL_TUNER_CONFIG_FILE merged when the mapping has no
 * rules; a bad CSV file named as the culprit (also in the plugin's WARN). */
#include <sys/stat.h>

#include "cache.h"
#include "config_source.h"
#include "nn_config.h"
#include "log.h"
#include "nn_test.h"

static const struct nn_logger test_logger = {.line = nn_test_line};

static char dir[64];

static const char *put(const char *name, const char *text) { return nn_test_put(dir, name, text); }

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-src-XXXXXX");
  unsetenv("NCCL_NUMA_CONFIG");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void test_find_order(void **state) {
  (void)state;
  struct nn_config_source s;
  nn_config_source_find(NULL, &s);
  assert_string_equal(s.path, NN_DEFAULT_CONFIG_PATH);
  assert_string_equal(s.origin, "default");
  assert_int_equal(s.named, 0);
  assert_null(s.tuner_csv);
  setenv("NCCL_NUMA_CONFIG", "/env.conf", 1);
  setenv("NCCL_TUNER_CONFIG_FILE", "", 1); /* empty: as unset */
  nn_config_source_find("", &s);
  assert_string_equal(s.path, "/env.conf");
  assert_string_equal(s.origin, "NCCL_NUMA_CONFIG");
  assert_int_equal(s.named, 1);
  assert_null(s.tuner_csv);
  setenv("NCCL_TUNER_CONFIG_FILE", "/rules.csv", 1);
  nn_config_source_find("/arg.conf", &s); /* the argument wins over the variable */
  assert_string_equal(s.path, "/arg.conf");
  assert_string_equal(s.origin, "--config");
  assert_string_equal(s.tuner_csv, "/rules.csv");
  unsetenv("NCCL_NUMA_CONFIG");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
}

#define CSV "allreduce,0,65536,tree,simple,2,1,-1\nallgather,0,-1,ring,ll,-1,-1,-1\n"

static void test_csv_merge(void **state) {
  (void)state;
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  const char *culprit = NULL;
  struct nn_config_source s = {put("norules.conf", "gpu 0 bus=01:00.0 numa=0\n"), "--config", 1,
                               put("rules.csv", CSV)};
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, &culprit), NN_CFG_OK);
  assert_int_equal(cfg->n_rules, 2); /* the mapping has none: the CSV's */
  assert_int_equal(cfg->rules[1].coll, NN_COLL_ALLGATHER);
  assert_string_equal(cfg->rules[0].file, s.tuner_csv);
  assert_int_equal(cfg->rules[0].line, 1);
  assert_int_equal(cfg->n_gpus, 1);
  nn_config_free(cfg);
  s.path = put("rules.conf", "rule algo=ring\n");
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, &culprit), NN_CFG_OK);
  assert_int_equal(cfg->n_rules, 1); /* the mapping's own rules win */
  assert_string_equal(cfg->rules[0].file, s.path);
  nn_config_free(cfg);
  assert_int_equal(d.n, 0);
}

static void test_bad_csv_is_the_culprit(void **state) {
  (void)state;
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  const char *culprit = NULL;
  struct nn_config_source s = {put("good.conf", "gpu 0 bus=01:00.0 numa=0\n"), "--config", 1,
                               put("bad.csv", "# ok\nallreduce,0,10,bogus,simple,2,1,-1\n")};
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, &culprit), NN_CFG_INVALID);
  assert_null(cfg);
  assert_ptr_equal(culprit, s.tuner_csv);
  assert_int_equal(d.n, 1);
  char want[512];
  snprintf(want, sizeof want, "%s:2: unknown algorithm 'bogus'", s.tuner_csv);
  assert_non_null(strstr(d.msgs[0], want));
  char name[1024];
  nn_config_rejected_name(&s, culprit, name, sizeof name);
  snprintf(want, sizeof want, "NCCL_TUNER_CONFIG_FILE %s (for config %s)", s.tuner_csv, s.path);
  assert_string_equal(name, want);
  nn_diag_clear(&d);
  /* a bad mapping is the culprit itself, and the CSV is not read */
  s.path = put("bad.conf", "frobnicate\n");
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, &culprit), NN_CFG_INVALID);
  assert_ptr_equal(culprit, s.path);
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], "bad.conf:1: unknown directive"));
  nn_config_rejected_name(&s, culprit, name, sizeof name);
  snprintf(want, sizeof want, "config %s", s.path);
  assert_string_equal(name, want);
  nn_diag_clear(&d);
}

static void test_missing_files(void **state) {
  (void)state;
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  char missing[128];
  snprintf(missing, sizeof missing, "%s/none.conf", dir);
  struct nn_config_source s = {missing, "default", 0, NULL};
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, NULL), NN_CFG_ABSENT); /* quiet */
  assert_int_equal(d.n, 0);
  s.tuner_csv = put("only.csv", CSV); /* no mapping: the CSV's rules alone */
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, NULL), NN_CFG_OK);
  assert_int_equal(cfg->n_rules, 2);
  assert_int_equal(cfg->n_gpus, 0);
  nn_config_free(cfg);
  s = (struct nn_config_source){missing, "NCCL_NUMA_CONFIG", 1, NULL};
  assert_int_equal(nn_config_resolve(&s, NULL, &cfg, &d, NULL),
                   NN_CFG_INVALID); /* named: an error */
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], "none.conf: cannot open"));
  nn_diag_clear(&d);
}

static void test_plugin_warn_names_the_csv(void **state) {
  (void)state;
  const char *map = put("plugin.conf", "gpu 0 bus=01:00.0 numa=0\n");
  const char *csv = put("plugin.csv", "allreduce,0,10,ring,simple,2\n");
  setenv("NCCL_NUMA_CONFIG", map, 1);
  setenv("NCCL_TUNER_CONFIG_FILE", csv, 1);
  struct nn_cache_version *v = nn_cache_acquire(&test_logger);
  assert_int_equal(nn_cache_status(v), NN_CFG_INVALID);
  nn_cache_warn_rejected(v, &test_logger, "pass-through");
  char want[1024];
  snprintf(want, sizeof want,
           "nccl-numa: NCCL_TUNER_CONFIG_FILE %s (for config %s) rejected: pass-through", csv, map);
  assert_string_equal(nn_test_last_warn, want);
  nn_cache_release(v);
  unsetenv("NCCL_NUMA_CONFIG");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_find_order),
    cmocka_unit_test(test_csv_merge),
    cmocka_unit_test(test_bad_csv_is_the_culprit),
    cmocka_unit_test(test_missing_files),
    cmocka_unit_test(test_plugin_warn_names_the_csv),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
