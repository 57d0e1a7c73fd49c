/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compare.h - `nccl-numa check --compare FILE...`: did every rank of a job use the
 * same mapping? Reads what the plugin wrote on each host: NCCL_NUMA_LOG_FILE JSON
 * records (one per communicator and rank: commId, host, pid, launcher rank,
 * configHash, the whole decision table) and NCCL logs with the plugin's INFO
 * lines (the tuner's INIT line: comm, hash, nRanks, nNodes; with TUNING the table
 * lines after it; NCCL's own "Init COMPLETE" line gives the rank in the
 * communicator). Per communicator it reports whether every record has the same
 * config content hash and the same decision table (compared as the table lines
 * the plugin logs: collective, size range, choice; a JSON record is reduced to the
 * same lines), naming the hosts and ranks of each variant when they differ, and
 * whether records of all nRanks ranks were given.
 */
#ifndef NCCL_NUMA_CLI_COMPARE_H
#define NCCL_NUMA_CLI_COMPARE_H

#include <stdio.h>

/* Reads the n files, writes the report to out and problems with the files to err.
 * Returns 0 when every communicator is consistent and complete, 1 otherwise
 * (a mismatch, missing ranks, no record at all or an unreadable file). */
int nn_compare_files(int n, char **files, FILE *out, FILE *err);

#endif
