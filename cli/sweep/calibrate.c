/* SPDX-License-Identifier: BSD-3-Clause */
/* calibrate.c - forced algorithm/protocol sweeps (the rules they justify: calibrate_rules.c). */
#include "cli/sweep/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/sweep/abrun.h"
#include "cli/common/cliconfig.h"
#include "cli/common/locate.h"
#include "cli/sweep/nccltuning.h"
#include "nccl_model.h"
#include "errbuf.h"
#include "fileread.h"
#include "nn_config.h"
#include "topology.h"

#define FIXED_ALGOS "ring,tree" /* candidates when NCCL's table cannot be read */
#define FIXED_PROTOS "ll,ll128,simple"
#define PROBE_MAX_BYTES (16 << 20)

#define MAX_CHUNKS 8

/* ---------- the sweep ---------- */

static int split_names(char *list, const char *what, int (*lookup)(const char *), char **out,
                       int max, char *err, size_t errsz) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (lookup(t) < 0 || n >= max) {
      nn_errbuf_set(err, errsz, "unknown %s '%s'", what, t);
      return -1;
    }
    out[n++] = t;
  }
  return n;
}

static int add_arm(struct nn_rundir *rd, const char *algo, const char *proto, const char *config) {
  if (rd->n_arms >= NN_MAX_ARMS) return -1;
  struct nn_arm *a = &rd->arms[rd->n_arms++];
  memset(a, 0, sizeof *a);
  snprintf(a->algo, sizeof a->algo, "%s", algo);
  snprintf(a->proto, sizeof a->proto, "%s", proto);
  snprintf(a->name, sizeof a->name, "%s.%s", algo, proto);
  a->kind = NN_ARM_FORCED;
  return config && !(a->config = strdup(config)) ? -1 : 0;
}

