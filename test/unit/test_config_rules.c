/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_rules.c - the mapping parser, config_rules.c: what to change: rule, env (and the
 * names it may not serve), model and topology lines. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void test_rule_values(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok("rule bytes=1k-1K proto=ll\n"
             "rule bytes=2m-3g algo=tree\n"
             "rule bytes=1t-16383T algo=pat\n"
             "rule bytes=0-18446744073709551615 ranks=2-8 nodes=1- algo=collnet_chain\n"
             "rule coll=reducescatter algo=collnet_direct\n"
             "rule coll=broadcast algo=nvls channels=64\n"
             "rule coll=reduce proto=ll128 channels=1\n");
  const struct nn_rule *r = c->rules;
  assert_true(r[0].bytes_lo == 1024 && r[0].bytes_hi == 1024);
  assert_true(r[1].bytes_lo == 2ull << 20 && r[1].bytes_hi == 3ull << 30);
  assert_true(r[2].bytes_lo == 1ull << 40 && r[2].bytes_hi == 16383ull << 40);
  assert_true(r[3].bytes_hi == UINT64_MAX);
  assert_true(r[3].ranks_lo == 2 && r[3].ranks_hi == 8);
  assert_true(r[3].nodes_lo == 1 && r[3].nodes_hi == NN_UNBOUNDED);
  assert_int_equal(r[3].algo, NN_ALGO_COLLNET_CHAIN);
  assert_int_equal(r[4].coll, NN_COLL_REDUCESCATTER);
  assert_int_equal(r[4].algo, NN_ALGO_COLLNET_DIRECT);
  assert_int_equal(r[5].coll, NN_COLL_BROADCAST);
  assert_int_equal(r[5].channels, 64);
  assert_int_equal(r[6].coll, NN_COLL_REDUCE);
  assert_int_equal(r[6].channels, 1);
  nn_config_free(c);
}

/* chunk=SIZE: bytes with K/M/G suffixes, 16 B to 1 GiB; alone it is a rule of its own. */
static void test_rule_chunk(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok("rule coll=allreduce algo=ring chunk=512K\nrule chunk=16\nrule chunk=1G proto=ll\n"
             "rule algo=tree\n");
  assert_int_equal(c->n_rules, 4);
  assert_true(c->rules[0].chunk == 512 * 1024 && c->rules[0].algo == NN_ALGO_RING);
  assert_true(c->rules[1].chunk == 16 && c->rules[1].algo == NN_ANY && c->rules[1].channels == 0);
  assert_true(c->rules[2].chunk == 1ull << 30 && c->rules[2].proto == NN_PROTO_LL);
  assert_true(c->rules[3].chunk == 0);
  nn_config_free(c);
  expect_err("rule chunk=8\n", 1,
             "rule: bad chunk '8' (expected 16 to 1G bytes, with an optional K, M or G suffix)");
  expect_err("rule chunk=2G\n", 1, "rule: bad chunk '2G' (expected 16 to 1G bytes");
  expect_err("rule chunk=0 algo=ring\n", 1, "rule: bad chunk '0'");
  expect_err("rule chunk=1.5M\n", 1, "rule: bad chunk '1.5M'");
  expect_err("rule chunk=any\n", 1, "rule: chunk=any: 'any' is a value only for coll and scope");
}

