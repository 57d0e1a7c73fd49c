/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_check_config.c - `nccl-numa check-config FILE [--host-side]`: validates a mapping file
 * with the plugin's own parser and prints every problem as FILE:LINE: problem. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/check/mapwarn.h"
#include "cli/common/cliconfig.h"
#include "cli/common/jsonw.h"
#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/predict/costview.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/protonotes.h"
#include "nccl_model.h"
#include "nn_config.h"
#include "printable.h"

static void check_config_usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa check-config FILE [--host-side] [--sysfs-root DIR] [--nccl-version X.Y.Z]\n"
    "                              [--json]\n"
    "\n"
    "Validates a mapping file (format 1) exactly as the plugin reads it. Prints\n"
    "FILE:LINE: problem on stderr for each problem, or a one-line summary on stdout.\n"
    "--json prints one JSON document on stdout instead (keys: docs/user/cli.md).\n"
    "A valid file can still get warnings (FILE: warning: ..., on stderr): no gpu lines,\n"
    "or GPUs on NUMA nodes of which one gets CPUs and another none.\n"
    "\n"
    "  --host-side   accept a host-side mapping (from `discover --proxmox-vm`):\n"
    "                gpu lines need host= and may leave out bus=\n"
    "  --sysfs-root DIR  read the CPUs of nodes without a `numa` line under DIR/sys (default /)\n"
    "  --nccl-version X.Y.Z  also say, as FILE:LINE: notes on stdout, which rules'\n"
    "                channels= that release cannot take (2.31+ only lowers its count)\n"
    "                and whether it asks for chunk= at all (2.30.3+)\n"
    "  --help        this text\n"
    "\n"
    "Exit status: 0 valid, 1 invalid (an untrusted file, a problem, or an env line\n"
    "whose name a mapping may not serve), 2 usage.\n");
}

/* ", p2p ok: ..." for the summary line: what the p2p line serves, and to whom. */
static void p2p_summary(const struct nn_config *cfg, char *buf, size_t size) {
  const struct nn_p2p *l = &cfg->p2p;
  struct nn_p2p_serving all;
  char gpus[160];
  nn_config_p2p_serve_all(cfg, &all);
  nn_config_p2p_gpus_format(l->gpus, gpus, sizeof gpus);
  if (l->state == NN_P2P_OK && (!l->gpus || !l->driver[0] || l->xproc != NN_P2P_XPROC_OK))
    snprintf(buf, size, ", p2p ok untested (no %s): P2P off, NCCL_P2P_DISABLE=1",
             !l->gpus        ? "gpus="
             : !l->driver[0] ? "driver="
                             : "xproc=ok");
  else if (l->state == NN_P2P_OK) {
    if (snprintf(buf, size, ", p2p ok: NCCL_P2P_LEVEL=%s to a process on GPUs %s under driver %s%s",
                 nn_config_p2p_level_name(l->level), gpus, l->driver,
                 all.untested ? ", P2P off to any other" : "") >= (int)size)
      buf[size - 1] = '\0';
  } else if (l->state)
    snprintf(buf, size, ", p2p %s%s", nn_config_p2p_state_name(l->state),
             l->state == NN_P2P_BROKEN ? ": NCCL_P2P_DISABLE=1 NCCL_WIN_ENABLE=0" : "");
}

static void print_summary(const char *path, const struct nn_config *cfg, const char *sysfs_root) {
  struct nn_mapwarn w;
  nn_mapwarn_check(cfg, path, sysfs_root, &w);
  for (int i = 0; i < w.n; i++) fprintf(stderr, "%s\n", w.msg[i]);
  char warned[32] = "";
  if (w.n) snprintf(warned, sizeof warned, ", %d warning%s", w.n, w.n == 1 ? "" : "s");
  char p2p[256] = "";
  p2p_summary(cfg, p2p, sizeof p2p);
  char nics[32] = "";
  if (cfg->n_nics)
    snprintf(nics, sizeof nics, ", %d NIC%s", cfg->n_nics, cfg->n_nics == 1 ? "" : "s");
  printf("%s: ok (%d GPU%s on %d NUMA node%s%s, %d rule%s, %d env%s%s)%s\n", path, cfg->n_gpus,
         cfg->n_gpus == 1 ? "" : "s", nn_config_numa_count(cfg),
         nn_config_numa_count(cfg) == 1 ? "" : "s", nics, cfg->n_rules,
         cfg->n_rules == 1 ? "" : "s", cfg->n_envs, p2p, warned,
         cfg->host_side ? " [host-side mapping]" : "");
}

