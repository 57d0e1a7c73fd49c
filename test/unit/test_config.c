/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c - the mapping-file parser (format 1): good files, every error message,
 * hostile input, file-level refusals, and the shared helpers. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

#define NAME "t.conf"

/* The reference machine: VM GPUs 0-3 on host NUMA 1, 4-7 on NUMA 0. */
static const char reference[] =
    "# reference machine\n"
    "cpu vendor=AuthenticAMD family=25 model=17\n"
    "numa 0 cpus=0-31,64-95\n"
    "numa 1 cpus=32-63,96-127\n"
    "gpu 0 bus=0000:01:00.0 numa=1 host=0000:f1:00.0 sm=120\n"
    "gpu 1 bus=0000:02:00.0 numa=1 host=0000:e1:00.0 sm=120\n"
    "gpu 2 bus=0000:03:00.0 numa=1 host=0000:91:00.0 sm=120\n"
    "gpu 3 bus=0000:04:00.0 numa=1 host=0000:81:00.0 sm=120\n"
    "gpu 4 bus=0000:05:00.0 numa=0 host=0000:71:00.0 sm=120\n"
    "gpu 5 bus=0000:06:00.0 numa=0 host=0000:61:00.0 sm=120\n"
    "gpu 6 bus=0000:07:00.0 numa=0 host=0000:11:00.0 sm=120\n"
    "gpu 7 bus=0000:08:00.0 numa=0 host=0000:01:00.0 sm=120\n"
    "topology mode=numa\n"
    "model pci-latency-us=2.5\n"
    "rule coll=allreduce bytes=0-64K scope=intra algo=ring proto=ll\n"
    "rule coll=allgather bytes=1M- ranks=8 nodes=1 scope=cross algo=ring proto=simple channels=4\n"
    "rule channels=2\n"
    "env NCCL_P2P_DISABLE=1\n"
    "env NCCL_SOCKET_IFNAME=lo\n";

static struct nn_config *parse_opts(const char *text, const struct nn_parse_opts *o) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  int r = nn_config_parse(NAME, text, strlen(text), o, &cfg, &d);
  for (int i = 0; i < d.n; i++) print_error("unexpected: %s\n", d.msgs[i]);
  assert_int_equal(r, 0);
  assert_non_null(cfg);
  assert_int_equal(d.n, 0);
  for (int i = 0; i < cfg->refused.n; i++) print_error("unexpected refusal: %s\n", cfg->refused.msgs[i]);
  assert_int_equal(cfg->refused.n, 0);
  nn_diag_clear(&d);
  return cfg;
}

static struct nn_config *parse_ok(const char *text) { return parse_opts(text, NULL); }

static int has_msg(const struct nn_diag *d, const char *prefix, const char *sub) {
  for (int i = 0; i < d->n; i++)
    if ((!prefix || !strncmp(d->msgs[i], prefix, strlen(prefix))) && strstr(d->msgs[i], sub))
      return 1;
  return 0;
}

/* Parses `len` bytes expecting rejection with a message "t.conf:LINE: ...SUB...". */
static void expect_err_len_opts(const char *text, size_t len, int line, const char *sub,
                                const struct nn_parse_opts *o) {
  struct nn_config *cfg = (struct nn_config *)1;
  struct nn_diag d = {0};
  int r = nn_config_parse(NAME, text, len, o, &cfg, &d);
  char prefix[64];
  snprintf(prefix, sizeof prefix, NAME ":%d: ", line);
  if (r != -1 || !has_msg(&d, prefix, sub)) {
    print_error("wanted '%s%s'; got r=%d and:\n", prefix, sub, r);
    for (int i = 0; i < d.n; i++) print_error("  %s\n", d.msgs[i]);
  }
  assert_int_equal(r, -1);
  assert_null(cfg);
  assert_true(has_msg(&d, prefix, sub));
  nn_diag_clear(&d);
}

static void expect_err(const char *text, int line, const char *sub) {
  expect_err_len_opts(text, strlen(text), line, sub, NULL);
}

/* A valid prefix with GPUs, so an error in a later line is the only one. */
#define GPUS2 "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n"

/* ------------------------------------------------------------------ good files */

static void busstr(const struct nn_busid *b, char *out) { nn_busid_format(b, out, 16); }

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
  struct nn_config *c = parse_ok(
      "# full line\n"
      "   \t# indented comment\n"
      "\n  \t \n"
      "gpu 0 bus=01:00.0 numa=0 # trailing comment with bus=zz\n"
      "gpu 1\tbus=02:00.0\tnuma=0\t#tab comment\n"
      "env NCCL_SOCKET_IFNAME=a#b #comment\n"
      "rule algo=ring #algo=bogus\n");
  assert_int_equal(c->n_gpus, 2);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "a#b");
  assert_int_equal(c->n_rules, 1);
  assert_int_equal(c->rules[0].line, 8);
  nn_config_free(c);
  /* a '#' inside a value is kept, so this is a bad bus id */
  expect_err("gpu 0 bus=01:00.0#x numa=0\n", 1, "bad bus id '01:00.0#x'");
}

