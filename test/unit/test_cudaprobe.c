/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cudaprobe.c - what check asks the CUDA driver (cli/predict/cudaprobe.c): without a driver,
 * NULL and the reason "no driver (...)"; with one, nothing about a bus no GPU sits at. */
#include "nn_test.h"

#include "cli/predict/cudaprobe.h"

static void test_probe(void **state) {
  (void)state;
  char why[256] = "";
  struct nn_cudaprobe *p = nn_cudaprobe_open(why, sizeof why);
  if (!p) {
    if (strncmp(why, "no driver (", 11) && strncmp(why, "driver present but ", 19))
      fail_msg("no probe, and the reason '%s' is neither form", why);
    return;
  }
  struct nn_busid none = {.domain = 0xffff, .bus = 0xff, .dev = 0x1f, .func = 7};
  assert_int_equal(nn_cudaprobe_sm(p, &none), 0);
  nn_cudaprobe_close(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_probe)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
