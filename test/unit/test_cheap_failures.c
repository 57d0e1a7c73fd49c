/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cheap_failures.c - what a broken mapping costs NCCL's thread: the plugin's reader stops
 * at the first problem (NN_PARSE_FIRST_ERROR, which check-config does not set: it lists them
 * all), and the NVIDIA driver's GPU list under NCCL_NUMA_DRIVER_ROOT is read once per process
 * while its directory stays the same.
 * The times themselves are `make bench`'s (test/bench/bench_init.c), not this test's. */
#include "nn_config.h"
#include "nn_test.h"

#include <sys/stat.h>

#include "visible.h"

static const char *BROKEN =
  "gpu 0 bus=01:00.0 numa=0\nbogus 1\nbogus 2\ngpu 1 bus=zz numa=0\nbogus 3\n";

static void test_first_error_only(void **state) {
  (void)state;
  struct nn_config *c = NULL;
  struct nn_diag all = {0}, first = {0};
  assert_int_equal(nn_config_parse("m.conf", BROKEN, strlen(BROKEN), NULL, &c, &all), -1);
  assert_int_equal(all.n, 4);
  struct nn_parse_opts opts = {.flags = NN_PARSE_FIRST_ERROR};
  assert_int_equal(nn_config_parse("m.conf", BROKEN, strlen(BROKEN), &opts, &c, &first), -1);
  assert_null(c);
  assert_int_equal(first.n, 1);
  assert_string_equal(first.msgs[0], all.msgs[0]);
  assert_non_null(strstr(first.msgs[0], "m.conf:2: unknown directive 'bogus'"));
  nn_diag_clear(&all);
  nn_diag_clear(&first);
  /* a valid file is read whole either way */
  const char *good = "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n";
  assert_int_equal(nn_config_parse("g.conf", good, strlen(good), &opts, &c, &first), 0);
  assert_int_equal(c->n_gpus, 2);
  nn_config_free(c);
}

/* A 16 MiB file of bad lines: the first-error reader looks at one line. */
static void test_first_error_big(void **state) {
  (void)state;
  size_t len = 16u << 20;
  char *buf = malloc(len);
  assert_non_null(buf);
  for (size_t i = 0; i + 12 <= len; i += 12) memcpy(buf + i, "bogus 1 2 3\n", 12);
  len -= len % 12;
  struct nn_parse_opts opts = {.flags = NN_PARSE_FIRST_ERROR};
  struct nn_diag d = {0};
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_parse("big.conf", buf, len, &opts, &c, &d), -1);
  assert_int_equal(d.n, 1);
  assert_int_equal(d.dropped, 0);
  nn_diag_clear(&d);
  assert_int_equal(nn_config_parse("big.conf", buf, len, NULL, &c, &d), -1);
  assert_true(d.n + d.dropped > 1000000); /* check-config's reader counts every one */
  nn_diag_clear(&d);
  free(buf);
}

static void gpu_dir(const char *root, const char *bus) {
  char path[512];
  snprintf(path, sizeof path, "%s/proc/driver/nvidia/gpus/%s", root, bus);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  assert_int_equal(system(cmd), 0);
}

static void test_driver_list_once(void **state) {
  (void)state;
  char root[64] = "/tmp/nn-drvonce-XXXXXX", other[64] = "/tmp/nn-drvonce-XXXXXX";
  assert_non_null(mkdtemp(root));
  assert_non_null(mkdtemp(other));
  gpu_dir(root, "0000:01:00.0");
  gpu_dir(root, "0000:02:00.0");
  struct nn_config *cfg = nn_test_parse("gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\n"
                                        "gpu 2 bus=03:00.0 numa=1\ngpu 3 bus=04:00.0 numa=1\n");
  unsetenv("CUDA_VISIBLE_DEVICES");
  setenv(NN_VISIBLE_ROOT_ENV, root, 1);
  struct nn_visible v;
  int reads = nn_visible_driver_reads();
  for (int i = 0; i < 5; i++) { /* five inits of one process: one read */
    nn_visible_of_process(cfg, &v);
    assert_int_equal(v.n, 2);
  }
  assert_int_equal(nn_visible_driver_reads(), reads + 1);
  gpu_dir(root, "0000:03:00.0"); /* the directory changed: read again */
  nn_visible_of_process(cfg, &v);
  assert_int_equal(v.n, 3);
  assert_int_equal(nn_visible_driver_reads(), reads + 2);
  gpu_dir(other, "0000:04:00.0"); /* another root is read afresh */
  setenv(NN_VISIBLE_ROOT_ENV, other, 1);
  nn_visible_of_process(cfg, &v);
  assert_int_equal(v.n, 1);
  assert_int_equal(nn_visible_driver_reads(), reads + 3);
  unsetenv(NN_VISIBLE_ROOT_ENV);
  nn_config_free(cfg);
  assert_int_equal(nn_test_remove_tree(root), 0);
  assert_int_equal(nn_test_remove_tree(other), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_first_error_only),
                                     cmocka_unit_test(test_first_error_big),
                                     cmocka_unit_test(test_driver_list_once)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
