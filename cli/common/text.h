/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.h - small in-place string helpers shared by the CLI's parsers.
 */
#ifndef NCCL_NUMA_CLI_TEXT_H
#define NCCL_NUMA_CLI_TEXT_H

/* Strips leading and trailing white space (isspace) from s in place; returns the first
 * non-blank character (the terminating NUL when s is all blank). */
char *nn_text_trim(char *s);

#endif
