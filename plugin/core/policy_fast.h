/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy_fast.h - the hot path of policy.h, inline so that a tuner adapter pays no call
 * for the common case. Private to the policy (policy_layout.h) and the tuner front end
 * (plugin/abi/tuner.h): policy_compile.c lays the layout below out, only these functions read it.
 */
#ifndef NCCL_NUMA_POLICY_FAST_H
#define NCCL_NUMA_POLICY_FAST_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "nn_config.h"
#include "policy.h"

/* NCCL's NCCL_NUM_PROTOCOLS (LL, LL128, Simple) in every release the adapters support: a
 * segment stores its choice's table index for that width. */
#define NN_FAST_PROTOS 3
#define NN_SEG_SPLIT 0xfcu     /* nn_seg.entry: a split crowded bucket's record (below) */
#define NN_SEG_CROWDED 0xfdu   /* nn_seg.entry: a crowded bucket's record (below) */
#define NN_SEG_NONE 0xfeu      /* nn_seg.entry: no rule covers the segment, nothing to do */
#define NN_SEG_GENERAL 0xffu   /* nn_seg.entry: only the general path can answer */
#define NN_SEG_NO_RULE 0xffffu /* nn_seg.from: no rule covers the segment */

/* One segment in 16 bytes: its start and its first rule's choice, so a call reads one
 * bucket and one segment (and the start of the one after), and no rule record. */
struct nn_seg {
  uint64_t start;   /* the segment covers [start, next segment's start) */
  int32_t rule;     /* config index of the first kept rule covering it, or -1; in a
                       crowded record, the index of its bucket's first segment; in a
                       split record, that of its first sub-bucket */
  uint8_t channels; /* 0: leave NCCL's; in a split record, the shift of a size that
                       leaves its sub-bucket's number in the low bits */
  uint8_t entry;    /* algo * NN_FAST_PROTOS + proto when the rule names both, has no
                       numPipeOps/regBuff condition and the entry is among the first 9
                       (tree, ring, collnet_direct); NN_SEG_NONE without a rule,
                       NN_SEG_CROWDED and NN_SEG_SPLIT for records; else NN_SEG_GENERAL */
  uint16_t from;    /* where the general path's walk starts: that rule's index among the
                       policy's rules, NN_SEG_NO_RULE without one; in a crowded record,
                       the number of its bucket's segments below the top one; in a split
                       record, the mask of those low bits */
};

/* One collective's buckets and segments, all a fast call reads (32 bytes). */
struct nn_segs {
  const struct nn_seg *seg; /* the segments, then the crowded buckets' records */
  const uint16_t *bucket;   /* per key, every key of a 64-bit size: the segment holding its
                               top value */
  const uint32_t *octave;   /* per octave of a size, its word for nn_policy_key */
  const uint16_t *sub;      /* the sub-buckets of split buckets, each as a bucket */
};

/* The first member of struct nn_policy. */
struct nn_policy_hot {
  struct nn_segs coll[NN_COLL_COUNT];
};

/* What a fast call reads of p (non-NULL), for a caller to copy next to its own hot data,
 * one dependent load closer to the call: the copy is valid while p lives. */
static inline const struct nn_policy_hot *nn_policy_hot_of(const struct nn_policy *p) {
  return (const struct nn_policy_hot *)(const void *)p;
}

/* The octave of a size: 0 for 0 and 1, else floor(log2 v). */
static inline uint32_t nn_policy_octave(uint64_t v) {
  return 63u - (uint32_t)__builtin_clzll(v | 1);
}

/* Monotonic in v. The octave of v has 2^s keys, s chosen per octave; its word holds the
 * base its keys count from (upper 26 bits) and the right shift that leaves the top s + 1
 * bits of v (lower 6), which add to the base.
 * Branch-free, so random sizes cost no mispredictions. */
