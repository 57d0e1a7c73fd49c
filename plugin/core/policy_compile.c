/* SPDX-License-Identifier: BSD-3-Clause */
/* policy_compile.c - compile rules into per-collective byte segments (policy.h). */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_layout.h"
#include "topology.h"

/* At most 1,024 buckets per octave: narrow ranges scattered over an octave crowd fewer of
 * them than at 64 or 256 (bench_tuner's random layouts), and an octave pays only when its
 * boundaries need them. */
#define NN_MAX_SHIFT 10
/* Keys: 0 and 1 (octave 0), unused ones so that every later octave's base, its first key
 * less 2^s, is >= 0 (fewer than 2^NN_MAX_SHIFT), then 2^s per octave: 60,480 at most. */
#define NN_MAX_BUCKETS (2u + (1u << NN_MAX_SHIFT) + 62u + 58u * (1u << NN_MAX_SHIFT))
/* A crowded bucket splits into at most 2^NN_SPLIT_BITS sub-buckets, and a collective's
 * sub-buckets number at most twice its segments (plus one split's worth). */
#define NN_SPLIT_BITS 8
#define NN_SPLIT_BUDGET(n) (2u * (n) + (1u << NN_SPLIT_BITS))

/* The pads before the segments, the segments (2 per rule + 1) and the record blocks must be
 * indexable by 16 bits: a block per crowded bucket and per crowded sub-bucket, each holding
 * more than NN_SEG_BACK boundaries of its own, so fewer than 2 per NN_SEG_BACK + 1 of them.
 * A rule's index must fit nn_seg.from below NN_SEG_NO_RULE. */
#define NN_MAX_SEGS (2 * NN_MAX_RULES + 1)
#define NN_PADS (NN_SEG_BACK - 1)
_Static_assert(NN_PADS + NN_MAX_SEGS + NN_SEG_BACK * 2 * (NN_MAX_SEGS / (NN_SEG_BACK + 1)) <
                 UINT16_MAX,
               "a segment index must fit a bucket");
_Static_assert(NN_MAX_RULES < NN_SEG_NO_RULE, "a rule's index must fit nn_seg.from");

