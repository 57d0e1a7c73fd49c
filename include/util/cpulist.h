/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpulist.h - CPU lists as Linux writes them ("0-31,64-95", the sysfs cpulist
 * format) and the hexadecimal cpumap form NCCL's topology XML carries.
 */
#ifndef NCCL_NUMA_CPULIST_H
#define NCCL_NUMA_CPULIST_H

#include <stddef.h>
#include <stdint.h>

#define NN_MAX_CPU 4095 /* highest CPU number a list may name */
#define NN_CPUMASK_WORDS ((NN_MAX_CPU + 1) / 32)

/* Parses a CPU list such as "0-31,64-95" (each item N or N-M with N <= M <= NN_MAX_CPU)
 * into `mask` (NN_CPUMASK_WORDS words, bit c of word c/32; may be NULL). Returns the
 * highest CPU, or -1 with a reason in err. */
int nn_cpulist_parse(const char *list, uint32_t *mask, char *err, size_t errsz);

/* Formats a mask as sysfs cpumap (32-bit hex words, most significant first, comma-separated)
 * covering CPUs 0..highest, e.g. "00000000,ffffffff" for 0-31 with highest 63.
 * Returns the length, or -1 when buf is too small. */
int nn_cpumask_format(const uint32_t *mask, int highest, char *buf, size_t size);

/* Characters nn_cpumask_format writes for CPUs up to `highest` (9 per 32-bit word,
 * less the last comma). */
int nn_cpumask_chars(int highest);

#endif
