/*
 * cache.h - the mapping file, parsed once per version per process.
 *
 * MoE frameworks create hundreds of communicators; each init only stats the file.
 * A version is re-read when path, device, inode, size or mtime (ns) change. A version
 * also shares compiled policies between communicators of the same shape.
 * Versions are reference counted: strings a caller got from one stay valid while it
 * holds the reference.
 *
 * A file is read only once it has been quiet for 250 ms and did not change during the
 * read; until then communicators keep the previous version of the same path whole, so an
 * in-place rewrite is never read half-way (the first load of a path waits, at most 1 s,
 * for a file being written to settle).
 */
#ifndef NCCL_NUMA_CACHE_H
#define NCCL_NUMA_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "nccl_abi.h"
#include "nn_config.h"
#include "policy.h"

#define NN_DEFAULT_CONFIG_PATH "/etc/nccl-numa.conf"

enum nn_cfg_status {
  NN_CFG_OK = 0,          /* parsed; nn_cfgver_config() is not NULL */
  NN_CFG_ABSENT,          /* no NCCL_NUMA_CONFIG and no default file: quiet pass-through */
  NN_CFG_INVALID          /* unreadable or rejected: WARN once, pass-through */
};

struct nn_cfgver;

/* The current version of the config named by NCCL_NUMA_CONFIG (real environment only),
 * else NN_DEFAULT_CONFIG_PATH. Returns NULL only when out of memory. */
struct nn_cfgver *nn_cache_acquire(void);

/* Same for an explicit path (NULL: as nn_cache_acquire). */
struct nn_cfgver *nn_cache_acquire_path(const char *path);

/* Drops a reference; NULL is accepted. */
void nn_cache_release(struct nn_cfgver *v);

const struct nn_config *nn_cfgver_config(const struct nn_cfgver *v);
const char *nn_cfgver_path(const struct nn_cfgver *v);
int nn_cfgver_status(const struct nn_cfgver *v);
const struct nn_diag *nn_cfgver_diag(const struct nn_cfgver *v);
/* A number that grows with every version read in this process. */
uint64_t nn_cfgver_generation(const struct nn_cfgver *v);

/* Returns 1 exactly once per version: callers use it to warn once about a bad file. */
int nn_cfgver_claim_warning(struct nn_cfgver *v);

/* For a rejected version, once per version (shared by the tuner and the env plugin): one
 * WARN line per problem ("FILE:LINE: problem"), then "config PATH rejected: <consequence>". */
void nn_cfgver_warn_rejected(struct nn_cfgver *v, nn_ncclDebugLogger_t logger, const char *consequence);

/* The compiled policy for a communicator shape, shared by every communicator of that
 * shape on this version; owned by the version. NULL when out of memory. */
const struct nn_policy *nn_cfgver_policy(struct nn_cfgver *v, size_t n_ranks, size_t n_nodes);

#endif
