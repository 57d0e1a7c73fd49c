/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pyenv.h - the libnccl.so.2 a Python job would load: the nvidia-nccl wheel's
 * (SITE/nvidia/nccl/lib/libnccl.so.2, nvidia-nccl-cu12 and -cu13 alike) on the sys.path of
 * the active Python environment. torch is never imported: its presence is a file test.
 */
#ifndef NCCL_NUMA_CLI_PYENV_H
#define NCCL_NUMA_CLI_PYENV_H

#include <limits.h>
#include <stddef.h>

/* How long the interpreter may take to print its sys.path before it is killed. */
#define NN_PYENV_TIMEOUT_MS 5000

struct nn_pyenv_nccl {
  char lib[PATH_MAX];     /* SITE/nvidia/nccl/lib/libnccl.so.2 */
  int torch;              /* 1: torch is imported from SITE, so its libraries load `lib` */
};

/* The interpreter of the active environment: $NCCL_NUMA_PYTHON when set (NULL when set empty:
 * ask no Python), else $VIRTUAL_ENV/bin/python3 when VIRTUAL_ENV is set (an activated venv),
 * else "python3", looked up on PATH as the job's command would be. Returns buf or the variable. */
const char *nn_pyenv_python(char *buf, size_t size);

/* Runs `python` with stdin and stderr on /dev/null to print its sys.path, one entry a line,
 * into buf (NUL-terminated, cut at size - 1); kills it after timeout_ms. It imports nothing
 * but what the interpreter's start-up does. Returns 0, or -1 with the reason in err. */
int nn_pyenv_syspath(const char *python, int timeout_ms, char *buf, size_t size, char *err, size_t errsz);

/* Picks from `syspath` (absolute entries one a line, in sys.path order; others are skipped):
 * the first entry holding torch, when it also holds nvidia/nccl/lib/libnccl.so.2 (torch's
 * libraries load that one); else the first entry holding that file. Returns 1 with `out`
 * filled, 0 when there is none. */
int nn_pyenv_find_nccl(const char *syspath, struct nn_pyenv_nccl *out);

#endif
