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
  put("plain/nvidia/nccl/lib/libnccl.so.2"); /* an nvidia-nccl wheel alone */
  put("torchnccl/torch/__init__.py");        /* torch and its NCCL */
  put("torchnccl/nvidia/nccl/lib/libnccl.so.2");
  put("torchonly/torch/__init__.py"); /* torch whose NCCL is not beside it */
  put("empty/six.py");
  put("wrongname/nvidia/nccl/lib/libnccl.so"); /* not the soname NCCL's users load */
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
  assert_int_equal(
    nn_pyenv_find_nccl(syspath((const char *const[]){"empty", "wrongname", "torchonly", NULL}), &f),
    0);
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

/* Writes `text` into base/REL (directories made). */
static void write_file(const char *rel, const char *text) {
  char path[PATH_MAX];
  put(rel);
  snprintf(path, sizeof path, "%s/%s", base, rel);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* A venv is read, never run: its python3 is a script that would leave a mark. */
static void test_site_dirs_of_a_venv(void **state) {
  (void)state;
  char sites[1024], why[256], py[PATH_MAX], mark[PATH_MAX], want[1024];
  snprintf(mark, sizeof mark, "%s/ran", base);
  char body[PATH_MAX + 32];
  snprintf(body, sizeof body, "#!/bin/sh\ntouch %s\n", mark);
  write_file("venv/bin/python3", body);
  snprintf(py, sizeof py, "%s/venv/bin/python3", base);
  assert_int_equal(chmod(py, 0755), 0);
  write_file("venv/pyvenv.cfg", "home = /nonexistent/bin\ninclude-system-site-packages = false\n");
  put("venv/lib/python3.11/site-packages/six.py");
  assert_int_equal(nn_pyenv_site_dirs(py, sites, sizeof sites, why, sizeof why), 0);
  snprintf(want, sizeof want, "%s/venv/lib/python3.11/site-packages\n", base);
  assert_string_equal(sites, want);
  assert_int_equal(access(mark, F_OK), -1);
  /* found on PATH by name, as the job's command would be */
  char path_env[PATH_MAX];
  snprintf(path_env, sizeof path_env, "%s/venv/bin", base);
  const char *old = getenv("PATH");
  char *saved = old ? strdup(old) : NULL;
  setenv("PATH", path_env, 1);
  assert_int_equal(nn_pyenv_site_dirs("python3", sites, sizeof sites, why, sizeof why), 0);
  assert_string_equal(sites, want);
  setenv("PATH", "/nonexistent", 1);
  assert_int_equal(nn_pyenv_site_dirs("python3", sites, sizeof sites, why, sizeof why), -1);
  assert_string_equal(why, "no interpreter python3 on PATH");
  if (saved) setenv("PATH", saved, 1);
  free(saved);
  assert_int_equal(access(mark, F_OK), -1);
}

/* A venv with the system's packages: its own first, then the base installation's (home/..). */
static void test_site_dirs_with_system_packages(void **state) {
  (void)state;
  char sites[2048], why[256], py[PATH_MAX], cfg[PATH_MAX + 64], want[2048];
  put("sysvenv/bin/python3");
  snprintf(py, sizeof py, "%s/sysvenv/bin/python3", base);
  assert_int_equal(chmod(py, 0755), 0);
  snprintf(cfg, sizeof cfg, "home = %s/base/bin\ninclude-system-site-packages = true\n", base);
  write_file("sysvenv/pyvenv.cfg", cfg);
  put("sysvenv/lib/python3.12/site-packages/a.py");
  put("base/lib/python3/dist-packages/b.py");
  put("base/lib/python3.12/site-packages/c.py");
  unsetenv("HOME");
  assert_int_equal(nn_pyenv_site_dirs(py, sites, sizeof sites, why, sizeof why), 0);
  snprintf(want, sizeof want,
           "%s/sysvenv/lib/python3.12/site-packages\n%s/base/lib/python3/dist-packages\n"
           "%s/base/lib/python3.12/site-packages\n",
           base, base, base);
  assert_string_equal(sites, want);
}

/* The wheel's release is its METADATA's Version (X.Y.Z, a .postN left off); none without. */
static void test_wheel_version(void **state) {
  (void)state;
  char site[PATH_MAX], metadata[PATH_MAX];
  write_file("wheel/nvidia_nccl_cu13-2.28.9.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: nvidia-nccl-cu13\nVersion: 2.28.9\nSummary: NCCL\n");
  snprintf(site, sizeof site, "%s/wheel", base);
  assert_int_equal(nn_pyenv_wheel_version(site, metadata, sizeof metadata), 22809);
  assert_non_null(strstr(metadata, "/wheel/nvidia_nccl_cu13-2.28.9.dist-info/METADATA"));
  write_file("post/nvidia_nccl_cu12-2.27.3.post1.dist-info/METADATA",
             "Name: nvidia-nccl-cu12\nVersion: 2.27.3.post1\n");
  snprintf(site, sizeof site, "%s/post", base);
  assert_int_equal(nn_pyenv_wheel_version(site, metadata, sizeof metadata), 22703);
  write_file("bad/nvidia_nccl_cu12-x.dist-info/METADATA", "Name: nvidia-nccl-cu12\nVersion: two\n");
  snprintf(site, sizeof site, "%s/bad", base);
  assert_int_equal(nn_pyenv_wheel_version(site, metadata, sizeof metadata), 0);
  assert_string_equal(metadata, "");
  snprintf(site, sizeof site, "%s/plain", base);
  assert_int_equal(nn_pyenv_wheel_version(site, metadata, sizeof metadata), 0);
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
    cmocka_unit_test(test_site_dirs_of_a_venv),
    cmocka_unit_test(test_site_dirs_with_system_packages),
    cmocka_unit_test(test_wheel_version),
    cmocka_unit_test(test_which_interpreter),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
