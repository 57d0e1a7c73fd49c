/* SPDX-License-Identifier: BSD-3-Clause */
/* allreduce.c - the engines' PCIe all-reduce and whether a job may use it; see allreduce.h. */
#include "cli/predict/allreduce.h"

#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/bindfor.h"
#include "cli/predict/pyenv.h"
#include "fileread.h"
#include "visible.h"

#define NN_AR_SOURCE_CAP (8u << 20) /* a source file read for a name: far above any real one */

/* Per engine: its dist-info name, its variable, and the files of its package that read it. */
struct engine_facts {
  const char *name, *dist, *var;
  const char *sources[3];
};

static const struct engine_facts engines[] = {
  [NN_BIND_SGLANG] = {"SGLang",
                      "sglang",
                      "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE",
                      {"sglang/srt/environ.py", "sglang/srt/distributed/parallel_state.py", NULL}},
  [NN_BIND_VLLM] = {"vLLM",
                    "vllm",
                    "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC",
                    {"vllm/envs.py", "vllm/distributed/device_communicators/cuda_communicator.py",
                     NULL}},
};

static const struct engine_facts *facts_of(int engine) {
  return engine == NN_BIND_SGLANG || engine == NN_BIND_VLLM ? &engines[engine] : NULL;
}

const char *nn_allreduce_variable(int engine) {
  const struct engine_facts *f = facts_of(engine);
  return f ? f->var : NULL;
}

const char *nn_allreduce_engine_name(int engine) {
  const struct engine_facts *f = facts_of(engine);
  return f ? f->name : "?";
}

/* Whether the file at path (read, never run) contains `text`. */
static int file_mentions(const char *path, const char *text) {
  char *buf = NULL, err[PATH_MAX + 64];
  size_t len;
  if (nn_file_read(AT_FDCWD, path, 0, NN_AR_SOURCE_CAP, &buf, &len, err, sizeof err)) return 0;
  int found = memmem(buf, len, text, strlen(text)) != NULL;
  free(buf);
  return found;
}

/* The first site (one a line, sys.path order) holding dist's dist-info: its version and path. */
static int first_site(const char *sites, const char *dist, char *site, size_t ssz, char *version,
                      size_t vsz) {
  char metadata[PATH_MAX];
  for (const char *p = sites; *p;) {
    size_t len = strcspn(p, "\n");
    snprintf(site, ssz, "%.*s", (int)len, p);
    if (nn_pyenv_dist_version(site, dist, version, vsz, metadata, sizeof metadata)) return 1;
    p += len + (p[len] == '\n');
  }
  site[0] = version[0] = 0;
  return 0;
}

static void find_engine_source(const struct engine_facts *f, const char *site, char *out,
                               size_t size) {
  out[0] = 0;
  for (int i = 0; f->sources[i] && !out[0]; i++) {
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", site, f->sources[i]) < sizeof path &&
        file_mentions(path, f->var))
      snprintf(out, size, "%.*s", (int)(size - 1), path);
  }
}

/* FlashInfer's module defining the workspace class: any of flashinfer/comm/ *.py. */
static void find_flashinfer_source(const char *site, char *out, size_t size) {
  char pattern[PATH_MAX + 64];
  glob_t g;
  out[0] = 0;
  snprintf(pattern, sizeof pattern, "%s/flashinfer/comm/*.py", site);
  if (glob(pattern, 0, NULL, &g)) return;
  for (size_t i = 0; i < g.gl_pathc && !out[0]; i++)
    if (file_mentions(g.gl_pathv[i], "class PcieIpcAllReduceWorkspace"))
      snprintf(out, size, "%s", g.gl_pathv[i]);
  globfree(&g);
}

