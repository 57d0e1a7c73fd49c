/* SPDX-License-Identifier: BSD-3-Clause */
/* supervise.c - a child process under a watchdog; see supervise.h. */
#include "cli/common/supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/common/monotonic.h"
#include "errbuf.h"

#define MAX_PROCS 256 /* processes one scan of /proc handles */
#define SLICE_MS 50   /* how often the loops look again */
#define KEEPER_DEATH_SIGNAL SIGUSR1

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP (sizeof stop_signals / sizeof stop_signals[0])

/* A coverage build's counts, written before a forked child's _exit (absent otherwise). */
extern void __gcov_dump(void) __attribute__((weak));

__attribute__((noreturn)) static void child_exit(int code) {
  if (__gcov_dump) __gcov_dump();
  _exit(code);
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL); /* a signal cuts it short */
}

/* ---------- processes, as /proc lists them ---------- */

static int listed(pid_t pid, const pid_t *list, int n) {
  for (int i = 0; i < n; i++)
    if (list[i] == pid) return 1;
  return 0;
}

/* The processes whose parent is `parent` (but for those in skip[]), or whose group is `group`
 * (when > 0). Returns how many went into out. */
static int scan_procs(pid_t parent, const pid_t *skip, int n_skip, pid_t group, pid_t *out,
                      int max) {
  DIR *d = opendir("/proc");
  int n = 0;
  for (struct dirent *e; d && n < max && (e = readdir(d));) {
    char path[64], buf[512];
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%.16s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    if (len <= 0) continue;
    buf[len] = 0;
    const char *rp = strrchr(buf, ')'); /* the name may hold anything; the fields follow it */
    if (!rp || rp[1] != ' ' || !rp[2] || rp[3] != ' ') continue; /* ") S PPID PGRP ..." */
    char *end;
    pid_t pid = (pid_t)strtol(buf, NULL, 10);
    pid_t ppid = (pid_t)strtol(rp + 4, &end, 10);
    pid_t pgrp = (pid_t)strtol(end, NULL, 10);
    if ((ppid == parent && !listed(pid, skip, n_skip)) || (group > 0 && pgrp == group))
      out[n++] = pid;
  }
  if (d) closedir(d);
  return n;
}

/* SIGKILL to each process found (to its group too when it leads one), and the ones that are
 * this process's children (but for those in mine_not[]) reaped once dead. Returns how many
 * are still there. */
static int kill_found(const pid_t *pids, int n, const pid_t *mine_not, int n_not) {
  int left = 0;
  for (int i = 0; i < n; i++) {
    if (getpgid(pids[i]) == pids[i]) kill(-pids[i], SIGKILL);
    kill(pids[i], SIGKILL);
    left += listed(pids[i], mine_not, n_not) || waitpid(pids[i], NULL, WNOHANG) != pids[i];
  }
  return left;
}

/* ---------- the keeper and the child ---------- */

static volatile sig_atomic_t keeper_orphaned;

static void note_parent_death(int sig) {
  (void)sig;
  keeper_orphaned = 1;
}

/* The child: the caller's dispositions of the stop signals back (`ignored`: those ignored on
 * entry), its output into out_w; never returns. */
static void run_child(const struct nn_sup_job *job, const int ignored[N_STOP], pid_t keeper,
                      int out_w) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != keeper) child_exit(127);
  for (size_t i = 0; i < N_STOP; i++) signal(stop_signals[i], ignored[i] ? SIG_IGN : SIG_DFL);
  signal(KEEPER_DEATH_SIGNAL, SIG_DFL);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) dup2(null, STDIN_FILENO);
  if (job->argv) {
    dup2(out_w, STDOUT_FILENO);
    dup2(out_w, STDERR_FILENO);
    execve(job->argv[0], job->argv, job->env ? job->env : environ);
    dprintf(STDERR_FILENO, "nccl-numa: cannot run %s: %s\n", job->argv[0], strerror(errno));
    child_exit(127);
  }
  dup2(STDERR_FILENO, STDOUT_FILENO); /* stray prints go to stderr, never into the output */
  FILE *out = fdopen(out_w, "w");
  if (!out) child_exit(127);
  setvbuf(out, NULL, _IOLBF, 0);
  job->work(job->arg, out);
  fclose(out);
  child_exit(0);
}

