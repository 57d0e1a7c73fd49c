/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cudaprobe.c - what check asks the CUDA driver (cli/predict/cudaprobe.c), on the stand-in
 * driver (build/tools/libnn-fakecuda.so, test/p2p/fakecuda.c), whatever driver the host has:
 * loaded first, it is the one the probe's dlopen("libcuda.so.1") gets (its soname). */
#include <dlfcn.h>

#include "nn_test.h"

#include "cli/predict/cudaprobe.h"

static const struct nn_busid gpu0 = {.bus = 0x11}, gpu1 = {.bus = 0x12};

static int load_standin(void **state) {
  char path[512];
  const char *build = getenv("NN_BUILD");
  snprintf(path, sizeof path, "%s/tools/libnn-fakecuda.so", build && *build ? build : "build");
  *state = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!*state)
    fprintf(stderr, "cannot load the stand-in driver %s: %s (make tools)\n", path, dlerror());
  return *state ? 0 : -1;
}

static int unload_standin(void **state) {
  dlclose(*state);
  return 0;
}

static void test_probe(void **state) {
  (void)state;
  char why[256] = "";
  setenv("NN_FAKECUDA_GPUS", "2", 1);
  unsetenv("NN_FAKECUDA");
  unsetenv("NN_FAKECUDA_SM");
  struct nn_cudaprobe *p = nn_cudaprobe_open(why, sizeof why);
  assert_non_null(p);
  assert_int_equal(nn_cudaprobe_sm(p, &gpu0), 90);
  setenv("NN_FAKECUDA_SM", "120", 1);
  assert_int_equal(nn_cudaprobe_sm(p, &gpu1), 120);
  struct nn_busid none = {.domain = 0xffff, .bus = 0xff, .dev = 0x1f, .func = 7};
  assert_int_equal(nn_cudaprobe_sm(p, &none), 0); /* no GPU at that bus: nothing known */
  assert_int_equal(nn_cudaprobe_can_peer(p, &gpu0, &gpu1), 1);
  assert_int_equal(nn_cudaprobe_can_peer(p, &gpu0, &none), -1);
  nn_cudaprobe_close(p);
  setenv("NN_FAKECUDA", "nopeer", 1); /* the VM case: the driver says no */
  p = nn_cudaprobe_open(why, sizeof why);
  assert_non_null(p);
  assert_int_equal(nn_cudaprobe_can_peer(p, &gpu0, &gpu1), 0);
  nn_cudaprobe_close(p);
  unsetenv("NN_FAKECUDA_SM");
}

static void test_init_fails(void **state) {
  (void)state;
  char why[256] = "";
  setenv("NN_FAKECUDA", "no-such-mode", 1); /* the stand-in's cuInit refuses it */
  assert_null(nn_cudaprobe_open(why, sizeof why));
  assert_string_equal(why, "driver present but cuInit failed (CUresult 1)");
  unsetenv("NN_FAKECUDA");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_probe),
                                     cmocka_unit_test(test_init_fails)};
  return cmocka_run_group_tests(tests, load_standin, unload_standin);
}
