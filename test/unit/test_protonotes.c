/* SPDX-License-Identifier: BSD-3-Clause */
/* test_protonotes.c - rules whose protocol the release keeps off between PCIe-only GPUs
 * (cli/predict/protonotes.c): one line per such rule, none on a release that enables it. */
#include "nn_test.h"

#include "cli/predict/protonotes.h"

static struct nn_config *parse(const char *text) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("p.conf", text, strlen(text), NULL, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

static int notes(const struct nn_config *cfg, const char *release, char **text) {
  size_t len;
  FILE *out = open_memstream(text, &len);
  int code = nn_nccl_version_parse(release);
  int n = nn_protonotes_print(out, "> ", "note: ", cfg, nn_nccl_release_find(code, NULL), 120);
  fclose(out);
  return n;
}

static void test_ll128_rules(void **state) {
  (void)state;
  struct nn_config *cfg = parse("gpu 0 bus=01:00.0 numa=0\n"
                                "rule coll=allreduce algo=ring proto=ll128\n"
                                "rule coll=allgather proto=simple\n"
                                "rule coll=allreduce algo=tree channels=2\n"
                                "rule coll=reducescatter proto=ll128\n");
  char *text;
  assert_int_equal(notes(cfg, "2.28.9", &text), 2);
  assert_non_null(strstr(text, "> p.conf:2: note: proto=ll128 cannot take effect on NCCL "
                               "2.27-2.28: it keeps ll128 off"));
  assert_non_null(strstr(text, "> p.conf:5: note: proto=ll128"));
  assert_null(strstr(text, "p.conf:3"));
  free(text);
  assert_int_equal(notes(cfg, "2.31.0", &text),
                   0); /* the 2.31 development release turns LL128 on there */
  assert_string_equal(text, "");
  free(text);
  nn_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_ll128_rules)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
