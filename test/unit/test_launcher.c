/* SPDX-License-Identifier: BSD-3-Clause */
/* test_launcher.c - the sweeps' job launchers (cli/sweep/launcher.c): each style's argv
 * and how it passes the arm's NCCL variables, the defaults, every refusal, and the
 * placement read back from nccl-tests' rank lines. */
#include "nn_test.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "cli/sweep/launcher.h"

static char bindir[64];

/* A directory on PATH with stand-ins for srun and a launcher whose name has a blank. */
static int setup(void **state) {
  (void)state;
  strcpy(bindir, "/tmp/nn-launch-XXXXXX");
  if (!mkdtemp(bindir)) return -1;
  const char *names[] = {"srun", "my launcher"};
  for (int i = 0; i < 2; i++) {
    char p[128];
    snprintf(p, sizeof p, "%s/%s", bindir, names[i]);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs("#!/bin/sh\nexit 0\n", f);
    fclose(f);
    chmod(p, 0755);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s:%s", bindir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  return setenv("PATH", path, 1);
}

static int teardown(void **state) {
  (void)state;
  const char *names[] = {"srun", "my launcher"};
  for (int i = 0; i < 2; i++) {
    char p[128];
    snprintf(p, sizeof p, "%s/%s", bindir, names[i]);
    unlink(p);
  }
  return rmdir(bindir);
}

static int finish(struct nn_launcher *l, const char *spec, const char *nodes, const char *rpn,
                  int *gpus, char *err, size_t errsz) {
  memset(l, 0, sizeof *l);
  assert_int_equal(nn_launcher_set_opt(l, "launcher", spec, err, errsz), 1);
  if (nodes) assert_int_equal(nn_launcher_set_opt(l, "nodes", nodes, err, errsz), 1);
  if (rpn) assert_int_equal(nn_launcher_set_opt(l, "ranks-per-node", rpn, err, errsz), 1);
  return nn_launcher_finish(l, gpus, 8, err, errsz);
}

/* The argv as one string, words in brackets. */
static void joined(char **av, char *out, size_t size) {
  out[0] = 0;
  for (int i = 0; av[i]; i++) snprintf(out + strlen(out), size - strlen(out), "[%s]", av[i]);
}

static char *const env[] = {"NCCL_ALGO=ring", "NCCL_DEBUG=INFO", "PATH=/bin", NULL};
static char *const prog[] = {"/t/all_reduce_perf", "-b", "8", NULL};

static void test_mpirun(void **state) {
  (void)state;
  if (access("/usr/bin/mpirun", X_OK)) skip();
  struct nn_launcher l;
  char err[256] = "", got[1024];
  int gpus = 0;
  assert_int_equal(finish(&l, "mpirun", "2", "4", &gpus, err, sizeof err), 0);
  assert_int_equal(gpus, 1); /* with a launcher -g is per rank */
  char **av = nn_launcher_argv(&l, env, prog, err, sizeof err);
  assert_non_null(av);
  joined(av, got, sizeof got);
  assert_string_equal(
    got, "[/usr/bin/mpirun][-np][8][--map-by][ppr:4:node][-x][NCCL_ALGO][-x][NCCL_DEBUG]"
         "[/t/all_reduce_perf][-b][8]");
  nn_launcher_argv_free(av);
  nn_launcher_free(&l);
}

/* The ranks per node default to the mapping's GPU count when -g was not given, else 1. */
static void test_defaults(void **state) {
  (void)state;
  struct nn_launcher l;
  char err[256] = "";
  int gpus = 0;
  assert_int_equal(finish(&l, "srun", NULL, NULL, &gpus, err, sizeof err), 0);
  assert_int_equal(l.nodes, 1);
  assert_int_equal(l.ranks_per_node, 8);
  nn_launcher_free(&l);
  gpus = 2;
  assert_int_equal(finish(&l, "srun", "3", NULL, &gpus, err, sizeof err), 0);
  assert_int_equal(l.ranks_per_node, 1);
  assert_int_equal(gpus, 2);
  nn_launcher_free(&l);
}

static void test_srun_export(void **state) {
  (void)state;
  struct nn_launcher l;
  char err[256] = "", got[1024], want[1024];
  int gpus = 0;
  assert_int_equal(finish(&l, "srun", "2", "4", &gpus, err, sizeof err), 0);
  char **av = nn_launcher_argv(&l, env, prog, err, sizeof err);
  assert_non_null(av);
  joined(av, got, sizeof got);
  snprintf(want, sizeof want,
           "[%s/srun][--nodes=2][--ntasks-per-node=4][--export=ALL,NCCL_ALGO=ring,NCCL_DEBUG=INFO]"
           "[/t/all_reduce_perf][-b][8]",
           bindir);
  assert_string_equal(got, want);
  nn_launcher_argv_free(av);
  /* Slurm splits --export at commas: a value holding one is refused, by name */
  char *const comma[] = {"NCCL_NUMA_CONFIG=/a,b", NULL};
  assert_null(nn_launcher_argv(&l, comma, prog, err, sizeof err));
  assert_non_null(strstr(err, "NCCL_NUMA_CONFIG"));
  nn_launcher_free(&l);
}

/* Any other command: split as the shell would, quotes honoured; it gets no rank options. */
static void test_other_command(void **state) {
  (void)state;
  struct nn_launcher l;
  char err[256] = "", got[1024], want[1024];
  int gpus = 0;
  assert_int_equal(finish(&l, "'my launcher' -x \"a b\"", NULL, NULL, &gpus, err, sizeof err), 0);
  assert_int_equal(l.style, NN_LAUNCHER_OTHER);
  char **av = nn_launcher_argv(&l, env, prog, err, sizeof err);
  assert_non_null(av);
  joined(av, got, sizeof got);
  snprintf(want, sizeof want, "[%s/my launcher][-x][a b][/t/all_reduce_perf][-b][8]", bindir);
  assert_string_equal(got, want);
  nn_launcher_argv_free(av);
  nn_launcher_free(&l);
}

static void expect_refused(const char *spec, const char *nodes, const char *want) {
  struct nn_launcher l;
  char err[256] = "";
  int gpus = 0;
  memset(&l, 0, sizeof l);
  int rc = nn_launcher_set_opt(&l, "launcher", spec, err, sizeof err);
  if (rc == 1 && nodes) rc = nn_launcher_set_opt(&l, "nodes", nodes, err, sizeof err);
  if (rc == 1) rc = nn_launcher_finish(&l, &gpus, 8, err, sizeof err);
  if (rc != -1 || strcmp(err, want))
    print_error("'%s': rc %d, '%s', wanted '%s'\n", spec, rc, err, want);
  assert_int_equal(rc, -1);
  assert_string_equal(err, want);
  nn_launcher_free(&l);
}

static void test_refusals(void **state) {
  (void)state;
  expect_refused("", NULL, "--launcher '': empty command");
  expect_refused("no-such-launcher-here", NULL,
                 "--launcher: 'no-such-launcher-here' is not an executable on PATH");
  expect_refused("srun", "0", "--nodes: '0' is not a number in 1..65536");
  expect_refused("srun", "x", "--nodes: 'x' is not a number in 1..65536");
  struct nn_launcher l;
  char err[256] = "";
  int gpus = 0;
  memset(&l, 0, sizeof l);
  assert_int_equal(nn_launcher_set_opt(&l, "bogus", "1", err, sizeof err),
                   0); /* not one of its options */
  assert_int_equal(nn_launcher_set_opt(&l, "nodes", "2", err, sizeof err), 1);
  assert_int_equal(nn_launcher_finish(&l, &gpus, 8, err, sizeof err), -1);
  assert_string_equal(err, "--nodes and --ranks-per-node need --launcher");
  nn_launcher_free(&l);
}

/* Which host ran which rank, from nccl-tests' own "#  Rank" lines; the launch file. */
static void test_placement(void **state) {
  (void)state;
  char dir[] = "/tmp/nn-place-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char out[128];
  snprintf(out, sizeof out, "%s/run.out", dir);
  FILE *f = fopen(out, "w");
  assert_non_null(f);
  fputs("# nThread 1 nGpus 1\n"
        "#  Rank  0 Group  0 Pid  101 on      nodeA device  0 [0000:01:00] NVIDIA X\n"
        "#  Rank  1 Group  0 Pid  102 on      nodeA device  1 [0000:02:00] NVIDIA X\n"
        "#  Rank  2 Group  0 Pid  203 on      nodeB device  0 [0000:01:00] NVIDIA X\n",
        f);
  fclose(f);
  char summary[256];
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(dir_fd > 0);
  assert_int_equal(
    nn_launcher_record(dir_fd, out, "numa", 3, "all_reduce", summary, sizeof summary), 3);
  assert_string_equal(summary, "nodeA: 0,1; nodeB: 2");
  char tsv[128];
  snprintf(tsv, sizeof tsv, "%s/placement.tsv", dir);
  size_t len;
  char *text = nn_test_slurp(tsv, &len);
  assert_non_null(strstr(text, "numa\t3\tall_reduce\t2\tnodeB\t203\t0\n"));
  free(text);
  assert_int_equal(nn_launcher_nodes(dir), 1); /* no launch file: one node */
  if (!access("/usr/bin/mpirun", X_OK)) {
    struct nn_launcher l;
    char err[256];
    int gpus = 0;
    assert_int_equal(finish(&l, "mpirun", "2", "1", &gpus, err, sizeof err), 0);
    assert_int_equal(nn_launcher_write(&l, dir_fd), 0);
    assert_int_equal(nn_launcher_nodes(dir), 2);
    nn_launcher_free(&l);
  }
  struct stat st;
  assert_int_equal(fstatat(dir_fd, "placement.tsv", &st, AT_SYMLINK_NOFOLLOW), 0);
  assert_int_equal(st.st_mode & 07777, 0600); /* the run's files are the operator's only */
  close(dir_fd);
  const char *files[] = {"run.out", "placement.tsv", "launch"};
  for (int i = 0; i < 3; i++) {
    char p[160];
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    unlink(p);
  }
  assert_int_equal(rmdir(dir), 0); /* nothing else was written there */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mpirun),      cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_srun_export), cmocka_unit_test(test_other_command),
    cmocka_unit_test(test_refusals),    cmocka_unit_test(test_placement),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