static void test_case_insensitive(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(
      "GPU 0 BUS=0000:AB:1F.7 NUMA=2 Host=00000000:C1:00.0 SM=90\n"
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
  assert_null(nn_config_env(c, "NCCL_MIXED_CASE"));  /* names are exact */
  nn_config_free(c);
  /* env NAME's NCCL_ prefix is exact */
  expect_err("env nccl_x=1\n", 1, "'nccl_x' is not an NCCL variable name");
}

/* ------------------------------------------------------------------ bus ids */

static void test_busid(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } good[] = {{"01:00.0", "0000:01:00.0"},         {"0000:01:00.0", "0000:01:00.0"},
              {"00000000:01:00.0", "0000:01:00.0"}, {"0:ff:1f.7", "0000:ff:1f.7"},
              {"FFFF:AB:0C.3", "ffff:ab:0c.3"},     {"0000ffff:00:00.0", "ffff:00:00.0"}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    struct nn_busid b;
    char s[16];
    assert_int_equal(nn_busid_parse(good[i].in, &b), 0);
    nn_busid_format(&b, s, sizeof s);
    assert_string_equal(s, good[i].out);
  }
  static const char *bad[] = {"", "01", "01:00", "1:00.0", "001:00.0", "01:0.0", "01:20.0",
                              "01:00.8", "01:00.00", "10000:01:00.0", "123456789:01:00.0",
                              ":01:00.0", "0000:01:00.0:", "01:00.0.", "g1:00.0", "01:00.-",
                              "0000:01:00.0x", " 01:00.0", "0000:01:00:00.0", "01.00.0", "01:00.a"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct nn_busid b;
    if (nn_busid_parse(bad[i], &b) != -1) print_error("accepted '%s'\n", bad[i]);
    assert_int_equal(nn_busid_parse(bad[i], &b), -1);
  }
  assert_int_equal(nn_busid_parse(NULL, NULL), -1);
  char small[5];
  struct nn_busid b = {0x12, 3, 4, 5};
  nn_busid_format(&b, small, sizeof small);
  assert_string_equal(small, "0012");
}

/* ------------------------------------------------------------------ gpu lines */

static void test_gpu_errors(void **state) {
  (void)state;
  expect_err("gpu\n", 1, "gpu: missing index");
  expect_err("gpu bus=01:00.0 numa=0\n", 1, "gpu: missing index");
  expect_err("gpu x bus=01:00.0 numa=0\n", 1, "gpu: bad index 'x' (expected 0-1023)");
  expect_err("gpu -1 bus=01:00.0 numa=0\n", 1, "gpu: bad index '-1'");
  expect_err("gpu 1024 bus=01:00.0 numa=0\n", 1, "gpu: bad index '1024'");
  expect_err("gpu 99999999999999999999999 bus=01:00.0 numa=0\n", 1, "gpu: bad index");
  expect_err("gpu 0 numa=0\n", 1, "gpu: missing bus=");
  expect_err("gpu 0 bus=01:00.0\n", 1, "gpu: missing numa=");
  expect_err("gpu 0 bus=01:00.0 numa=1024\n", 1, "gpu: bad numa '1024' (expected a NUMA node 0-1023)");
  expect_err("gpu 0 bus=01:00.0 numa=-1\n", 1, "gpu: bad numa '-1'");
  expect_err("gpu 0 bus=01:20.0 numa=0\n", 1, "gpu: bad bus id '01:20.0'");
  expect_err("gpu 0 bus=01:00.0 numa=0 host=xyz\n", 1, "gpu: bad host id 'xyz'");
  expect_err(GPUS2 "gpu 1 bus=03:00.0 numa=0\n", 3, "gpu: duplicate index 1 (first on line 2)");
  expect_err(GPUS2 "gpu 2 bus=00000000:02:00.0 numa=0\n", 3,
             "gpu: duplicate bus id 0000:02:00.0 (first on line 2)");
  expect_err("gpu 0 bus=01:00.0 numa=0 host=81:00.0\ngpu 1 bus=02:00.0 numa=0 host=0000:81:00.0\n",
             2, "gpu: duplicate host id 0000:81:00.0 (first on line 1)");
  expect_err("gpu 0 bus=01:00.0 numa=0 color=red\n", 1, "gpu: unknown key 'color'");
  expect_err("gpu 0 bus=01:00.0 numa=0 bus=02:00.0\n", 1, "gpu: key 'bus' given twice");
  expect_err("gpu 0 bus=01:00.0 numa=0 NUMA=0\n", 1, "gpu: key 'numa' given twice");
  expect_err("gpu 0 bus=01:00.0 numa=0 extra\n", 1, "gpu: expected KEY=VALUE, got 'extra'");
  expect_err("gpu 0 bus=01:00.0 numa=0 =5\n", 1, "gpu: expected KEY=VALUE, got '=5'");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=9\n", 1, "gpu: bad sm '9' (expected major*10+minor");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=1000\n", 1, "gpu: bad sm '1000'");
  expect_err("gpu 0 bus=01:00.0 numa=0 sm=12.0\n", 1, "gpu: bad sm '12.0'");
  expect_err("gpu 0 bus= numa=0\n", 1, "gpu: bad bus id ''");
}

