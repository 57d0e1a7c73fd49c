/* SPDX-License-Identifier: BSD-3-Clause */
/* test_printable.c - nn_printable (include/util/printable.h) and the mapping writer's use of it:
 * hostile bytes never reach a terminal raw and never become a line of a written mapping. */
#include "cli/discover/mapwrite.h"
#include "cache.h"
#include "log.h"
#include "printable.h"
#include "nn_test.h"

static void assert_printable(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    assert_true(*p >= 0x20 && *p < 0x7f);
}

static void test_escapes(void **state) {
  (void)state;
  char out[256];
  static const char raw[] = "ok\x1b[2J\r\n\a\x7f\x00z\t";
  assert_string_equal(nn_printable(out, sizeof out, raw, sizeof raw - 1, NULL),
                      "ok\\x1b[2J\\x0d\\x0a\\x07\\x7f\\x00z\\x09");
  assert_string_equal(
    nn_printable(out, sizeof out, "\xc3\xa9t\xe2\x80\xae\x9b\xff", NN_PRINTABLE_CSTR, NULL),
    "\\xc3\\xa9t\\xe2\\x80\\xae\\x9b\\xff"); /* UTF-8, bidi, C1 CSI, invalid */
  assert_string_equal(nn_printable(out, sizeof out, "a\\b #c", NN_PRINTABLE_CSTR, "\\#"),
                      "a\\x5cb \\x23c");
  assert_string_equal(nn_printable(out, sizeof out, NULL, 5, NULL), "");
  assert_string_equal(nn_printable(out, sizeof out, "stop\0here", NN_PRINTABLE_CSTR, NULL), "stop");
}

/* Escaping escaped text changes nothing, so a sink may escape again. */
static void test_idempotent(void **state) {
  (void)state;
  char once[256], twice[256];
  nn_printable(once, sizeof once, "\x1b]0;title\x07 \\x41 \n", NN_PRINTABLE_CSTR, NULL);
  assert_string_equal(nn_printable(twice, sizeof twice, once, NN_PRINTABLE_CSTR, NULL), once);
}

/* Every size: never more than outsz bytes, terminated, printable, an escape never split,
 * and "..." exactly when the text was cut. */
static void test_bounded(void **state) {
  (void)state;
  static const char raw[] = "ab\ncd\x1b"
                            "efgh\x01";
  char full[128];
  nn_printable(full, sizeof full, raw, NN_PRINTABLE_CSTR, NULL);
  size_t flen = strlen(full);
  for (size_t size = 1; size <= flen + 2; size++) {
    char out[128];
    memset(out, 'X', sizeof out);
    nn_printable(out, size, raw, NN_PRINTABLE_CSTR, NULL);
    size_t n = strlen(out);
    assert_true(n < size);
    assert_int_equal(out[size], 'X'); /* nothing written past outsz */
    assert_printable(out);
    if (size > flen) {
      assert_string_equal(out, full);
      continue;
    }
    if (size >= 4) {
      assert_true(n >= 3 && !strcmp(out + n - 3, "..."));
      assert_memory_equal(out, full, n - 3); /* a prefix of whole escapes */
      const char *bs = strrchr(out, '\\');
      assert_true(!bs || bs + 4 <= out + n - 3);
    }
  }
  char tiny[1] = {'X'};
  nn_printable(tiny, 1, raw, NN_PRINTABLE_CSTR, NULL);
  assert_int_equal(tiny[0], 0);
}

static char *written(void (*write)(FILE *, const char *), const char *hostile, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  assert_non_null(f);
  write(f, hostile);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static void write_all(FILE *f, const char *hostile) {
  nn_mapwrite_comment(f, "on %s, from %s", hostile, hostile);
  nn_mapwrite_cpu(f, hostile, 25, 17);
  nn_mapwrite_numa(f, 0, hostile);
  struct nn_mapwrite_gpu g = {.index = 0, .has_bus = 1, .numa = 0, .comment = hostile};
  assert_int_equal(nn_busid_parse("0000:01:00.0", &g.bus), 0);
  nn_mapwrite_gpu(f, &g);
}

/* What a hostile hwloc XML or sysfs tree can put in a written mapping reads back as the one
 * gpu line and comments: no env, rule, cpu or numa line, not host-side. */
static void test_mapwrite_no_new_line(void **state) {
  (void)state;
  static const char *const hostile[] = {
    "pve1\nenv NCCL_NET_PLUGIN=/x/evil.so\n",
    "x\r\nenv NCCL_NET_PLUGIN=/x/e.so\r",
    "h # nccl-numa: host-side mapping",
    "0-3\nenv NCCL_COMM_ID=10.0.0.1:1",
    "\x0b\x0c\x85rule algo=ring",
  };
  for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
    size_t len;
    char *text = written(write_all, hostile[i], &len);
    assert_null(strstr(text, "\nenv"));
    struct nn_config *cfg = NULL;
    struct nn_diag diag = {0};
    assert_int_equal(nn_config_parse("w.conf", text, len, NULL, &cfg, &diag), 0);
    assert_int_equal(cfg->n_gpus, 1);
    assert_int_equal(cfg->n_envs + cfg->n_rules + cfg->n_numas + cfg->cpu.present + cfg->host_side,
                     0);
    nn_config_free(cfg);
    nn_diag_clear(&diag);
    free(text);
  }
}

