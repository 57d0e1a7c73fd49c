/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpucheck.c - nn_gpucheck: the assertions of the GPU kit (test/gpu/run.sh), each
 * over files a real run left (NCCL's log, its topology dump, the driver's output).
 *
 *   nn_gpucheck plugins LOG                   NCCL used nccl-numa as env and tuner plugin,
 *                                             at the ABI versions of its release
 *   nn_gpucheck init LOG --config PATH        nccl-numa's INIT lines name that mapping
 *   nn_gpucheck topo-file LOG                 NCCL read the topology file nccl-numa served
 *   nn_gpucheck dump DUMP --config PATH       in NCCL's dump every mapped GPU is under
 *                                             the mapped NUMA node's CPU
 *   nn_gpucheck cpu-link LOG --dump DUMP      NCCL's modelled CPU-to-CPU bandwidth equals
 *                                             nccl-numa's model of that release
 *                                             (nccl_model.h; N/A with one CPU)
 *   nn_gpucheck tuning LOG --coll C --nranks N --expect LO-HI=ALGO/PROTO...
 *                                             every logged call of C in each range ran
 *                                             that choice, and each range was seen
 *   nn_gpucheck tuning-own ON OFF --coll C --nranks N
 *                                             the plugin-off log has NCCL's own choice for
 *                                             each size of the plugin-on log, and they differ
 *                                             at one size at least
 *   nn_gpucheck results OUT                   the driver's rows parse (nccl-tests' parser)
 *                                             and every result is correct
 *
 * Each prints "PASS name: detail", "FAIL name: detail" or "N/A name: reason" and
 * exits 0, 1 or 77 (2 for usage).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sweep/nccltests.h"
#include "cli/sweep/rundir.h"
#include "nclog.h"
#include "nccl_model.h"
#include "numparse.h"
#include "nn_config.h"

#define MAX_FILE (64u << 20)
#define MAX_EXPECT 16

enum { PASS = 0, FAIL = 1, USAGE = 2, NA = 77 };

__attribute__((format(printf, 3, 4))) static int verdict(int rc, const char *name, const char *fmt,
                                                         ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s %s: ", rc == PASS ? "PASS" : rc == NA ? "N/A" : "FAIL", name);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  return rc;
}

/* Whole regular file into a NUL-terminated buffer; NULL with a message on failure. */
static char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  char *buf = NULL;
  if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_FILE &&
      (buf = malloc((size_t)st.st_size + 1))) {
    size_t n = 0;
    ssize_t r;
    while (n < (size_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
      n += (size_t)r;
    buf[n] = 0;
    *len = n;
  } else {
    fprintf(stderr, "nn_gpucheck: cannot read %s: %s\n", path,
            fd < 0 ? strerror(errno) : "not a regular file of at most 64 MiB");
  }
  if (fd >= 0) close(fd);
  return buf;
}

static struct nn_config *load_config(const char *path) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  if (nn_config_load(path, NULL, &cfg, &d)) {
    for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
    fprintf(stderr, "nn_gpucheck: %s is not a valid mapping\n", path);
    cfg = NULL;
  }
  nn_diag_clear(&d);
  return cfg;
}

/* ---------- plugins, INIT lines, served file ---------- */

static int check_plugins(const char *log, size_t len) {
  struct nn_nclog_plugins p;
  nn_nclog_plugins(log, len, &p);
  int env, tuner;
  nn_nclog_expected_abi(p.nccl_code, &env, &tuner);
  if (!p.nccl_code)
    return verdict(FAIL, "plugins", "no \"NCCL version\" line: is NCCL_DEBUG=INFO set?");
  char v[16];
  nn_nccl_version_format(p.nccl_code, v, sizeof v);
  int ok_env = env ? !strcmp(p.env_name, "nccl-numa") && p.env_abi == env : p.env_abi == 0;
  int ok_tuner = !strcmp(p.tuner_name, "nccl-numa") && p.tuner_abi == tuner;
  return verdict(ok_env && ok_tuner ? PASS : FAIL, "plugins",
                 "NCCL %s: ENV/Plugin: Using %s (v%d) [want %s%s%d], TUNER/Plugin: Using %s (v%d) "
                 "[want nccl-numa v%d]",
                 v, p.env_name[0] ? p.env_name : "-", p.env_abi,
                 env ? "nccl-numa v" : "none: no env plugin before 2.28.7", env ? "" : " v", env,
                 p.tuner_name[0] ? p.tuner_name : "-", p.tuner_abi, tuner);
}