static void test_gpu_missing_index(void **state) {
  (void)state;
  /* reported at the last gpu line, even with other lines after it */
  expect_err("gpu 0 bus=01:00.0 numa=0\n# c\ngpu 2 bus=02:00.0 numa=0\nrule algo=ring\n", 3,
             "gpu: index 1 missing (2 gpu lines need indices 0-1, each once)");
  expect_err("gpu 3 bus=01:00.0 numa=0\n", 1, "gpu: index 0 missing");
  expect_err("gpu 5 bus=01:00.0 numa=0\ngpu 6 bus=02:00.0 numa=0\ngpu 7 bus=03:00.0 numa=0\n", 3,
             "gpu: index 0, 1, 2 missing");
}

static void test_gpu_sm(void **state) {
  (void)state;
  struct nn_config *c = parse_ok("gpu 0 bus=01:00.0 numa=0 sm=10\ngpu 1 bus=02:00.0 numa=0 sm=999\n");
  assert_int_equal(c->gpus[0].sm, 10);
  assert_int_equal(c->gpus[1].sm, 999);
  nn_config_free(c);
}

static void test_numa_limits(void **state) {
  (void)state;
  /* 64 distinct nodes, ids up to 1023, pass; a 65th fails */
  size_t cap = 70 * 64;
  char *buf = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < 64; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:00.0 numa=%d\n", i, i, 1023 - i);
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(nn_config_numa_count(c), 64);
  assert_int_equal(nn_config_max_gpus_per_numa(c), 1);
  nn_config_free(c);
  snprintf(buf + len, cap - len, "gpu 64 bus=ff:00.0 numa=5\n");
  expect_err(buf, 65, "at most 64 distinct NUMA nodes");
  /* a rejected line does not use up a node: 63 nodes, a bad line on a new node, then
   * a good line on another new node gives the bad line's error only */
  len = 0;
  for (int i = 0; i < 63; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:00.0 numa=%d\n", i, i, 1023 - i);
  len += (size_t)snprintf(buf + len, cap - len, "gpu 63 bus=zz numa=5\ngpu 64 bus=fe:00.0 numa=6\n");
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse(NAME, buf, len, NULL, NULL, &d), -1);
  assert_int_equal(d.n, 1);
  assert_true(has_msg(&d, NAME ":64: ", "gpu: bad bus id 'zz'"));
  nn_diag_clear(&d);
  free(buf);
}

static void test_gpu_limit(void **state) {
  (void)state;
  /* 1024 GPUs is the maximum; a 1025th line is refused by name */
  size_t cap = 1100 * 48;
  char *buf = malloc(cap);
  size_t len = 0;
  for (int i = 0; i < 1024; i++)
    len += (size_t)snprintf(buf + len, cap - len, "gpu %d bus=%02x:%02x.%d numa=%d\n", i, i / 32 / 8,
                            i / 8 % 32, i % 8, i % 4);
  struct nn_config *c = parse_ok(buf);
  assert_int_equal(c->n_gpus, 1024);
  assert_int_equal(c->gpus[1023].index, 1023);
  nn_config_free(c);
  snprintf(buf + len, cap - len, "gpu 0 bus=ff:00.0 numa=0\n");
  expect_err(buf, 1025, "gpu: too many gpu lines (at most 1024)");
  free(buf);
}

static void test_host_side(void **state) {
  (void)state;
  struct nn_parse_opts hs = {.flags = NN_PARSE_HOST_SIDE};
  static const char host_map[] =
      "# generated by nccl-numa discover --proxmox-vm; nccl-numa: host-side mapping\n"
      "gpu 0 numa=1 host=0000:f1:00.0\n"
      "gpu 1 numa=0 host=71:00.0\n";
  struct nn_config *c = parse_opts(host_map, &hs);
  assert_int_equal(c->host_side, 1);
  assert_int_equal(c->gpus[0].has_bus, 0);
  assert_int_equal(c->gpus[0].has_host, 1);
  assert_int_equal(c->gpus[1].numa, 0);
  nn_config_free(c);
  /* without the flag, bus= is required, and the hint names --host-side */
  expect_err(host_map, 2, "gpu: missing bus= (this is a host-side mapping: check it with --host-side");
  /* with the flag, host= is required; bus= may still be given */
  expect_err_len_opts("gpu 0 bus=01:00.0 numa=0\n", 25, 1,
                      "gpu: missing host= (a host-side mapping needs it)", &hs);
  c = parse_opts("gpu 0 bus=01:00.0 numa=0 host=81:00.0\n", &hs);
  assert_int_equal(c->gpus[0].has_bus, 1);
  assert_int_equal(c->host_side, 0);
  nn_config_free(c);
  /* the marker is found in any comment line, before or after the gpu lines */
  c = parse_ok("env NCCL_SOCKET_IFNAME=nccl-numa:\n# note: nccl-numa: host-side mapping\n");
  assert_int_equal(c->host_side, 1);
  nn_config_free(c);
}

