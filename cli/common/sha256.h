/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha256.h - SHA-256 (FIPS 180-4), for naming the exact configuration a
 * measurement was taken with. Small and self-contained: no crypto library is
 * linked for one digest per report.
 */
#ifndef NCCL_NUMA_CLI_SHA256_H
#define NCCL_NUMA_CLI_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct nn_sha256 {
  uint32_t h[8];
  uint64_t total; /* bytes hashed so far */
  unsigned char block[64];
  size_t used; /* bytes waiting in block */
};

/* Starts a digest. */
void nn_sha256_init(struct nn_sha256 *s);
/* Adds len bytes. */
void nn_sha256_update(struct nn_sha256 *s, const void *data, size_t len);
/* Finishes the digest into 32 bytes; s must be initialised again before reuse. */
void nn_sha256_final(struct nn_sha256 *s, unsigned char out[32]);
/* Digest of a file's content as hex; returns 0, or -1 when it cannot be read. */
int nn_sha256_file_hex(const char *path, char hex[65]);

#endif