static int check_init(const char *log, size_t len, const char *config) {
  struct nn_nclog_init in;
  nn_nclog_init(log, len, &in);
  char *real = realpath(config, NULL);
  const char *want = real ? real : config;
  int tuner_ok = in.tuner_abi && !strcmp(in.tuner_config, want);
  int env_ok = !in.env_abi || (!strcmp(in.env_config, want) && !strcmp(in.env_status, "ok"));
  /* both plugins must have read the same version of the file */
  int same = !in.env_abi || !in.tuner_hash[0] || !strcmp(in.tuner_hash, in.env_hash);
  int rc =
    verdict(tuner_ok && env_ok && same ? PASS : FAIL, "init",
            "tuner v%d config %s hash %s (nRanks %d nNodes %d scope %s); env plugin v%d config %s "
            "(%s) hash %s; want config %s",
            in.tuner_abi, in.tuner_config[0] ? in.tuner_config : "-",
            in.tuner_hash[0] ? in.tuner_hash : "-", in.n_ranks, in.n_nodes,
            in.scope[0] ? in.scope : "-", in.env_abi, in.env_config[0] ? in.env_config : "-",
            in.env_status[0] ? in.env_status : "-", in.env_hash[0] ? in.env_hash : "-", want);
  free(real);
  return rc;
}

static int check_topo_file(const char *log, size_t len) {
  struct nn_nclog_init in;
  nn_nclog_init(log, len, &in);
  if (!in.served[0])
    return verdict(FAIL, "topo-file",
                   "nccl-numa served no NCCL_TOPO_FILE (no \"nccl-numa: NCCL_TOPO_FILE=\" line)");
  if (!in.nccl_topo_file[0])
    return verdict(FAIL, "topo-file",
                   "NCCL did not log \"NCCL_TOPO_FILE set by environment to\" (served %s)",
                   in.served);
  int same = !strcmp(in.served, in.nccl_topo_file);
  return verdict(same ? PASS : FAIL, "topo-file", "nccl-numa served %s%s%s%s, NCCL read %s",
                 in.served, in.served_file[0] ? " (a descriptor of " : "", in.served_file,
                 in.served_file[0] ? ")" : "", in.nccl_topo_file);
}

/* ---------- the dump and the CPU link ---------- */

static int check_dump(const char *xml, size_t len, const struct nn_config *cfg) {
  int rc = PASS;
  char line[1024] = "";
  size_t used = 0;
  for (int i = 0; i < cfg->n_gpus && rc == PASS; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    char id[16], err[256];
    nn_busid_format(&g->bus, id, sizeof id);
    int numa = -1, has_gpu = 0;
    if (nn_nclog_dump_numa(xml, len, &g->bus, &numa, &has_gpu, err, sizeof err))
      return verdict(FAIL, "dump", "GPU %d (%s): %s", g->index, id, err);
    if (numa != g->numa || !has_gpu) rc = FAIL;
    int w =
      snprintf(line + used, sizeof line - used, "%sGPU %d %s under cpu numaid=%d (mapped %d)%s",
               i ? "; " : "", g->index, id, numa, g->numa, has_gpu ? "" : " but no <gpu> in it");
    if (w > 0 && (size_t)w < sizeof line - used) used += (size_t)w;
  }
  return verdict(cfg->n_gpus ? rc : FAIL, "dump", "%s",
                 cfg->n_gpus ? line : "the mapping has no GPUs");
}

/* NCCL's arch for the dump's arch attribute (graph/topo.cc reads x86_64, ppc64, arm64). */
static int nccl_arch(const char *arch) {
  if (!strcmp(arch, "ppc64")) return NN_ARCH_POWER;
  if (!strcmp(arch, "arm64") || !strcmp(arch, "aarch64")) return NN_ARCH_ARM;
  return NN_ARCH_X86;
}