/* Refused `env` lines are errors here, though the plugin applies the rest of the file. */
static void print_refused(const char *path, const struct nn_config *cfg) {
  int n = cfg->refused.n + cfg->refused.dropped;
  if (cfg->refused.dropped)
    fprintf(stderr, "%s: ... and %d more refused env line%s not shown\n", path,
            cfg->refused.dropped, cfg->refused.dropped == 1 ? "" : "s");
  fprintf(
    stderr,
    "%s: invalid (%d env line%s refused; the plugin would apply the rest: %d GPU%s, %d rule%s, "
    "%d env)\n",
    path, n, n == 1 ? "" : "s", cfg->n_gpus, cfg->n_gpus == 1 ? "" : "s", cfg->n_rules,
    cfg->n_rules == 1 ? "" : "s", cfg->n_envs);
}

static void print_problems(const char *path, const struct nn_diag *d) {
  for (int i = 0; i < d->n; i++) fprintf(stderr, "%s\n", d->msgs[i]);
  if (d->dropped)
    fprintf(stderr, "%s: ... and %d more problem%s not shown\n", path, d->dropped,
            d->dropped == 1 ? "" : "s");
  fprintf(stderr, "%s: invalid (%d problem%s)\n", path, d->n + d->dropped,
          d->n + d->dropped == 1 ? "" : "s");
}

/* NCCL's channel count for the mapping's GPUs on one node under `ver`, as explain models it
 * (this machine's view of the links where the mapping gives none); 0 when not modelled. */
static int modelled_channels(const struct nn_config *cfg, const struct nn_ncclver *ver) {
  struct nn_cpu_kind cpu;
  struct nn_topo_verdict v;
  struct nn_cost_model m;
  char err[512];
  if (cfg->n_gpus < 2 || nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) return 0;
  nn_ncclver_verdict(cfg, &cpu, ver, NULL, NULL, 0, &v);
  return nn_costview_model(&v, &cpu, cfg, cfg->n_gpus, 1, &m, err, sizeof err) == 0
           ? m.comm_nchannels
           : 0;
}

/* chunk= before tuner v6: NCCL never asks. */
static void print_chunk_notes(const struct nn_config *cfg, const struct nn_nccl_release *r,
                              const char *name) {
  char since[16];
  nn_nccl_release_since_text(offsetof(struct nn_nccl_release, tuner_chunk_size), since,
                             sizeof since);
  for (int i = 0; !r->tuner_chunk_size && i < cfg->n_rules; i++)
    if (cfg->rules[i].chunk)
      printf("%s:%d: note: chunk= has no effect on NCCL %s: it asks no tuner for chunk sizes "
             "(getChunkSize, "
             "tuner v6, NCCL %s+)\n",
             cfg->rules[i].file ? cfg->rules[i].file : "?", cfg->rules[i].line, name, since);
}

/* On a release that only lowers NCCL's count, every channels= rule gets a note: `no effect`
 * where the modelled count for the mapping's own shape is not above it. */
static void print_channel_notes(const struct nn_config *cfg, const struct nn_ncclver *ver) {
  const struct nn_nccl_release *r = nn_nccl_release_find(ver->code, NULL);
  char name[16];
  nn_nccl_version_format(ver->code, name, sizeof name);
  print_chunk_notes(cfg, r, name);
  if (!r->tuner_channels_lower_only) return;
  int comm = modelled_channels(cfg, ver);
  uint64_t gpus = (uint64_t)cfg->n_gpus;
  for (int i = 0; i < cfg->n_rules; i++) {
    const struct nn_rule *rl = &cfg->rules[i];
    if (!rl->channels) continue;
    int own_shape =
      gpus >= rl->ranks_lo && gpus <= rl->ranks_hi && rl->nodes_lo <= 1 && rl->nodes_hi >= 1;
    if (own_shape && nn_nccl_channels_no_effect(r, rl->channels, comm))
      printf("%s:%d: note: channels=%d has no effect on NCCL %s: it takes a tuner's count only "
             "below its own "
             "(%d for this mapping's %d GPUs on one node)\n",
             rl->file ? rl->file : "?", rl->line, rl->channels, name, comm, cfg->n_gpus);
    else
      printf("%s:%d: note: channels=%d can only lower NCCL %s's channel count for a call, never "
             "raise it\n",
             rl->file ? rl->file : "?", rl->line, rl->channels, name);
  }
}

#define NN_CHECK_CONFIG_JSON_VERSION 1

static void json_messages(struct nn_jsonw *w, const char *key, const struct nn_diag *d) {
  nn_jsonw_array(w, key);
  for (int i = 0; d && i < d->n; i++) nn_jsonw_str(w, NULL, d->msgs[i]);
  nn_jsonw_end(w);
}

/* check-config --json: the verdict, what the file holds, every problem and warning (keys:
 * docs/user/cli.md). cfg is NULL when the file did not parse. Returns the exit code. */
