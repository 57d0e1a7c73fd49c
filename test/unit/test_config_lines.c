/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_lines.c - the mapping parser, config_lines.c: how the text is cut into lines: CR LF,
 * comments, line and file limits, NUL bytes, a byte-order mark. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void test_crlf(void **state) {
  (void)state;
  char buf[sizeof reference * 2];
  char *o = buf;
  for (const char *s = reference; *s; s++) {
    if (*s == '\n') *o++ = '\r';
    *o++ = *s;
  }
  *o = 0;
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(c->n_gpus, 8);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_int_equal(c->topo_mode, NN_TOPO_NUMA);
  nn_config_free(c);
  /* only one CR is stripped */
  expect_err("env NCCL_A=1\r\r\n", 1, "control character \\x0d at column 13");
}

static void test_comments(void **state) {
  (void)state;
  struct nn_config *c = parse_ok("# full line\n"
                                 "   \t# indented comment\n"
                                 "\n  \t \n"
                                 "gpu 0 bus=01:00.0 numa=0 # trailing comment with bus=zz\n"
                                 "gpu 1\tbus=02:00.0\tnuma=0\t#tab comment\n"
                                 "env NCCL_SOCKET_IFNAME=eth0 #comment\n"
                                 "rule algo=ring #algo=bogus\n");
  assert_int_equal(c->n_gpus, 2);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "eth0");
  assert_int_equal(c->n_rules, 1);
  assert_int_equal(c->rules[0].line, 8);
  nn_config_free(c);
  /* a '#' inside a value is kept, so this is a bad bus id */
  expect_err("gpu 0 bus=01:00.0#x numa=0\n", 1, "bad bus id '01:00.0#x'");
}

static void test_line_limits(void **state) {
  (void)state;
  /* 4096 bytes pass (with or without a CR), 4097 fail */
  char *buf = malloc(NN_MAX_LINE_BYTES + 8);
  memset(buf, ' ', NN_MAX_LINE_BYTES);
  memcpy(buf, "env NCCL_ALGO=ring", 18);
  strcpy(buf + NN_MAX_LINE_BYTES, "\n");
  nn_config_free(parse_ok(buf));
  strcpy(buf + NN_MAX_LINE_BYTES, "\r\n");
  nn_config_free(parse_ok(buf));
  strcpy(buf + NN_MAX_LINE_BYTES, " \n");
  expect_err(buf, 1, "line is 4097 bytes, over the 4096-byte limit");
  free(buf);
  /* a 1 MB line, at line 2, without a final newline */
  size_t n = 1 << 20;
  buf = malloc(n + 32);
  strcpy(buf, "rule algo=ring\n");
  memset(buf + 15, 'a', n);
  buf[15 + n] = 0;
  expect_err(buf, 2, "line is 1048576 bytes, over the 4096-byte limit");
  free(buf);
}

static void test_nul_byte(void **state) {
  (void)state;
  static const char text[] = "rule algo=ring\nenv NCCL_X=a\0b\nrule algo=tree\n";
  expect_err_len_opts(text, sizeof text - 1, 2, "NUL byte at column 13", NULL);
  /* all-NUL data */
  char zeros[100] = {0};
  expect_err_len_opts(zeros, sizeof zeros, 1, "NUL byte at column 1", NULL);
}

static void test_parse_size_cap(void **state) {
  (void)state;
  struct nn_diag d = {0};
  static const char small[] = "rule algo=ring\n";
  /* the length is checked before the buffer is read */
  assert_int_equal(nn_config_parse(NAME, small, (size_t)NN_MAX_FILE_BYTES + 1, NULL, NULL, &d), -1);
  assert_string_equal(d.msgs[0], NAME ": file is 16777217 bytes, over the 16 MiB limit");
  nn_diag_clear(&d);
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_parse(NULL, "", 0, NULL, &c, NULL), 0);
  assert_non_null(c);
  nn_config_free(c);
  nn_config_free(NULL);
}

/* A UTF-8 byte-order mark at the very start is not text; anywhere else it is. */
static void test_utf8_bom(void **state) {
  (void)state;
  struct nn_config *cfg =
    parse_ok("\xef\xbb\xbfgpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n");
  assert_int_equal(cfg->n_gpus, 2);
  assert_int_equal(cfg->gpus[0].line, 1);
  assert_int_equal(cfg->gpus[1].line, 2);
  nn_config_free(cfg);
  cfg = parse_ok("\xef\xbb\xbf# nccl-numa: host-side mapping\n");
  assert_int_equal(cfg->host_side, 1);
  nn_config_free(cfg);
  expect_err("\xef\xbb\xbf" GPUS2 "frobnicate\n", 3, "unknown directive 'frobnicate'");
  expect_err(GPUS2 "\xef\xbb\xbfrule algo=ring\n", 3, "unknown directive '\\xef\\xbb\\xbfrule'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_crlf),           cmocka_unit_test(test_comments),
    cmocka_unit_test(test_line_limits),    cmocka_unit_test(test_nul_byte),
    cmocka_unit_test(test_parse_size_cap), cmocka_unit_test(test_utf8_bom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