int nn_allreduce_scan(int engine, const char *python, struct nn_allreduce_install *out, char *why,
                      size_t whysz) {
  const struct engine_facts *f = facts_of(engine);
  char sites[16384], site[PATH_MAX];
  memset(out, 0, sizeof *out);
  snprintf(out->env, sizeof out->env, "the Python environment of %s", python ? python : "(none)");
  if (!f || !python) {
    snprintf(why, whysz, "%s",
             f ? "no Python environment to read (NCCL_NUMA_PYTHON is empty)" : "no engine");
    return -1;
  }
  if (nn_pyenv_site_dirs(python, sites, sizeof sites, why, whysz)) return -1;
  if (first_site(sites, f->dist, site, sizeof site, out->engine_version,
                 sizeof out->engine_version))
    find_engine_source(f, site, out->engine_source, sizeof out->engine_source);
  if (first_site(sites, "flashinfer_python", site, sizeof site, out->fi_version,
                 sizeof out->fi_version))
    find_flashinfer_source(site, out->fi_source, sizeof out->fi_source);
  return 0;
}

/* The p2p line's part: ok, cross-process test passed, tested on these GPUs and this driver. */
static int p2p_allows(const struct nn_config *cfg, const int *gpus, int n, char *why,
                      size_t whysz) {
  const struct nn_p2p *p = &cfg->p2p;
  if (!p->state) {
    snprintf(why, whysz,
             "the mapping has no p2p line: peer access between the GPUs was never tested "
             "(nccl-numa p2p)");
    return 0;
  }
  if (p->state != NN_P2P_OK) {
    snprintf(why, whysz, "the mapping's p2p line (line %d) is `%s`", p->line,
             nn_config_p2p_state_name(p->state));
    return 0;
  }
  if (p->xproc != NN_P2P_XPROC_OK) {
    snprintf(why, whysz,
             "the mapping's p2p line (line %d) records no passed cross-process test (xproc=ok), "
             "and the engine's all-reduce maps GPU memory between processes",
             p->line);
    return 0;
  }
  char tested[256], job[256] = "";
  nn_config_p2p_gpus_format(p->gpus, tested, sizeof tested);
  for (int i = 0; i < n; i++) {
    size_t len = strlen(job);
    snprintf(job + len, sizeof job - len, "%s%d", i ? "," : "", gpus[i]);
  }
  if (n <= 0 || !nn_config_p2p_covers(cfg, gpus, n)) {
    snprintf(why, whysz,
             "the mapping's p2p line (line %d) tested GPUs %s, not all of the job's (%s)", p->line,
             tested[0] ? tested : "(none named: no gpus=)",
             n > 0 ? job : "not matched to the mapping");
    return 0;
  }
  struct nn_p2p_serving s;
  char driver[NN_P2P_DRIVER_CHARS] = "";
  nn_visible_driver_version(nn_visible_driver_root(), driver, sizeof driver);
  nn_config_p2p_serve(cfg, gpus, n, driver, &s);
  if (s.state != NN_P2P_OK) {
    snprintf(why, whysz, "the mapping's p2p line (line %d) is not served to this job: %s", p->line,
             s.why);
    return 0;
  }
  snprintf(why, whysz, "p2p ok with the cross-process test passed (mapping line %d) covers GPUs %s",
           p->line, job);
  return 1;
}

int nn_allreduce_decide(const struct nn_config *cfg, const int *mapping_gpus, int n, int tp,
                        int engine, const struct nn_allreduce_install *in, char *why,
                        size_t whysz) {
  const struct engine_facts *f = facts_of(engine);
  char p2p[1024];
  if (!f || !cfg) {
    snprintf(why, whysz, "no engine or no mapping");
    return 0;
  }
  if (!p2p_allows(cfg, mapping_gpus, n, p2p, sizeof p2p)) {
    snprintf(why, whysz, "%s", p2p);
    return 0;
  }
  if (tp != 2 && tp != 4 && tp != 8) {
    snprintf(why, whysz, "TP=%d: FlashInfer's PCIe all-reduce takes 2, 4 or 8 GPUs", tp);
    return 0;
  }
  if (!in->engine_version[0]) snprintf(why, whysz, "%s is not installed in %s", f->name, in->env);
  else if (!in->engine_source[0])
    snprintf(why, whysz, "%s %s in %s does not read %s (none of its files names it)", f->name,
             in->engine_version, in->env, f->var);
  else if (!in->fi_version[0]) snprintf(why, whysz, "FlashInfer is not installed in %s", in->env);
  else if (!in->fi_source[0])
    snprintf(
      why, whysz,
      "FlashInfer %s in %s lacks the PCIe all-reduce kernels (no PcieIpcAllReduceWorkspace in "
      "flashinfer/comm)",
      in->fi_version, in->env);
  else {
    snprintf(why, whysz, "%s, TP=%d, %s %s reads it (%s) and FlashInfer %s has the kernels (%s)",
             p2p, tp, f->name, in->engine_version, in->engine_source, in->fi_version,
             in->fi_source);
    return 1;
  }
  return 0;
}

