/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pyenv.c - the Python environment's NCCL, on fake site-packages trees and interpreters. */
#include "nn_test.h"

#include <sys/stat.h>

#include "cli/predict/pyenv.h"

static char base[64];

/* Makes base/REL (directories and an empty file). */
static void put(const char *rel) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\" && : > '%s/%s'", base, rel, base, rel);
  assert_int_equal(system(cmd), 0);
}

static int setup(void **state) {
  (void)state;
  strcpy(base, "/tmp/nn-pyenv-XXXXXX");
  if (!mkdtemp(base)) return -1;
  put("plain/nvidia/nccl/lib/libnccl.so.2");           /* an nvidia-nccl wheel alone */
  put("torchnccl/torch/__init__.py");                   /* torch and its NCCL */
  put("torchnccl/nvidia/nccl/lib/libnccl.so.2");
  put("torchonly/torch/__init__.py");                   /* torch whose NCCL is not beside it */
  put("empty/six.py");
  put("wrongname/nvidia/nccl/lib/libnccl.so");          /* not the soname NCCL's users load */
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(base);
}

/* sys.path text from site names (NULL-terminated; "" stays a relative entry). */
static const char *syspath(const char *const *sites) {
  static char buf[2048];
  size_t used = 0;
  for (; *sites; sites++)
    used += (size_t)snprintf(buf + used, sizeof buf - used, (*sites)[0] ? "%s/%s\n" : "%s%s\n",
                             (*sites)[0] ? base : "", *sites);
  return buf;
}

static void expect_found(const char *const *sites, const char *site, int torch) {
  struct nn_pyenv_nccl f;
  char want[PATH_MAX];
  snprintf(want, sizeof want, "%s/%s/nvidia/nccl/lib/libnccl.so.2", base, site);
  assert_int_equal(nn_pyenv_find_nccl(syspath(sites), &f), 1);
  assert_string_equal(f.lib, want);
  assert_int_equal(f.torch, torch);
}

static void test_first_wheel_on_the_path(void **state) {
  (void)state;
  expect_found((const char *const[]){"empty", "wrongname", "plain", NULL}, "plain", 0);
}

static void test_torch_wins_over_an_earlier_wheel(void **state) {
  (void)state;
  expect_found((const char *const[]){"plain", "torchnccl", NULL}, "torchnccl", 1);
}

/* torch is imported from its first entry only: a later torch's NCCL is not the one loaded. */
static void test_shadowed_torch_is_not_used(void **state) {
  (void)state;
  expect_found((const char *const[]){"torchonly", "plain", "torchnccl", NULL}, "plain", 0);
}

static void test_none(void **state) {
  (void)state;
  struct nn_pyenv_nccl f;
  assert_int_equal(nn_pyenv_find_nccl(syspath((const char *const[]){"empty", "wrongname", "torchonly", NULL}), &f), 0);
  assert_string_equal(f.lib, "");
  assert_int_equal(nn_pyenv_find_nccl("", &f), 0);
}

/* '' (the current directory in sys.path) and relative entries are not the job's. */
static void test_relative_entries_skipped(void **state) {
  (void)state;
  struct nn_pyenv_nccl f;
  char cwd[PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(base), 0);
  int found = nn_pyenv_find_nccl("\nplain\ntorchnccl\n", &f);
  assert_int_equal(chdir(cwd), 0);
  assert_int_equal(found, 0);
}

/* A fake interpreter: a script printing `body`'s output. */
static const char *interpreter(const char *name, const char *body) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", base, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  assert_int_equal(chmod(path, 0755), 0);
  return path;
}

static void test_syspath_from_the_interpreter(void **state) {
  (void)state;
  char out[256], err[256] = "";
  /* The script checks it was asked for sys.path and that stdin is not the caller's. */
  const char *py = interpreter("py-ok", "[ \"$1\" = -c ] && case \"$2\" in *sys.path*) ;; *) exit 3;; esac\n"
                                        "read -r x && exit 4\necho /site/a; echo; echo /site/b; echo oops >&2");
  assert_int_equal(nn_pyenv_syspath(py, 2000, out, sizeof out, err, sizeof err), 0);
  assert_string_equal(out, "/site/a\n\n/site/b\n");
}

static void test_syspath_failures(void **state) {
  (void)state;
  char out[64], err[256] = "";
  assert_int_equal(nn_pyenv_syspath(interpreter("py-fail", "echo /x; exit 1"), 2000, out, sizeof out, err,
                                    sizeof err), -1);
  assert_non_null(strstr(err, "failed to print its sys.path"));
  assert_int_equal(nn_pyenv_syspath(interpreter("py-hang", "exec sleep 30"), 200, out, sizeof out, err,
                                    sizeof err), -1);
  assert_non_null(strstr(err, "did not answer within 200 ms"));
  char missing[PATH_MAX];
  snprintf(missing, sizeof missing, "%s/no-such-python", base);
  assert_int_equal(nn_pyenv_syspath(missing, 2000, out, sizeof out, err, sizeof err), -1);
  assert_non_null(strstr(err, "no-such-python"));
  /* more output than the buffer: cut, still answered */
  assert_int_equal(nn_pyenv_syspath(interpreter("py-long", "seq 1 10000"), 2000, out, sizeof out, err,
                                    sizeof err), 0);
  assert_int_equal(strlen(out), sizeof out - 1);
}

static void test_which_interpreter(void **state) {
  (void)state;
  char buf[PATH_MAX];
  unsetenv("NCCL_NUMA_PYTHON");
  unsetenv("VIRTUAL_ENV");
  assert_string_equal(nn_pyenv_python(buf, sizeof buf), "python3");
  setenv("VIRTUAL_ENV", "/venvs/job", 1);
  assert_string_equal(nn_pyenv_python(buf, sizeof buf), "/venvs/job/bin/python3");
  setenv("NCCL_NUMA_PYTHON", "/opt/py/bin/python", 1);
  assert_string_equal(nn_pyenv_python(buf, sizeof buf), "/opt/py/bin/python");
  setenv("NCCL_NUMA_PYTHON", "", 1);
  assert_null(nn_pyenv_python(buf, sizeof buf));
  unsetenv("NCCL_NUMA_PYTHON");
  unsetenv("VIRTUAL_ENV");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_first_wheel_on_the_path),
    cmocka_unit_test(test_torch_wins_over_an_earlier_wheel),
    cmocka_unit_test(test_shadowed_torch_is_not_used),
    cmocka_unit_test(test_none),
    cmocka_unit_test(test_relative_entries_skipped),
    cmocka_unit_test(test_syspath_from_the_interpreter),
    cmocka_unit_test(test_syspath_failures),
    cmocka_unit_test(test_which_interpreter),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