/* This process is gone: kill what the keeper adopted, a few rounds (killing one may orphan
 * more), then the whole group, the keeper with it. */
static void keeper_contain(void) {
  pid_t found[MAX_PROCS];
  for (int round = 0; round < 5; round++) {
    int n = scan_procs(getpid(), NULL, 0, 0, found, MAX_PROCS);
    if (!n) break;
    kill_found(found, n, NULL, 0);
    pause_ms(10);
  }
  kill(0, SIGKILL);
  child_exit(1);
}

/* The keeper: leads the group, adopts the child's orphans, forks the child, and hands its
 * wait status to the supervisor on status_w. Never returns. */
static void run_keeper(const struct nn_sup_job *job, const int ignored[N_STOP], pid_t parent,
                       int out_w, int status_w) {
  setpgid(0, 0);
  for (size_t i = 0; i < N_STOP; i++) signal(stop_signals[i], SIG_IGN); /* for the child */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = note_parent_death;
  sigemptyset(&sa.sa_mask);
  sigaction(KEEPER_DEATH_SIGNAL, &sa, NULL);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (prctl(PR_SET_PDEATHSIG, KEEPER_DEATH_SIGNAL) != 0 || getppid() != parent) child_exit(127);
  pid_t keeper = getpid();
  pid_t child = fork();
  if (child == 0) {
    close(status_w);
    run_child(job, ignored, keeper, out_w);
  }
  close(out_w);
  /* The child's id first: the supervisor waits for exactly this process to be gone. */
  if (child > 0 && write(status_w, &child, sizeof child) != (ssize_t)sizeof child) child_exit(1);
  int status = 0;
  for (pid_t r = 0; child > 0 && r != child;) {
    if (keeper_orphaned) keeper_contain();
    r = waitpid(child, &status, WNOHANG);
    if (r < 0 && errno != EINTR) break;
    if (r == 0) pause_ms(SLICE_MS);
  }
  if (child > 0 && write(status_w, &status, sizeof status) != (ssize_t)sizeof status) child_exit(1);
  child_exit(child > 0 ? 0 : 127);
}

/* ---------- the supervisor ---------- */

static volatile sig_atomic_t stop_signal;

static void note_stop(int sig) { stop_signal = sig; }

struct run {
  const struct nn_sup_job *job;
  struct nn_sup_result *res;
  struct sigaction saved[N_STOP];
  int ignored[N_STOP];
  int was_subreaper;
  pid_t before[MAX_PROCS]; /* this process's children before the run: never touched */
  int n_before;
  pid_t keeper;
  pid_t child; /* 0 until the keeper has told it */
  int out_r, status_r;
  size_t cap, kept;
  char *buf;
  size_t buf_cap;
};

static void catch_stops(struct run *r) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = note_stop;
  sigemptyset(&sa.sa_mask);
  stop_signal = 0;
  for (size_t i = 0; i < N_STOP; i++) {
    sigaction(stop_signals[i], NULL, &r->saved[i]);
    r->ignored[i] = r->saved[i].sa_handler == SIG_IGN;
    if (!r->ignored[i]) sigaction(stop_signals[i], &sa, NULL);
  }
}

static void restore(struct run *r) {
  for (size_t i = 0; i < N_STOP; i++) sigaction(stop_signals[i], &r->saved[i], NULL);
  prctl(PR_SET_CHILD_SUBREAPER, r->was_subreaper);
}

