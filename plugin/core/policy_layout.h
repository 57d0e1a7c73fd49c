/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy_layout.h - a compiled policy whole: what policy_compile.c builds and policy.c reads
 * (policy_fast.h holds the part the inline hot path reads). Private to those two files.
 */
#ifndef NCCL_NUMA_POLICY_LAYOUT_H
#define NCCL_NUMA_POLICY_LAYOUT_H

#include <stdint.h>

#include "nn_config.h"
#include "policy_fast.h"

/* A collective's byte axis is cut into octaves (0 and 1, then [2^e, 2^(e+1))) and each
 * octave into 2^s buckets by the top s + 1 bits of nBytes. Each bucket names the segment
 * holding its top value; NN_SEG_BACK branch-free compares step back to the one holding the
 * size, so a bucket that holds at most NN_SEG_BACK + 1 segments (a narrow range and one more
 * boundary) answers every call with the same work, whatever the number of rules. The shift
 * s is chosen per octave at compile time: the smallest that sends the fewest of its sizes
 * to the general path, which answers sizes below the top segment of a "crowded" bucket
 * (more segments, e.g. many ranges 1 byte wide at 2 GiB, which no affordable shift
 * separates): a crowded bucket is split by the next bits of the
 * size into at most 2^NN_SPLIT_BITS sub-buckets, each answered the same way, the fewest that
 * leave none of them crowded, and what is still crowded (or past the budget of sub-buckets)
 * by a binary search over that bucket's segments. An octave without boundaries is
 * one bucket: what a call touches grows with the octaves that need the detail, not with
 * the largest shift. Buckets cover every key of a 64-bit size, so a call needs no clamp. */
#define NN_OCTAVES 64

struct nn_crule {
  uint64_t lo, hi;
  int32_t rule;    /* index in the config */
  int16_t pipeops; /* NN_ANY or value */
  int8_t coll, algo, proto, regbuff;
  uint8_t channels;
  uint32_t chunk; /* chunk= (<= NN_MAX_CHUNK); in a chunk policy algo/proto are conditions */
};

/* What the general path and the walks need beside a collective's struct nn_segs. */
struct nn_coll_more {
  uint32_t octave[NN_OCTAVES]; /* the words nn_policy_key reads */
  uint32_t n;                  /* segments (the crowded buckets' records come after them) */
  struct nn_seg *alloc;        /* NN_PADS pads, then what nn_segs.seg points at: what is freed */
};

struct nn_policy {
  struct nn_policy_hot hot; /* first: the inline hot path in policy.h reads it */
  struct nn_coll_more more[NN_COLL_COUNT];
  int scope;
  int n_rules;
  unsigned coll_mask; /* bit c: some segment of collective c has a rule */
  struct nn_crule *rules;
  struct nn_policy *chunk; /* the rules with chunk= alone, for getChunkSize; NULL: none */
  int n_chunk_only;        /* kept rules with nothing but chunk= (not in this policy) */
};

static inline int in_range(uint64_t v, uint64_t lo, uint64_t hi) { return v >= lo && v <= hi; }

static inline int rule_has_coll(const struct nn_crule *r, int coll) {
  return r->coll == NN_ANY || r->coll == coll;
}

#endif
