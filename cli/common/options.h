/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h - the commands' one convention for options: getopt_long with an optstring
 * that starts with ':' (so a missing value is told from an unknown option), `--opt VALUE`
 * and `--opt=VALUE` alike, `--` ending the options; a usage error names the option as
 * the user wrote it.
 */
#ifndef NCCL_NUMA_CLI_OPTIONS_H
#define NCCL_NUMA_CLI_OPTIONS_H

#include <stddef.h>

/* What getopt_long's '?' (unknown) or ':' (no value) return c means, into buf:
 * "unknown option '--x'" or "'--x' needs a value". Reads optind and optopt. */
void nn_cli_option_problem(int c, int argc, char *const argv[], char *buf, size_t size);

/* The same on stderr as "nccl-numa CMD: ...". */
void nn_cli_option_error(const char *cmd, int c, int argc, char *const argv[]);

#endif