/* ------------------------------------------------------------------ numa, cpu */

static void test_numa_lines(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 "numa 0 cpus=0-3,8,10-11\nnuma 7 cpus=100\n");
  assert_int_equal(c->n_numas, 2);  /* node 7 holds no GPU: accepted */
  assert_string_equal(nn_config_find_numa(c, 7)->cpus, "100");
  assert_int_equal(nn_config_numa_count(c), 2);
  nn_config_free(c);
  expect_err("numa 0\n", 1, "numa: missing cpus=");
  expect_err("numa cpus=0-3\n", 1, "numa: missing node");
  expect_err("numa 1024 cpus=0\n", 1, "numa: bad node '1024'");
  expect_err("numa 0 cpus=0-3\nnuma 0 cpus=4-7\n", 2, "numa: second line for node 0 (first on line 1)");
  expect_err("numa 0 cpus=\n", 1, "numa: bad cpus list '': the list is empty");
  expect_err("numa 0 cpus=0-3,\n", 1, "numa: bad cpus list '0-3,': an item is empty");
  expect_err("numa 0 cpus=3-1\n", 1, "range 3-1 is inverted");
  expect_err("numa 0 cpus=a-b\n", 1, "expected N or N-M items separated by commas");
  expect_err("numa 0 cpus=0-3-5\n", 1, "expected N or N-M items");
  expect_err("numa 0 cpus=-3\n", 1, "expected N or N-M items");
  expect_err("numa 0 cpus=4096\n", 1, "CPU numbers go up to 4095");
  expect_err("numa 0 cpus=0 cpus=1\n", 1, "numa: key 'cpus' given twice");
  expect_err("numa 0 cpus=0 mem=1\n", 1, "numa: unknown key 'mem'");
  /* 28 words = 8*28 + 27 = 251 characters fit; 29 words = 260 do not */
  c = parse_ok("numa 0 cpus=0-895\n");
  nn_config_free(c);
  expect_err("numa 0 cpus=0-895,896\n", 1,
             "CPU 896 makes an affinity mask of 260 characters, over NCCL's 255-character");
  expect_err("numa 0 cpus=4095\n", 1, "over NCCL's 255-character attribute limit");
}

static void test_cpulist_helpers(void **state) {
  (void)state;
  uint32_t mask[NN_CPUMASK_WORDS];
  char err[96], buf[300];
  assert_int_equal(nn_cpulist_parse("0-31,64-95", mask, err, sizeof err), 95);
  assert_int_equal(nn_cpumask_format(mask, 95, buf, sizeof buf), 26);
  assert_string_equal(buf, "ffffffff,00000000,ffffffff");
  assert_int_equal(nn_cpulist_parse("33,1", mask, err, sizeof err), 33);
  assert_int_equal(nn_cpumask_format(mask, 63, buf, sizeof buf), 17);
  assert_string_equal(buf, "00000002,00000002");
  assert_int_equal(nn_cpumask_format(mask, 63, buf, 17), -1);  /* no room for the NUL */
  assert_int_equal(nn_cpulist_parse("1,,2", mask, err, sizeof err), -1);
  assert_string_equal(err, "an item is empty");
  assert_int_equal(nn_cpulist_parse(NULL, NULL, NULL, 0), -1);
}

static char *cpuinfo_file(const char *vendor, int family, int model) {
  char text[256];
  snprintf(text, sizeof text,
           "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
           "model name\t: Test CPU\n\nprocessor\t: 1\nvendor_id\t: Other\n",
           vendor, family, model);
  return nn_test_write_file(text);
}

