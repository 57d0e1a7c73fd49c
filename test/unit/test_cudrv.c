/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cudrv.c - the CUDA driver facts (plugin/core/cudrv.c) in a process that has not loaded
 * libcuda.so.1: the plugin never loads the driver itself, so it knows nothing (0 and -1), on
 * any machine, GPU or not; and it left the driver unloaded. */
#include "nn_test.h"

#include <dlfcn.h>

#include "cudrv.h"

static void test_driver_not_loaded(void **state) {
  (void)state;
  assert_null(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)); /* this test never loaded it */
  assert_int_equal(nn_cudrv_current_sm(), 0);
  struct nn_busid bus[8];
  assert_int_equal(nn_cudrv_visible_busids(bus, 8), -1);
  assert_null(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)); /* and neither call did */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_driver_not_loaded)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