static void write_numa(FILE *f, const char *cpus) { nn_mapwrite_numa(f, 1, cpus); }

static void test_mapwrite_numa_list(void **state) {
  (void)state;
  size_t len;
  char *text = written(write_numa, "0-7,16-23", &len);
  assert_string_equal(text, "numa 1 cpus=0-7,16-23\n");
  free(text);
  text = written(write_numa, "0-3\nenv NCCL_X=1", &len);
  assert_string_equal(text, "# numa 1: '0-3\\x0aenv NCCL_X=1' is not a CPU list, left out\n");
  free(text);
}

static int n_lines, all_printable;
static char lines[8][2048];

static void capture(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  (void)self;
  (void)level;
  (void)subsys;
  for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
    if (*p < 0x20 || *p >= 0x7f) all_printable = 0;
  if (n_lines < 8) snprintf(lines[n_lines], sizeof lines[0], "%s", msg);
  n_lines++;
}
static const struct nn_logger capturing = {.line = capture};

/* The plugin's WARN and INFO lines: whatever a caller formats into them. */
static void test_log_lines_escaped(void **state) {
  (void)state;
  n_lines = 0, all_printable = 1;
  nn_log_warn(&capturing, "bad value '%s'", "\x1b[2Jok\r\a");
  nn_log_info(&capturing, NN_LOG_INIT, "%s", "line\nforged NCCL WARN");
  assert_int_equal(n_lines, 2);
  assert_true(all_printable);
  assert_string_equal(lines[0], "bad value '\\x1b[2Jok\\x0d\\x07'");
  assert_string_equal(lines[1], "line\\x0aforged NCCL WARN");
}

/* A log record's strings (host name, config path) hold no control byte: the record stays
 * one line however it is shown. */
static void test_json_string_controls(void **state) {
  (void)state;
  char buf[128];
  size_t len = 0;
  nn_log_json_string(buf, sizeof buf, &len, "h\x1b[2J\r\n\x7f\"\\");
  assert_string_equal(buf, "\"h\\u001b[2J\\u000d\\n\\u007f\\\"\\\\\"");
}

/* A mapping including a CSV whose fields carry ESC, BEL and CR: the plugin's WARN lines
 * about it (the cache's, as NCCL sees them: the first problem) and the commands' list of every
 * problem name the fields escaped. */
static void test_csv_fields_in_warn_lines(void **state) {
  (void)state;
  char dir[] = "/tmp/nn-printable-XXXXXX", conf[64], csv[64];
  assert_non_null(mkdtemp(dir));
  snprintf(conf, sizeof conf, "%s/m.conf", dir);
  snprintf(csv, sizeof csv, "%s/r.csv", dir);
  FILE *f = fopen(csv, "w");
  assert_non_null(f);
  fputs("allreduce,0,64,\x1b[1A\x1b[2Kok\a,ll,-1,1,-1\nallreduce,0,64,ri\rng,ll,-1,1,-1\n", f);
  assert_int_equal(fclose(f), 0);
  f = fopen(conf, "w");
  assert_non_null(f);
  fprintf(f, "gpu 0 bus=01:00.0 numa=0\ninclude-csv %s\n", csv);
  assert_int_equal(fclose(f), 0);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  n_lines = 0, all_printable = 1;
  struct nn_cache_version *v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(v), NN_CFG_INVALID);
  nn_cache_warn_rejected(v, &capturing, "pass-through");
  assert_true(n_lines >= 2); /* the first problem (the plugin reads no further), the verdict */
  assert_true(all_printable);
  assert_non_null(strstr(lines[0], "r.csv:1: unknown algorithm '\\x1b[1A\\x1b[2Kok\\x07'"));
  nn_cache_release(v);
  /* the commands' reader lists every problem, escaped as well */
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(conf, NULL, &c, &d), -1);
  int found = 0;
  for (int i = 0; i < d.n; i++)
    found |= strstr(d.msgs[i], "r.csv:2: unknown algorithm 'ri\\x0dng'") != NULL;
  assert_true(found);
  nn_diag_clear(&d);
  unsetenv("NCCL_NUMA_CONFIG");
  assert_int_equal(nn_test_remove_tree(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_escapes),
    cmocka_unit_test(test_idempotent),
    cmocka_unit_test(test_bounded),
    cmocka_unit_test(test_mapwrite_no_new_line),
    cmocka_unit_test(test_mapwrite_numa_list),
    cmocka_unit_test(test_log_lines_escaped),
    cmocka_unit_test(test_json_string_controls),
    cmocka_unit_test(test_csv_fields_in_warn_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
