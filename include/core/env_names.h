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
 * no value is longer than NN_ENV_VALUE_MAX. Numbers are decimal without a leading zero (NCCL
 * reads them with base-0 strtoll: "010" would be 8); buffer and chunk sizes have floors at
 * which every protocol's chunk is still whole (env_names.c); NCCL_PROTO never forces LL128 on
 * and NCCL_ALGO always leaves an algorithm a PCIe machine has. The empty value (NCCL's default)
 * is always accepted. What depends on the release (a name it does not read, a value form it
 * misreads) is a fact of the release table (nccl_model.h), told by nn_env_release_note.
 * docs/user/mapping.md lists the names and what each accepts; keep both in step.
 */
#ifndef NCCL_NUMA_ENV_NAMES_H
#define NCCL_NUMA_ENV_NAMES_H

#include <stddef.h>

#define NN_ENV_VALUE_MAX 255 /* bytes of any served value */
/* characters of one interface or HCA name (NCCL's netIf.prefix[64]) */
#define NN_ENV_IFNAME_MAX 63
#define NN_ENV_IFLIST_MAX 16  /* entries of NCCL_SOCKET_IFNAME (NCCL's MAX_IFS) */
#define NN_ENV_HCALIST_MAX 32 /* entries of NCCL_IB_HCA (NCCL's MAX_IB_DEVS, 2.28.3 to 2.31) */

struct nn_nccl_release;

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

/* The range of a number-valued name: 0, or -1 for a name that takes no plain number. */
int nn_env_number_range(const char *name, long long *lo, long long *hi);

/* What the loaded release `rel` (named `release`, "2.30.7") makes of an accepted NAME=value:
 * NULL when it reads it as the mapping means. Else a sentence into buf, returned, and *serve:
 * 1 for a name the release does not read (served: NCCL ignores it), 0 for a value the release
 * would misread (an empty NCCL_IB_HCA port before the rail form, CTA_POLICY names before
 * they were read: not served). */
const char *nn_env_release_note(const char *name, const char *value,
                                const struct nn_nccl_release *rel, const char *release, int *serve,
                                char *buf, size_t size);

/* For the i-th allowed name whose reading depends on the release: the offset of its fact in
 * struct nn_nccl_release, *gone 1 when the fact says the name is no longer read (else read
 * from that release on); 0 for a name every release reads. */
size_t nn_env_release_fact(int i, int *gone);

#endif