static int check_cpu_link(const char *log, size_t len, const char *xml, size_t xlen) {
  struct nn_nclog_topo t;
  struct nn_nclog_plugins p;
  nn_nclog_topo(log, len, &t);
  nn_nclog_plugins(log, len, &p);
  if (!t.found)
    return verdict(FAIL, "cpu-link",
                   "no \"=== System :\" topology print: is GRAPH in NCCL_DEBUG_SUBSYS?");
  if (!p.nccl_code)
    return verdict(FAIL, "cpu-link", "no \"NCCL version\" line: which release's model applies?");
  int unverified = 0;
  const struct nn_nccl_release *rel = nn_nccl_release_find(p.nccl_code, &unverified);
  char line[1024] = "";
  size_t used = 0;
  int n_sys = 0, rc = PASS;
  for (int i = 0; i < t.n_links; i++) {
    const struct nn_nclog_link *l = &t.links[i];
    if (strcmp(l->type, "SYS")) continue;
    n_sys++;
    struct nn_nclog_cpu_kind k;
    if (nn_nclog_dump_cpu_kind(xml, xlen, (int)l->from_numa, &k))
      return verdict(FAIL, "cpu-link",
                     "CPU %lu of the print has no <cpu numaid=%lu vendor=...> in the dump",
                     l->from_numa, l->from_numa);
    int arch = nccl_arch(k.arch), vendor = nn_nccl_vendor_from_name(k.vendor);
    double want = nn_nccl_cpu_link_gbps(rel, arch, vendor, k.family, k.model);
    char cls[96];
    nn_nccl_cpu_class(rel, arch, vendor, k.family, k.model, cls, sizeof cls);
    if (!(l->bw > want - 0.05 && l->bw < want + 0.05)) rc = FAIL; /* printed with one decimal */
    int w = snprintf(line + used, sizeof line - used,
                     "%sCPU/%lx-%lx -> %s SYS %.1f GB/s, model %.1f (%s)", n_sys > 1 ? "; " : "",
                     l->from_sys, l->from_numa, l->to, l->bw, want, cls);
    if (w > 0 && (size_t)w < sizeof line - used) used += (size_t)w;
  }
  if (!n_sys)
    return verdict(NA, "cpu-link",
                   "NCCL's topology has %d CPU node(s) and no CPU-to-CPU (SYS) link to "
                   "compare with the model (one NUMA node holds every GPU here)",
                   t.n_cpus);
  return verdict(rc, "cpu-link", "%s; model row %s%s", line, rel->name,
                 unverified ? " (release outside the table: nearest row, unverified)" : "");
}

/* ---------- algorithm and protocol per call ---------- */

struct expect {
  uint64_t lo, hi;
  char algo[24], proto[16];
  int seen, wrong;
};

/* "LO-HI=ALGO/PROTO", LO and HI sizes (K, M, G; HI may be empty: no bound). */
static int parse_expect(const char *s, struct expect *e) {
  memset(e, 0, sizeof *e);
  char lo[32], hi[32] = "";
  const char *dash = strchr(s, '-'), *eq = strchr(s, '='), *slash = eq ? strchr(eq, '/') : NULL;
  if (!dash || !eq || !slash || dash > eq || (size_t)(dash - s) >= sizeof lo ||
      (size_t)(eq - dash - 1) >= sizeof hi)
    return -1;
  snprintf(lo, sizeof lo, "%.*s", (int)(dash - s), s);
  snprintf(hi, sizeof hi, "%.*s", (int)(eq - dash - 1), dash + 1);
  snprintf(e->algo, sizeof e->algo, "%.*s", (int)(slash - eq - 1), eq + 1);
  snprintf(e->proto, sizeof e->proto, "%s", slash + 1);
  if (nn_rundir_size_parse(lo, &e->lo)) return -1;
  if (!hi[0]) e->hi = UINT64_MAX;
  else if (nn_rundir_size_parse(hi, &e->hi) || e->hi < e->lo) return -1;
  return nn_algo_from_name(e->algo) < 0 || nn_proto_from_name(e->proto) < 0 ? -1 : 0;
}