static void test_cpu_lines(void **state) {
  (void)state;
  char *amd = cpuinfo_file("AuthenticAMD", 25, 17);
  char *intel = cpuinfo_file("GenuineIntel", 6, 143);
  struct nn_parse_opts on_amd = {.cpuinfo_path = amd}, on_intel = {.cpuinfo_path = intel};
  const char *gi = "cpu vendor=genuineintel\n";
  expect_err_len_opts(gi, strlen(gi), 1, "cpu: vendor=GenuineIntel needs family= and model=", &on_amd);
  expect_err_len_opts("cpu vendor=GenuineIntel family=6\n", 33, 1, "needs family= and model=", &on_amd);
  struct nn_config *c = parse_opts(gi, &on_intel);
  assert_string_equal(c->cpu.vendor, "GenuineIntel");
  assert_int_equal(c->cpu.family, -1);  /* as written; the host supplies it */
  nn_config_free(c);
  c = parse_opts("cpu vendor=GenuineIntel family=0x6 model=0xCF\n", &on_amd);
  assert_int_equal(c->cpu.family, 6);
  assert_int_equal(c->cpu.model, 207);
  assert_int_equal(c->cpu.line, 1);
  nn_config_free(c);
  struct nn_parse_opts missing = {.cpuinfo_path = "/nonexistent/cpuinfo"};
  expect_err_len_opts(gi, strlen(gi), 1, "this host's /nonexistent/cpuinfo does not describe", &missing);
  c = parse_opts("cpu vendor=AuthenticAMD\n", &missing);
  assert_int_equal(c->cpu.present, 1);
  nn_config_free(c);
  expect_err("cpu family=25\n", 1, "cpu: missing vendor=");
  expect_err("cpu vendor=CentaurHauls\n", 1, "cpu: unknown vendor 'CentaurHauls' (expected AuthenticAMD or GenuineIntel)");
  expect_err("cpu vendor=AuthenticAMD\ncpu vendor=AuthenticAMD\n", 2, "cpu: second cpu line (first on line 1)");
  expect_err("cpu vendor=AuthenticAMD family=x\n", 1, "cpu: bad family 'x'");
  expect_err("cpu vendor=AuthenticAMD model=0x\n", 1, "cpu: bad model '0x'");
  expect_err("cpu vendor=AuthenticAMD model=65536\n", 1, "cpu: bad model '65536'");
  expect_err("cpu vendor=AuthenticAMD stepping=1\n", 1, "cpu: unknown key 'stepping'");
  char vendor[16];
  int fam, mod;
  assert_int_equal(nn_cpuinfo_read(intel, vendor, &fam, &mod), 0);
  assert_string_equal(vendor, "GenuineIntel");
  assert_int_equal(fam, 6);
  assert_int_equal(mod, 143);
  assert_int_equal(nn_cpuinfo_read("/nonexistent", vendor, &fam, &mod), -1);
  nn_test_remove_file(amd);
  nn_test_remove_file(intel);
}

/* ------------------------------------------------------------------ rules */