static void test_rule_errors(void **state) {
  (void)state;
  expect_err("rule coll=allreduce\n", 1,
             "rule: needs at least one of algo=, proto=, channels=, chunk=");
  expect_err("rule\n", 1, "rule: needs at least one of algo=, proto=, channels=, chunk=");
  expect_err("rule coll=alltoall algo=ring\n", 1,
             "rule: unknown coll 'alltoall' (expected allreduce, allgather, reducescatter, "
             "broadcast, reduce or any)");
  expect_err("rule algo=bogus\n", 1,
             "rule: unknown algo 'bogus' (expected tree, ring, collnet_direct");
  expect_err("rule proto=ll64\n", 1, "rule: unknown proto 'll64' (expected ll, ll128 or simple)");
  expect_err("rule scope=unknown algo=ring\n", 1,
             "rule: unknown scope 'unknown' (expected intra, cross or any)");
  expect_err("rule algo=any\n", 1, "rule: algo=any: 'any' is a value only for coll and scope");
  expect_err("rule proto=ANY\n", 1, "rule: proto=any: 'any' is a value only");
  expect_err("rule bytes=any algo=ring\n", 1, "rule: bytes=any: 'any' is a value only");
  expect_err("rule ranks=any algo=ring\n", 1, "rule: ranks=any:");
  expect_err("rule channels=any\n", 1, "rule: channels=any:");
  expect_err("rule bytes=1M-1K algo=ring\n", 1, "rule: bytes=1M-1K: inverted range");
  expect_err("rule ranks=8-4 algo=ring\n", 1, "rule: ranks=8-4: inverted range");
  expect_err("rule bytes=16777216T- algo=ring\n", 1,
             "rule: bytes=16777216T-: number too large (overflows 64 bits)");
  expect_err("rule bytes=0-18446744073709551616 algo=ring\n", 1,
             "number too large (overflows 64 bits)");
  expect_err("rule nodes=99999999999999999999999 algo=ring\n", 1, "number too large");
  expect_err("rule bytes=-5 algo=ring\n", 1,
             "rule: bytes=-5: missing lower bound (sizes cannot be negative)");
  expect_err("rule bytes=-1K-2K algo=ring\n", 1, "missing lower bound");
  expect_err("rule bytes=64K algo=ring\n", 1, "rule: bytes=64K: expected a range lo-hi or lo-");
  expect_err("rule bytes=1X-2 algo=ring\n", 1, "rule: bytes=1X-2: bad number");
  expect_err("rule bytes=1KB-2 algo=ring\n", 1, "bad number");
  expect_err("rule bytes=1-2-3 algo=ring\n", 1, "bad number");
  expect_err("rule bytes=- algo=ring\n", 1, "missing lower bound");
  expect_err("rule bytes=1.5K- algo=ring\n", 1, "bad number");
  expect_err("rule bytes= algo=ring\n", 1, "rule: bytes=: expected a range");
  expect_err("rule ranks= algo=ring\n", 1, "rule: ranks=: bad number");
  expect_err("rule channels=0\n", 1, "rule: bad channels '0' (expected 1-64)");
  expect_err("rule channels=65\n", 1, "rule: bad channels '65'");
  expect_err("rule channels=-1\n", 1, "rule: bad channels '-1'");
  expect_err("rule algo=ring algo=tree\n", 1, "rule: key 'algo' given twice");
  expect_err("rule Bytes=1-2 BYTES=3-4 algo=ring\n", 1, "rule: key 'bytes' given twice");
  expect_err("rule algo=ring pipeops=1\n", 1,
             "rule: unknown key 'pipeops' (valid keys: coll, bytes, ranks, nodes, scope, algo, "
             "proto, channels, chunk)");
  expect_err("rule ring\n", 1, "rule: expected KEY=VALUE, got 'ring'");
}

static void test_rule_limit(void **state) {
  (void)state;
  /* 4096 rules pass; the 4097th is refused by name, and once only */
  size_t cap = 100000 * 16;
  char *buf = malloc(cap + 1);
  size_t len = 0;
  for (int i = 0; i < 4096; i++) len += (size_t)snprintf(buf + len, cap - len, "rule algo=ring\n");
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(c->n_rules, 4096);
  assert_int_equal(c->rules[4095].line, 4096);
  nn_config_free(c);
  for (int i = 4096; i < 100000; i++)
    len += (size_t)snprintf(buf + len, cap - len, "rule algo=ring\n");
  struct nn_diag d = {0};
  c = (struct nn_config *)1;
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, &c, &d), -1);
  assert_null(c);
  assert_int_equal(d.n, 1);
  assert_int_equal(d.dropped, 0);
  assert_string_equal(d.msgs[0], NAME ":4097: rule: too many rules (at most 4096)");
  nn_diag_clear(&d);
  free(buf);
}

