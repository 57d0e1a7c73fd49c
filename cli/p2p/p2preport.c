/* SPDX-License-Identifier: BSD-3-Clause */
/* p2preport.c - the children's lines read into a report, and its verdict; see p2preport.h. */
#include "cli/p2p/p2preport.h"

#include <limits.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "visible.h"

const char *const nn_p2p_step_names[NN_P2P_STEPS] = {"write",   "read",    "copy",      "xwrite",
                                                     "xread",   "xll8",    "xll16",     "ipcwrite",
                                                     "ipcread", "latency", "bandwidth", "smbw"};
const char *const nn_p2p_step_words[NN_P2P_STEPS] = {"write",
                                                     "read",
                                                     "copy",
                                                     "cross-process write",
                                                     "cross-process read",
                                                     "cross-process LL 8-byte stores",
                                                     "cross-process LL 16-byte stores",
                                                     "legacy IPC write",
                                                     "legacy IPC read",
                                                     "latency",
                                                     "bandwidth",
                                                     "SM-store bandwidth"};

/* "cross-process write" for "xwrite"; the name itself when it is no step's */
static const char *step_words(const char *name) {
  for (int i = 0; i < NN_P2P_STEPS; i++)
    if (!strcmp(name, nn_p2p_step_names[i])) return nn_p2p_step_words[i];
  if (!strcmp(name, "xsetup")) return "cross-process setup (GPU b's process)";
  if (!strcmp(name, "xmap")) return "cross-process mapping (cuMem import)";
  if (!strcmp(name, "ipcmap")) return "legacy IPC mapping (cuIpcOpenMemHandle)";
  return name;
}

const char *nn_p2preport_nvml_name(int status) {
  static const char *const names[] = {"OK", "CNS", "GNS", "TNS", "DR", "NS", "U"};
  return status >= 0 && status < 7 ? names[status] : "?";
}

static int timed_out(const struct nn_sup_result *run) { return run->end == NN_SUP_TIMED_OUT; }

/* "signal 11" or "exit 3": how a child that was not timed out ended. */
static const char *ended(const struct nn_sup_result *run, char *buf, size_t size) {
  int sig = run->end == NN_SUP_SIGNALED || run->end == NN_SUP_STOPPED;
  snprintf(buf, size, "%s %d", sig ? "signal" : "exit", sig ? run->signal : run->exit_code);
  return buf;
}

/* The next line of *text (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **text) {
  if (!*text || !**text) return NULL;
  char *line = *text, *nl = strchr(line, '\n');
  if (nl) {
    *nl = '\0';
    *text = nl + 1;
  } else *text = line + strlen(line);
  return line;
}

/* The n integers that start s, separated by blanks, into out; *end after them. 0 or -1. */
static int ints(const char *s, int *out, int n, const char **end) {
  for (int i = 0; i < n; i++)
    if (nn_int_parse_prefix(s, INT_MIN + 1, INT_MAX, &out[i], &s)) return -1;
  if (end) *end = s;
  return 0;
}

/* "ORDINAL BUS NAME" */
static void add_gpu(struct nn_p2p_report *r, const char *rest) {
  struct nn_p2p_gpu *g = &r->gpus[r->n_gpus];
  const char *bus, *name;
  if (r->n_gpus >= NN_P2P_MAX_GPUS || ints(rest, &g->ordinal, 1, &bus) || *bus++ != ' ') return;
  if (!(name = strchr(bus, ' ')) || (size_t)(name - bus) >= sizeof g->bus) return;
  snprintf(g->bus, sizeof g->bus, "%.*s", (int)(name - bus), bus);
  snprintf(g->name, sizeof g->name, "%s", name + 1);
  g->numa = -1;
  g->index = -1;
  r->n_gpus++;
}

/* "A B READ WRITE" */
static void add_nvml(struct nn_p2p_report *r, const char *rest) {
  int v[4];
  if (ints(rest, v, 4, NULL) || v[0] < 0 || v[1] < 0 || v[0] >= NN_P2P_MAX_GPUS ||
      v[1] >= NN_P2P_MAX_GPUS)
    return;
  r->nvml[v[0]][v[1]][0] = v[2];
  r->nvml[v[0]][v[1]][1] = v[3];
}

