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
#include "trust.h"

static void read_cpu_model(char *buf, size_t size) {
  FILE *f = nn_file_fopen("/proc/cpuinfo", 0, NN_FILE_ANY_SIZE); /* a bounded part is read */
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
  for (int n = 2; mkdir(made, 0700) != 0; n++) {
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

/* The directory just made, opened once: ours (another user cannot have swapped in one of
 * theirs since the mkdir) and exactly 0700. Returns a descriptor above 2, or -1. */
static int open_made(const char *made, char *err, size_t errsz) {
  int fd = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fd < 3) { /* 0 means "not open" in struct nn_rundir */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    fd = high;
  }
  if (fd < 0 || fstat(fd, &st) || fchmod(fd, 0700)) {
    nn_errbuf_set(err, errsz, "cannot open %s just made: %s", made, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (st.st_uid != geteuid()) {
    nn_errbuf_set(err, errsz,
                  "%s was replaced after it was made (now owned by uid %u): its parent "
                  "directory is another user's",
                  made, (unsigned)st.st_uid);
    close(fd);
    return -1;
  }
  return fd;
}

/* The trust rule of the mapping (trust.h) for the run directory: judged on its first file,
 * so every directory from / down to it is, and refused (removed again) where another user
 * could replace or redirect it. */
static int judge_made(int dir_fd, const char *made, char *err, size_t errsz) {
  char meta[PATH_MAX + 8], why[PATH_MAX + 256];
  snprintf(meta, sizeof meta, "%s/meta", made);
  int fd = nn_rundir_openat(dir_fd, "meta", NN_RUNDIR_NEW);
  if (fd < 0) {
    nn_errbuf_set(err, errsz, "cannot create %s: %s", meta, strerror(errno));
    return -1;
  }
  int verdict = nn_trust_fd(fd, meta, why, sizeof why);
  close(fd);
  if (verdict == NN_TRUST_OK) return 0;
  if (verdict == NN_TRUST_OPTED_OUT) {
    fprintf(stderr, "nccl-numa: %s\n", why);
    return 0;
  }
  nn_errbuf_set(err, errsz, "--out %s: %s (choose a directory only you and root can write)", made,
                why);
  return -1;
}

/* Undoes a refused nn_abdir_create: what it made, nothing else (rmdir takes only an empty
 * directory). */
static void unmake(int dir_fd, const char *made) {
  unlinkat(dir_fd, "meta", 0);
  unlinkat(dir_fd, "runs", AT_REMOVEDIR);
  rmdir(made);
}

int nn_abdir_create(struct nn_rundir *rd, const char *path, int numbered, const char *kind,
                    const char *command, char *err, size_t errsz) {
  char made[PATH_MAX];
  if (make_rundir(path, numbered, made, sizeof made)) {
    nn_errbuf_set(err, errsz, "cannot create %s: %s%s", made, strerror(errno),
                  errno == EEXIST ? " (choose another --out; runs are never overwritten)" : "");
    return -1;
  }
  int dir_fd = open_made(made, err, errsz);
  if (dir_fd < 0) return -1;
  if (mkdirat(dir_fd, "runs", 0700)) {
    nn_errbuf_set(err, errsz, "cannot create %s/runs: %s", made, strerror(errno));
    unmake(dir_fd, made);
    close(dir_fd);
    return -1;
  }
  int refused = judge_made(dir_fd, made, err, errsz);
  if (!refused && !(rd->path = realpath(made, NULL))) {
    nn_errbuf_set(err, errsz, "%s: %s", made, strerror(errno));
    refused = 1;
  }
  if (refused) {
    unmake(dir_fd, made);
    close(dir_fd);
    return -1;
  }
  rd->dir_fd = dir_fd;
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
  if (!rd->path || rd->dir_fd <= 0) return 0;
  if (unlinkat(rd->dir_fd, "runs", AT_REMOVEDIR) != 0) return 0; /* something ran: keep it */
  unlinkat(rd->dir_fd, "meta", 0);
  unlinkat(rd->dir_fd, "runs.tsv", 0);
  return rmdir(rd->path) == 0;
}
