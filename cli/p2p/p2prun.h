/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2prun.h - one piece of `nccl-numa p2p`'s work in a child process under a watchdog.
 *
 * The child is forked before it touches CUDA (the parent never initialises the driver, so
 * each child starts clean) and leads a process group of its own. What it writes on its pipe
 * is collected until it exits or the time is up; then the whole group is killed, so that a
 * kernel that never finishes, or anything the driver started, is not left running. The
 * group is killed while its leader is still unreaped, so its id cannot name another group.
 * SIGINT, SIGTERM and SIGHUP to the command kill the running child's group too.
 */
#ifndef NCCL_NUMA_CLI_P2PRUN_H
#define NCCL_NUMA_CLI_P2PRUN_H

#include <stddef.h>
#include <stdio.h>

struct nn_p2prun {
  int timed_out;     /* the child was killed at the time limit */
  int exit_code;     /* its exit status, or -1 */
  int signal;        /* the signal that ended it (other than the watchdog's), or 0 */
  char *text;        /* what it wrote, NUL-terminated (malloc'd; nn_p2prun_free) */
};

/* Runs work(arg, out) in a child, at most timeout_s seconds. Returns 0, or -1 when no child
 * could be started (why says so). */
int nn_p2prun_child(void (*work)(void *arg, FILE *out), void *arg, double timeout_s,
                    struct nn_p2prun *res, char *why, size_t why_size);

void nn_p2prun_free(struct nn_p2prun *res);

#endif
