/* SPDX-License-Identifier: BSD-3-Clause */
/* p2prun.c - a child process under a watchdog; see p2prun.h. */
#include "cli/p2p/p2prun.h"

#include "cli/common/monotonic.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t running_group;

static void on_signal(int sig) {
  if (running_group > 0) kill(-(pid_t)running_group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void catch_signals(void) {
  static int done;
  if (done) return;
  done = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

static void child(int fd, void (*work)(void *, FILE *), void *arg) {
  setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  /* the driver's own prints go to stderr, never among the command's output */
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE *out = fdopen(fd, "w");
  if (!out) _exit(127);
  setvbuf(out, NULL, _IOLBF, 0);
  work(arg, out);
  fclose(out);
  _exit(0);
}

/* Appends what is readable on fd; 1 at end of file. */
static int drain(int fd, char **buf, size_t *len, size_t *cap) {
  for (;;) {
    if (*cap - *len < 4096) {
      size_t ncap = *cap * 2 + 8192;
      char *nb = realloc(*buf, ncap);
      if (!nb) return 1;
      *buf = nb;
      *cap = ncap;
    }
    ssize_t n = read(fd, *buf + *len, *cap - *len - 1);
    if (n > 0) { *len += (size_t)n; continue; }
    if (n == 0) return 1;
    return errno == EINTR ? 0 : (errno == EAGAIN ? 0 : 1);
  }
}

/* Whether the child has exited, without reaping it. */
static int exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

int nn_p2prun_child(void (*work)(void *arg, FILE *out), void *arg, double timeout_s,
                    struct nn_p2prun *res, char *why, size_t why_size) {
  memset(res, 0, sizeof *res);
  res->exit_code = -1;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    return -1;
  }
  catch_signals();
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, why_size, "fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], work, arg);
  }
  setpgid(pid, pid);   /* also here: the group exists before the parent may kill it */
  running_group = pid;
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  char *buf = NULL;
  size_t len = 0, cap = 0;
  double deadline = nn_monotonic_s() + timeout_s;
  int eof = 0;
  for (;;) {
    double left = deadline - nn_monotonic_s();
    if (left <= 0) { res->timed_out = 1; break; }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    /* short slices: a grandchild may hold the pipe open after the child has exited */
    int wait_ms = eof ? 20 : (left < 0.1 ? (int)(left * 1000) + 1 : 100);
    if (!eof && poll(&pfd, 1, wait_ms) > 0) eof = drain(fds[0], &buf, &len, &cap);
    else if (eof) poll(NULL, 0, wait_ms);
    if (exited(pid)) { if (!eof) drain(fds[0], &buf, &len, &cap); break; }
  }
  kill(-pid, SIGKILL);   /* the leader is unreaped: the group id is still its own */
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  /* the rest of the group gone too (reaped by whoever adopted them), at most 2 s */
  for (int i = 0; i < 200 && kill(-pid, 0) == 0; i++) poll(NULL, 0, 10);
  running_group = 0;
  close(fds[0]);
  if (!res->timed_out) {
    if (WIFEXITED(status)) res->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) res->signal = WTERMSIG(status);
  }
  if (!buf) buf = calloc(1, 1);
  else buf[len] = '\0';
  res->text = buf;
  return 0;
}

void nn_p2prun_free(struct nn_p2prun *res) {
  free(res->text);
  res->text = NULL;
}