int nn_p2preport_probe(struct nn_p2p_report *r, const struct nn_sup_result *run, double timeout_s,
                       char *why, size_t why_size) {
  for (int a = 0; a < NN_P2P_MAX_GPUS; a++)
    for (int b = 0; b < NN_P2P_MAX_GPUS; b++) r->nvml[a][b][0] = r->nvml[a][b][1] = -1;
  char *copy = strdup(run->text ? run->text : ""), *cur = copy, *line;
  int finished = 0;
  why[0] = '\0';
  while (copy && (line = next_line(&cur))) {
    if (!strncmp(line, "missing ", 8)) snprintf(why, why_size, "%s", line + 8);
    else if (!strncmp(line, "cuda ", 5)) nn_int_parse(line + 5, 0, INT_MAX, &r->cuda_version);
    else if (!strncmp(line, "gpu ", 4)) add_gpu(r, line + 4);
    else if (!strncmp(line, "nvml-driver ", 12))
      snprintf(r->nvml_driver, sizeof r->nvml_driver, "%s", line + 12);
    else if (!strncmp(line, "nvml-off ", 9))
      snprintf(r->nvml_off, sizeof r->nvml_off, "%s", line + 9);
    else if (!strncmp(line, "nvml ", 5)) add_nvml(r, line + 5);
    else if (!strcmp(line, "end")) finished = 1;
  }
  free(copy);
  /* the driver as the plugin will read it; NVML's version where /proc has none */
  size_t nv = strlen(r->nvml_driver);
  if (nn_visible_driver_version(nn_visible_driver_root(), r->driver, sizeof r->driver) && nv &&
      nv < sizeof r->driver && strspn(r->nvml_driver, "0123456789.") == nv)
    memcpy(r->driver, r->nvml_driver, nv + 1);
  if (why[0]) return -1;
  char how[32];
  if (timed_out(run))
    snprintf(why, why_size, "the CUDA driver did not answer within %.0f s (listing the GPUs)",
             timeout_s);
  else if (!finished)
    snprintf(why, why_size, "the CUDA driver's probe died (%s) before listing the GPUs",
             ended(run, how, sizeof how));
  return why[0] ? -1 : 0;
}

static int same_bus(const char *cuda_bus, const struct nn_gpu *g) {
  struct nn_busid b;
  return g->has_bus && nn_busid_parse(cuda_bus, &b) == 0 && b.domain == g->bus.domain &&
         b.bus == g->bus.bus && b.dev == g->bus.dev && b.func == g->bus.func;
}

int nn_p2preport_numa(struct nn_p2p_report *r, const struct nn_config *cfg) {
  int lacking = 0;
  for (int i = 0; i < r->n_gpus && cfg; i++) {
    for (int k = 0; k < cfg->n_gpus; k++)
      if (same_bus(r->gpus[i].bus, &cfg->gpus[k])) {
        r->gpus[i].numa = cfg->gpus[k].numa;
        r->gpus[i].index = cfg->gpus[k].index;
      }
    lacking += r->gpus[i].numa < 0;
  }
  return lacking;
}

static int step_index(const char *name) {
  for (int i = 0; i < NN_P2P_STEPS; i++)
    if (!strcmp(name, nn_p2p_step_names[i])) return i;
  return -1;
}

__attribute__((format(printf, 2, 3))) static void add_reason(struct nn_p2p_pair *p, const char *fmt,
                                                             ...) {
  size_t used = strlen(p->reason);
  if (used + 3 >= sizeof p->reason) return;
  if (used) {
    strcat(p->reason, "; ");
    used += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->reason + used, sizeof p->reason - used, fmt, ap);
  va_end(ap);
}