static inline uint32_t nn_policy_key(const uint32_t *octave, uint64_t v) {
  uint32_t w = octave[nn_policy_octave(v)];
  return (w >> 6) + (uint32_t)(v >> (w & 63)); /* v >> (w & 63) < 2^(s + 1) */
}

/* How many segments a (sub-)bucket may hold beyond the one holding its lowest value and
 * still be answered by nn_policy_step_back: a range narrower than a bucket adds two. */
#define NN_SEG_BACK 3

/* From g, the segment holding a bucket's top value, to the one holding v in that bucket:
 * one borrow per start below g that v may lie under, all loaded side by side. The segments
 * before a bucket's first are there to read: the array begins with NN_SEG_BACK - 1 that
 * start at 0, and every record block such pads (policy_compile.c, add_block). */
static inline const struct nn_seg *nn_policy_step_back(const struct nn_seg *g, uint64_t v) {
  uint64_t difference;
  /* The borrow of v - start, not a compare: gcc turns `g - (v < g->start)` into a branch,
   * which sizes just below a boundary mispredict. */
  unsigned back = (unsigned)__builtin_sub_overflow(v, g[0].start, &difference) +
                  (unsigned)__builtin_sub_overflow(v, g[-1].start, &difference) +
                  (unsigned)__builtin_sub_overflow(v, g[-2].start, &difference);
  return g - back;
}
_Static_assert(NN_SEG_BACK == 3, "nn_policy_step_back reads NN_SEG_BACK starts");

/* The segment holding v, or a record with entry NN_SEG_CROWDED or NN_SEG_SPLIT that sends
 * the call to the general path. A bucket names the segment holding its top value and
 * branch-free compares step back to the one holding v; a bucket with more segments than
 * NN_SEG_BACK can step over names a copy of its top segment preceded by such a record,
 * which says where the bucket's other segments are. */
static inline const struct nn_seg *nn_policy_segment_fast(const struct nn_segs *s, uint64_t v) {
  return nn_policy_step_back(s->seg + s->bucket[nn_policy_key(s->octave, v)], v);
}

/* The segment holding v among seg[0..n) (seg[0].start <= v, n >= 1), by a binary search
 * whose steps do not branch on v. */
static inline const struct nn_seg *nn_policy_search(const struct nn_seg *seg, uint32_t n,
                                                    uint64_t v) {
  while (n > 1) {
    uint32_t half = n / 2;
    uint64_t difference;
    /* As in nn_policy_step_back, the borrow: a compare would become a branch. */
    seg += half & ((uint32_t)__builtin_sub_overflow(v, seg[half].start, &difference) - 1u);
    n -= half;
  }
  return seg;
}

/* The segment holding v for a split record g: its sub-bucket by the next bits of v names the
 * segment holding its top value, stepped back as in nn_policy_segment_fast, or a crowded
 * sub-bucket's record. */
static inline const struct nn_seg *nn_policy_split(const struct nn_segs *s, const struct nn_seg *g,
                                                   uint64_t v) {
  return nn_policy_step_back(
    s->seg + s->sub[(uint32_t)g->rule + ((uint32_t)(v >> g->channels) & g->from)], v);
}

/* The segment holding v for g, what nn_policy_segment_fast found for v in s: g, or for a
 * record the segment holding v that its sub-bucket or its search finds. */
static inline const struct nn_seg *nn_policy_crowded(const struct nn_segs *s,
                                                     const struct nn_seg *g, uint64_t v) {
  if (g->entry == NN_SEG_SPLIT) g = nn_policy_split(s, g, v);
  return g->entry == NN_SEG_CROWDED ? nn_policy_search(s->seg + g->rule, g->from, v) : g;
}

/* nn_policy_apply for what nn_policy_apply_fast leaves: the same arguments and result, and
 * g, the segment nn_policy_apply_fast found for n_bytes in p's collective coll. */
int nn_policy_apply_general(const struct nn_policy *p, const struct nn_seg *g, int coll,
                            uint64_t n_bytes, int pipe_ops, int reg_buff, float *table,
                            int num_algo, int num_proto, int *n_channels);