static void test_rule_values(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(
      "rule bytes=1k-1K proto=ll\n"
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
  struct nn_config *c = parse_ok("rule coll=allreduce algo=ring chunk=512K\nrule chunk=16\nrule chunk=1G proto=ll\n"
                                      "rule algo=tree\n");
  assert_int_equal(c->n_rules, 4);
  assert_true(c->rules[0].chunk == 512 * 1024 && c->rules[0].algo == NN_ALGO_RING);
  assert_true(c->rules[1].chunk == 16 && c->rules[1].algo == NN_ANY && c->rules[1].channels == 0);
  assert_true(c->rules[2].chunk == 1ull << 30 && c->rules[2].proto == NN_PROTO_LL);
  assert_true(c->rules[3].chunk == 0);
  nn_config_free(c);
  expect_err("rule chunk=8\n", 1, "rule: bad chunk '8' (expected 16 to 1G bytes, with an optional K, M or G suffix)");
  expect_err("rule chunk=2G\n", 1, "rule: bad chunk '2G' (expected 16 to 1G bytes");
  expect_err("rule chunk=0 algo=ring\n", 1, "rule: bad chunk '0'");
  expect_err("rule chunk=1.5M\n", 1, "rule: bad chunk '1.5M'");
  expect_err("rule chunk=any\n", 1, "rule: chunk=any: 'any' is a value only for coll and scope");
}

static void test_rule_errors(void **state) {
  (void)state;
  expect_err("rule coll=allreduce\n", 1, "rule: needs at least one of algo=, proto=, channels=, chunk=");
  expect_err("rule\n", 1, "rule: needs at least one of algo=, proto=, channels=, chunk=");
  expect_err("rule coll=alltoall algo=ring\n", 1, "rule: unknown coll 'alltoall' (expected allreduce, allgather, reducescatter, broadcast, reduce or any)");
  expect_err("rule algo=bogus\n", 1, "rule: unknown algo 'bogus' (expected tree, ring, collnet_direct");
  expect_err("rule proto=ll64\n", 1, "rule: unknown proto 'll64' (expected ll, ll128 or simple)");
  expect_err("rule scope=unknown algo=ring\n", 1, "rule: unknown scope 'unknown' (expected intra, cross or any)");
  expect_err("rule algo=any\n", 1, "rule: algo=any: 'any' is a value only for coll and scope");
  expect_err("rule proto=ANY\n", 1, "rule: proto=any: 'any' is a value only");
  expect_err("rule bytes=any algo=ring\n", 1, "rule: bytes=any: 'any' is a value only");
  expect_err("rule ranks=any algo=ring\n", 1, "rule: ranks=any:");
  expect_err("rule channels=any\n", 1, "rule: channels=any:");
  expect_err("rule bytes=1M-1K algo=ring\n", 1, "rule: bytes=1M-1K: inverted range");
  expect_err("rule ranks=8-4 algo=ring\n", 1, "rule: ranks=8-4: inverted range");
  expect_err("rule bytes=16777216T- algo=ring\n", 1, "rule: bytes=16777216T-: number too large (overflows 64 bits)");
  expect_err("rule bytes=0-18446744073709551616 algo=ring\n", 1, "number too large (overflows 64 bits)");
  expect_err("rule nodes=99999999999999999999999 algo=ring\n", 1, "number too large");
  expect_err("rule bytes=-5 algo=ring\n", 1, "rule: bytes=-5: missing lower bound (sizes cannot be negative)");
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
  expect_err("rule algo=ring pipeops=1\n", 1, "rule: unknown key 'pipeops'");
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
  for (int i = 4096; i < 100000; i++) len += (size_t)snprintf(buf + len, cap - len, "rule algo=ring\n");
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

/* ------------------------------------------------------------------ env, model, topology */

static void test_env_lines(void **state) {
  (void)state;
  struct nn_config *c = parse_ok("env NCCL_IB_HCA=\nenv NCCL_SOCKET_IFNAME=a=b\nenv NCCL_P2P_LEVEL=x\n");
  assert_string_equal(nn_config_env(c, "NCCL_IB_HCA"), "");
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "a=b");
  assert_int_equal(c->envs[2].line, 3);
  nn_config_free(c);
  expect_err("env\n", 1, "env: expected env NCCL_NAME=value");
  expect_err("env NCCL_X\n", 1, "env: expected NAME=value, got 'NCCL_X'");
  expect_err("env PATH=/bin\n", 1, "env: 'PATH' is not an NCCL variable name");
  expect_err("env NCCL_=1\n", 1, "env: 'NCCL_' is not an NCCL variable name");
  expect_err("env NCCL_A-B=1\n", 1, "env: 'NCCL_A-B' is not an NCCL variable name");
  expect_err("env =1\n", 1, "env: '' is not an NCCL variable name");
  expect_err("env NCCL_ALGO=ring\nenv NCCL_ALGO=tree\n", 2, "env: duplicate NCCL_ALGO (first on line 1)");
  expect_err("env NCCL_ALGO=a b\n", 1, "env: unexpected field 'b' (values contain no spaces)");
}

/* What a hostile mapping would have NCCL load or open, and the other names a mapping may
 * not serve: each is refused on its own line, and the rest of the file applies. */
static void test_env_refused(void **state) {
  (void)state;
  static const struct { const char *name, *why; } cases[] = {
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
    snprintf(want, sizeof want, NAME ":%d: env: %s refused, not served: %s", (int)i + 4, cases[i].name,
             cases[i].why);
    if (strncmp(c->refused.msgs[i], want, strlen(want))) fail_msg("wanted '%s', got '%s'", want, c->refused.msgs[i]);
    assert_null(nn_config_env(c, cases[i].name));
  }
  assert_int_equal(c->n_envs, 1);
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_int_equal(c->n_gpus, 2);
  assert_int_equal(c->n_rules, 1);
  nn_config_free(c);
  /* a file rejected for another reason lists its refused lines among the problems */
  expect_err("env NCCL_NET_PLUGIN=/x/evil.so\nrule algo=bogus\n", 1, "env: NCCL_NET_PLUGIN refused");
}

/* The allow-list: sorted for its bsearch, every name served, and docs/user/mapping.md lists
 * exactly these names. */
static void test_env_allow_list(void **state) {
  (void)state;
  const char *const *names = nn_env_allowed_names();
  int n = 0;
  for (; names[n]; n++) {
    assert_null(nn_env_refusal(names[n]));
    if (n) assert_true(strcmp(names[n - 1], names[n]) < 0);
  }
  assert_true(n > 40);
  size_t len;
  char *doc = nn_test_slurp("docs/user/mapping.md", &len);
  char *start = strstr(doc, "<!-- env-allow-list -->"), *end = start ? strstr(start, "<!-- /env-allow-list -->") : NULL;
  if (!end) fail_msg("docs/user/mapping.md has no <!-- env-allow-list --> ... <!-- /env-allow-list --> block");
  *end = 0;
  int listed = 0;
  for (char *p = start; (p = strstr(p, "`NCCL_"));) {
    char *q = strchr(p + 1, '`');
    assert_non_null(q);
    *q = 0;
    if (nn_env_refusal(p + 1)) fail_msg("docs/user/mapping.md lists %s, which is not served", p + 1);
    listed++;
    p = q + 1;
  }
  assert_int_equal(listed, n);
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
  static const char *bad[] = {"0", "-1", "1000000.5", "nan", "inf", "abc", "", "1e400", "5us", " 5", "0x10q"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[64], sub[96];
    snprintf(text, sizeof text, "model pci-latency-us=%s\n", bad[i]);
    snprintf(sub, sizeof sub, "model: bad pci-latency-us '%s' (expected a number of microseconds, 0 < x <= 1000000)", bad[i]);
    if (bad[i][0] == ' ') snprintf(sub, sizeof sub, "model: missing pci-latency-us=");
    expect_err(text, 1, bad[i][0] == ' ' ? "model: expected KEY=VALUE, got '5'" : sub);
  }
  expect_err("model pci-latency-us=1\nmodel pci-latency-us=2\n", 2, "model: second model line (first on line 1)");
  expect_err("model\n", 1, "model: missing pci-latency-us=");
  expect_err("model nvlink-bw=5\n", 1, "model: unknown key 'nvlink-bw'");
}

static void test_topology_lines(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int mode;
  } good[] = {{"topology mode=auto\n", NN_TOPO_AUTO}, {"topology mode=numa\n", NN_TOPO_NUMA},
              {"topology mode=off\n", NN_TOPO_OFF}, {"topology Mode=Numa\n", NN_TOPO_NUMA}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    struct nn_config *c = parse_ok(good[i].text);
    assert_int_equal(c->topo_mode, good[i].mode);
    nn_config_free(c);
  }
  expect_err("topology mode=flat\n", 1, "topology: unknown mode 'flat' (expected auto, numa or off)");
  expect_err("topology mode=off\ntopology mode=numa\n", 2, "topology: second topology line (first on line 1)");
  expect_err("topology\n", 1, "topology: missing mode=");
  expect_err("topology file=x\n", 1, "topology: unknown key 'file'");
}

