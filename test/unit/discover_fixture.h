/* SPDX-License-Identifier: BSD-3-Clause */
/* discover_fixture.h - running one of discover_map.h's three modes in a unit test: the options
 * zeroed as the command makes them, the mapping it writes captured as text. */
#ifndef NCCL_NUMA_TEST_DISCOVER_FIXTURE_H
#define NCCL_NUMA_TEST_DISCOVER_FIXTURE_H

#include "nn_test.h"

#include "cli/discover/discover_map.h"

#define NN_DISCOVER_FIX "test/fixtures/"

/* Options as cmd_discover.c starts them (--no-cuda: no CUDA driver in a unit test);
 * nn_test_discover_free releases them. */
static inline struct nn_discover_opts *nn_test_discover_opts(void) {
  struct nn_discover_opts *o = calloc(1, sizeof *o);
  assert_non_null(o);
  o->no_cuda = 1;
  return o;
}

/* Runs mode(o) with o->out captured; returns what it wrote (malloc'd) and its result in *rc. */
static inline char *nn_test_discover_run(struct nn_discover_opts *o, int (*mode)(struct nn_discover_opts *), int *rc) {
  char *text = NULL;
  size_t len = 0;
  o->out = open_memstream(&text, &len);
  assert_non_null(o->out);
  *rc = mode(o);
  fclose(o->out);
  o->out = NULL;
  return text;
}

/* Whether some message of d contains `part`. */
static inline int nn_test_diag_has(const struct nn_diag *d, const char *part) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->msgs[i], part)) return 1;
  return 0;
}

static inline void nn_test_discover_free(struct nn_discover_opts *o) {
  nn_diag_clear(&o->msgs);
  nn_diag_clear(&o->map_problems);
  free(o);
}

#endif
