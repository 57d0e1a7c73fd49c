/* SPDX-License-Identifier: BSD-3-Clause */
/* test_supervise.c - the one supervisor of child processes: each test sets up a child that
 * misbehaves in one way and observes that nothing of it is left, and what the result says. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>

#include "cli/common/monotonic.h"
#include "cli/common/supervise.h"

/* Whether pid is gone (or a zombie this test then reaps) within `s` seconds. This process is
 * a subreaper, so whatever the test's children leave behind is reparented to it. */
static int gone_within(pid_t pid, double s) {
  for (double end = nn_monotonic_s() + s; nn_monotonic_s() < end; usleep(10000)) {
    waitpid(pid, NULL, WNOHANG);
    if (kill(pid, 0) && errno == ESRCH) return 1;
  }
  return 0;
}

static pid_t pid_after(const char *text, const char *key) {
  const char *p = strstr(text, key);
  return p ? (pid_t)strtol(p + strlen(key), NULL, 10) : 0;
}

static void sleep_forever(void) {
  for (;;) pause();
}

static void run_job(struct nn_sup_job *job, struct nn_sup_result *res, double *took) {
  char err[128] = "";
  double t0 = nn_monotonic_s();
  /* the default grace: the wait after SIGKILL ends as soon as nothing is left, so only a
   * test that waits the whole grace on purpose (a stop signal ignored) pays for it; shorter,
   * a loaded machine may not have run the killed processes' exit in time */
  if (!job->grace_s) job->grace_s = NN_SUP_GRACE_S;
  if (nn_supervise(job, res, err, sizeof err)) fail_msg("nn_supervise: %s", err);
  *took = nn_monotonic_s() - t0;
}

static void test_exit_code_and_output(void **state) {
  (void)state;
  char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  struct nn_sup_job job = {.argv = argv, .sink_fd = -1};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  assert_int_equal(res.end, NN_SUP_EXITED);
  assert_int_equal(nn_supervise_exit_code(&res), 3);
  assert_string_equal(res.text, "out\nerr\n");
  assert_int_equal(res.unkillable, 0);
  nn_supervise_free(&res);
  char *missing[] = {"/nonexistent/bench", NULL};
  job.argv = missing;
  run_job(&job, &res, &took);
  assert_int_equal(nn_supervise_exit_code(&res), 127);
  assert_non_null(strstr(res.text, "cannot run /nonexistent/bench"));
  nn_supervise_free(&res);
}

/* The child starts a process in a group of its own and exits: the process is killed. */
static void other_group(void *arg, FILE *out) {
  (void)arg;
  pid_t g = fork();
  if (g == 0) {
    setpgid(0, 0);
    sleep_forever();
  }
  fprintf(out, "grandchild %d\n", (int)g);
}

static void test_child_in_other_group(void **state) {
  (void)state;
  struct nn_sup_job job = {.work = other_group, .sink_fd = -1};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  pid_t g = pid_after(res.text, "grandchild ");
  assert_true(g > 0);
  assert_int_equal(res.end, NN_SUP_EXITED);
  assert_int_equal(res.exit_code, 0);
  assert_true(kill(g, 0) && errno == ESRCH); /* gone when the call returns */
  assert_true(took < 5.0);
  nn_supervise_free(&res);
}

/* The child starts a process in a session of its own that keeps the output pipe open. */
static void own_session(void *arg, FILE *out) {
  (void)arg;
  pid_t g = fork();
  if (g == 0) {
    setsid();
    fprintf(out, "session %d\n", (int)getpid());
    fflush(out);
    sleep_forever(); /* holding `out` */
  }
  usleep(100000);
}

static void test_setsid_holding_the_pipe(void **state) {
  (void)state;
  struct nn_sup_job job = {.work = own_session, .sink_fd = -1};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  pid_t g = pid_after(res.text, "session ");
  assert_true(g > 0);
  assert_int_equal(res.end, NN_SUP_EXITED);
  assert_true(kill(g, 0) && errno == ESRCH);
  assert_true(took < 5.0); /* not waiting for the pipe's end of file */
  nn_supervise_free(&res);
}