/* "step NAME ok|fail WHY" */
static void read_step(struct nn_p2p_pair *p, char *rest) {
  char *sp = strchr(rest, ' ');
  if (!sp) return;
  *sp = '\0';
  int i = step_index(rest);
  if (i < 0) return;
  if (!strcmp(sp + 1, "ok")) p->step[i] = NN_P2P_PASSED;
  else if (!strncmp(sp + 1, "fail ", 5)) {
    p->step[i] = NN_P2P_FAILED;
    add_reason(p, "%s: %s", nn_p2p_step_words[i], sp + 6);
  }
}

int nn_p2preport_path(const struct nn_p2p_report *r, int a, int b) {
  if (!r->mapping) return NN_P2P_LEVEL_PHB;
  int na = r->gpus[a].numa, nb = r->gpus[b].numa;
  return na >= 0 && na == nb ? NN_P2P_LEVEL_PHB : NN_P2P_LEVEL_SYS;
}

void nn_p2preport_pair(const struct nn_p2p_report *r, struct nn_p2p_pair *p, int a, int b,
                       const struct nn_sup_result *run, double timeout_s) {
  char *copy = strdup(run->text ? run->text : ""), *cur = copy, *line;
  char last[32] = "start", error[600] = "", done[16] = "";
  memset(p, 0, sizeof *p);
  p->a = a;
  p->b = b;
  p->path = nn_p2preport_path(r, a, b);
  p->nvml_read = r->nvml[a][b][0];
  p->nvml_write = r->nvml[a][b][1];
  p->can = -1;
  for (int i = 0; i < 4; i++) p->attr[i] = -1;
  p->latency_us = p->gbps = p->sm_gbps = -1;
  p->reason[0] = '\0';
  while (copy && (line = next_line(&cur))) {
    if (!strncmp(line, "peer ", 5)) {
      int v[5];
      if (ints(line + 5, v, 5, NULL) == 0) {
        p->can = v[0];
        memcpy(p->attr, v + 1, sizeof p->attr);
      }
    } else if (!strncmp(line, "begin ", 6)) snprintf(last, sizeof last, "%s", line + 6);
    else if (!strncmp(line, "step ", 5)) read_step(p, line + 5);
    else if (!strncmp(line, "latency ", 8)) nn_double_parse(line + 8, &p->latency_us);
    else if (!strncmp(line, "bandwidth ", 10)) nn_double_parse(line + 10, &p->gbps);
    else if (!strncmp(line, "smbandwidth ", 12)) nn_double_parse(line + 12, &p->sm_gbps);
    else if (!strncmp(line, "error ", 6)) snprintf(error, sizeof error, "%s", line + 6);
    else if (!strncmp(line, "done ", 5)) snprintf(done, sizeof done, "%s", line + 5);
  }
  free(copy);
  if (!strcmp(done, "nopeer")) {
    p->state = NN_P2P_PAIR_NOPEER;
    return;
  }
  int failed = p->reason[0] != '\0';
  if (!strcmp(done, "ok") && !failed && !timed_out(run) && !run->unkillable) {
    p->state = NN_P2P_PAIR_OK;
    return;
  }
  p->state = NN_P2P_PAIR_BROKEN;
  char how[32];
  if (timed_out(run)) {
    add_reason(p, "hung: no answer within %.0f s during '%s', killed", timeout_s, step_words(last));
  } else if (error[0]) {
    char *colon = strchr(error, ':');
    if (colon) *colon = '\0';
    add_reason(p, "driver error in %s:%s", step_words(error), colon ? colon + 1 : "");
  } else if (!failed) {
    add_reason(p, "the test process died (%s) during '%s'", ended(run, how, sizeof how),
               step_words(last));
  }
  if (run->unkillable)
    add_reason(
      p, "%d of its processes outlived SIGKILL (stuck in the driver: the GPU may need a reset)",
      run->unkillable);
}

