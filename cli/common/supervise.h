/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * supervise.h - the one way the command runs a child process under a watchdog (ab and
 * calibrate's benchmarks, p2p's probes).
 *
 * What it guarantees, however the child behaves:
 *  - the child runs in a process group of its own, under a keeper process that leads the
 *    group and is a child subreaper, so that whatever the child starts stays findable: a
 *    process that moves to another group or starts its own session (setsid) is adopted by
 *    the keeper (or, once the keeper is gone, by this process, a subreaper while it
 *    supervises) and killed with the rest;
 *  - the child dies with this process however it dies (PR_SET_PDEATHSIG): the keeper kills
 *    the child's group and every process it adopted when this process is gone, `kill -9`
 *    included;
 *  - the child's stdout and stderr come through a pipe of the supervisor's own, read until
 *    the child ends (not until the pipe's end of file, which a process that kept it may hold
 *    back forever), at most `cap` bytes kept and the rest read and dropped;
 *  - at the deadline, or after a stop signal and its grace period, SIGKILL goes to the group
 *    and to every adopted process, and the wait after it is bounded by the grace period too:
 *    what is still there then (a process in uninterruptible sleep in a driver, say) is counted
 *    in `unkillable` and the call returns anyway;
 *  - SIGINT, SIGTERM and SIGHUP are caught while the child runs and sent to its group, which
 *    gets the grace period to end; one ignored on entry stays ignored, by this process and by
 *    the child; the dispositions are restored on return.
 */
#ifndef NCCL_NUMA_CLI_SUPERVISE_H
#define NCCL_NUMA_CLI_SUPERVISE_H

#include <stddef.h>
#include <stdio.h>

#define NN_SUP_GRACE_S 2.0     /* default grace period */
#define NN_SUP_CAP (64u << 20) /* default cap on the output kept */

/* What to run: argv (argv[0] a path, run with env, NULL: this process's environment), or
 * work(arg, out) in the forked child, `out` the output pipe (the child's stdout then goes
 * to this process's stderr). The child's stdin is /dev/null. */
struct nn_sup_job {
  char *const *argv;
  char *const *env;
  void (*work)(void *arg, FILE *out);
  void *arg;
  int sink_fd;       /* >= 0: the output is copied into this fd; -1: into the result's text */
  size_t cap;        /* bytes of output kept (0: NN_SUP_CAP) */
  double deadline_s; /* how long the child may run (0: no limit) */
  double grace_s;    /* after a stop signal, and after SIGKILL (0: NN_SUP_GRACE_S) */
};

enum nn_sup_end {
  NN_SUP_EXITED,    /* the child exited: exit_code */
  NN_SUP_SIGNALED,  /* a signal other than the supervisor's ended it: signal */
  NN_SUP_TIMED_OUT, /* killed at the deadline */
  NN_SUP_STOPPED    /* this process was asked to stop by `signal`; the child's group is ended */
};

struct nn_sup_result {
  enum nn_sup_end end;
  int exit_code;
  int signal;
  int unkillable; /* the child's processes still there after SIGKILL and the grace period */
  char *text;     /* sink_fd -1: the output kept, NUL-terminated (nn_supervise_free) */
  size_t len;
  size_t dropped; /* bytes of output over the cap (with a sink, a line there says so) */
};

/* Runs the job to its end. Returns 0 with res filled, or -1 when no child could be started
 * (err says why). */
int nn_supervise(const struct nn_sup_job *job, struct nn_sup_result *res, char *err, size_t errsz);

/* The shell's view of how it ended: the exit code, 128 + the signal, 124 at the deadline. */
int nn_supervise_exit_code(const struct nn_sup_result *res);

/* Ends this process by `sig`, as its default action does (after NN_SUP_STOPPED). */
void nn_supervise_raise(int sig);

void nn_supervise_free(struct nn_sup_result *res);

#endif
