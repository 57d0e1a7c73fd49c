/* SPDX-License-Identifier: BSD-3-Clause */
/* pyenv.c - the Python environment's NCCL; see pyenv.h. */
#include "cli/predict/pyenv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errbuf.h"

extern char **environ;

#define NN_PYENV_NCCL "/nvidia/nccl/lib/libnccl.so.2"
/* Where the wheel puts torch: torch/lib's libraries find NCCL through their RPATH
 * $ORIGIN/../../nvidia/nccl/lib, i.e. beside torch (PyTorch 2.x Linux CUDA wheels). */
#define NN_PYENV_TORCH "/torch/__init__.py"

const char *nn_pyenv_python(char *buf, size_t size) {
  const char *chosen = getenv("NCCL_NUMA_PYTHON");
  if (chosen) return chosen[0] ? chosen : NULL;
  const char *venv = getenv("VIRTUAL_ENV");
  if (venv && venv[0] == '/' && (size_t)snprintf(buf, size, "%s/bin/python3", venv) < size) return buf;
  snprintf(buf, size, "python3");
  return buf;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int spawn_python(const char *python, int out_fd, pid_t *pid) {
  static const char prog[] = "import sys\nfor p in sys.path: print(p)\n";
  char *argv[] = {(char *)python, (char *)"-c", (char *)prog, NULL};
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa)) return ENOMEM;
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  int rc = posix_spawnp(pid, python, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

/* Reads fd into buf until EOF or the deadline. Returns 0 at EOF, -1 on timeout. */
static int read_until(int fd, long deadline, char *buf, size_t size) {
  size_t used = 0;
  for (;;) {
    long left = deadline - now_ms();
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = left > 0 ? poll(&p, 1, (int)left) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char tmp[4096];
    ssize_t n = read(fd, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      buf[used] = 0;
      return 0;
    }
    size_t keep = (size_t)n < size - 1 - used ? (size_t)n : size - 1 - used;
    memcpy(buf + used, tmp, keep);
    used += keep;
  }
  buf[used] = 0;
  return -1;
}

int nn_pyenv_syspath(const char *python, int timeout_ms, char *buf, size_t size, char *err, size_t errsz) {
  int fds[2];
  if (size == 0 || pipe2(fds, O_CLOEXEC)) {
    nn_errbuf_set(err, errsz, "pipe: %s", strerror(errno));
    return -1;
  }
  pid_t pid;
  int rc = spawn_python(python, fds[1], &pid);
  close(fds[1]);
  if (rc) {
    close(fds[0]);
    nn_errbuf_set(err, errsz, "%s: %s", python, strerror(rc));
    return -1;
  }
  int timed_out = read_until(fds[0], now_ms() + timeout_ms, buf, size);
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (timed_out || !WIFEXITED(st) || WEXITSTATUS(st)) {
    nn_errbuf_set(err, errsz, timed_out ? "%s did not answer within %d ms" : "%s failed to print its sys.path",
                  python, timeout_ms);
    return -1;
  }
  return 0;
}

static int is_file_in(const char *dir, size_t len, const char *tail, char *path, size_t size) {
  struct stat st;
  if ((size_t)snprintf(path, size, "%.*s%s", (int)len, dir, tail) >= size) return 0;
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The first absolute entry of syspath holding torch (want_torch: 1 only when NCCL is beside it,
 * as torch is imported from the first only) or, without want_torch, holding NCCL. */
static int first_entry(const char *syspath, int want_torch, struct nn_pyenv_nccl *out) {
  char torch[PATH_MAX];
  for (const char *p = syspath; *p;) {
    size_t len = strcspn(p, "\n");
    if (p[0] == '/') {
      if (want_torch && is_file_in(p, len, NN_PYENV_TORCH, torch, sizeof torch)) {
        out->torch = 1;
        return is_file_in(p, len, NN_PYENV_NCCL, out->lib, sizeof out->lib);
      }
      if (!want_torch && is_file_in(p, len, NN_PYENV_NCCL, out->lib, sizeof out->lib)) return 1;
    }
    p += len + (p[len] == '\n');
  }
  return 0;
}

int nn_pyenv_find_nccl(const char *syspath, struct nn_pyenv_nccl *out) {
  memset(out, 0, sizeof *out);
  if (first_entry(syspath, 1, out)) return 1;
  out->torch = 0;
  if (first_entry(syspath, 0, out)) return 1;
  out->lib[0] = 0;
  return 0;
}
