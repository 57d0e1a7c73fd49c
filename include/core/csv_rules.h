/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csv_rules.h - rule files in the CSV format of NCCL's example tuner
 * (ext-tuner/example), so that existing files and the output of its optimizer
 * work unchanged behind `include-csv <path>` or NCCL_TUNER_CONFIG_FILE:
 *
 *   collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
 *
 * -1 means "any" (for channels: keep NCCL's choice; for max_bytes: no bound);
 * first match wins, as in the example. Unlike the example, an unknown name, a
 * wrong field count or a value out of range is an error naming file and line,
 * and the whole file is rejected. `#` starts a comment line; blank lines, a
 * header line starting with "collective", spaces around fields, double quotes
 * around a field and CRLF line ends are accepted.
 */
#ifndef NCCL_NUMA_CSV_RULES_H
#define NCCL_NUMA_CSV_RULES_H

#include <stddef.h>

#include "nn_config.h"

/* Parses a CSV rule file held in buf. `path` names the file in messages and
 * is stored in each rule's `file` field as given (the caller keeps it alive,
 * e.g. a string owned by the config). On success returns 0 with *rules a
 * malloc'd array (free() it; NULL when the file has no rules) of *n_rules
 * rules in file order, with scope any, pipeops/regbuff set (NN_ANY = any).
 * On error returns -1, appends one "FILE:LINE: problem" per problem to diag,
 * and sets *rules = NULL, *n_rules = 0. */
int nn_csv_rules_parse(const char *path, const char *buf, size_t len, struct nn_rule **rules,
                       int *n_rules, struct nn_diag *diag);

/* Reads `path` (regular files only, at most NN_MAX_FILE_BYTES, never blocking
 * on a FIFO, trusted as trust.h says) and parses it as above. An unreadable file is
 * one error "PATH: cannot open: <reason>", an untrusted one "PATH: not trusted: <reason>".
 * On success diag receives one note when the file was read only because of trust.h's
 * opt-out (the caller passes it on: nn_config's notes). */
int nn_csv_rules_load(const char *path, struct nn_rule **rules, int *n_rules, struct nn_diag *diag);

#endif