/* The child ignores every stop signal and never ends: the deadline kills it. */
static void deaf(void *arg, FILE *out) {
  (void)arg;
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  fprintf(out, "deaf %d\n", (int)getpid());
  fflush(out);
  sleep_forever();
}

static void test_deadline_kills_a_deaf_child(void **state) {
  (void)state;
  struct nn_sup_job job = {.work = deaf, .sink_fd = -1, .deadline_s = 0.3};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  pid_t c = pid_after(res.text, "deaf ");
  assert_true(c > 0);
  assert_int_equal(res.end, NN_SUP_TIMED_OUT);
  assert_int_equal(nn_supervise_exit_code(&res), 124);
  assert_int_equal(res.unkillable, 0);
  assert_true(kill(c, 0) && errno == ESRCH);
  assert_true(took >= 0.3 && took < 5.0);
  nn_supervise_free(&res);
}

/* The child reports the stop signals' dispositions it got, then ignores SIGTERM. */
static void report_dispositions(void *arg, FILE *out) {
  (void)arg;
  struct sigaction hup, term;
  sigaction(SIGHUP, NULL, &hup);
  sigaction(SIGTERM, NULL, &term);
  fprintf(out, "hup=%s term=%s pid %d\n", hup.sa_handler == SIG_IGN ? "ign" : "other",
          term.sa_handler == SIG_DFL ? "dfl" : "other", (int)getpid());
  fflush(out);
  signal(SIGTERM, SIG_IGN);
  sleep_forever();
}

static volatile sig_atomic_t callers_handler_ran;
static void callers_handler(int sig) {
  (void)sig;
  callers_handler_ran = 1;
}

