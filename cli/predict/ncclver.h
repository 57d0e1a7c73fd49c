/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ncclver.h - which NCCL release the CLI predicts for: `--nccl-version X.Y.Z`, else the
 * release of the libnccl.so.2 the job would load: `--nccl-lib PATH`, else the Python
 * environment's nvidia-nccl wheel (pyenv.h: the one torch loads, else the first on
 * sys.path; its METADATA's Version), else the library search path. Nothing is run or
 * loaded to learn it (a library's release is its version string, ncclelf.h): the
 * environment may be another user's, and these commands run as root.
 */
#ifndef NCCL_NUMA_CLI_NCCLVER_H
#define NCCL_NUMA_CLI_NCCLVER_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "nn_config.h"
#include "topology.h"

struct nn_ncclver {
  int code;                  /* NCCL_VERSION_CODE; 0 = none found */
  char source[PATH_MAX * 2]; /* where it came from, for the output */
};

/* Resolves the release: `version_arg` (X.Y.Z) wins, else `lib_arg`, else the Python
 * environment's wheel (one whose release cannot be read is reported, not passed over: the
 * job would load it), else the libnccl.so.2 on the library search path (nn_ncclelf_find);
 * out->source names the file read and why. Returns 0 (out->code may be 0 when no library is
 * found; out->source says why), or -1 with the problem in err when --nccl-version is
 * malformed or --nccl-lib cannot be read. */
int nn_ncclver_resolve(const char *version_arg, const char *lib_arg, struct nn_ncclver *out,
                       char *err, size_t errsz);

/* A release given on the command line (opt: "--nccl-version", "--compare-release"), through the
 * one version parser (nn_nccl_version_parse): its code, or -1 with "OPT 'ARG': expected X.Y.Z
 * (e.g. 2.28.9)" in err. Every command's option uses it, so all accept and refuse alike. */
int nn_ncclver_parse_arg(const char *opt, const char *arg, char *err, size_t errsz);

/* 1 when `ver` is a known release older than 2.28.7: NCCL never loads an env plugin, so the
 * topology verdict and the mapping's `env` lines cannot apply. */
int nn_ncclver_no_env_plugin(const struct nn_ncclver *ver);

/* The core verdict for release `ver` on this machine: GPU links and NCCL's own view from sysfs
 * under `sysfs_root` (NULL = /) as that release reads them, the CPU NCCL detects from `cpuinfo`
 * (NULL = /proc/cpuinfo). For a release without an env plugin (nn_ncclver_no_env_plugin) nothing
 * is served and the reason says so; the warning is then what NCCL_TOPO_FILE set to the file by
 * hand would cost. */
void nn_ncclver_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                        const struct nn_ncclver *ver, const char *sysfs_root, const char *cpuinfo,
                        int runtime_sm, struct nn_topo_verdict *v);

/* Prints the release and where it came from, the verdict, the GPU link and the two predicted
 * searches side by side, each line starting with `prefix`. With `only` (e.g. "NCCL_TOPO_FILE"),
 * the verdict is about a file NCCL reads whatever the plugin does: one prediction, so named. */
void nn_ncclver_print(FILE *out, const char *prefix, const struct nn_ncclver *ver,
                      const struct nn_topo_verdict *v, const char *only);

#endif