/* "ring GPU O wrong W of M rounds R gbps G" into g; 0 or -1. */
static int ring_gpu(struct nn_p2p_ring_gpu *g, char *rest) {
  char *tok[11], *save = NULL;
  int n = 0;
  for (char *t = strtok_r(rest, " ", &save); t && n < 11; t = strtok_r(NULL, " ", &save))
    tok[n++] = t;
  uint64_t wrong, checked;
  if (n != 11 || strcmp(tok[1], "GPU") || strcmp(tok[3], "wrong") || strcmp(tok[5], "of") ||
      nn_int_parse(tok[2], 0, NN_P2P_MAX_GPUS - 1, &g->ordinal) ||
      nn_u64_parse(tok[4], 0, INT64_MAX, &wrong) || nn_u64_parse(tok[6], 0, INT64_MAX, &checked) ||
      nn_int_parse(tok[8], 0, INT_MAX, &g->rounds) || nn_double_parse(tok[10], &g->gbps))
    return -1;
  g->wrong = (long long)wrong;
  g->checked = (long long)checked;
  return 0;
}

/* Why the ring is not ok, from what its processes said; "" when it is. */
static void ring_reason(struct nn_p2p_ring *g, int first, int n, const char *error, int done,
                        const struct nn_sup_result *run, double timeout_s) {
  char *out = g->reason;
  size_t size = sizeof g->reason;
  if (out[0]) return; /* an earlier ring's */
  for (int i = first; i < g->n && !out[0]; i++)
    if (g->gpus[i].wrong)
      snprintf(
        out, size,
        "GPU %d's process found %lld of %lld LL lines (data and flag) from its ring neighbours "
        "wrong while every GPU wrote at once",
        g->gpus[i].ordinal, g->gpus[i].wrong, g->gpus[i].checked);
  if (out[0]) return;
  char how[32];
  if (timed_out(run))
    snprintf(out, size, "hung: no answer within %.0f s while every GPU wrote at once, killed",
             timeout_s);
  else if (error[0]) snprintf(out, size, "driver error while every GPU wrote at once: %s", error);
  else if (!done || g->n - first < n)
    snprintf(out, size, "%d of %d GPU processes reported while every GPU wrote at once (%s)",
             g->n - first, n, ended(run, how, sizeof how));
}

void nn_p2preport_ring(struct nn_p2p_report *r, int n, double seconds,
                       const struct nn_sup_result *run, double timeout_s) {
  struct nn_p2p_ring *g = &r->ring;
  char *copy = strdup(run->text ? run->text : ""), *cur = copy, *line, error[600] = "";
  int done = 0, first = g->n;
  g->run = 1;
  g->rings++;
  g->seconds = seconds;
  while (copy && (line = next_line(&cur))) {
    if (!strncmp(line, "ring GPU ", 9) && g->n < NN_P2P_MAX_GPUS &&
        ring_gpu(&g->gpus[g->n], line) == 0)
      g->n++;
    else if (!strncmp(line, "error ", 6)) snprintf(error, sizeof error, "%s", line + 6);
    else if (!strcmp(line, "ring-done")) done = 1;
  }
  free(copy);
  ring_reason(g, first, n, error, done, run, timeout_s);
  g->ok = g->reason[0] == '\0';
}

/* The GPU numbers of the pairs' GPUs: the mapping's, or without one the CUDA devices'. */
static uint64_t tested_gpus(const struct nn_p2p_report *r) {
  uint64_t bits = 0;
  for (int i = 0; i < r->n_pairs; i++) {
    int ends[2] = {r->pairs[i].a, r->pairs[i].b};
    for (int e = 0; e < 2; e++) {
      int g =
        ends[e] >= 0 && ends[e] < r->n_gpus ? (r->mapping ? r->gpus[ends[e]].index : ends[e]) : -1;
      if (g >= 0 && g < NN_P2P_MAX_TESTED) bits |= (uint64_t)1 << g;
    }
  }
  return bits;
}

/* Whether any pair failed a cross-process step. */
static int xproc_failed(const struct nn_p2p_report *r) {
  for (int i = 0; i < r->n_pairs; i++)
    for (int s = NN_P2P_XWRITE; s <= NN_P2P_IPCREAD; s++)
      if (r->pairs[i].step[s] == NN_P2P_FAILED) return 1;
  return 0;
}

