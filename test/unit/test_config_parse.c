/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_parse.c - the mapping parser, config_parse.c: directive dispatch over whole files:
 * the reference machine, defaults, case, unknown directives, hostile bytes and mutations. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void test_reference_machine(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(reference);
  static const char *hosts[8] = {"f1", "e1", "91", "81", "71", "61", "11", "01"};
  assert_int_equal(c->n_gpus, 8);
  for (int i = 0; i < 8; i++) {
    char b[16], want[16];
    assert_int_equal(c->gpus[i].index, i);
    assert_int_equal(c->gpus[i].numa, i < 4 ? 1 : 0);
    assert_int_equal(c->gpus[i].has_bus, 1);
    busstr(&c->gpus[i].bus, b);
    snprintf(want, sizeof want, "0000:%02x:00.0", i + 1);
    assert_string_equal(b, want);
    assert_int_equal(c->gpus[i].has_host, 1);
    busstr(&c->gpus[i].host, b);
    snprintf(want, sizeof want, "0000:%s:00.0", hosts[i]);
    assert_string_equal(b, want);
    assert_int_equal(c->gpus[i].sm, 120);
    assert_int_equal(c->gpus[i].line, 5 + i);
  }
  assert_int_equal(nn_config_numa_count(c), 2);
  assert_int_equal(nn_config_max_gpus_per_numa(c), 4);
  assert_int_equal(c->n_numas, 2);
  assert_string_equal(nn_config_find_numa(c, 1)->cpus, "32-63,96-127");
  assert_int_equal(nn_config_find_numa(c, 0)->line, 3);
  assert_null(nn_config_find_numa(c, 2));
  assert_int_equal(c->cpu.present, 1);
  assert_string_equal(c->cpu.vendor, "AuthenticAMD");
  assert_int_equal(c->cpu.family, 25);
  assert_int_equal(c->cpu.model, 17);
  assert_int_equal(c->topo_mode, NN_TOPO_NUMA);
  assert_true(c->pci_latency_us == 2.5);
  assert_int_equal(c->model_line, 14);
  assert_int_equal(c->host_side, 0);
  assert_int_equal(c->n_rules, 3);
  const struct nn_rule *r = &c->rules[0];
  assert_int_equal(r->coll, NN_COLL_ALLREDUCE);
  assert_true(r->bytes_lo == 0 && r->bytes_hi == 65536);
  assert_true(r->ranks_lo == 0 && r->ranks_hi == NN_UNBOUNDED);
  assert_int_equal(r->scope, NN_SCOPE_INTRA);
  assert_int_equal(r->algo, NN_ALGO_RING);
  assert_int_equal(r->proto, NN_PROTO_LL);
  assert_int_equal(r->channels, 0);
  assert_int_equal(r->pipeops, NN_ANY);
  assert_int_equal(r->regbuff, NN_ANY);
  assert_string_equal(r->file, NAME);
  assert_int_equal(r->line, 15);
  r = &c->rules[1];
  assert_int_equal(r->coll, NN_COLL_ALLGATHER);
  assert_true(r->bytes_lo == 1048576 && r->bytes_hi == NN_UNBOUNDED);
  assert_true(r->ranks_lo == 8 && r->ranks_hi == 8);
  assert_true(r->nodes_lo == 1 && r->nodes_hi == 1);
  assert_int_equal(r->scope, NN_SCOPE_CROSS);
  assert_int_equal(r->proto, NN_PROTO_SIMPLE);
  assert_int_equal(r->channels, 4);
  r = &c->rules[2];
  assert_int_equal(r->coll, NN_ANY);
  assert_int_equal(r->algo, NN_ANY);
  assert_int_equal(r->proto, NN_ANY);
  assert_int_equal(r->scope, NN_SCOPE_ANY);
  assert_true(r->bytes_lo == 0 && r->bytes_hi == NN_UNBOUNDED);
  assert_int_equal(r->channels, 2);
  assert_ptr_equal(c->rules[0].file, c->rules[2].file);
  assert_int_equal(c->n_envs, 2);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_string_equal(nn_config_env(c, "NCCL_P2P_DISABLE"), "1");
  assert_null(nn_config_env(c, "NCCL_ALGO"));
  assert_string_equal(c->path, NAME);
  nn_config_free(c);
}

