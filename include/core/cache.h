/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cache.h - the mapping file, parsed once per version per process.
 *
 * MoE frameworks create hundreds of communicators; each init only stats the files a
 * version was built from (the mapping, each `include-csv`, NCCL_TUNER_CONFIG_FILE). When
 * any of them changed identity (device, inode, size, mtime or ctime), the files are read
 * again (see snapshot.h) and parsed outside every lock, and the new version is published
 * for the next communicators; communicators already created keep theirs whole. Nothing
 * here sleeps, and the cache's lock only guards a pointer and reference counts.
 *
 * A file that changed during each of NN_SNAP_READS reads in a row is not used: that init
 * keeps the previous version of the same path whole, or is a pass-through when there is
 * none, and one WARN says so. A version also shares compiled policies between
 * communicators of the same shape. Versions are reference counted: strings a caller got
 * from one stay valid while it holds the reference.
 */
#ifndef NCCL_NUMA_CACHE_H
#define NCCL_NUMA_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "config_source.h"
#include "log.h"
#include "nn_config.h"
#include "policy.h"

struct nn_cache_version;

/* The current version of the config, found by nn_config_source_find(NULL) and loaded by
 * nn_config_resolve (config_source.h). Reads the files again when they changed; when they kept
 * changing during the reads, WARNs through `logger` (NULL: see log.h) once until a new
 * version is published. Returns NULL only when out of memory. */
struct nn_cache_version *nn_cache_acquire(const struct nn_logger *logger);

/* Adds a reference to `v` (NULL is accepted) and returns it. */
struct nn_cache_version *nn_cache_ref(struct nn_cache_version *v);

/* Drops a reference; NULL is accepted. */
void nn_cache_release(struct nn_cache_version *v);

const struct nn_config *nn_cache_config(const struct nn_cache_version *v);
const char *nn_cache_path(const struct nn_cache_version *v);
int nn_cache_status(const struct nn_cache_version *v);

/* Eight hex digits naming the content the version was built from (the mapping and every
 * CSV it pulled in; see snapshot.h): ranks that read different versions log different hashes. */
const char *nn_cache_hash(const struct nn_cache_version *v);

/* Returns 1 exactly once per version: callers use it to warn once about a bad file. */
int nn_cache_claim_warning(struct nn_cache_version *v);

/* For a rejected version, once per version (shared by the tuner and the env plugin): one
 * WARN line per problem ("FILE:LINE: problem"), then "config PATH rejected: <consequence>". */
void nn_cache_warn_rejected(struct nn_cache_version *v, const struct nn_logger *logger,
                            const char *consequence);

/* For an accepted version, once per version (shared by the tuner and the env plugin): one
 * WARN per refused `env` line ("FILE:LINE: env: NAME refused, ...: the rest of the file
 * applies") and per note of its config (nn_config.h). */
void nn_cache_warn_refused(struct nn_cache_version *v, const struct nn_logger *logger);

/* The compiled policy for a communicator shape, shared by every communicator of that
 * shape on this version; owned by the version. NULL when out of memory. */
const struct nn_policy *nn_cache_policy(struct nn_cache_version *v, size_t n_ranks, size_t n_nodes);

#endif