static void test_env_lines(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok("env NCCL_IB_HCA=\nenv NCCL_SOCKET_IFNAME==eth0\nenv NCCL_P2P_LEVEL=NVL\n");
  assert_string_equal(nn_config_env(c, "NCCL_IB_HCA"), "");
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "=eth0");
  assert_int_equal(c->envs[2].line, 3);
  nn_config_free(c);
  expect_err("env\n", 1, "env: expected env NCCL_NAME=value");
  expect_err("env NCCL_X\n", 1, "env: expected NAME=value, got 'NCCL_X'");
  expect_err("env PATH=/bin\n", 1, "env: 'PATH' is not an NCCL variable name");
  expect_err("env NCCL_=1\n", 1, "env: 'NCCL_' is not an NCCL variable name");
  expect_err("env NCCL_A-B=1\n", 1, "env: 'NCCL_A-B' is not an NCCL variable name");
  expect_err("env =1\n", 1, "env: '' is not an NCCL variable name");
  expect_err("env NCCL_ALGO=ring\nenv NCCL_ALGO=tree\n", 2,
             "env: duplicate NCCL_ALGO (first on line 1)");
  expect_err("env NCCL_ALGO=a b\n", 1, "env: unexpected field 'b' (values contain no spaces)");
}

/* What a hostile mapping would have NCCL load or open, and the other names a mapping may
 * not serve: each is refused on its own line, and the rest of the file applies. */
static void test_env_refused(void **state) {
  (void)state;
  static const struct {
    const char *name, *why;
  } cases[] = {
    {"NCCL_NET_PLUGIN", "it names a library for NCCL to load"},
    {"NCCL_PROFILER_PLUGIN", "it names a library for NCCL to load"},
    {"NCCL_TUNER_PLUGIN", "it names a library for NCCL to load"},
    {"NCCL_ENV_PLUGIN", "it names a library for NCCL to load"},
    {"NCCL_COMM_ID", "it names the peer NCCL's bootstrap connects to"},
    {"NCCL_DEBUG_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_TOPO_DUMP_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_TOPO_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_GRAPH_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_GRAPH_DUMP_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_CONF_FILE", "it names a file for NCCL to read or write"},
    {"NCCL_NUMA_CONFIG", "nccl-numa's own settings come only from the real environment"},
    {"NCCL_NUMA_LOG_FILE", "nccl-numa's own settings come only from the real environment"},
    {"NCCL_HOSTID", "not one of the tuning variables a mapping may serve"},
    {"NCCL_X", "not one of the tuning variables a mapping may serve"},
  };
  char text[4096] = GPUS2 "env NCCL_SOCKET_IFNAME=lo\n";
  size_t n = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < n; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "env %s=/tmp/evil\n", cases[i].name);
  strcat(text, "rule algo=ring\n");
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse(NAME, text, strlen(text), NULL, &c, &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(c->refused.n, (int)n);
  for (size_t i = 0; i < n; i++) {
    char want[256];
    snprintf(want, sizeof want, NAME ":%d: env: %s refused, not served: %s", (int)i + 4,
             cases[i].name, cases[i].why);
    if (strncmp(c->refused.msgs[i], want, strlen(want)))
      fail_msg("wanted '%s', got '%s'", want, c->refused.msgs[i]);
    assert_null(nn_config_env(c, cases[i].name));
  }
  assert_int_equal(c->n_envs, 1);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_int_equal(c->n_gpus, 2);
  assert_int_equal(c->n_rules, 1);
  nn_config_free(c);
  /* a file rejected for another reason lists its refused lines among the problems */
  expect_err("env NCCL_NET_PLUGIN=/x/evil.so\nrule algo=bogus\n", 1,
             "env: NCCL_NET_PLUGIN refused");
}

/* A value outside its name's grammar is refused like a refused name: named with file, line,
 * name and rule, not served, and the rest of the file applies. */