static int check_tuning(const char *log, size_t len, const char *func, int nranks,
                        struct expect *ex, int n_ex) {
  struct nn_nclog_choice *c = NULL;
  int n = nn_nclog_tuning(log, len, &c);
  if (n < 0) return verdict(FAIL, "tuning", "out of memory");
  char first_bad[256] = "";
  for (int i = 0; i < n; i++) {
    if (strcmp(c[i].func, func)) continue;
    uint64_t nb = nn_nclog_nbytes(&c[i], nranks);
    for (int k = 0; k < n_ex; k++) {
      if (nb < ex[k].lo || nb > ex[k].hi) continue;
      ex[k].seen++;
      if (strcasecmp(c[i].algo, ex[k].algo) || strcasecmp(c[i].proto, ex[k].proto)) {
        if (!ex[k].wrong++)
          snprintf(first_bad, sizeof first_bad, "%s %llu bytes (nBytes %llu) ran %s/%s, not %s/%s",
                   func, (unsigned long long)c[i].bytes, (unsigned long long)nb, c[i].algo,
                   c[i].proto, ex[k].algo, ex[k].proto);
      }
      break;
    }
  }
  free(c);
  int rc = PASS;
  char line[1024] = "";
  size_t used = 0;
  for (int k = 0; k < n_ex; k++) {
    if (!ex[k].seen || ex[k].wrong) rc = FAIL;
    char hi[24] = "";
    if (ex[k].hi != UINT64_MAX) snprintf(hi, sizeof hi, "%llu", (unsigned long long)ex[k].hi);
    int w = snprintf(line + used, sizeof line - used, "%snBytes %llu-%s: %d call(s), %d not %s/%s",
                     k ? "; " : "", (unsigned long long)ex[k].lo, hi, ex[k].seen, ex[k].wrong,
                     ex[k].algo, ex[k].proto);
    if (w > 0 && (size_t)w < sizeof line - used) used += (size_t)w;
  }
  if (first_bad[0]) return verdict(FAIL, "tuning", "%s (first: %s)", line, first_bad);
  return verdict(rc, "tuning", "%s%s", line,
                 rc == PASS ? "" : " (a range with no call proves nothing)");
}

/* The choice logged for func at nBytes `nb`, or NULL. */
static const struct nn_nclog_choice *choice_at(const struct nn_nclog_choice *c, int n,
                                               const char *func, int nranks, uint64_t nb) {
  for (int i = 0; i < n; i++)
    if (!strcmp(c[i].func, func) && nn_nclog_nbytes(&c[i], nranks) == nb) return &c[i];
  return NULL;
}

static int check_tuning_own(const char *on, size_t on_len, const char *off, size_t off_len,
                            const char *func, int nranks) {
  struct nn_nclog_choice *a = NULL, *b = NULL;
  int na = nn_nclog_tuning(on, on_len, &a), nb = nn_nclog_tuning(off, off_len, &b);
  int sizes = 0, missing = 0, differ = 0;
  char table[2048] = "";
  size_t used = 0;
  for (int i = 0; i < na; i++) {
    if (strcmp(a[i].func, func)) continue;
    uint64_t bytes = nn_nclog_nbytes(&a[i], nranks);
    if (choice_at(a, i, func, nranks, bytes)) continue; /* one entry per size */
    sizes++;
    const struct nn_nclog_choice *o = choice_at(b, nb, func, nranks, bytes);
    if (!o) {
      missing++;
      continue;
    }
    int d = strcasecmp(a[i].algo, o->algo) || strcasecmp(a[i].proto, o->proto);
    differ += d;
    int w = snprintf(table + used, sizeof table - used, "%s%llu: %s/%s%s%s/%s", used ? ", " : "",
                     (unsigned long long)bytes, o->algo, o->proto, d ? " -> " : " = ", a[i].algo,
                     a[i].proto);
    if (w > 0 && (size_t)w < sizeof table - used) used += (size_t)w;
  }
  free(a);
  free(b);
  int rc = sizes && !missing && differ ? PASS : FAIL;
  return verdict(rc, "tuning-own",
                 "%s by size, NCCL's own -> with nccl-numa: %s (%d size(s), %d without a "
                 "plugin-off line, %d changed%s)",
                 func, table[0] ? table : "-", sizes, missing, differ,
                 differ ? "" : ": the rules changed nothing, so this run proves nothing");
}

/* ---------- the driver's results ---------- */