static int rule_fits_shape(const struct nn_rule *r, size_t ranks, size_t nodes, int scope) {
  if (!in_range(ranks, r->ranks_lo, r->ranks_hi) || !in_range(nodes, r->nodes_lo, r->nodes_hi))
    return 0;
  return r->scope == NN_SCOPE_ANY || r->scope == scope;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint32_t dsu_find(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Byte boundaries of the kept rules for one collective, sorted and unique. */
static uint32_t collect_bounds(const struct nn_policy *p, int coll, uint64_t *b) {
  uint32_t n = 0;
  b[n++] = 0;
  for (int i = 0; i < p->n_rules; i++) {
    const struct nn_crule *r = &p->rules[i];
    if (!rule_has_coll(r, coll)) continue;
    b[n++] = r->lo;
    if (r->hi != UINT64_MAX) b[n++] = r->hi + 1;
  }
  qsort(b, n, sizeof *b, cmp_u64);
  uint32_t u = 1;
  for (uint32_t i = 1; i < n; i++)
    if (b[i] != b[u - 1]) b[u++] = b[i];
  return u;
}

/* The segment holding v among seg[0..n) (seg[0].start <= v): compiling. */
static uint32_t segment_index(const struct nn_seg *seg, uint32_t n, uint64_t v) {
  return (uint32_t)(nn_policy_search(seg, n, v) - seg);
}

/* The table index a segment of rule r stores for the fast path, or NN_SEG_GENERAL. */
static uint8_t fast_entry(const struct nn_crule *r) {
  int k = r->algo * NN_FAST_PROTOS + r->proto;
  int plain =
    r->pipeops < 0 && r->regbuff < 0 && r->algo >= 0 && r->proto >= 0 && r->proto < NN_FAST_PROTOS;
  return plain && k <= 8 ? (uint8_t)k : NN_SEG_GENERAL;
}

/* First rule per segment in file order, as its choice and its index in p->rules; a
 * union-find over unassigned segments keeps this O((rules + segments) log) instead of
 * rules x segments. */
static void assign_first_rules(const struct nn_policy *p, int coll, const uint64_t *b, uint32_t n,
                               struct nn_seg *seg, uint32_t *parent) {
  for (uint32_t i = 0; i <= n; i++) parent[i] = i;
  for (uint32_t i = 0; i < n; i++)
    seg[i] =
      (struct nn_seg){.start = b[i], .rule = -1, .entry = NN_SEG_NONE, .from = NN_SEG_NO_RULE};
  for (int ri = 0; ri < p->n_rules; ri++) {
    const struct nn_crule *r = &p->rules[ri];
    if (!rule_has_coll(r, coll)) continue;
    uint32_t j = dsu_find(parent, segment_index(seg, n, r->lo));
    while (j < n && b[j] <= r->hi) {
      seg[j] = (struct nn_seg){.start = b[j],
                               .rule = r->rule,
                               .channels = r->channels,
                               .entry = fast_entry(r),
                               .from = (uint16_t)ri};
      parent[j] = j + 1;
      j = dsu_find(parent, j + 1);
    }
  }
}

/* The smallest value sharing v's bucket when v's octave has `shift` sub-octave bits. */
static uint64_t bucket_low(uint64_t v, unsigned shift) {
  unsigned e = nn_policy_octave(v);
  return e <= shift ? v : v >> (e - shift) << (e - shift);
}

/* Whether boundaries b[k..m), all in one (sub-)bucket starting at low, leave it crowded:
 * more segments above the one holding low than nn_policy_step_back steps over. */
static int crowded(const uint64_t *b, uint32_t k, uint32_t m, uint64_t low) {
  return m > k && m - k - (b[k] == low) > NN_SEG_BACK;
}

/* Boundaries b[i..j) share one bucket: the width of its part that the inline step cannot
 * answer (below its top segment), 0 when it is not crowded. */
static uint64_t slow_width(const uint64_t *b, uint32_t i, uint32_t j, unsigned shift) {
  uint64_t low = bucket_low(b[i], shift);
  return crowded(b, i, j, low) ? b[j - 1] - low : 0;
}

/* The sizes of one octave, holding boundaries b[i..j), that `shift` sends out of line. */
static uint64_t octave_slow_width(const uint64_t *b, uint32_t i, uint32_t j, unsigned shift) {
  uint64_t width = 0;
  for (uint32_t k = i, m; k < j; k = m) {
    for (m = k + 1; m < j && bucket_low(b[m], shift) == bucket_low(b[k], shift); m++) {}
    width += slow_width(b, k, m, shift);
  }
  return width;
}

/* Per octave, the smallest shift that sends the fewest of its sizes out of line. */
static void pick_shifts(const uint64_t *b, uint32_t n, uint8_t *shift) {
  memset(shift, 0, NN_OCTAVES);
  for (uint32_t i = 1, j; i < n; i = j) { /* b[0] is 0 */
    unsigned e = nn_policy_octave(b[i]), max = e < NN_MAX_SHIFT ? e : NN_MAX_SHIFT;
    for (j = i + 1; j < n && nn_policy_octave(b[j]) == e; j++) {}
    uint64_t best = octave_slow_width(b, i, j, 0);
    for (unsigned s = 1; s <= max && best > 0; s++) {
      uint64_t width = octave_slow_width(b, i, j, s);
      if (width < best) {
        best = width;
        shift[e] = (uint8_t)s;
      }
    }
  }
}

/* The unused keys after 0 and 1 that keep every octave's base (its first key less 2^s) >= 0. */
static uint32_t unused_keys(const uint8_t *shift) {
  uint32_t first = 2, unused = 0;
  for (unsigned e = 1; e < NN_OCTAVES; first += 1u << shift[e], e++)
    if (first + unused < 1u << shift[e]) unused = (1u << shift[e]) - first;
  return unused;
}

/* Each octave's word (policy.h, nn_policy_key) for these shifts; returns the number of keys. */
static uint32_t lay_out_keys(const uint8_t *shift, uint32_t *octave) {
  uint32_t first = 2 + unused_keys(shift);
  octave[0] = 0; /* 0 and 1 are their own keys */
  for (unsigned e = 1; e < NN_OCTAVES; e++) {
    octave[e] = (first - (1u << shift[e])) << 6 | (e - shift[e]);
    first += 1u << shift[e];
  }
  return first;
}

/* Whether some sub-bucket 2^u wide of the bucket at low holding b[i..j) is crowded. */
static int any_crowded(const uint64_t *b, uint32_t i, uint32_t j, uint64_t low, unsigned u) {
  for (uint32_t k = i, m; k < j; k = m) {
    uint64_t sub = (b[k] - low) >> u;
    for (m = k + 1; m < j && (b[m] - low) >> u == sub; m++) {}
    if (crowded(b, k, m, low + (sub << u))) return 1;
  }
  return 0;
}

/* The bits that split a crowded bucket 2^w wide at low, holding b[i..j): the fewest that
 * leave no sub-bucket crowded, else as many as NN_SPLIT_BITS and w allow. */
static unsigned split_bits(const uint64_t *b, uint32_t i, uint32_t j, uint64_t low, unsigned w) {
  unsigned max = w < NN_SPLIT_BITS ? w : NN_SPLIT_BITS;
  for (unsigned t = 1; t < max; t++)
    if (!any_crowded(b, i, j, low, w - t)) return t;
  return max;
}

/* One pass over a collective's boundaries b[0..n): with seg and sub NULL it only counts
 * what the second pass writes. */
struct lay_pass {
  const uint64_t *b;
  uint32_t n;
  struct nn_seg *seg; /* the n segments, then the records appended at extra */
  uint32_t extra;
  uint16_t *sub; /* sub-buckets of split buckets, used up to subs of budget */
  uint32_t subs, budget;
};

/* A record block: pads, the record, then a copy of its bucket's top segment, which the
 * bucket names. The record and pads start at 0, so stepping back from the copy (a size below
 * its start) reaches the record and no further. Returns the copy's index. */
static uint32_t add_block(struct lay_pass *w, struct nn_seg record, uint32_t top) {
  uint32_t copy = w->extra + NN_SEG_BACK - 1;
  if (w->seg) {
    for (uint32_t k = w->extra; k < copy - 1; k++) w->seg[k] = (struct nn_seg){.start = 0};
    w->seg[copy - 1] = record;
    w->seg[copy] = w->seg[top];
  }
  w->extra = copy + 1;
  return copy;
}

/* Appends a crowded record for the (sub-)bucket holding boundaries b[from..i): its segments
 * are from - 1 (holding its lowest value) to i - 1. */
static uint32_t add_crowded(struct lay_pass *w, uint32_t from, uint32_t i) {
  return add_block(
    w,
    (struct nn_seg){
      .rule = (int32_t)(from - 1), .entry = NN_SEG_CROWDED, .from = (uint16_t)(i - from)},
    i - 1);
}

/* Fills the 2^t sub-buckets 2^u wide of the bucket at low holding b[from..i) from sub. */
static void fill_sub(struct lay_pass *w, uint16_t *sub, uint32_t from, uint32_t i, uint64_t low,
                     unsigned t, unsigned u) {
  uint32_t k = from;
  for (uint64_t j = 0; j < (uint64_t)1 << t; j++) {
    uint32_t m = k;
    while (m < i && (w->b[m] - low) >> u == j) m++;
    uint32_t top = crowded(w->b, k, m, low + (j << u)) ? add_crowded(w, k, m) : m - 1;
    if (sub) sub[j] = (uint16_t)top;
    k = m;
  }
}

/* A crowded bucket 2^width wide holding b[from..i): split into sub-buckets when the budget
 * has room for them (a split record before a copy of its top segment), else a crowded
 * record. Returns the index its bucket names. */
static uint32_t add_split(struct lay_pass *w, uint32_t from, uint32_t i, unsigned width) {
  uint64_t low = w->b[from] >> width << width;
  unsigned t = split_bits(w->b, from, i, low, width), u = width - t;
  if (w->subs + (1u << t) > w->budget) return add_crowded(w, from, i);
  uint32_t offset = w->subs;
  w->subs += 1u << t;
  uint32_t copy = add_block(w,
                            (struct nn_seg){.rule = (int32_t)offset,
                                            .channels = (uint8_t)u,
                                            .entry = NN_SEG_SPLIT,
                                            .from = (uint16_t)((1u << t) - 1)},
                            i - 1);
  fill_sub(w, w->sub ? w->sub + offset : NULL, from, i, low, t, u);
  return copy;
}

/* Buckets for every key: each names the segment holding its top value (the number of
 * boundaries with a key up to its own), or for a crowded bucket a copy of that segment
 * after a record that sends the call to the general path (add_split). */
static void fill_buckets(const struct nn_segs *s, const uint8_t *shift, uint32_t keys,
                         uint16_t *bucket, struct lay_pass *w) {
  uint32_t i = 1;
  for (uint32_t k = 0; k < keys; k++) {
    uint32_t from = i;
    while (i < w->n && nn_policy_key(s->octave, w->b[i]) <= k) i++;
    bucket[k] = (uint16_t)(i - 1);
    /* Few boundaries tested first: then b[from] may be b[n], past the end. */
    if (i - from <= NN_SEG_BACK) continue;
    unsigned e = nn_policy_octave(w->b[from]);
    if (slow_width(w->b, from, i, shift[e]))
      bucket[k] = (uint16_t)add_split(w, from, i, e - shift[e]);
  }
}

static int compile_coll(struct nn_policy *p, int coll, uint64_t *scratch, uint32_t *parent) {
  struct nn_segs *s = &p->hot.coll[coll];
  uint32_t n = p->more[coll].n = collect_bounds(p, coll, scratch);
  uint8_t shift[NN_OCTAVES];
  pick_shifts(scratch, n, shift);
  uint32_t keys = lay_out_keys(shift, p->more[coll].octave); /* <= NN_MAX_BUCKETS */
  s->octave = p->more[coll].octave;
  uint16_t *bucket = malloc(keys * sizeof *bucket);
  s->bucket = bucket;
  if (!bucket) return -1;
  struct lay_pass w = {.b = scratch, .n = n, .extra = n, .budget = NN_SPLIT_BUDGET(n)};
  fill_buckets(s, shift, keys, bucket, &w);
  struct nn_seg *alloc = p->more[coll].alloc = calloc(NN_PADS + w.extra, sizeof *alloc);
  struct nn_seg *seg = alloc ? alloc + NN_PADS : NULL;
  uint16_t *sub = malloc((w.subs ? w.subs : 1) * sizeof *sub);
  s->seg = seg;
  s->sub = sub;
  if (!seg || !sub) return -1;
  assign_first_rules(p, coll, scratch, n, seg, parent);
  w =
    (struct lay_pass){.b = scratch, .n = n, .seg = seg, .extra = n, .sub = sub, .budget = w.budget};
  fill_buckets(s, shift, keys, bucket, &w);
  for (uint32_t i = 0; i < n; i++)
    if (seg[i].rule >= 0) p->coll_mask |= 1u << coll;
  return 0;
}

static int chunk_only(const struct nn_rule *r) {
  return r->chunk && r->algo < 0 && r->proto < 0 && !r->channels;
}

/* The choice policy keeps every rule but those with nothing but chunk=, so a chunk size never
 * changes a choice; the chunk policy keeps only the rules with chunk=, their algo/proto as
 * conditions on what NCCL selected and no channels, so a choice never changes a chunk size. */
static void keep_rules(struct nn_policy *p, const struct nn_config *cfg, size_t ranks, size_t nodes,
                       int for_chunk) {
  for (int i = 0; i < cfg->n_rules; i++) {
    const struct nn_rule *r = &cfg->rules[i];
    if (!rule_fits_shape(r, ranks, nodes, p->scope)) continue;
    if (for_chunk ? !r->chunk : chunk_only(r)) {
      p->n_chunk_only += !for_chunk;
      continue;
    }
    struct nn_crule *c = &p->rules[p->n_rules++];
    *c = (struct nn_crule){.lo = r->bytes_lo,
                           .hi = r->bytes_hi,
                           .rule = i,
                           .pipeops = (int16_t)(r->pipeops < 0       ? NN_ANY
                                                : r->pipeops > 32767 ? 32767
                                                                     : r->pipeops),
                           .coll = (int8_t)r->coll,
                           .algo = (int8_t)r->algo,
                           .proto = (int8_t)r->proto,
                           .regbuff = (int8_t)r->regbuff,
                           .channels = (uint8_t)(for_chunk ? 0 : r->channels),
                           .chunk = (uint32_t)(for_chunk ? r->chunk : 0)};
  }
}

static int has_chunk_rules(const struct nn_config *cfg) {
  for (int i = 0; cfg && i < cfg->n_rules; i++)
    if (cfg->rules[i].chunk) return 1;
  return 0;
}

static struct nn_policy *compile(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes,
                                 int for_chunk) {
  int total = cfg ? cfg->n_rules : 0;
  if (total < 0 || total > NN_MAX_RULES) return NULL;
  struct nn_policy *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->scope = nn_topology_scope(cfg, n_ranks, n_nodes);
  p->rules = malloc((size_t)(total ? total : 1) * sizeof *p->rules);
  uint64_t *scratch = malloc((2 * (size_t)total + 1) * sizeof *scratch);
  uint32_t *parent = malloc((2 * (size_t)total + 2) * sizeof *parent);
  int ok = p->rules && scratch && parent;
  if (ok && cfg) keep_rules(p, cfg, n_ranks, n_nodes, for_chunk);
  for (int c = 0; ok && c < NN_COLL_COUNT; c++) ok = compile_coll(p, c, scratch, parent) == 0;
  free(scratch);
  free(parent);
  if (ok && !for_chunk && has_chunk_rules(cfg))
    ok = (p->chunk = compile(cfg, n_ranks, n_nodes, 1)) != NULL;
  if (!ok) {
    nn_policy_free(p);
    return NULL;
  }
  return p;
}

struct nn_policy *nn_policy_compile(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes) {
  return compile(cfg, n_ranks, n_nodes, 0);
}