static void test_env_value_refused(void **state) {
  (void)state;
  char text[8192] = GPUS2 "env NCCL_IB_SL=3\nenv NCCL_SOCKET_IFNAME=";
  size_t at = strlen(text);
  memset(text + at, 'A', 3000);
  strcpy(text + at + 3000, "\nenv NCCL_IB_TC=0x10\nrule algo=ring\n");
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse(NAME, text, strlen(text), NULL, &c, &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(c->refused.n, 2);
  const char *want = NAME ":4: env: NCCL_SOCKET_IFNAME='AAAA";
  if (strncmp(c->refused.msgs[0], want, strlen(want))) fail_msg("got '%s'", c->refused.msgs[0]);
  assert_non_null(strstr(c->refused.msgs[0],
                         "refused, not served: the value is longer than 255 bytes; "
                         "NCCL_SOCKET_IFNAME takes [^][=]NAME[:PORT]"));
  assert_true(strlen(c->refused.msgs[0]) < 600); /* the value quoted short */
  assert_non_null(strstr(c->refused.msgs[1],
                         NAME ":5: env: NCCL_IB_TC='0x10' refused, not served: NCCL_IB_TC "
                              "takes decimal digits, 0 to 255"));
  assert_null(nn_config_env(c, "NCCL_SOCKET_IFNAME"));
  assert_null(nn_config_env(c, "NCCL_IB_TC"));
  assert_string_equal(nn_config_env(c, "NCCL_IB_SL"), "3");
  assert_int_equal(c->n_rules, 1);
  nn_config_free(c);
}

/* The <!-- env-values --> table of docs/user/mapping.md: each allowed name in one row, and a
 * row of numbers "`LO` to `HI`" (or "`0` or `1`") says what the code's rule says. */
/* A values-table row that starts "| `LO` to `HI`" or "| `LO` or `HI`": 1 with both set. */
static int table_range(const char *row, long *lo, long *hi) {
  static const char *const joins[] = {"` to `", "` or `"};
  static const char lead[] = "\n| `";
  const char *p = row + strlen(lead);
  if (strncmp(row, lead, strlen(lead))) return 0;
  char *end;
  *lo = strtol(p, &end, 10);
  if (end == p) return 0;
  for (int j = 0; j < 2; j++) {
    size_t n = strlen(joins[j]);
    if (strncmp(end, joins[j], n)) continue;
    p = end + n;
    *hi = strtol(p, &end, 10);
    return end != p && *end == '`';
  }
  return 0;
}

static void check_values_table(char *doc, int n) {
  char *start = strstr(doc, "<!-- env-values -->"),
       *end = start ? strstr(start, "<!-- /env-values -->") : NULL;
  if (!end)
    fail_msg("docs/user/mapping.md has no <!-- env-values --> ... <!-- /env-values --> block");
  *end = 0;
  int listed = 0;
  for (char *row = start; (row = strstr(row, "\n| "));) {
    char *eol = strchr(row + 1, '\n');
    if (eol) *eol = 0;
    long lo = -1, hi = -1;
    if (!table_range(row, &lo, &hi)) lo = hi = -1;
    for (char *p = row; (p = strstr(p, "`NCCL_"));) {
      char name[64], rule[512], want[64];
      size_t len = strcspn(p + 1, "`");
      snprintf(name, sizeof name, "%.*s", (int)len, p + 1);
      if (nn_env_refusal(name)) fail_msg("the values table lists %s, which is not served", name);
      snprintf(want, sizeof want, "decimal digits, %ld to %ld", lo, hi);
      if (lo >= 0 && strcmp(nn_env_value_rule(name, rule, sizeof rule), want))
        fail_msg("docs say %s takes %ld to %ld; the code: %s", name, lo, hi, rule);
      listed++;
      p += len + 2;
    }
    if (!eol) break;
    *eol = '\n';
    row = eol;
  }
  assert_int_equal(listed, n);
}

/* The allow-list: sorted for its bsearch, every name served, and docs/user/mapping.md lists
 * exactly these names. */
static void test_env_allow_list(void **state) {
  (void)state;
  int n = 0;
  for (; nn_env_allowed_name(n); n++) {
    assert_null(nn_env_refusal(nn_env_allowed_name(n)));
    if (n) assert_true(strcmp(nn_env_allowed_name(n - 1), nn_env_allowed_name(n)) < 0);
  }
  assert_true(n > 40);
  size_t len;
  char *doc = nn_test_slurp("docs/user/mapping.md", &len);
  char *start = strstr(doc, "<!-- env-allow-list -->"),
       *end = start ? strstr(start, "<!-- /env-allow-list -->") : NULL;
  if (!end)
    fail_msg(
      "docs/user/mapping.md has no <!-- env-allow-list --> ... <!-- /env-allow-list --> block");
  *end = 0;
  int listed = 0;
  for (char *p = start; (p = strstr(p, "`NCCL_"));) {
    char *q = strchr(p + 1, '`');
    assert_non_null(q);
    *q = 0;
    if (nn_env_refusal(p + 1))
      fail_msg("docs/user/mapping.md lists %s, which is not served", p + 1);
    listed++;
    p = q + 1;
  }
  assert_int_equal(listed, n);
  free(doc);
  doc = nn_test_slurp("docs/user/mapping.md", &len);
  check_values_table(doc, n);
  free(doc);
}

static void test_model_lines(void **state) {
  (void)state;
  struct nn_config *c = parse_ok("model pci-latency-us=1e6\n");
  assert_true(c->pci_latency_us == 1e6);
  assert_int_equal(c->model_line, 1);
  nn_config_free(c);
  c = parse_ok("model pci-latency-us=0.001\n");
  assert_true(c->pci_latency_us == 0.001);
  nn_config_free(c);
  static const char *bad[] = {"0", "-1",    "1000000.5", "nan", "inf",  "abc",
                              "",  "1e400", "5us",       " 5",  "0x10q"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[64], sub[96];
    snprintf(text, sizeof text, "model pci-latency-us=%s\n", bad[i]);
    snprintf(sub, sizeof sub,
             "model: bad pci-latency-us '%s' (expected a number of microseconds, 0 < x <= 1000000)",
             bad[i]);
    if (bad[i][0] == ' ') snprintf(sub, sizeof sub, "model: missing pci-latency-us=");
    expect_err(text, 1, bad[i][0] == ' ' ? "model: expected KEY=VALUE, got '5'" : sub);
  }
  expect_err("model pci-latency-us=1\nmodel pci-latency-us=2\n", 2,
             "model: second model line (first on line 1)");
  expect_err("model\n", 1, "model: missing pci-latency-us=");
  expect_err("model nvlink-bw=5\n", 1, "model: unknown key 'nvlink-bw'");
}

static void test_topology_lines(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int mode;
  } good[] = {{"topology mode=auto\n", NN_TOPO_AUTO},
              {"topology mode=numa\n", NN_TOPO_NUMA},
              {"topology mode=off\n", NN_TOPO_OFF},
              {"topology Mode=Numa\n", NN_TOPO_NUMA}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    struct nn_config *c = parse_ok(good[i].text);
    assert_int_equal(c->topo_mode, good[i].mode);
    nn_config_free(c);
  }
  expect_err("topology mode=flat\n", 1,
             "topology: unknown mode 'flat' (expected auto, numa or off)");
  expect_err("topology mode=off\ntopology mode=numa\n", 2,
             "topology: second topology line (first on line 1)");
  expect_err("topology\n", 1, "topology: missing mode=");
  expect_err("topology file=x\n", 1, "topology: unknown key 'file'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rule_values),       cmocka_unit_test(test_rule_chunk),
    cmocka_unit_test(test_rule_errors),       cmocka_unit_test(test_rule_limit),
    cmocka_unit_test(test_env_lines),         cmocka_unit_test(test_env_refused),
    cmocka_unit_test(test_env_value_refused), cmocka_unit_test(test_env_allow_list),
    cmocka_unit_test(test_model_lines),       cmocka_unit_test(test_topology_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