int nn_allreduce_for_job(const struct nn_config *cfg, const struct nn_visible *vis, int tp,
                         int engine, struct nn_allreduce_install *in, char *why, size_t whysz) {
  int pos[NN_VISIBLE_MAX], gpus[NN_VISIBLE_MAX];
  char buf[PATH_MAX], scan_why[PATH_MAX + 64];
  int n = nn_visible_order(cfg, vis, pos, NN_VISIBLE_MAX);
  for (int i = 0; i < n; i++) gpus[i] = cfg->gpus[pos[i]].index;
  if (nn_allreduce_scan(engine, nn_pyenv_python(buf, sizeof buf), in, scan_why, sizeof scan_why)) {
    int ok = nn_allreduce_decide(cfg, gpus, n, tp > 0 ? tp : n, engine, in, why, whysz);
    if (!ok && strstr(why, "not installed"))
      snprintf(why, whysz, "%s", scan_why); /* no environment at all */
    return ok;
  }
  return nn_allreduce_decide(cfg, gpus, n, tp > 0 ? tp : n, engine, in, why, whysz);
}

/* How one installed engine stands, for the summary: "" when it is not installed. */
static void engine_words(const struct nn_config *cfg, const int *gpus, int n, int engine,
                         const char *python, char *buf, size_t size) {
  struct nn_allreduce_install in;
  char why[PATH_MAX * 4], scan_why[PATH_MAX + 64];
  buf[0] = 0;
  if (nn_allreduce_scan(engine, python, &in, scan_why, sizeof scan_why) || !in.engine_version[0])
    return;
  int on = nn_allreduce_decide(cfg, gpus, n, n, engine, &in, why, sizeof why);
  snprintf(buf, size,
           "%s %s here %s its PCIe all-reduce under `nccl-numa\x01"
           "exec\x01--bind-for\x01%s`%s",
           nn_allreduce_engine_name(engine), in.engine_version, on ? "would get" : "would not get",
           engine == NN_BIND_SGLANG ? "sglang" : "vllm", on ? "" : " (exec says why)");
}

int nn_allreduce_words(const struct nn_config *cfg, char *buf, size_t size) {
  int gpus[NN_MAX_GPUS], n = cfg->n_gpus < NN_MAX_GPUS ? cfg->n_gpus : NN_MAX_GPUS;
  char py[PATH_MAX], sg[512], vl[512];
  buf[0] = 0;
  if (n < 2) return 0;
  for (int i = 0; i < n; i++) gpus[i] = cfg->gpus[i].index;
  struct nn_p2p_serving s;
  nn_config_p2p_serve(cfg, gpus, n, NULL, &s); /* the driver not checked, as p2pview.h */
  int p2p = s.state == NN_P2P_OK;
  const char *python = nn_pyenv_python(py, sizeof py);
  engine_words(cfg, gpus, n, NN_BIND_SGLANG, python, sg, sizeof sg);
  engine_words(cfg, gpus, n, NN_BIND_VLLM, python, vl, sizeof vl);
  snprintf(buf, size,
           "at decode sizes (TP=%d) SGLang's and vLLM's all-reduces go to %s%s%s%s%s. Measure "
           "A against B with the engine's own latency benchmark, same seed: docs/user/sglang.md",
           n,
           n == 2 && p2p ? "their own custom all-reduce over GPU peer access (to NCCL with "
                           "--disable-custom-all-reduce)"
           : p2p
             ? "NCCL over GPU peer access (their own custom all-reduce is off above two PCIe GPUs)"
             : "NCCL over host memory (no peer access verified for these GPUs)",
           sg[0] || vl[0] ? "; " : "", sg, sg[0] && vl[0] ? "; " : "", vl);
  return 1;
}
