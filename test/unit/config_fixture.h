/* SPDX-License-Identifier: BSD-3-Clause */
/* config_fixture.h - what the mapping parser's tests share (test_config_*.c): the reference
 * machine's mapping, and parsing a text expecting acceptance or one named error. */
#ifndef NN_TEST_CONFIG_FIXTURE_H
#define NN_TEST_CONFIG_FIXTURE_H

#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

#define NAME "t.conf"

/* The reference machine: VM GPUs 0-3 on host NUMA 1, 4-7 on NUMA 0. */
static const char reference[] __attribute__((unused)) =
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

static inline struct nn_config *parse_opts(const char *text, const struct nn_parse_opts *o) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  int r = nn_config_parse(NAME, text, strlen(text), o, &cfg, &d);
  for (int i = 0; i < d.n; i++) print_error("unexpected: %s\n", d.msgs[i]);
  assert_int_equal(r, 0);
  assert_non_null(cfg);
  assert_int_equal(d.n, 0);
  for (int i = 0; i < cfg->refused.n; i++)
    print_error("unexpected refusal: %s\n", cfg->refused.msgs[i]);
  assert_int_equal(cfg->refused.n, 0);
  nn_diag_clear(&d);
  return cfg;
}

static inline struct nn_config *parse_ok(const char *text) { return parse_opts(text, NULL); }

static inline int has_msg(const struct nn_diag *d, const char *prefix, const char *sub) {
  for (int i = 0; i < d->n; i++)
    if ((!prefix || !strncmp(d->msgs[i], prefix, strlen(prefix))) && strstr(d->msgs[i], sub))
      return 1;
  return 0;
}

/* Parses `len` bytes expecting rejection with a message "t.conf:LINE: ...SUB...". */
static inline void expect_err_len_opts(const char *text, size_t len, int line, const char *sub,
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

static inline void expect_err(const char *text, int line, const char *sub) {
  expect_err_len_opts(text, strlen(text), line, sub, NULL);
}

/* A valid prefix with GPUs, so an error in a later line is the only one. */
#define GPUS2 "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n"

static inline void busstr(const struct nn_busid *b, char *out) { nn_busid_format(b, out, 16); }

#endif
