/* SPDX-License-Identifier: BSD-3-Clause */
/* test_one_reader.c - the commands read a mapping as the plugin does: nn_config_load and
 * nn_config_resolve outside the plugin's recording walk with the plugin's budget
 * (NN_SNAP_WALK_BUDGET), so 256 includes each 35 directories deep, which the plugin refuses
 * after spending its budget, are refused by check-config, env, exec and explain too, with the
 * same reason; the same layout with 8 includes is read by both. */
#include "nn_config.h"
#include "nn_test.h"

#include <errno.h>
#include <sys/stat.h>

#include "cache.h"
#include "config_source.h"
#include "log.h"

#define DEPTH 35

static char base[64];

/* base/x/rN.csv reached through DEPTH (or DEPTH + 1, so that no two includes in a row share a
 * directory the walk remembers) "x/.." pairs: each a step of the walk, as a directory of a
 * tree that deep would be, without making thousands of directories. */
static const char *deep_csv(int i) {
  static char path[4096];
  char dir[128];
  snprintf(dir, sizeof dir, "%s/x", base);
  if (mkdir(dir, 0755) && errno != EEXIST) fail_msg("mkdir %s: %s", dir, strerror(errno));
  int n = snprintf(path, sizeof path, "%s", base);
  for (int d = 0; d < DEPTH + (i & 1); d++)
    n += snprintf(path + n, sizeof path - (size_t)n, "/x/..");
  snprintf(path + n, sizeof path - (size_t)n, "/x/r%d.csv", i);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("allreduce,0,65536,ring,simple,-1,-1,-1\n", f);
  assert_int_equal(fclose(f), 0);
  return path;
}

static const char *mapping(int includes) {
  static char text[1 << 20];
  size_t len = (size_t)snprintf(text, sizeof text, "gpu 0 bus=01:00.0 numa=0\n");
  static int made; /* each include in a tree of its own */
  for (int i = 0; i < includes; i++)
    len += (size_t)snprintf(text + len, sizeof text - len, "include-csv %s\n", deep_csv(made++));
  char name[32];
  snprintf(name, sizeof name, "m%d.conf", includes);
  return nn_test_put(base, name, text);
}

static const char *BUDGET = "too many directories and links to check for one configuration";

static int plugin_status(const char *path, struct nn_logger *logger) {
  setenv("NCCL_NUMA_CONFIG", path, 1);
  struct nn_cache_version *v = nn_cache_acquire(logger);
  int status = nn_cache_status(v);
  nn_cache_release(v);
  return status;
}

static void test_commands_walk_as_the_plugin(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-onereader-XXXXXX");
  assert_non_null(mkdtemp(base));
  assert_int_equal(chmod(base, 0755), 0);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  struct nn_logger logger = {.line = nn_test_line};
  const char *few = mapping(8), *many = mapping(256);
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  /* the control: 8 such includes are read by a command and by the plugin */
  assert_int_equal(nn_config_load(few, NULL, &c, &d), 0);
  assert_int_equal(c->n_rules, 8);
  nn_config_free(c);
  assert_int_equal(plugin_status(few, &logger), NN_CFG_OK);
  /* 256: the command's reader spends the same budget and says so */
  assert_int_equal(nn_config_load(many, NULL, &c, &d), -1);
  int said = 0;
  for (int i = 0; i < d.n; i++) said |= strstr(d.msgs[i], BUDGET) != NULL;
  if (!said)
    fail_msg("the command's reader did not run out of its walk budget: %s",
             d.n ? d.msgs[0] : "no problem");
  nn_diag_clear(&d);
  struct nn_config_source src = {many, "--config", 1, NULL};
  assert_int_equal(nn_config_resolve(&src, NULL, &c, &d, NULL), NN_CFG_INVALID);
  nn_diag_clear(&d);
  assert_int_equal(plugin_status(many, &logger), NN_CFG_INVALID);
  unsetenv("NCCL_NUMA_CONFIG");
  assert_int_equal(nn_test_remove_tree(base), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_commands_walk_as_the_plugin)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
