/* SPDX-License-Identifier: BSD-3-Clause */
/* abdir.c - making and discarding a sweep's run directory; see abdir.h. */
#include "cli/sweep/abdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"

static void read_cpu_model(char *buf, size_t size) {
  FILE *f = nn_file_fopen("/proc/cpuinfo", 0, NN_FILE_ANY_SIZE);   /* a bounded part is read */
  char line[512];
  buf[0] = 0;
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    char *c = strchr(line, ':');
    if (c) {
      c += 1 + strspn(c + 1, " \t");
      c[strcspn(c, "\n")] = 0;
      snprintf(buf, size, "%s", c);
    }
    break;
  }
  fclose(f);
}

static int count_numa_nodes(void) {
  int n = 0;
  char path[64];
  for (int i = 0; i < 1024; i++) {
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d", i);
    if (!access(path, F_OK)) n++;
  }
  return n;
}

/* mkdir of path, or with `numbered` of the first free path-N; the name made goes to made. */
static int make_rundir(const char *path, int numbered, char *made, size_t size) {
  snprintf(made, size, "%s", path);
  for (int n = 2; mkdir(made, 0755) != 0; n++) {
    if (errno != EEXIST || !numbered || n > 99) return -1;
    snprintf(made, size, "%s-%d", path, n);
  }
  return 0;
}

void nn_abdir_command(int argc, char *const *argv, char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = 0;
  for (int i = 0; i < argc && used + 1 < size; i++) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? " " : "nccl-numa ", argv[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

int nn_abdir_create(struct nn_rundir *rd, const char *path, int numbered, const char *kind,
                        const char *command, char *err, size_t errsz) {
  char made[PATH_MAX];
  if (make_rundir(path, numbered, made, sizeof made)) {
    nn_errbuf_set(err, errsz, "cannot create %s: %s%s", made, strerror(errno),
                  errno == EEXIST ? " (choose another --out; runs are never overwritten)" : "");
    return -1;
  }
  path = made;
  char runs[PATH_MAX + 8];
  snprintf(runs, sizeof runs, "%s/runs", path);
  if (mkdir(runs, 0755)) {
    nn_errbuf_set(err, errsz, "cannot create %s: %s", runs, strerror(errno));
    return -1;
  }
  rd->path = realpath(path, NULL);
  if (!rd->path) {
    nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
    return -1;
  }
  snprintf(rd->kind, sizeof rd->kind, "%s", kind);
  gethostname(rd->host, sizeof rd->host - 1);
  struct utsname u;
  if (!uname(&u))
    snprintf(rd->machine, sizeof rd->machine, "%s %s %s, %d NUMA nodes", u.sysname, u.release,
             u.machine, count_numa_nodes());
  read_cpu_model(rd->cpu, sizeof rd->cpu);
  time_t now = time(NULL);
  struct tm tm;
  strftime(rd->date, sizeof rd->date, "%Y-%m-%d %H:%M:%S %z", localtime_r(&now, &tm));
  snprintf(rd->command, sizeof rd->command, "%s", command ? command : "");
  return 0;
}

int nn_abdir_discard_empty(const struct nn_rundir *rd) {
  if (!rd->path) return 0;
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/runs", rd->path);
  if (rmdir(p) != 0) return 0;   /* something ran: keep it */
  static const char *const written[] = {"meta", "runs.tsv"};
  for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", rd->path, written[i]);
    unlink(p);
  }
  return rmdir(rd->path) == 0;
}
