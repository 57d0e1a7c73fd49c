/* SPDX-License-Identifier: BSD-3-Clause */
/* ncclver.c - the NCCL release for predictions; see ncclver.h. */
#include "cli/predict/ncclver.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/predict/ncclelf.h"
#include "cli/predict/pyenv.h"
#include "errbuf.h"
#include "nccl_model.h"
#include "nccl_search.h"

/* The release in the banner of the library file `lib` (ncclelf.h: read, never loaded). */
static int read_library(const char *lib, struct nn_ncclver *out) {
  char err[PATH_MAX + 128];
  int code = nn_ncclelf_version(lib, err, sizeof err);
  if (code < 0) {
    snprintf(out->source, sizeof out->source, "%s", err);
    return -1;
  }
  out->code = code;
  snprintf(out->source, sizeof out->source, "the version string in %s", lib);
  return 0;
}

__attribute__((format(printf, 2, 3))) static void append(struct nn_ncclver *out, const char *fmt,
                                                         ...) {
  size_t used = strlen(out->source);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->source + used, sizeof out->source - used, fmt, ap);
  va_end(ap);
}

/* The NCCL of the active Python environment (pyenv.h), found and read without running or
 * loading anything of it: 0 when there is one (out says where, or why it cannot be read),
 * else -1 with the reason in why. The wheel's METADATA names the release; the library's
 * banner where there is none. */
static int from_python(struct nn_ncclver *out, char *why, size_t whysz) {
  static char sites[32768]; /* the CLI is single-threaded */
  char buf[PATH_MAX], err[PATH_MAX + 64], metadata[PATH_MAX];
  const char *python = nn_pyenv_python(buf, sizeof buf);
  if (!python) {
    snprintf(why, whysz, "NCCL_NUMA_PYTHON is empty: no Python environment looked at");
    return -1;
  }
  if (nn_pyenv_site_dirs(python, sites, sizeof sites, err, sizeof err)) {
    snprintf(why, whysz, "%s", err);
    return -1;
  }
  struct nn_pyenv_nccl found;
  if (!nn_pyenv_find_nccl(sites, &found)) {
    snprintf(why, whysz, "no nvidia/nccl/lib/libnccl.so.2 in the site-packages of %s", python);
    return -1;
  }
  out->code = nn_pyenv_wheel_version(found.site, metadata, sizeof metadata);
  if (out->code) append(out, "the Version in %s, the wheel of %s", metadata, found.lib);
  else read_library(found.lib, out);
  append(
    out, " (the Python environment of %s: %s)", python,
    found.torch ? "the one torch beside it loads" : "the nvidia-nccl wheel first on its sys.path");
  return 0;
}

int nn_ncclver_parse_arg(const char *opt, const char *arg, char *err, size_t errsz) {
  int code = nn_nccl_version_parse(arg);
  if (code > 0) return code;
  nn_errbuf_set(err, errsz, "%s '%s': expected X.Y.Z (e.g. 2.28.9)", opt, arg);
  return -1;
}

int nn_ncclver_resolve(const char *version_arg, const char *lib_arg, struct nn_ncclver *out,
                       char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  if (version_arg) {
    out->code = nn_ncclver_parse_arg("--nccl-version", version_arg, err, errsz);
    if (out->code <= 0) {
      out->code = 0;
      return -1;
    }
    snprintf(out->source, sizeof out->source, "--nccl-version");
    return 0;
  }
  if (lib_arg) {
    if (read_library(lib_arg, out) != 0) {
      nn_errbuf_set(err, errsz, "--nccl-lib: %s", out->source);
      return -1;
    }
    return 0;
  }
  char why[PATH_MAX + 128], lib[PATH_MAX];
  if (from_python(out, why, sizeof why) == 0) return 0;
  if (!nn_ncclelf_find(lib, sizeof lib)) {
    snprintf(out->source, sizeof out->source,
             "no libnccl.so.2 in the Python environment (%s) or on the "
             "library search path; give --nccl-version or --nccl-lib",
             why);
    return 0;
  }
  read_library(lib, out);
  append(out, " (the library search path; %s)", why);
  return 0;
}

int nn_ncclver_no_env_plugin(const struct nn_ncclver *ver) {
  return nn_nccl_lacks_env_plugin(ver->code);
}

/* Before 2.28.7 nothing asks the plugin for NCCL_TOPO_FILE: the verdict cannot apply (the
 * renderers say what the file would cost set by hand). */
void nn_ncclver_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                        const struct nn_ncclver *ver, const char *sysfs_root, const char *cpuinfo,
                        int runtime_sm, struct nn_topo_verdict *v) {
  static struct nn_verdict_facts facts; /* large; the CLI is single-threaded */
  nn_topology_gather(cfg, ver->code, runtime_sm, sysfs_root, cpuinfo, 0, &facts);
  nn_topology_verdict(cfg, cpu, &facts.in, v);
  if (nn_ncclver_no_env_plugin(ver)) {
    v->no_env_plugin = 1;
    v->serve = 0;
    v->file = NN_FILE_NONE;
  }
}

static const char *origin_text(int origin) {
  return origin == NN_LINK_SYSFS    ? "sysfs"
         : origin == NN_LINK_CONFIG ? "the mapping's pcie="
                                    : "assumed gen5 x16: not in sysfs, no pcie= in the mapping";
}

void nn_ncclver_print(FILE *out, const char *prefix, const struct nn_ncclver *ver,
                      const struct nn_topo_verdict *v, const char *only) {
  char rel[160], preds[600], ind[64];
  nn_topology_describe_release(v, rel, sizeof rel);
  fprintf(out, "%srelease: %s, from %s\n", prefix, rel,
          ver->code        ? ver->source
          : ver->source[0] ? ver->source
                           : "nowhere");
  if (!ver->code)
    fprintf(out, "%s         (no release known: predicted for the newest row of the table)\n",
            prefix);
  char reason[1024], warning[512];
  nn_topology_verdict_text(v, reason, sizeof reason);
  nn_topology_verdict_warning(v, warning, sizeof warning);
  if (!only) fprintf(out, "%s%s\n", prefix, reason);
  if (!only && warning[0]) fprintf(out, "%sWARNING: %s\n", prefix, warning);
  if (!v->predicted) return;
  fprintf(out,
          "%sGPU link: %.0f GB/s as NCCL models it (%s); compute capability %d.%d%s; search floor "
          "%.0f GB/s\n",
          prefix, v->gpu_link_gbps, origin_text(v->gpu_link_origin), v->sm / 10, v->sm % 10,
          v->sm_assumed ? " (assumed: none known)" : "", v->floor_gbps);
  snprintf(ind, sizeof ind, "%s  ", prefix);
  if (only) {
    nn_topology_describe_one(&v->served, preds, sizeof preds);
    fprintf(out, "%spredicted search (%s) on %s: %s%s\n", prefix, rel, only, preds,
            v->fails_regardless ? "  <- fails whatever file is served" : "");
    return;
  }
  nn_topology_describe_predictions(v, ind, preds, sizeof preds);
  fprintf(out, "%spredicted search (%s):\n%s\n", prefix, rel, preds);
}