/* Keeps what fits under the cap (in the text or the sink), counts the rest as dropped. */
static void take_output(struct run *r, const char *data, size_t n) {
  size_t keep = r->kept < r->cap ? r->cap - r->kept : 0;
  if (keep > n) keep = n;
  r->res->dropped += n - keep;
  if (!keep) return;
  if (r->job->sink_fd >= 0) {
    for (size_t off = 0; off < keep;) {
      ssize_t w = write(r->job->sink_fd, data + off, keep - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      off += (size_t)w;
    }
  } else {
    if (r->kept + keep + 1 > r->buf_cap) {
      size_t ncap = (r->kept + keep + 1) * 2;
      char *nb = realloc(r->buf, ncap);
      if (!nb) {
        r->res->dropped += keep;
        return;
      }
      r->buf = nb;
      r->buf_cap = ncap;
    }
    memcpy(r->buf + r->kept, data, keep);
  }
  r->kept += keep;
}

/* Reads what the pipe holds now. Returns 1 at its end of file. */
static int drain(struct run *r) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(r->out_r, chunk, sizeof chunk);
    if (n > 0) take_output(r, chunk, (size_t)n);
    else if (n < 0 && errno == EINTR) continue;
    else return n == 0;
  }
}

/* Whether the keeper has ended, without reaping it (its group's id stays its own). */
static int keeper_ended(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

/* Reads the output until the keeper ends, `until` passes, or (stop_ends) a stop signal comes. */
static void watch(struct run *r, double until, int stop_ends) {
  int eof = 0;
  while (!keeper_ended(r->keeper)) {
    double now = nn_monotonic_s();
    if (now >= until || (stop_ends && stop_signal)) return;
    struct pollfd p = {r->out_r, POLLIN, 0};
    double left = until - now;
    int ms = left * 1000 < SLICE_MS ? (int)(left * 1000) + 1 : SLICE_MS;
    if (eof) pause_ms(ms);
    else if (poll(&p, 1, ms) > 0) eof = drain(r);
  }
  drain(r);
}

/* Whether the keeper's child still exists (reaped here once dead, if it is this process's
 * own). Without this, a scan of /proc racing the child's exit could miss it. */
static int child_left(struct run *r) {
  if (!r->child && read(r->status_r, &r->child, sizeof r->child) != (ssize_t)sizeof r->child)
    r->child = 0;
  if (r->child <= 0) return 0;
  waitpid(r->child, NULL, WNOHANG);
  return kill(r->child, 0) == 0;
}

/* SIGKILL to the group and to every process this run left to this process, until none is
 * left or the grace period is over; the keeper reaped. Returns how many are still there. */
static int contain(struct run *r, double grace) {
  double end = nn_monotonic_s() + grace;
  int reaped = 0;
  for (;;) {
    if (!reaped) kill(-r->keeper, SIGKILL); /* the leader unreaped: the id is still its group's */
    /* ECHILD: kill_found reaped it, found in its group */
    pid_t w = reaped ? 0 : waitpid(r->keeper, NULL, WNOHANG);
    if (w == r->keeper || (w < 0 && errno == ECHILD)) reaped = 1;
    pid_t found[MAX_PROCS];
    int n = scan_procs(getpid(), r->before, r->n_before, r->keeper, found, MAX_PROCS);
    int left = kill_found(found, n, r->before, r->n_before) + !reaped;
    if (!left && child_left(r)) left = 1;
    if (!left || nn_monotonic_s() >= end) return left;
    pause_ms(10);
  }
}

static void finish(struct run *r, int stopped, int timed_out) {
  struct nn_sup_result *res = r->res;
  double grace = r->job->grace_s > 0 ? r->job->grace_s : NN_SUP_GRACE_S;
  if (stopped) {
    kill(-r->keeper, stopped); /* the keeper ignores it; the child has the grace period */
    watch(r, nn_monotonic_s() + grace, 0);
  }
  res->unkillable = contain(r, grace);
  drain(r);
  if (!r->child && read(r->status_r, &r->child, sizeof r->child) != (ssize_t)sizeof r->child)
    r->child = 0;
  int child_status;
  int got = read(r->status_r, &child_status, sizeof child_status) == (ssize_t)sizeof child_status;
  if (stopped) {
    res->end = NN_SUP_STOPPED;
    res->signal = stopped;
  } else if (timed_out || !got) {
    res->end = timed_out ? NN_SUP_TIMED_OUT : NN_SUP_EXITED;
    res->exit_code = timed_out ? -1 : 127; /* the keeper could not start the child */
  } else if (WIFSIGNALED(child_status)) {
    res->end = NN_SUP_SIGNALED;
    res->signal = WTERMSIG(child_status);
  } else {
    res->end = NN_SUP_EXITED;
    res->exit_code = WEXITSTATUS(child_status);
  }
  if (r->job->sink_fd >= 0 && res->dropped)
    dprintf(r->job->sink_fd, "\nnccl-numa: output cut at %zu bytes: %zu more bytes dropped\n",
            r->kept, res->dropped);
}

/* Starts the keeper; 0, or -1 with err set. */
static int start(struct run *r, char *err, size_t errsz) {
  int out[2], st[2];
  if (pipe2(out, O_CLOEXEC)) {
    nn_errbuf_set(err, errsz, "pipe: %s", strerror(errno));
    return -1;
  }
  if (pipe2(st, O_CLOEXEC)) {
    nn_errbuf_set(err, errsz, "pipe: %s", strerror(errno));
    close(out[0]);
    close(out[1]);
    return -1;
  }
  r->n_before = scan_procs(getpid(), NULL, 0, 0, r->before, MAX_PROCS);
  catch_stops(r);
  prctl(PR_GET_CHILD_SUBREAPER, &r->was_subreaper);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t parent = getpid();
  fflush(NULL);
  r->keeper = fork();
  if (r->keeper == 0) {
    close(out[0]);
    close(st[0]);
    run_keeper(r->job, r->ignored, parent, out[1], st[1]);
  }
  int saved_errno = errno;
  close(out[1]);
  close(st[1]);
  r->out_r = out[0];
  r->status_r = st[0];
  if (r->keeper < 0) {
    nn_errbuf_set(err, errsz, "fork: %s", strerror(saved_errno));
    close(out[0]);
    close(st[0]);
    restore(r);
    return -1;
  }
  setpgid(r->keeper, r->keeper); /* either side may run first; both make the group */
  fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
  fcntl(st[0], F_SETFL, fcntl(st[0], F_GETFL) | O_NONBLOCK);
  return 0;
}

int nn_supervise(const struct nn_sup_job *job, struct nn_sup_result *res, char *err, size_t errsz) {
  memset(res, 0, sizeof *res);
  struct run *r = calloc(1, sizeof *r);
  if (!r) {
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  r->job = job;
  r->res = res;
  r->cap = job->cap ? job->cap : NN_SUP_CAP;
  if (start(r, err, errsz)) {
    free(r);
    return -1;
  }
  double deadline = job->deadline_s > 0 ? nn_monotonic_s() + job->deadline_s : 0;
  int timed_out = 0;
  while (!keeper_ended(r->keeper) && !stop_signal) {
    watch(r, deadline > 0 ? deadline : nn_monotonic_s() + 3600, 1);
    if (deadline > 0 && nn_monotonic_s() >= deadline && !keeper_ended(r->keeper)) {
      timed_out = 1;
      break;
    }
  }
  finish(r, stop_signal, timed_out);
  close(r->out_r);
  close(r->status_r);
  restore(r);
  if (job->sink_fd < 0) {
    res->text = r->buf ? r->buf : calloc(1, 1);
    if (res->text) res->text[r->kept] = 0;
    res->len = res->text ? r->kept : 0;
  }
  free(r);
  return 0;
}

int nn_supervise_exit_code(const struct nn_sup_result *res) {
  switch (res->end) {
  case NN_SUP_EXITED:
    return res->exit_code;
  case NN_SUP_TIMED_OUT:
    return 124;
  default:
    return 128 + res->signal;
  }
}

void nn_supervise_raise(int sig) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  signal(sig, SIG_DFL);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig); /* a signal whose default action does not end the process */
}

void nn_supervise_free(struct nn_sup_result *res) {
  free(res->text);
  res->text = NULL;
}
