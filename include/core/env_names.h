/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_names.h - the NCCL variables a mapping's `env` line may serve: an allow-list of names
 * that only tune NCCL (channel counts, buffer and chunk sizes, thread counts, protocols and
 * algorithms, SHM/P2P/affinity switches, socket and IB interface selection, the two logging
 * switches). Never a name that loads a library (*_PLUGIN), names a file to read or write
 * (*_FILE: NCCL_DEBUG_FILE, NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_FILE, ...) or
 * chooses a peer to connect to (NCCL_COMM_ID), nor nccl-numa's own settings: a mapping is
 * a file others may hand to a root process, and whoever sets those names in the real
 * environment can do so there. docs/user/mapping.md lists the names; keep both in step.
 */
#ifndef NCCL_NUMA_ENV_NAMES_H
#define NCCL_NUMA_ENV_NAMES_H

/* NULL when an `env` line may serve `name`; else why not, in words ("it names a library
 * for NCCL to load"), static text. */
const char *nn_env_refusal(const char *name);

/* The allow-list, sorted (strcmp), NULL-terminated. */
const char *const *nn_env_allowed_names(void);

#endif