/* ------------------------------------------------------------------ hostile input */

static void test_unknown_directive(void **state) {
  (void)state;
  expect_err(GPUS2 "gpus 2 bus=03:00.0 numa=0\n", 3, "unknown directive 'gpus' (expected gpu, numa, cpu, rule, env, model, topology or include-csv)");
  expect_err("\xc3\xa9tat x\n", 1, "unknown directive '\\xc3\\xa9tat'");
  expect_err("rule algo=ring\n\x1b[31mred\n", 2, "control character \\x1b at column 1");
  expect_err("env NCCL_X=\x7f\n", 1, "control character \\x7f at column 12");
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
      for (const char *m = d.msgs[i]; *m; m++)  /* quoted text is escaped */
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
  assert_int_equal(d.n, 100);  /* capped; the rest counted */
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
  assert_string_equal(d.msgs[99], NAME ":100: unknown directive 'bogus' (expected gpu, numa, cpu, rule, env, model, topology or include-csv)");
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

/* ------------------------------------------------------------------ files */

static void expect_load_err(const char *path, const char *want) {
  struct nn_diag d = {0};
  struct nn_config *c = (struct nn_config *)1;
  int r = nn_config_load(path, NULL, &c, &d);
  if (r != -1 || d.n != 1 || !strstr(d.msgs[0], want))
    print_error("wanted '%s'; got r=%d, %s\n", want, r, d.n ? d.msgs[0] : "no message");
  assert_int_equal(r, -1);
  assert_null(c);
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], want));
  nn_diag_clear(&d);
}

static void test_load_good(void **state) {
  (void)state;
  char *path = nn_test_write_file(reference);
  assert_non_null(path);
  struct nn_diag d = {0};
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_load(path, NULL, &c, &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(c->n_gpus, 8);
  assert_string_equal(c->path, path);
  assert_string_equal(c->rules[0].file, path);
  nn_config_free(c);
  nn_test_remove_file(path);
  /* an error names the path */
  path = nn_test_write_file("rule algo=ring\nrule algo=wrong\n");
  assert_non_null(path);
  char want[300];
  snprintf(want, sizeof want, "%s:2: rule: unknown algo 'wrong'", path ? path : "");
  expect_load_err(path, want);
  nn_test_remove_file(path);
}

static void test_load_refusals(void **state) {
  (void)state;
  char dir[] = "/tmp/nn-test-load-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char p[128], want[256];
  /* missing */
  snprintf(p, sizeof p, "%s/missing.conf", dir);
  snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(ENOENT));
  expect_load_err(p, want);
  /* a directory */
  snprintf(want, sizeof want, "%s: cannot open: a directory, not a regular file", dir);
  expect_load_err(dir, want);
  /* a FIFO with no writer: must not block */
  snprintf(p, sizeof p, "%s/fifo", dir);
  assert_int_equal(mkfifo(p, 0600), 0);
  expect_load_err(p, "cannot open: a FIFO, not a regular file");
  unlink(p);
  /* a symlink loop */
  char q[128];
  snprintf(p, sizeof p, "%s/loop1", dir);
  snprintf(q, sizeof q, "%s/loop2", dir);
  assert_int_equal(symlink(q, p), 0);
  assert_int_equal(symlink(p, q), 0);
  snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(ELOOP));
  expect_load_err(p, want);
  unlink(p);
  unlink(q);
  /* a character device */
  expect_load_err("/dev/null", "/dev/null: cannot open: a character device, not a regular file");
  /* over 16 MiB: refused from its size alone (sparse, so nothing is written) */
  snprintf(p, sizeof p, "%s/big", dir);
  int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)NN_MAX_FILE_BYTES + 1), 0);
  close(fd);
  expect_load_err(p, "file is 16777217 bytes, over the 16 MiB limit");
  /* exactly 16 MiB of blank lines is read and accepted */
  fd = open(p, O_WRONLY | O_TRUNC);
  char *blank = malloc(NN_MAX_FILE_BYTES);
  memset(blank, '\n', NN_MAX_FILE_BYTES);
  assert_int_equal(write(fd, blank, NN_MAX_FILE_BYTES), (ssize_t)NN_MAX_FILE_BYTES);
  close(fd);
  free(blank);
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_load(p, NULL, &c, NULL), 0);
  nn_config_free(c);
  unlink(p);
  /* unreadable (only meaningful when not root) */
  snprintf(p, sizeof p, "%s/secret", dir);
  fd = open(p, O_CREAT | O_WRONLY, 0000);
  close(fd);
  if (geteuid() != 0) {
    snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(EACCES));
    expect_load_err(p, want);
  }
  unlink(p);
  expect_load_err("", "cannot open");
  rmdir(dir);
}