/* "p2p KIND[ level=L][ gpus=LIST][ driver=V][ xproc=ok|failed] tested=DATE" */
static void mapping_line(struct nn_p2p_report *r, const char *kind, const char *date) {
  char gpus[160];
  size_t n = (size_t)snprintf(r->line, sizeof r->line, "p2p %s", kind);
  if (r->verdict == NN_P2P_OK)
    n += (size_t)snprintf(r->line + n, sizeof r->line - n, " level=%s",
                          nn_config_p2p_level_name(r->level));
  nn_config_p2p_gpus_format(r->tested, gpus, sizeof gpus);
  if (gpus[0] && n < sizeof r->line)
    n += (size_t)snprintf(r->line + n, sizeof r->line - n, " gpus=%s", gpus);
  if (r->driver[0] && n < sizeof r->line)
    n += (size_t)snprintf(r->line + n, sizeof r->line - n, " driver=%s", r->driver);
  const char *x = r->verdict == NN_P2P_OK ? "ok" : xproc_failed(r) ? "failed" : NULL;
  if (x && n < sizeof r->line)
    n += (size_t)snprintf(r->line + n, sizeof r->line - n, " xproc=%s", x);
  if (n < sizeof r->line) snprintf(r->line + n, sizeof r->line - n, " tested=%s", date);
}

/* Whether the pair's GPUs sit on different NUMA nodes of the mapping (-1: unknown). */
static int crosses(const struct nn_p2p_report *r, const struct nn_p2p_pair *p) {
  int na = r->mapping ? r->gpus[p->a].numa : -1, nb = r->mapping ? r->gpus[p->b].numa : -1;
  return na < 0 || nb < 0 ? -1 : na != nb;
}

/* `advice` when every pair in `state` crosses nodes (and, with `all_across`, every pair across
 * nodes is in it) and every pair within a node works; else NONE. */
static int socket_advice(const struct nn_p2p_report *r, int state, int all_across, int advice) {
  int hit = 0, inside_ok = 0;
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    int x = crosses(r, p);
    if (x < 0 || (p->state == state && !x) || (all_across && x && p->state != state))
      return NN_P2P_ADVICE_NONE;
    if (p->state == state) hit++;
    else if (!x && p->state != NN_P2P_PAIR_OK) return NN_P2P_ADVICE_NONE;
    else inside_ok += !x;
  }
  return hit && inside_ok ? advice : NN_P2P_ADVICE_NONE;
}

void nn_p2preport_decide(struct nn_p2p_report *r, const char *date) {
  int broken = 0, ok = 0, level = NN_P2P_LEVEL_PHB;
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    broken += p->state == NN_P2P_PAIR_BROKEN;
    if (p->state == NN_P2P_PAIR_OK) {
      ok++;
      if (p->path > level) level = p->path;
    }
  }
  r->level = level;
  r->line[0] = '\0';
  r->tested = tested_gpus(r);
  r->by_ordinal = !r->mapping;
  r->advice = NN_P2P_ADVICE_NONE;
  if (r->self) {
    r->verdict = NN_P2P_NONE;
    return;
  }
  r->verdict = broken || (r->ring.run && !r->ring.ok) ? NN_P2P_BROKEN
               : ok                                   ? NN_P2P_OK
                                                      : NN_P2P_UNSUPPORTED;
  if (broken) r->advice = socket_advice(r, NN_P2P_PAIR_BROKEN, 0, NN_P2P_ADVICE_SOCKET_CLIQUE);
  else if (r->verdict == NN_P2P_OK)
    r->advice = socket_advice(r, NN_P2P_PAIR_NOPEER, 1, NN_P2P_ADVICE_SOCKET_NOPEER);
  if (r->incomplete && r->verdict != NN_P2P_BROKEN) return; /* untested pairs: no line */
  mapping_line(r, nn_config_p2p_state_name(r->verdict), date);
}