/* Appends the arms' names to buf ("ring.ll ring.simple ..."). */
static void arm_list(const struct nn_rundir *rd, char *buf, size_t size) {
  size_t used = strlen(buf);
  for (int i = 0; i < rd->n_arms && used < size; i++) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? " " : "", rd->arms[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* Whether calibrate may force proto: never one the release keeps off between PCIe-only GPUs
 * (nccl_model.c's table); with the release unknown (0), only a protocol every release
 * enables there. */
static int proto_may_force(int nccl_code, int proto) {
  if (!nccl_code) return proto == NN_PROTO_LL || proto == NN_PROTO_SIMPLE;
  return nn_nccl_proto_enabled_pcie(nn_nccl_release_find(nccl_code, NULL), proto, 0);
}

/* The usage error for --protos naming a protocol calibrate does not force on release code. */
static void refuse_proto(int code, int proto, char *err, size_t errsz) {
  if (!code)
    nn_errbuf_set(
      err, errsz,
      "--protos %s: NCCL's release is unknown (the probe run did not tell it), so is "
      "whether it keeps %s off between PCIe-only GPUs; calibrate does not force it (give "
      "--nccl-version X.Y.Z)",
      nn_proto_name(proto), nn_proto_name(proto));
  else {
    char v[16];
    nn_nccl_version_format(code, v, sizeof v);
    nn_errbuf_set(err, errsz,
                  "--protos %s: NCCL %s keeps %s off between PCIe-only GPUs (its own rule), "
                  "so calibrate does not force it",
                  nn_proto_name(proto), v, nn_proto_name(proto));
  }
}

/* --protos given without --nccl-version: the release a probe run reports decides whether a
 * protocol that some release keeps off between PCIe-only GPUs (LL128) may be forced. Returns 0,
 * -1 with err set when it is not forced, -2 when the probe could not run. */
static int given_protos_checked(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config,
                                char *err, size_t errsz) {
  char out[PATH_MAX];
  for (int i = 0; i < rd->n_arms; i++) {
    int p = nn_proto_from_name(rd->arms[i].proto);
    if (p < 0 || proto_may_force(o->nccl_code, p)) continue;
    if (!o->nccl_code && !o->probed &&
        nn_ab_probe(rd, o, config, 0, out, sizeof out, err, errsz) < 0)
      return -2;
    if (!proto_may_force(o->nccl_code, p)) {
      refuse_proto(o->nccl_code, p, err, errsz);
      return -1;
    }
  }
  return 0;
}

/* The fixed candidates (less the protocols the release keeps off), or those --algos/--protos
 * give (refused when the release is known to keep one off). */
static int cal_arms(struct nn_rundir *rd, struct nn_cal_cli *c, const char *config, int nccl_code,
                    char *err, size_t errsz) {
  char dalgos[] = FIXED_ALGOS, dprotos[] = FIXED_PROTOS;
  char *algos[NN_ALGO_COUNT], *protos[NN_PROTO_COUNT];
  int na = split_names(c->algos ? c->algos : dalgos, "algorithm", nn_algo_from_name, algos,
                       NN_ALGO_COUNT, err, errsz);
  int np = na <= 0 ? -1
                   : split_names(c->protos ? c->protos : dprotos, "protocol", nn_proto_from_name,
                                 protos, NN_PROTO_COUNT, err, errsz);
  if (na <= 0 || np <= 0) return -1;
  for (int k = 0; k < np; k++) {
    int p = nn_proto_from_name(protos[k]);
    if (proto_may_force(nccl_code, p) || (c->protos && !nccl_code)) continue;
    if (c->protos) {
      refuse_proto(nccl_code, p, err, errsz);
      return -1;
    }
    memmove(&protos[k], &protos[k + 1],
            (size_t)(np - k - 1) * sizeof protos[0]); /* the fixed set: left out */
    np--;
    k--;
  }
  for (int i = 0; i < na; i++)
    for (int k = 0; k < np; k++)
      if (add_arm(rd, algos[i], protos[k], config)) {
        nn_errbuf_set(err, errsz, "more than %d candidates, or out of memory", NN_MAX_ARMS);
        return -1;
      }
  return 0;
}

/* Whether NCCL runs algo x proto for one of the swept collectives it tunes: enabled in
 * its table, and for the release between PCIe-only GPUs (2.31.2 logs LL128 it turns off). */
static int tuning_enables(const struct nn_nccltuning *t, const struct nn_ab_opts *o, int algo,
                          int proto) {
  if (!nn_nccltuning_proto_runs_pcie(o->nccl_code, proto)) return 0;
  for (int c = 0; c < o->n_colls; c++) {
    int coll = nn_coll_from_name(o->colls[c]);
    float lat, bw;
    if (coll >= 0 && nn_nccltuning_cell(t, coll, algo, proto, &lat, &bw) == 1) return 1;
  }
  return 0;
}

/* Arms from the table: ring and tree first (today's order), then the rest in
 * NCCL's order; why gets the fixed combinations NCCL left out. */
static int tuning_arms(struct nn_rundir *rd, const struct nn_nccltuning *t,
                       const struct nn_ab_opts *o, const char *config, char *why, size_t size) {
  static const int order[] = {
    NN_ALGO_RING,      NN_ALGO_TREE, NN_ALGO_COLLNET_DIRECT, NN_ALGO_COLLNET_CHAIN, NN_ALGO_NVLS,
    NN_ALGO_NVLS_TREE, NN_ALGO_PAT};
  size_t used = strlen(why);
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    for (int p = 0; p < NN_PROTO_COUNT; p++) {
      if (tuning_enables(t, o, order[i], p)) {
        if (add_arm(rd, nn_algo_name(order[i]), nn_proto_name(p), config)) return -1;
      } else if (i < 2 && used < size) { /* one of the fixed set */
        int w =
          snprintf(why + used, size - used, " %s.%s", nn_algo_name(order[i]), nn_proto_name(p));
        if (w > 0) used += (size_t)w;
      }
    }
  return 0;
}

/* The default candidates: what NCCL enables here for the swept collectives,
 * read from the tuning table a probe run logs; the fixed set when the table
 * cannot be read. `note` gets one line for the run's meta. Returns 0, or -1
 * (fail says why when the probe could not run). */
static int cal_default_arms(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config,
                            char *note, size_t note_size, char *fail, size_t failsz) {
  char out[PATH_MAX], err[256] = "", left[128] = "", list[512] = "";
  int rc = nn_ab_probe(rd, o, config, 1, out, sizeof out, fail, failsz);
  if (rc < 0) return -1;
  size_t len = 0;
  char *buf = NULL;
  nn_file_read(AT_FDCWD, out, NN_FILE_NOFOLLOW, PROBE_MAX_BYTES, &buf, &len, err, sizeof err);
  struct nn_nccltuning t;
  int found = buf ? nn_nccltuning_parse(buf, len, &t, err, sizeof err) : NN_NCCLTUNING_NONE;
  free(buf);
  if (!err[0] && found != NN_NCCLTUNING_FOUND) snprintf(err, sizeof err, "cannot read it");
  if (found == NN_NCCLTUNING_FOUND) {
    if (tuning_arms(rd, &t, o, config, left, sizeof left)) {
      nn_errbuf_set(fail, failsz, "out of memory");
      return -1;
    }
    if (!rd->n_arms)
      snprintf(err, sizeof err,
               "NCCL's tuning table enables no algorithm x "
               "protocol for the swept collectives");
  }
  if (found == NN_NCCLTUNING_FOUND && rd->n_arms) {
    arm_list(rd, list, sizeof list);
    fprintf(o->progress,
            "nccl-numa calibrate: candidates: %s (what NCCL enables here for the "
            "swept collectives, from its tuning table in runs/probe.out%s%s)\n",
            list, left[0] ? "; NCCL disables" : "", left);
    snprintf(note, note_size, "candidates nccl-tuning-table runs/probe.out tables=%d: %s",
             t.n_tables, list);
    return 0;
  }
  rd->n_arms = 0;
  struct nn_cal_cli fixed = {0};
  if (cal_arms(rd, &fixed, config, o->nccl_code, fail, failsz)) return -1;
  arm_list(rd, list, sizeof list);
  fprintf(o->progress,
          "nccl-numa calibrate: candidates: %s (the fixed set: no usable NCCL tuning "
          "table in runs/probe.out, probe exit %d: %s)\n",
          list, rc, err);
  snprintf(note, note_size, "candidates fixed (probe exit %d, runs/probe.out: %s): %s", rc, err,
           list);
  return 0;
}

/* ---------- chunk sizes (--chunks) ---------- */

/* --chunks LIST into sizes a rule's chunk= takes; -1 with the problem in err. */
static int parse_chunks(const char *list, uint64_t *out, char *err, size_t errsz) {
  int n = nn_rundir_size_list(list, NN_MIN_CHUNK, NN_MAX_CHUNK, out, MAX_CHUNKS);
  if (n < 0 && !list[strspn(list, ",")])
    nn_errbuf_set(err, errsz, "--chunks '%s': no size given", list);
  else if (n < 0)
    nn_errbuf_set(err, errsz,
                  "--chunks '%s': expected up to %d sizes of %d B to 1G (e.g. 128K,512K,1M)", list,
                  MAX_CHUNKS, NN_MIN_CHUNK);
  return n;
}

/* RUNDIR/NAME.conf: the mapping's machine lines (no rules, no CSV rules), plus `extra`. */
static char *chunk_config(const struct nn_rundir *rd, const char *base, const char *name,
                          const char *extra, char *err, size_t errsz) {
  char path[PATH_MAX], line[4096];
  snprintf(path, sizeof path, "%s/%s.conf", rd->path, name);
  char name_conf[NN_ARM_NAME_MAX + 8];
  snprintf(name_conf, sizeof name_conf, "%s.conf", name);
  FILE *in = fopen(base, "r");
  FILE *out = in ? nn_rundir_fopen(rd->dir_fd, name_conf, NN_RUNDIR_NEW) : NULL;
  if (!in || !out) {
    nn_errbuf_set(err, errsz, "%s: %s", in ? path : base, strerror(errno));
    if (in) fclose(in);
    return NULL;
  }
  fprintf(out, "# nccl-numa calibrate: %s's machine lines, for the arm %s\n", base, name);
  while (fgets(line, sizeof line, in)) {
    const char *t = line + strspn(line, " \t");
    if (strncmp(t, "rule", 4) && strncmp(t, "include-csv", 11)) fputs(line, out);
  }
  fprintf(out, "\n%s", extra);
  fclose(in);
  if (fclose(out)) {
    nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  return strdup(path);
}

static int add_numa_arm(struct nn_rundir *rd, const char *name, char *config) {
  if (!config) return -1;
  if (rd->n_arms >= NN_MAX_ARMS) {
    free(config);
    return -1;
  }
  struct nn_arm *a = &rd->arms[rd->n_arms++];
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "%s", name);
  a->kind = NN_ARM_NUMA;
  a->config = config;
  return 0;
}

/* The chunk arms: "chunk.none" (the plugin loaded without rules: NCCL's own choice and chunk
 * size) and one "chunk.SIZE" per size, whose only rule is `rule chunk=SIZE`, so the plugin
 * serves that chunk size through getChunkSize and nothing else changes. */
static int add_chunk_arms(struct nn_rundir *rd, const char *base, const uint64_t *chunks, int n,
                          char *err, size_t errsz) {
  char name[NN_ARM_NAME_MAX], text[24], rule[64];
  if (add_numa_arm(rd, NN_CAL_CHUNK_PREFIX "none",
                   chunk_config(rd, base, NN_CAL_CHUNK_PREFIX "none", "", err, errsz)))
    return -1;
  for (int i = 0; i < n; i++) {
    nn_calibrate_bytes_text(chunks[i], text, sizeof text);
    snprintf(name, sizeof name, NN_CAL_CHUNK_PREFIX "%.24s", text);
    snprintf(rule, sizeof rule, "rule chunk=%s\n", text);
    if (add_numa_arm(rd, name, chunk_config(rd, base, name, rule, err, errsz))) return -1;
  }
  return 0;
}

/* Whether calibrate can sweep chunk sizes here: a mapping, and a release that asks tuners. */
static int chunks_usable(const struct nn_ab_opts *o, const char *config, char *err, size_t errsz) {
  if (!config) {
    nn_errbuf_set(err, errsz,
                  "--chunks needs --config: the plugin serves chunk sizes through its rules "
                  "(NCCL has no variable for them)");
    return 0;
  }
  if (o->nccl_code && !nn_nccl_release_find(o->nccl_code, NULL)->tuner_chunk_size) {
    char v[16], since[16];
    nn_nccl_version_format(o->nccl_code, v, sizeof v);
    nn_nccl_release_since_text(offsetof(struct nn_nccl_release, tuner_chunk_size), since,
                               sizeof since);
    nn_errbuf_set(err, errsz,
                  "--chunks: NCCL %s asks no tuner for chunk sizes (getChunkSize, tuner v6, "
                  "NCCL %s+)",
                  v, since);
    return 0;
  }
  return 1;
}

/* Adds a line to the run's meta (nn_rundir_read skips keys it does not know). */
static void meta_note(const struct nn_rundir *rd, const char *line) {
  FILE *f = nn_rundir_fopen(rd->dir_fd, "meta", NN_RUNDIR_APPEND);
  if (!f) return;
  fprintf(f, "%s\n", line);
  fclose(f);
}

int nn_calibrate_run(struct nn_ab_opts *o, struct nn_cal_cli *c, struct nn_rundir *rd, char *config,
                     int *gpus, char *err, size_t errsz) {
  if (!o->tests_dir && !o->bench_cmd) {
    nn_errbuf_set(err, errsz,
                  "give --nccl-tests DIR (or set NCCL_TESTS_DIR), --bench-cmd 'PATH ARGS', "
                  "or --from RUNDIR");
    return NN_CALIBRATE_USAGE;
  }
  if (config[0] && nn_locate_plugin(c->plugin, c->plugin_path, sizeof c->plugin_path, err, errsz))
    return NN_CALIBRATE_FAILED;
  o->plugin = config[0] ? c->plugin_path : NULL;
  const char *cfg = config[0] ? config : NULL;
  uint64_t chunks[MAX_CHUNKS];
  int n_chunks = 0;
  if (c->chunks && (!chunks_usable(o, cfg, err, errsz) ||
                    (n_chunks = parse_chunks(c->chunks, chunks, err, errsz)) < 0))
    return NN_CALIBRATE_USAGE;
  int from_nccl = !c->algos && !c->protos;
  char note[1024] = "candidates given";
  if (!from_nccl) {
    if (cal_arms(rd, c, cfg, o->nccl_code, err, errsz)) return NN_CALIBRATE_USAGE;
    strcat(note, ": ");
    arm_list(rd, note, sizeof note);
  }
  if (nn_launcher_finish(&o->launch, &o->gpus, *gpus, err, errsz)) return NN_CALIBRATE_USAGE;
  o->gpus = o->gpus ? o->gpus : (*gpus ? *gpus : 1);
  *gpus = o->gpus;
  rd->gpus = o->gpus;
  rd->iters = o->iters;
  rd->warmup = o->warmup;
  rd->repeats = o->repeats;
  snprintf(rd->sizes, sizeof rd->sizes, "-b %s -e %s -f %s", o->minb, o->maxb, o->factor);
  int numbered = !c->out;
  if (!c->out) {
    time_t now = time(NULL);
    struct tm tm;
    strftime(c->default_out, sizeof c->default_out, "nccl-numa-calibrate-%Y%m%d-%H%M%S",
             localtime_r(&now, &tm));
    c->out = c->default_out;
  }
  if (nn_abdir_create(rd, c->out, numbered, "calibrate", c->command, err, errsz))
    return NN_CALIBRATE_FAILED;
  int checked = from_nccl ? 0 : given_protos_checked(rd, o, cfg, err, errsz);
  if (checked) return checked == -1 ? NN_CALIBRATE_USAGE : NN_CALIBRATE_FAILED;
  if ((from_nccl && cal_default_arms(rd, o, cfg, note, sizeof note, err, errsz)) ||
      (n_chunks && add_chunk_arms(rd, cfg, chunks, n_chunks, err, errsz)) ||
      nn_ab_execute(rd, o, err, errsz) < 0) {
    size_t n = err ? strlen(err) : 0;
    if (nn_abdir_discard_empty(rd) && n < errsz)
      snprintf(err + n, errsz - n, "; nothing ran, %s removed", rd->path);
    return NN_CALIBRATE_FAILED;
  }
  meta_note(rd, note);
  /* read back what was recorded: the same path as --from */
  char *path = strdup(rd->path);
  nn_rundir_free(rd);
  int rc = path ? nn_rundir_read(path, rd, err, errsz) : -1;
  if (!path) nn_errbuf_set(err, errsz, "out of memory");
  free(path);
  return rc ? NN_CALIBRATE_FAILED : 0;
}

const char *nn_calibrate_scope(const char *config, int ranks, int nodes, int *gpus) {
  if (!config || !config[0]) return NULL;
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  const char *scope = NULL;
  if (!nn_config_load(config, NULL, &cfg, &d)) {
    if (gpus && !*gpus) *gpus = cfg->n_gpus;
    if (ranks > 0) {
      int sc = nn_topology_scope(cfg, (size_t)ranks, (size_t)nodes);
      if (sc == NN_SCOPE_INTRA || sc == NN_SCOPE_CROSS) scope = nn_scope_name(sc);
    }
  }
  nn_diag_clear(&d);
  nn_config_free(cfg);
  return scope;
}