static void test_defaults_and_empty(void **state) {
  (void)state;
  struct nn_config *c = parse_ok("");
  assert_int_equal(c->n_gpus, 0);
  assert_int_equal(c->topo_mode, NN_TOPO_AUTO);
  assert_int_equal(c->cpu.present, 0);
  assert_int_equal(c->cpu.family, -1);
  assert_int_equal(c->cpu.model, -1);
  assert_true(c->pci_latency_us == 0.0);
  assert_int_equal(nn_config_numa_count(c), 0);
  assert_int_equal(nn_config_max_gpus_per_numa(c), 0);
  nn_config_free(c);
  /* rules and env only: valid (a mapping may only override, serving no topology) */
  c = parse_ok("rule algo=ring\nenv NCCL_DEBUG=INFO");
  assert_int_equal(c->n_rules, 1);
  assert_int_equal(c->n_gpus, 0);
  nn_config_free(c);
  /* gpus given out of order come back sorted by index */
  c = parse_ok("gpu 1 bus=02:00.0 numa=3\ngpu 0 bus=01:00.0 numa=3\n");
  assert_int_equal(c->gpus[0].line, 2);
  assert_int_equal(c->gpus[1].line, 1);
  assert_int_equal(c->gpus[0].sm, 0);
  assert_int_equal(c->gpus[0].has_host, 0);
  assert_int_equal(nn_config_numa_count(c), 1);
  assert_int_equal(nn_config_max_gpus_per_numa(c), 2);
  nn_config_free(c);
}

static void test_case_insensitive(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok("GPU 0 BUS=0000:AB:1F.7 NUMA=2 Host=00000000:C1:00.0 SM=90\n"
             "CPU Vendor=authenticamd\n"
             "Rule COLL=AllReduce Bytes=1k-2M Scope=INTRA ALGO=Ring PROTO=LL128 Channels=8\n"
             "rule coll=ANY scope=Any algo=NVLS_TREE\n"
             "Topology MODE=OFF\n"
             "MODEL PCI-LATENCY-US=1e1\n"
             "ENV NCCL_SOCKET_IFNAME=ValueKept\n"
             "numa 2 CPUS=0-3\n");
  char b[16];
  busstr(&c->gpus[0].bus, b);
  assert_string_equal(b, "0000:ab:1f.7");
  busstr(&c->gpus[0].host, b);
  assert_string_equal(b, "0000:c1:00.0");
  assert_int_equal(c->gpus[0].sm, 90);
  assert_string_equal(c->cpu.vendor, "AuthenticAMD");
  assert_int_equal(c->rules[0].coll, NN_COLL_ALLREDUCE);
  assert_true(c->rules[0].bytes_lo == 1024 && c->rules[0].bytes_hi == 2u << 20);
  assert_int_equal(c->rules[0].proto, NN_PROTO_LL128);
  assert_int_equal(c->rules[1].coll, NN_ANY);
  assert_int_equal(c->rules[1].scope, NN_SCOPE_ANY);
  assert_int_equal(c->rules[1].algo, NN_ALGO_NVLS_TREE);
  assert_int_equal(c->topo_mode, NN_TOPO_OFF);
  assert_true(c->pci_latency_us == 10.0);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "ValueKept");
  assert_null(nn_config_env(c, "NCCL_MIXED_CASE")); /* names are exact */
  nn_config_free(c);
  /* env NAME's NCCL_ prefix is exact */
  expect_err("env nccl_x=1\n", 1, "'nccl_x' is not an NCCL variable name");
}

/* "unknown directive 'WORD' (expected gpu, numa, ... or p2p)", the list from the table. */
static const char *unknown_msg(const char *word) {
  static char msg[512];
  int n = snprintf(msg, sizeof msg, "unknown directive '%s' (expected ", word);
  for (int i = 0; nn_config_directive_name(i); i++)
    n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s",
                  !i                                ? ""
                  : nn_config_directive_name(i + 1) ? ", "
                                                    : " or ",
                  nn_config_directive_name(i));
  snprintf(msg + n, sizeof msg - (size_t)n, ")");
  return msg;
}

static void test_unknown_directive(void **state) {
  (void)state;
  expect_err(GPUS2 "gpus 2 bus=03:00.0 numa=0\n", 3, unknown_msg("gpus"));
  expect_err("\xc3\xa9tat x\n", 1, "unknown directive '\\xc3\\xa9tat'");
  expect_err("rule algo=ring\n\x1b[31mred\n", 2, "control character \\x1b at column 1");
  expect_err("env NCCL_X=\x7f\n", 1, "control character \\x7f at column 12");
}

/* Deterministic pseudo-random bytes, so a failure can be reproduced. */
static uint32_t rng_next(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static void check_rejected_cleanly(const char *buf, size_t len) {
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  int r = nn_config_parse(NAME, buf, len, NULL, &c, &d);
  if (r == 0) {
    assert_non_null(c);
    assert_int_equal(d.n, 0);
    nn_config_free(c);
  } else {
    assert_null(c);
    assert_true(d.n > 0);
    for (int i = 0; i < d.n; i++) {
      assert_true(!strncmp(d.msgs[i], NAME ":", strlen(NAME ":")));
      for (const char *m = d.msgs[i]; *m; m++) /* quoted text is escaped */
        assert_true((unsigned char)*m >= 0x20 && (unsigned char)*m < 0x7f);
      assert_true(strlen(d.msgs[i]) < 700);
    }
  }
  nn_diag_clear(&d);
}

static void test_binary_junk(void **state) {
  (void)state;
  uint32_t seed = 12345;
  size_t len = 64 * 1024;
  char *buf = malloc(len);
  for (size_t i = 0; i < len; i++) buf[i] = (char)(rng_next(&seed) & 0xff);
  struct nn_diag d = {0};
  struct nn_config *c = (struct nn_config *)1;
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, &c, &d), -1);
  assert_null(c);
  assert_int_equal(d.n, 100); /* capped; the rest counted */
  assert_true(d.dropped > 0);
  nn_diag_clear(&d);
  check_rejected_cleanly(buf, len);
  free(buf);
}

