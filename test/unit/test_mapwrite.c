/* SPDX-License-Identifier: BSD-3-Clause */
/* test_mapwrite.c - the mapping writer (cli/discover/mapwrite.c): each line's syntax, and
 * that text from outside stays inside one comment; what it writes parses back. */
#include "nn_test.h"

#include "cli/discover/mapwrite.h"
#include "nn_config.h"

struct sink {
  char *buf;
  size_t len;
  FILE *f;
};

static void sink_open(struct sink *s) {
  s->buf = NULL;
  s->f = open_memstream(&s->buf, &s->len);
  assert_non_null(s->f);
}

static char *sink_close(struct sink *s) {
  fclose(s->f);
  return s->buf;
}

static void test_comment_stays_one_line(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  nn_mapwrite_comment(s.f, "host %s", "evil\nenv NCCL_NET_PLUGIN=/x.so #x");
  nn_mapwrite_comment(s.f, "%s", "");
  char *text = sink_close(&s);
  assert_string_equal(text, "# host evil\\x0aenv NCCL_NET_PLUGIN=/x.so \\x23x\n#\n");
  free(text);
}

static void test_cpu_lines(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  assert_int_equal(nn_mapwrite_cpu(s.f, "AuthenticAMD", 26, 2), 1);
  assert_int_equal(nn_mapwrite_cpu(s.f, "HygonGenuine", 24, 0), 0);
  assert_int_equal(nn_mapwrite_cpu(s.f, "GenuineIntel", -1, -1), 1);
  char *text = sink_close(&s);
  assert_string_equal(text, "cpu vendor=AuthenticAMD family=26 model=2\n"
                            "# no cpu line: vendor HygonGenuine cannot be written in format 1\n"
                            "cpu vendor=GenuineIntel\n");
  free(text);
}

static void test_numa_lines(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  nn_mapwrite_numa(s.f, 1, "0-15,32-47");
  nn_mapwrite_numa(s.f, 2, "0-3\nenv X=1");
  char *text = sink_close(&s);
  assert_string_equal(
    text, "numa 1 cpus=0-15,32-47\n# numa 2: '0-3\\x0aenv X=1' is not a CPU list, left out\n");
  free(text);
}

static void test_gpu_lines(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  struct nn_mapwrite_gpu g = {.index = 3,
                              .has_bus = 1,
                              .has_host = 1,
                              .numa = 1,
                              .sm = 120,
                              .pcie_gen = 5,
                              .pcie_width = 16,
                              .comment = "RTX\nPRO"};
  assert_int_equal(nn_busid_parse("0000:81:00.0", &g.bus), 0);
  assert_int_equal(nn_busid_parse("0000:f1:00.0", &g.host), 0);
  nn_mapwrite_gpu(s.f, &g);
  struct nn_mapwrite_gpu bare = {.index = 0, .numa = 0};
  nn_mapwrite_gpu(s.f, &bare);
  char *text = sink_close(&s);
  assert_string_equal(
    text, "gpu 3 bus=0000:81:00.0 numa=1 host=0000:f1:00.0 sm=120 pcie=5x16   # RTX\\x0aPRO\n"
          "gpu 0 numa=0\n");
  free(text);
}

/* What the writer writes, the parser reads as exactly those lines. */
static void test_parses_back(void **state) {
  (void)state;
  struct sink s;
  sink_open(&s);
  nn_mapwrite_comment(s.f, "from %s", "a\nrule coll=allreduce algo=tree");
  nn_mapwrite_cpu(s.f, "AuthenticAMD", 26, 2);
  nn_mapwrite_numa(s.f, 0, "0-7");
  nn_mapwrite_numa(s.f, 1, "8-15");
  struct nn_mapwrite_gpu g = {
    .index = 0, .has_bus = 1, .numa = 1, .sm = 120, .comment = "x\nenv NCCL_DEBUG=INFO"};
  assert_int_equal(nn_busid_parse("0000:01:00.0", &g.bus), 0);
  nn_mapwrite_gpu(s.f, &g);
  char *text = sink_close(&s);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("w.conf", text, strlen(text), NULL, &cfg, &d), 0);
  assert_int_equal(cfg->n_gpus, 1);
  assert_int_equal(cfg->gpus[0].numa, 1);
  assert_int_equal(cfg->n_rules, 0);
  assert_int_equal(cfg->n_envs, 0);
  nn_config_free(cfg);
  nn_diag_clear(&d);
  free(text);
}

static void test_timestamp(void **state) {
  (void)state;
  char ts[64];
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  nn_mapwrite_timestamp(ts, sizeof ts);
  assert_string_equal(ts, "2023-11-14T22:13:20Z");
  unsetenv("SOURCE_DATE_EPOCH");
  nn_mapwrite_timestamp(ts, sizeof ts);
  assert_int_equal(strlen(ts), 20);
  assert_true(ts[4] == '-' && ts[10] == 'T' && ts[19] == 'Z');
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_comment_stays_one_line),
    cmocka_unit_test(test_cpu_lines),
    cmocka_unit_test(test_numa_lines),
    cmocka_unit_test(test_gpu_lines),
    cmocka_unit_test(test_parses_back),
    cmocka_unit_test(test_timestamp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