/* Whether the first 8 entries of t hold a +-0.0, which could win NCCL's lowest-index tie
 * with the chosen 0.0 (NCCL's own tables hold positive times): a few vector instructions
 * and no branch on which entry is chosen. */
#if defined(__SSE__)
static inline int nn_policy_zero_in_8(const float *t) {
  __m128 zero = _mm_setzero_ps();
  __m128 z =
    _mm_or_ps(_mm_cmpeq_ps(_mm_loadu_ps(t), zero), _mm_cmpeq_ps(_mm_loadu_ps(t + 4), zero));
  return _mm_movemask_ps(z) != 0;
}
#else
typedef float nn_policy_f4 __attribute__((vector_size(16)));
typedef int32_t nn_policy_i4 __attribute__((vector_size(16)));

static inline int nn_policy_zero_in_8(const float *t) {
  nn_policy_f4 lo, hi, zero = {0, 0, 0, 0};
  memcpy(&lo, t, sizeof lo);
  memcpy(&hi, t + 4, sizeof hi);
  nn_policy_i4 z = (lo == zero) | (hi == zero);
  uint64_t w[2];
  memcpy(w, &z, sizeof w);
  return (w[0] | w[1]) != 0;
}
#endif

/* Whether a cost is +0.0 to +inf: one integer compare of its bits. NaN and negative
 * entries are disabled; -0.0, which NCCL would take, is left to the general path. */
static inline int nn_policy_enabled_fast(const float *cost) {
  uint32_t bits;
  memcpy(&bits, cost, sizeof bits);
  return bits <= 0x7f800000u;
}

/* Whether the fast path may answer with segment g: its entry is a table index, the table has
 * NCCL's shape (3 protocols, at least 3 algorithms), the entry is enabled, and none of the
 * first 8 entries is +-0.0. */
static inline int nn_policy_fast_ok(const struct nn_seg *g, const float *table, int num_algo,
                                    int num_proto) {
  unsigned k = g->entry;
  return k < NN_SEG_SPLIT && num_proto == NN_FAST_PROTOS && num_algo >= 3 && table &&
         nn_policy_enabled_fast(&table[k]) && !nn_policy_zero_in_8(table);
}

/* Writes the segment's choice: its entry becomes 0.0 and its channels, when set, replace
 * NCCL's (branch-free: which segments set them varies from call to call). */
static inline void nn_policy_fast_write(const struct nn_seg *g, float *table, int *n_channels) {
  table[g->entry] = 0.0f;
  if (n_channels) {
    int ch = g->channels, old = *n_channels;
    *n_channels = ch | (old & -(ch == 0));
  }
}

/* The common call of nn_policy_apply, for a policy's hot data (nn_policy_hot_of or a copy)
 * and a collective known valid (0 <= coll < NN_COLL_COUNT) and NCCL's table shape:
 * answered from the segment alone when its entry is set, enabled in the table, and none of
 * the table's first 8 entries is +-0.0, or left alone when no rule covers the size. Sets *g
 * to the segment found and returns 1 when it decided (the segment's rule, -1 when none
 * covers the size, is what fired), or 0 with nothing changed: then nn_policy_apply_general
 * decides from *g. It makes no call. */
static inline int nn_policy_apply_fast(const struct nn_policy_hot *h, int coll, uint64_t n_bytes,
                                       float *table, int num_algo, int num_proto, int *n_channels,
                                       const struct nn_seg **g) {
  *g = nn_policy_segment_fast(&h->coll[coll], n_bytes);
  /* Tested after the choice, so that a matching call runs no more instructions for it. */
  if (!nn_policy_fast_ok(*g, table, num_algo, num_proto)) return (*g)->entry == NN_SEG_NONE;
  nn_policy_fast_write(*g, table, n_channels);
  return 1;
}

#endif