static int print_json(const char *path, const struct nn_config *cfg, const struct nn_diag *problems,
                      const char *sysfs_root) {
  struct nn_jsonw w;
  struct nn_mapwarn warn = {0};
  int valid = cfg && !cfg->refused.n && !cfg->refused.dropped;
  if (valid) nn_mapwarn_check(cfg, path, sysfs_root, &warn);
  nn_jsonw_begin(&w, stdout);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_CHECK_CONFIG_JSON_VERSION);
  nn_jsonw_str(&w, "command", "check-config");
  nn_jsonw_str(&w, "file", path);
  nn_jsonw_bool(&w, "valid", valid);
  json_messages(&w, "problems", cfg ? NULL : problems);
  json_messages(&w, "refused", cfg ? &cfg->refused : NULL);
  nn_jsonw_int(&w, "problems_not_shown", cfg ? cfg->refused.dropped : problems->dropped);
  nn_jsonw_int(&w, "gpus", cfg ? cfg->n_gpus : 0);
  nn_jsonw_int(&w, "numa_nodes", cfg ? nn_config_numa_count(cfg) : 0);
  nn_jsonw_int(&w, "nics", cfg ? cfg->n_nics : 0);
  nn_jsonw_int(&w, "rules", cfg ? cfg->n_rules : 0);
  nn_jsonw_int(&w, "env", cfg ? cfg->n_envs : 0);
  nn_jsonw_bool(&w, "host_side", cfg && cfg->host_side);
  nn_jsonw_array(&w, "warnings");
  for (int i = 0; i < warn.n; i++) nn_jsonw_str(&w, NULL, warn.msg[i]);
  nn_jsonw_end(&w);
  nn_jsonw_finish(&w);
  return valid ? NN_EXIT_OK : NN_EXIT_INVALID;
}

int nn_cmd_check_config(int argc, char **argv) {
  const char *path = NULL, *sysfs_root = NULL, *version = NULL;
  int json = 0;
  struct nn_parse_opts opts = {0};
  static const struct option longs[] = {{"host-side", no_argument, 0, 'H'},
                                        {"sysfs-root", required_argument, 0, 's'},
                                        {"nccl-version", required_argument, 0, 'V'},
                                        {"json", no_argument, 0, 'J'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  int c;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'h':
      check_config_usage(stdout);
      return NN_EXIT_OK;
    case 'H':
      opts.flags |= NN_PARSE_HOST_SIDE;
      break;
    case 's':
      sysfs_root = optarg;
      break;
    case 'V':
      version = optarg;
      break;
    case 'J':
      json = 1;
      break;
    default:
      nn_options_error("check-config", c, argc, argv);
      check_config_usage(stderr);
      return NN_EXIT_USAGE;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "nccl-numa check-config: one FILE only ('%s' and '%s' given)\n", argv[optind],
            argv[optind + 1]);
    return NN_EXIT_USAGE;
  }
  if (optind < argc) path = argv[optind];
  if (!path) {
    fprintf(stderr, "nccl-numa check-config: missing FILE\n");
    check_config_usage(stderr);
    return NN_EXIT_USAGE;
  }
  struct nn_ncclver ver = {0};
  char verr[512];
  if (version && nn_ncclver_resolve(version, NULL, &ver, verr, sizeof verr)) {
    fprintf(stderr, "nccl-numa check-config: %s\n", verr);
    return NN_EXIT_USAGE;
  }
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  int rc = NN_EXIT_OK;
  int loaded = nn_config_load(path, &opts, &cfg, &diag) == 0;
  /* the name as the terminal gets it: a path may hold any byte (the messages of the
   * parser escape it the same way) */
  char shown[PATH_MAX * 4 + 1];
  nn_printable(shown, sizeof shown, path, NN_PRINTABLE_CSTR, NULL);
  if (json) {
    rc = print_json(path, loaded ? cfg : NULL, &diag, sysfs_root);
  } else if (loaded) {
    nn_cli_print_notes(cfg);
    if (cfg->refused.n || cfg->refused.dropped) {
      print_refused(shown, cfg);
      rc = NN_EXIT_INVALID;
    } else {
      print_summary(shown, cfg, sysfs_root);
    }
    if (version) print_channel_notes(cfg, &ver);
    if (version)
      nn_protonotes_print(stdout, "", "note: ", cfg, nn_nccl_release_find(ver.code, NULL),
                          cfg->n_gpus ? cfg->gpus[0].sm : 0);
  } else {
    print_problems(shown, &diag);
    rc = NN_EXIT_INVALID;
  }
  nn_config_free(cfg);
  nn_diag_clear(&diag);
  return rc;
}
