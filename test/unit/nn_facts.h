/* SPDX-License-Identifier: BSD-3-Clause */
/* nn_facts.h - reading NCCL's facts (test/fixtures/nccl-cost/ NAME-facts.txt, oracle-facts.txt's
 * format: "case NAME RELEASE RANKS SM AMD LAT", a ring and a tree line, then the choices) and
 * comparing a graph line with the plugin's prediction. Shared by the tests that check the
 * verdict against them. */
#ifndef NN_TEST_FACTS_H
#define NN_TEST_FACTS_H

#include "nn_test.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "numparse.h"

struct nn_fact_block {
  char name[128], rel[16];
  int ranks, sm, amd;
  char ring[96], tree[96];
  const char *body; /* from the ring line to the next case */
  size_t body_len;
};

/* Copies the `i`th space-separated word of the line at `line` into buf. */
static inline void nn_facts_word(const char *line, int i, char *buf, size_t size) {
  for (; i > 0; i--) {
    line = strpbrk(line, " \n");
    if (!line || *line == '\n') fail_msg("line too short");
    line++;
  }
  size_t len = strcspn(line, " \n");
  if (len >= size) fail_msg("word too long");
  memcpy(buf, line, len);
  buf[len] = 0;
}

static inline int nn_facts_int_word(const char *line, int i) {
  char w[32];
  int v;
  nn_facts_word(line, i, w, sizeof w);
  if (nn_int_parse(w, 0, 1000000, &v)) fail_msg("not a number: '%s'", w);
  return v;
}

static inline const char *nn_facts_read_block(const char *p, struct nn_fact_block *b) {
  p = strstr(p, "case ");
  if (!p) return NULL;
  nn_facts_word(p, 1, b->name, sizeof b->name);
  nn_facts_word(p, 2, b->rel, sizeof b->rel);
  b->ranks = nn_facts_int_word(p, 3);
  b->sm = nn_facts_int_word(p, 4);
  b->amd = nn_facts_int_word(p, 5);
  b->body = strchr(p, '\n') + 1;
  assert_memory_equal(b->body, "ring ", 5);
  nn_facts_word(b->body, 1, b->ring, sizeof b->ring);
  const char *tree = strchr(b->body, '\n') + 1;
  assert_memory_equal(tree, "tree ", 5);
  nn_facts_word(tree, 1, b->tree, sizeof b->tree);
  const char *next = strstr(b->body, "\ncase ");
  b->body_len = next ? (size_t)(next + 1 - b->body) : strlen(b->body);
  return b->body + b->body_len;
}

static inline int nn_facts_version(const char *rel) {
  int maj, min, pat;
  const char *e;
  assert_int_equal(nn_int_parse_prefix(rel, 0, 99, &maj, &e), 0);
  assert_int_equal(nn_int_parse_prefix(e + 1, 0, 99, &min, &e), 0);
  assert_int_equal(nn_int_parse(e + 1, 0, 99, &pat), 0);
  return NN_NCCL_VERSION(maj, min, pat);
}

/* The graph line's nChannels and bwIntra against the plugin's prediction. */
static inline void nn_facts_expect_graph(const char *what, const char *line, int model_ch,
                                         const struct nn_graph_pred *g) {
  int ch;
  double bw64;
  const char *e;
  assert_int_equal(nn_int_parse_prefix(line, 0, 64, &ch, &e), 0);
  assert_int_equal(nn_double_parse_prefix(e + 1, &bw64, &e), 0);
  float bw = (float)bw64;
  if (ch != model_ch || bw != g->bw_intra)
    fail_msg("%s: NCCL %d x %.1f, the plugin predicts %d x %.1f", what, ch, (double)bw, model_ch,
             (double)g->bw_intra);
}

#endif
