/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_names.h - the NCCL variables a mapping's `env` line may serve, and the values each may
 * take. Names: an allow-list of names that only tune NCCL (channel counts, buffer and chunk
 * sizes, thread counts, protocols and algorithms, SHM/P2P/affinity switches, socket and IB
 * interface selection, the two logging switches). Never a name that loads a library
 * (*_PLUGIN), names a file to read or write (*_FILE: NCCL_DEBUG_FILE, NCCL_TOPO_FILE,
 * NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_FILE, ...) or chooses a peer to connect to (NCCL_COMM_ID),
 * nor nccl-numa's own settings: a mapping is a file others may hand to a root process, and
 * whoever sets those names in the real environment can do so there.
 *
 * Values: each name has a grammar (numbers as decimal digits in a range, enumerations as
 * their words, interface and HCA lists as NCCL's parseStringList takes them safely in every
 * release: NCCL 2.28.7 to 2.30.4 copy each name into a 64-byte buffer without a bound), and
 * no value is longer than NN_ENV_VALUE_MAX. The empty value (NCCL's default) is always
 * accepted. docs/user/mapping.md lists the names and what each accepts; keep both in step.
 */
#ifndef NCCL_NUMA_ENV_NAMES_H
#define NCCL_NUMA_ENV_NAMES_H

#include <stddef.h>

#define NN_ENV_VALUE_MAX 255   /* bytes of any served value */
#define NN_ENV_IFNAME_MAX 63   /* characters of one interface or HCA name (NCCL's netIf.prefix[64]) */
#define NN_ENV_IFLIST_MAX 16   /* entries of an interface list (NCCL's MAX_IFS) */

/* NULL when an `env` line may serve `name`; else why not, in words ("it names a library
 * for NCCL to load"), static text. */
const char *nn_env_refusal(const char *name);

/* The i-th name of the allow-list (sorted, strcmp), or NULL past its end. */
const char *nn_env_allowed_name(int i);

/* NULL when `value` is one `name` (an allowed name) may take; else writes why not into buf
 * ("NCCL_IB_SL takes decimal digits, 0 to 15") and returns buf. */
const char *nn_env_value_refusal(const char *name, const char *value, char *buf, size_t size);

/* What `name` accepts, in words, into buf ("" for a name not allowed); returns buf. */
const char *nn_env_value_rule(const char *name, char *buf, size_t size);

#endif
