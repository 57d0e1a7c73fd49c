/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pyenv.h - the libnccl.so.2 a Python job would load: the nvidia-nccl wheel's
 * (SITE/nvidia/nccl/lib/libnccl.so.2, nvidia-nccl-cu12 and -cu13 alike) in the site-packages
 * of the active Python environment, and the release its METADATA declares.
 *
 * Nothing of the environment is run or loaded: the interpreter, its start-up (.pth files)
 * and the library may be another user's, and explain, check and topo run as root. The
 * site-packages directories are found by reading files (pyvenv.cfg, lib/python3.X/), the
 * way the interpreter's own start-up (the site module) lays them out; torch's presence is
 * a file test.
 */
#ifndef NCCL_NUMA_CLI_PYENV_H
#define NCCL_NUMA_CLI_PYENV_H

#include <limits.h>
#include <stddef.h>

struct nn_pyenv_nccl {
  char site[PATH_MAX]; /* SITE */
  char lib[PATH_MAX];  /* SITE/nvidia/nccl/lib/libnccl.so.2 */
  int torch;           /* 1: torch is imported from SITE, so its libraries load `lib` */
};

/* The interpreter of the active environment: $NCCL_NUMA_PYTHON when set (NULL when set empty:
 * ask no Python), else $VIRTUAL_ENV/bin/python3 when VIRTUAL_ENV is set (an activated venv),
 * else "python3", looked up on PATH as the job's command would be. Returns buf or the variable. */
const char *nn_pyenv_python(char *buf, size_t size);

/* The site-packages directories of the environment `python` (a path, or a name looked up on
 * PATH) belongs to, one a line in sys.path order, into buf, found without running it: for a
 * venv (PREFIX/pyvenv.cfg beside PREFIX/bin/python3) PREFIX/lib/python3.X/site-packages, then
 * the base installation's when pyvenv.cfg has include-system-site-packages = true; else the
 * user's ~/.local/lib/python3.X/site-packages and PREFIX's site- and dist-packages (Debian's
 * layout included). Returns 0, or -1 with the reason in why (no such interpreter). */
int nn_pyenv_site_dirs(const char *python, char *buf, size_t size, char *why, size_t whysz);

/* The release the nvidia-nccl wheel installed in `site` declares: the Version of
 * SITE/nvidia_nccl_cu*.dist-info/METADATA, as NCCL_VERSION_CODE, with that METADATA's path
 * in `metadata`. Returns the code, or 0 when there is none (no dist-info, no X.Y.Z). */
int nn_pyenv_wheel_version(const char *site, char *metadata, size_t size);

/* The Version of SITE/DIST-<version>.dist-info/METADATA (DIST a glob: "sglang",
 * "nvidia_nccl_cu*"; a dist-info's name normalises '-' to '_'), as written, into version, with
 * that METADATA's path in `metadata`. Returns 1, or 0 when there is none (no such dist-info,
 * no Version line). Read only, never imported. */
int nn_pyenv_dist_version(const char *site, const char *dist, char *version, size_t vsz,
                          char *metadata, size_t msz);

/* Picks from `syspath` (absolute entries one a line, in sys.path order; others are skipped):
 * the first entry holding torch, when it also holds nvidia/nccl/lib/libnccl.so.2 (torch's
 * libraries load that one); else the first entry holding that file. Returns 1 with `out`
 * filled, 0 when there is none. */
int nn_pyenv_find_nccl(const char *syspath, struct nn_pyenv_nccl *out);

#endif