/* Mutations of the reference file: every outcome is a clean accept or a clean reject. */
static void test_mutations(void **state) {
  (void)state;
  uint32_t seed = 777;
  size_t n = sizeof reference - 1;
  char *buf = malloc(n + 64);
  static const char alphabet[] = " \t\n\r#=-,:.0123456789abcfxKMGTany\x00\xff";
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(buf, reference, n);
    size_t len = n;
    int edits = 1 + (int)(rng_next(&seed) % 6);
    for (int e = 0; e < edits; e++) {
      size_t at = rng_next(&seed) % len;
      uint32_t op = rng_next(&seed) % 3;
      char ch = alphabet[rng_next(&seed) % (sizeof alphabet - 1)];
      if (op == 0) buf[at] = ch;
      else if (op == 1 && len > 1) memmove(buf + at, buf + at + 1, --len - at);
      else if (len < n + 60) {
        memmove(buf + at + 1, buf + at, len++ - at);
        buf[at] = ch;
      }
    }
    check_rejected_cleanly(buf, len);
  }
  free(buf);
}

static void test_many_bad_lines(void **state) {
  (void)state;
  size_t cap = 300 * 8;
  char *buf = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < 250; i++) len += (size_t)snprintf(buf + len, cap - len, "bogus\n");
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, NULL, &d), -1);
  assert_int_equal(d.n, 100);
  assert_int_equal(d.dropped, 150);
  char want[600];
  snprintf(want, sizeof want, NAME ":100: %s", unknown_msg("bogus"));
  assert_string_equal(d.msgs[99], want);
  nn_diag_clear(&d);
  assert_int_equal(d.n, 0);
  assert_int_equal(d.dropped, 0);
  assert_null(d.msgs);
  /* no diag at all: still no crash, still rejected */
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, NULL, NULL), -1);
  free(buf);
  /* all problems of a file are collected, not just the first */
  struct nn_config *c = NULL;
  const char *two = "rule algo=x\nenv FOO=1\n";
  assert_int_equal(nn_config_parse(NAME, two, strlen(two), NULL, &c, &d), -1);
  assert_int_equal(d.n, 2);
  assert_true(has_msg(&d, NAME ":1: ", "unknown algo"));
  assert_true(has_msg(&d, NAME ":2: ", "not an NCCL variable name"));
  nn_diag_clear(&d);
}

/* Each directive of the table is a word of the config fuzzer's dictionary (so the fuzzer
 * reaches its parser) and a row of docs/user/mapping.md's directive table. */
static void test_directives_listed(void **state) {
  (void)state;
  size_t dlen, mlen;
  char *dict = nn_test_slurp("test/fuzz/dict/config.dict", &dlen);
  char *doc = nn_test_slurp("docs/user/mapping.md", &mlen);
  int missing = 0;
  for (int i = 0; nn_config_directive_name(i); i++) {
    const char *name = nn_config_directive_name(i);
    char word[64], row[64], row_end[64];
    snprintf(word, sizeof word, "\n\"%s\"\n", name);
    snprintf(row, sizeof row, "\n| `%s ", name);
    snprintf(row_end, sizeof row_end, "\n| `%s`", name);
    if (!strstr(dict, word) && strncmp(dict, word + 1, strlen(word + 1))) {
      print_error("test/fuzz/dict/config.dict lacks the line \"%s\"\n", name);
      missing++;
    }
    if (!strstr(doc, row) && !strstr(doc, row_end)) {
      print_error("docs/user/mapping.md's directive table lacks a row | `%s ...` |\n", name);
      missing++;
    }
  }
  /* the example of check-config's output in mapping.md shows today's message */
  const char *ex = strstr(doc, "unknown directive '");
  char word[64] = "";
  if (!ex || sscanf(ex, "unknown directive '%63[^']'", word) != 1) {
    print_error(
      "docs/user/mapping.md shows no \"unknown directive 'WORD' (expected ...)\" example\n");
    missing++;
  } else if (strncmp(ex, unknown_msg(word), strlen(unknown_msg(word)))) {
    print_error("docs/user/mapping.md's example is not the parser's message: %s\n",
                unknown_msg(word));
    missing++;
  }
  free(dict);
  free(doc);
  assert_int_equal(missing, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reference_machine), cmocka_unit_test(test_defaults_and_empty),
    cmocka_unit_test(test_case_insensitive),  cmocka_unit_test(test_unknown_directive),
    cmocka_unit_test(test_binary_junk),       cmocka_unit_test(test_mutations),
    cmocka_unit_test(test_many_bad_lines),    cmocka_unit_test(test_directives_listed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