/* ------------------------------------------------------------------ names */

static void test_names(void **state) {
  (void)state;
  static const char *colls[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  for (int i = 0; i < NN_COLL_COUNT; i++) {
    assert_string_equal(nn_coll_name(i), colls[i]);
    assert_int_equal(nn_coll_from_name(colls[i]), i);
  }
  static const char *algos[] = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
  for (int i = 0; i < NN_ALGO_COUNT; i++) {
    assert_string_equal(nn_algo_name(i), algos[i]);
    assert_int_equal(nn_algo_from_name(algos[i]), i);
  }
  static const char *protos[] = {"ll", "ll128", "simple"};
  for (int i = 0; i < NN_PROTO_COUNT; i++) {
    assert_string_equal(nn_proto_name(i), protos[i]);
    assert_int_equal(nn_proto_from_name(protos[i]), i);
  }
  assert_string_equal(nn_scope_name(NN_SCOPE_ANY), "any");
  assert_string_equal(nn_scope_name(NN_SCOPE_INTRA), "intra");
  assert_string_equal(nn_scope_name(NN_SCOPE_CROSS), "cross");
  assert_string_equal(nn_scope_name(NN_SCOPE_UNKNOWN), "unknown");
  assert_int_equal(nn_scope_from_name("CROSS"), NN_SCOPE_CROSS);
  assert_int_equal(nn_scope_from_name("unknown"), -2);
  assert_string_equal(nn_topo_mode_name(NN_TOPO_OFF), "off");
  assert_int_equal(nn_topo_mode_from_name("Auto"), NN_TOPO_AUTO);
  assert_int_equal(nn_topo_mode_from_name("x"), -2);
  assert_int_equal(nn_coll_from_name("ANY"), NN_ANY);
  assert_string_equal(nn_coll_name(NN_ANY), "any");
  assert_int_equal(nn_coll_from_name("AllReduce"), NN_COLL_ALLREDUCE);
  assert_int_equal(nn_coll_from_name("all"), -2);
  assert_int_equal(nn_algo_from_name("any"), -2);
  assert_int_equal(nn_proto_from_name(NULL), -2);
  assert_string_equal(nn_algo_name(99), "?");
  assert_string_equal(nn_proto_name(-5), "?");
}

static void test_diag(void **state) {
  (void)state;
  struct nn_diag d = {0};
  nn_diag_add(&d, "%s:%d: %s", "f", 3, "x");
  assert_int_equal(d.n, 1);
  assert_string_equal(d.msgs[0], "f:3: x");
  for (int i = 0; i < 150; i++) nn_diag_add(&d, "m%d", i);
  assert_int_equal(d.n, 100);
  assert_int_equal(d.dropped, 51);
  nn_diag_clear(&d);
  nn_diag_clear(&d);
  nn_diag_clear(NULL);
  nn_diag_add(NULL, "ignored");
}

/* A UTF-8 byte-order mark at the very start is not text; anywhere else it is. */
static void test_utf8_bom(void **state) {
  (void)state;
  struct nn_config *cfg = parse_ok("\xef\xbb\xbfgpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n");
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
      cmocka_unit_test(test_utf8_bom),
      cmocka_unit_test(test_reference_machine), cmocka_unit_test(test_defaults_and_empty),
      cmocka_unit_test(test_crlf),              cmocka_unit_test(test_comments),
      cmocka_unit_test(test_case_insensitive),  cmocka_unit_test(test_busid),
      cmocka_unit_test(test_gpu_errors),        cmocka_unit_test(test_gpu_missing_index),
      cmocka_unit_test(test_gpu_sm),            cmocka_unit_test(test_numa_limits),
      cmocka_unit_test(test_gpu_limit),         cmocka_unit_test(test_host_side),
      cmocka_unit_test(test_numa_lines),        cmocka_unit_test(test_cpulist_helpers),
      cmocka_unit_test(test_cpu_lines),         cmocka_unit_test(test_rule_values),
      cmocka_unit_test(test_rule_chunk),        cmocka_unit_test(test_rule_errors),
      cmocka_unit_test(test_rule_limit),        cmocka_unit_test(test_env_lines),
      cmocka_unit_test(test_env_refused),       cmocka_unit_test(test_env_allow_list),
      cmocka_unit_test(test_model_lines),
      cmocka_unit_test(test_topology_lines),    cmocka_unit_test(test_unknown_directive),
      cmocka_unit_test(test_line_limits),       cmocka_unit_test(test_nul_byte),
      cmocka_unit_test(test_binary_junk),       cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_many_bad_lines),    cmocka_unit_test(test_parse_size_cap),
      cmocka_unit_test(test_load_good),         cmocka_unit_test(test_load_refusals),
      cmocka_unit_test(test_names),             cmocka_unit_test(test_diag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
