/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abdir.h - the run directory a sweep (`ab`, `calibrate`) writes into (rundir.h has its
 * format): made fresh for every run, never over an old one, and removed again when
 * nothing ran in it.
 */
#ifndef NCCL_NUMA_CLI_ABDIR_H
#define NCCL_NUMA_CLI_ABDIR_H

#include "cli/sweep/rundir.h"

/* The command line as a run directory records it: "nccl-numa ARG ARG ..." (argv[0] is the
 * subcommand), cut to fit buf. */
void nn_abdir_command(int argc, char *const *argv, char *buf, size_t size);

/* Creates the run directory (must not exist) 0700 with runs/ inside, opens it once
 * (rd->dir_fd, O_NOFOLLOW: every file of the run is written through it, see rundir.h) and
 * judges it by the mapping's trust rule (trust.h): where another user could replace or
 * redirect it (a parent directory they own or can write, without the sticky bit), it is
 * removed again and refused. Fills rd's machine description and `command`
 * (nn_abdir_command's text). With `numbered` (a default name
 * the user did not choose), an existing PATH is kept and PATH-2, PATH-3, ... is tried
 * instead, so a second run in the same second works. Returns 0 or -1 (err says why). */
int nn_abdir_create(struct nn_rundir *rd, const char *path, int numbered, const char *kind,
                    const char *command, char *err, size_t errsz);

/* After a run that failed before any result: removes the run directory when it holds
 * nothing but the empty runs/ and what nn_abdir_create wrote, so no empty run is left.
 * Returns 1 when it removed it, else 0. */
int nn_abdir_discard_empty(const struct nn_rundir *rd);

#endif