static int check_results(const char *out, size_t len, const char *name) {
  struct nn_nccltests_result r;
  char err[256];
  if (nn_nccltests_parse(out, len, &r, err, sizeof err))
    return verdict(FAIL, "results", "%s: %s", name, err);
  int failed = 0, unchecked = 0;
  for (int i = 0; i < r.n_rows; i++) {
    failed += nn_nccltests_row_failed(&r.rows[i]);
    unchecked +=
      !r.rows[i].oop.wrong_known || !r.rows[i].inplace.present || !r.rows[i].inplace.wrong_known;
  }
  int rc = !failed && !unchecked && r.concluded ? PASS : FAIL;
  verdict(rc, "results",
          "%s: %d row(s) %llu..%llu bytes, %d with wrong results, %d unchecked, %s "
          "(NCCL %s, %d rank(s))",
          name, r.n_rows, (unsigned long long)r.rows[0].size,
          (unsigned long long)r.rows[r.n_rows - 1].size, failed, unchecked,
          r.concluded ? "concluded" : "not concluded", r.nccl_version[0] ? r.nccl_version : "?",
          r.n_ranks);
  nn_nccltests_free(&r);
  return rc;
}

/* ---------- command line ---------- */

static int usage(void) {
  fprintf(stderr, "usage: nn_gpucheck plugins LOG | init LOG --config F | topo-file LOG |\n"
                  "       dump DUMP --config F | cpu-link LOG --dump DUMP |\n"
                  "       tuning LOG --coll C --nranks N --expect LO-HI=ALGO/PROTO... |\n"
                  "       tuning-own ON_LOG OFF_LOG --coll C --nranks N | results OUT\n");
  return USAGE;
}

struct args {
  const char *file[2];
  int n_files;
  const char *config, *dump, *coll;
  int nranks;
  struct expect ex[MAX_EXPECT];
  int n_ex;
};

static int parse_args(int argc, char **argv, struct args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 2; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (k[0] != '-') {
      if (a->n_files >= 2) return -1;
      a->file[a->n_files++] = k;
      continue;
    }
    if (!v) return -1;
    i++;
    if (!strcmp(k, "--config")) a->config = v;
    else if (!strcmp(k, "--dump")) a->dump = v;
    else if (!strcmp(k, "--coll")) a->coll = v;
    else if (!strcmp(k, "--nranks")) {
      if (nn_int_parse(v, 1, 1 << 20, &a->nranks)) return -1;
    } else if (!strcmp(k, "--expect") && a->n_ex < MAX_EXPECT && !parse_expect(v, &a->ex[a->n_ex]))
      a->n_ex++;
    else return -1;
  }
  return 0;
}

static int run(const char *cmd, const struct args *a, const char *f0, size_t l0, const char *f1,
               size_t l1) {
  if (!strcmp(cmd, "plugins")) return check_plugins(f0, l0);
  if (!strcmp(cmd, "init") && a->config) return check_init(f0, l0, a->config);
  if (!strcmp(cmd, "topo-file")) return check_topo_file(f0, l0);
  if (!strcmp(cmd, "results")) return check_results(f0, l0, a->file[0]);
  if (!strcmp(cmd, "dump") && a->config) {
    struct nn_config *cfg = load_config(a->config);
    int rc = cfg ? check_dump(f0, l0, cfg) : USAGE;
    nn_config_free(cfg);
    return rc;
  }
  const char *func = a->coll ? nn_nclog_func_name(a->coll) : NULL;
  if (!strcmp(cmd, "tuning") && func && a->nranks > 0 && a->n_ex) {
    struct expect ex[MAX_EXPECT];
    memcpy(ex, a->ex, sizeof ex);
    return check_tuning(f0, l0, func, a->nranks, ex, a->n_ex);
  }
  if (!strcmp(cmd, "tuning-own") && func && a->nranks > 0 && f1)
    return check_tuning_own(f0, l0, f1, l1, func, a->nranks);
  if (!strcmp(cmd, "cpu-link") && f1) return check_cpu_link(f0, l0, f1, l1);
  return usage();
}

int main(int argc, char **argv) {
  struct args a;
  if (argc < 3 || parse_args(argc, argv, &a) || a.n_files < 1) return usage();
  const char *second = !strcmp(argv[1], "cpu-link") ? a.dump : a.n_files > 1 ? a.file[1] : NULL;
  size_t l0 = 0, l1 = 0;
  char *f0 = slurp(a.file[0], &l0), *f1 = second ? slurp(second, &l1) : NULL;
  int rc = USAGE;
  if (f0 && (!second || f1)) rc = run(argv[1], &a, f0, l0, f1, l1);
  free(f0);
  free(f1);
  return rc;
}