static void test_stop_signal_and_dispositions(void **state) {
  (void)state;
  signal(SIGHUP, SIG_IGN); /* nohup's: stays ignored, for the child too */
  struct sigaction mine;
  memset(&mine, 0, sizeof mine);
  mine.sa_handler = callers_handler;
  sigaction(SIGTERM, &mine, NULL);
  pid_t self = getpid(), sender = fork();
  if (sender == 0) {
    usleep(300000);
    kill(self, SIGTERM);
    _exit(0);
  }
  struct nn_sup_job job = {.work = report_dispositions, .sink_fd = -1, .deadline_s = 10};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  waitpid(sender, NULL, 0);
  assert_int_equal(res.end, NN_SUP_STOPPED);
  assert_int_equal(res.signal, SIGTERM);
  assert_int_equal(nn_supervise_exit_code(&res), 128 + SIGTERM);
  assert_non_null(strstr(res.text, "hup=ign term=dfl"));
  pid_t c = pid_after(res.text, "pid ");
  assert_true(kill(c, 0) && errno == ESRCH);
  assert_true(took >= 0.3 + NN_SUP_GRACE_S && took < 8.0); /* the grace period, then SIGKILL */
  assert_int_equal(callers_handler_ran, 0);
  struct sigaction now;
  sigaction(SIGTERM, NULL, &now);
  assert_ptr_equal(now.sa_handler, callers_handler);
  sigaction(SIGHUP, NULL, &now);
  assert_ptr_equal(now.sa_handler, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  nn_supervise_free(&res);
}

/* `kill -9` of the supervising process: the child, a process in its group and one in a
 * session of its own all die with it. */
static int report_fd = -1;
static void family(void *arg, FILE *out) {
  (void)arg;
  (void)out;
  pid_t same = fork();
  if (same == 0) sleep_forever();
  pid_t other = fork();
  if (other == 0) {
    setsid();
    sleep_forever();
  }
  dprintf(report_fd, "%d %d %d %d\n", (int)getpid(), (int)same, (int)other, (int)getpgrp());
  sleep_forever();
}

static void test_kill9_of_the_parent(void **state) {
  (void)state;
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t m = fork();
  if (m == 0) {
    close(p[0]);
    report_fd = p[1];
    struct nn_sup_job job = {.work = family, .sink_fd = -1};
    struct nn_sup_result res;
    nn_supervise(&job, &res, NULL, 0);
    _exit(0);
  }
  close(p[1]);
  char line[128] = "";
  FILE *f = fdopen(p[0], "r");
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  pid_t pids[4];
  char *at = line;
  for (int i = 0; i < 4; i++) pids[i] = (pid_t)strtol(at, &at, 10);
  pid_t c = pids[0], same = pids[1], other = pids[2], group = pids[3];
  assert_true(c > 0 && same > 0 && other > 0 && group > 0);
  assert_int_equal(kill(c, 0), 0);
  assert_int_equal(kill(other, 0), 0);
  kill(m, SIGKILL);
  waitpid(m, NULL, 0);
  assert_true(gone_within(c, 3.0));
  assert_true(gone_within(same, 3.0));
  assert_true(gone_within(other, 3.0));
  assert_true(gone_within(group, 3.0)); /* the keeper */
  assert_true(kill(-group, 0) && errno == ESRCH);
}

static void test_output_cap(void **state) {
  (void)state;
  char *argv[] = {"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\000' x", NULL};
  struct nn_sup_job job = {.argv = argv, .sink_fd = -1, .cap = 10000};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  assert_int_equal(res.len, 10000);
  assert_int_equal(strlen(res.text), 10000);
  assert_int_equal(res.dropped, 90000);
  nn_supervise_free(&res);
  FILE *sink = tmpfile();
  assert_non_null(sink);
  job.sink_fd = fileno(sink);
  run_job(&job, &res, &took);
  assert_int_equal(res.dropped, 90000);
  char buf[12000];
  size_t n = (size_t)pread(job.sink_fd, buf, sizeof buf - 1, 0);
  buf[n] = 0;
  assert_int_equal(strspn(buf, "x"), 10000);
  assert_string_equal(buf + 10000,
                      "\nnccl-numa: output cut at 10000 bytes: 90000 more bytes dropped\n");
  fclose(sink);
}

/* The stand-in for a process SIGKILL cannot end at once: one of this test's own children
 * joins the child's group and, killed, stays unreaped (a zombie is still a member). */
static int to_standin = -1, from_standin = -1;
static void recruit(void *arg, FILE *out) {
  (void)arg;
  (void)out;
  int g = (int)getpgrp(), ack;
  if (write(to_standin, &g, sizeof g) != (ssize_t)sizeof g) return;
  if (read(from_standin, &ack, sizeof ack) <= 0) return;
  sleep_forever();
}

static void test_unkillable_is_bounded(void **state) {
  (void)state;
  int a[2], b[2];
  assert_int_equal(pipe(a), 0);
  assert_int_equal(pipe(b), 0);
  pid_t x = fork();
  if (x == 0) {
    int g = 0, ok = 1;
    if (read(a[0], &g, sizeof g) != (ssize_t)sizeof g || setpgid(0, g)) _exit(1);
    if (write(b[1], &ok, sizeof ok) < 0) _exit(1);
    sleep_forever();
  }
  to_standin = a[1];
  from_standin = b[0];
  struct nn_sup_job job = {.work = recruit, .sink_fd = -1, .deadline_s = 0.3, .grace_s = 0.4};
  struct nn_sup_result res;
  double took;
  run_job(&job, &res, &took);
  assert_int_equal(res.end, NN_SUP_TIMED_OUT);
  assert_true(res.unkillable >= 1);
  assert_true(took >= 0.3 + 0.4 && took < 5.0); /* waited the grace period, no longer */
  int st = 0;
  assert_int_equal(waitpid(x, &st, 0), x); /* the SIGKILL reached it */
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  nn_supervise_free(&res);
  close(a[0]);
  close(a[1]);
  close(b[0]);
  close(b[1]);
}

int main(void) {
  prctl(PR_SET_CHILD_SUBREAPER, 1); /* what the tests' processes leave comes back here */
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exit_code_and_output),
    cmocka_unit_test(test_child_in_other_group),
    cmocka_unit_test(test_setsid_holding_the_pipe),
    cmocka_unit_test(test_deadline_kills_a_deaf_child),
    cmocka_unit_test(test_stop_signal_and_dispositions),
    cmocka_unit_test(test_kill9_of_the_parent),
    cmocka_unit_test(test_output_cap),
    cmocka_unit_test(test_unkillable_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
