/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy.h - rules compiled into a per-communicator decision structure.
 *
 * nn_policy_compile() keeps only the rules that can match a communicator of this
 * shape (ranks, nodes, scope) and splits each collective's byte axis into segments,
 * each carrying its first matching rule's choice. A call then costs one bucket load
 * (by the top bits of nBytes) and three side-by-side compares for almost every file:
 * the same work with 1 or 1,000 rules, with no allocation, locking, I/O or string work. The layout
 * that work reads, and the inline functions reading it, are private to the tuner:
 * plugin/core/policy_fast.h.
 */
#ifndef NCCL_NUMA_POLICY_H
#define NCCL_NUMA_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "nn_config.h"

struct nn_policy;

/* Compiles the rules of `cfg` (may be NULL: an empty policy) for a communicator.
 * Returns NULL when out of memory or when cfg holds more than NN_MAX_RULES rules. */
struct nn_policy *nn_policy_compile(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes);
void nn_policy_free(struct nn_policy *p);

/* Facts about a compiled policy. */
int nn_policy_scope(const struct nn_policy *p);      /* enum nn_scope */
int nn_policy_rule_count(const struct nn_policy *p); /* rules kept for this shape */
/* Bit c set when some kept rule covers collective c (NULL: 0). Rules with nothing but chunk= are
 * not part of the choice: they never change what getCollInfo does. */
unsigned nn_policy_coll_mask(const struct nn_policy *p);
/* Bit c set when some kept rule with chunk= covers collective c (NULL: 0). */
unsigned nn_policy_chunk_mask(const struct nn_policy *p);

/* getChunkSize (tuner v6+): the first kept rule with chunk= that covers this call and whose algo=
 * and proto=, where given, are what NCCL selected, writes its chunk size to *chunk, but only when
 * it is at least the protocol's grain (NCCL rounds down to it). Choice-only rules play no part.
 * Returns the rule's index in the config, or -1 (nothing written). No allocation, locking, I/O or
 * string work. */
int nn_policy_chunk(const struct nn_policy *p, int coll, uint64_t n_bytes, int algo, int proto,
                    size_t *chunk);

/* The hot path for tuner v3-v6. Picks the first rule that matches and is possible in
 * this call's cost table (a contiguous float[num_algo][num_proto]) and applies it:
 * the chosen entry becomes 0.0, other enabled entries <= 0 are raised above it, and
 * `channels` is written to *n_channels. A disabled (negative or NaN) entry never
 * becomes enabled. Returns the index of the rule in the config, or -1 (nothing changed). */
int nn_policy_apply(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                    int reg_buff, float *table, int num_algo, int num_proto, int *n_channels);

/* Whether `algo` x `proto` may be chosen for collective `coll` when NCCL gives no cost
 * table to say what is enabled: what the caller (an ABI adapter) knows of its release. */
typedef int (*nn_choice_allowed_fn)(int coll, int algo, int proto);

/* Without a cost table: only rules naming both algorithm and protocol that `allowed`
 * accepts are possible. Writes *algo, *proto and, when the rule sets it, *n_channels.
 * Returns the rule index or -1 (nothing written). */
int nn_policy_apply_fixed(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                          nn_choice_allowed_fn allowed, int *algo, int *proto, int *n_channels);

/* The rule that would fire for a table in which `table` marks enabled entries (>= 0),
 * without changing anything: for `explain`. Returns the rule index or -1. */
int nn_policy_lookup(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                     int reg_buff, const float *table, int num_algo, int num_proto);

/* Walks the compiled table: for each collective, each byte segment [lo, hi] and the
 * first rule covering it (-1 = NCCL default). Used for the init log. */
typedef void (*nn_policy_visit_fn)(void *arg, int coll, uint64_t lo, uint64_t hi, int rule);
void nn_policy_visit(const struct nn_policy *p, nn_policy_visit_fn fn, void *arg);
/* The same walk over the chunk= rules (nn_policy_chunk's): each segment's first chunk= rule, which
 * applies when NCCL's selection meets its algo=/proto=. Nothing when there are none. */
void nn_policy_visit_chunk(const struct nn_policy *p, nn_policy_visit_fn fn, void *arg);

/* How a rule's choice reads: NN_CHOICE_TERSE "ring/ll channels=4 chunk=512K", with "*" for a part
 * the rule leaves open (the init log and the JSON record); NN_CHOICE_WORDS "ring/ll, 4 channels,
 * chunk 512K", "tree, cheapest protocol" (`explain`). */
enum nn_choice_style { NN_CHOICE_TERSE, NN_CHOICE_WORDS };

/* The one formatter of a decision: rule `rule` of cfg (-1: none, "NCCL default" in both
 * buffers) as its choice in `style` and where it was written ("FILE:LINE"). */
void nn_policy_describe_rule(const struct nn_config *cfg, int rule, int style, char *choice,
                             size_t choice_size, char *where, size_t where_size);

/* Byte counts as the config writes them: 0, 512, 64K, 1M, 4G (exact multiples only). */
void nn_policy_format_bytes(uint64_t v, char *buf, size_t size);

#endif
