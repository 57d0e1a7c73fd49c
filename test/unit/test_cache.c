/* test_cache.c - one parse per file version; reload on any change of the file's identity. */
#include "nn_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "cache.h"

/* Sets the file's mtime `ago_ms` milliseconds in the past. */
static void age(const char *path, long ago_ms) {
  struct timespec now, times[2];
  clock_gettime(CLOCK_REALTIME, &now);
  long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec - ago_ms * 1000000LL;
  times[0] = times[1] = (struct timespec){.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
  assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* Replaces the file by rename (atomic), its mtime `ago_ms` in the past. */
static void write_at(const char *path, const char *text, long ago_ms) {
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  age(tmp, ago_ms);
  assert_int_equal(rename(tmp, path), 0);
}

static void test_reuse_and_reload(void **state) {
  (void)state;
  char *path = nn_test_write_file("gpu 0 bus=01:00.0 numa=0\nrule algo=ring\n");
  struct nn_cfgver *a = nn_cache_acquire_path(path);
  struct nn_cfgver *b = nn_cache_acquire_path(path);
  assert_ptr_equal(a, b);
  assert_int_equal(nn_cfgver_status(a), NN_CFG_OK);
  assert_int_equal(nn_cfgver_config(a)->n_rules, 1);
  const struct nn_policy *p1 = nn_cfgver_policy(a, 4, 1), *p2 = nn_cfgver_policy(b, 4, 1);
  assert_ptr_equal(p1, p2);                                   /* shared per shape */
  assert_ptr_not_equal(p1, nn_cfgver_policy(a, 8, 1));

  write_at(path, "gpu 0 bus=01:00.0 numa=0\nrule algo=ring\nrule algo=tree\n", 0);
  struct nn_cfgver *settling = nn_cache_acquire_path(path);
  assert_ptr_equal(settling, a);              /* modified just now: the old version, whole */
  nn_cache_release(settling);
  age(path, 1000);
  struct nn_cfgver *c = nn_cache_acquire_path(path);
  assert_ptr_not_equal(c, a);
  assert_true(nn_cfgver_generation(c) > nn_cfgver_generation(a));
  assert_int_equal(nn_cfgver_config(c)->n_rules, 2);
  assert_int_equal(nn_cfgver_config(a)->n_rules, 1);          /* the old version stays whole */

  write_at(path, "gpu 0 bus=nope numa=0\n", 1000);
  struct nn_cfgver *d = nn_cache_acquire_path(path);
  assert_int_equal(nn_cfgver_status(d), NN_CFG_INVALID);
  assert_null(nn_cfgver_config(d));
  assert_true(nn_cfgver_diag(d)->n >= 1);
  assert_int_equal(nn_cfgver_claim_warning(d), 1);
  assert_int_equal(nn_cfgver_claim_warning(d), 0);            /* warn once per version */
  nn_cache_release(a);
  nn_cache_release(b);
  nn_cache_release(c);
  nn_cache_release(d);
  nn_cache_release(NULL);
  nn_test_remove_file(path);
}

static void test_missing_default_is_quiet(void **state) {
  (void)state;
  unsetenv("NCCL_NUMA_CONFIG");
  struct stat st;
  if (stat(NN_DEFAULT_CONFIG_PATH, &st) == 0) skip();
  struct nn_cfgver *v = nn_cache_acquire();
  assert_int_equal(nn_cfgver_status(v), NN_CFG_ABSENT);
  nn_cache_release(v);
  setenv("NCCL_NUMA_CONFIG", "/nonexistent/x.conf", 1);
  v = nn_cache_acquire();
  assert_int_equal(nn_cfgver_status(v), NN_CFG_INVALID);     /* an explicit path that is missing warns */
  assert_non_null(strstr(nn_cfgver_diag(v)->msgs[0], "cannot open"));
  nn_cache_release(v);
  unsetenv("NCCL_NUMA_CONFIG");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reuse_and_reload), cmocka_unit_test(test_missing_default_is_quiet),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
