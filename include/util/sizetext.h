/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sizetext.h - the one way a byte count is written for people: "8 KiB", "256 MiB", "1000 B".
 */
#ifndef NCCL_NUMA_SIZETEXT_H
#define NCCL_NUMA_SIZETEXT_H

#include <stddef.h>
#include <stdint.h>

/* Writes `bytes` in the largest binary unit (B, KiB, MiB, GiB, TiB) that divides it exactly:
 * 8192 -> "8 KiB", 1000 -> "1000 B", 3 << 30 -> "3 GiB". */
void nn_sizetext(uint64_t bytes, char *buf, size_t size);

#endif
