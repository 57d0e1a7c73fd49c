/* SPDX-License-Identifier: BSD-3-Clause */
/* abrun_opts.c - the options ab and calibrate share, and --bench-cmd's words (abrun.h). */
#include "cli/sweep/abrun.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/options.h"
#include "cli/predict/ncclver.h"
#include "errbuf.h"
#include "numparse.h"

/* ---------- --bench-cmd ---------- */

/* One word of --bench-cmd with every {coll} replaced by the collective. */
static char *expand_word(const char *w, size_t n, const char *coll) {
  static const char key[] = "{coll}";
  size_t k = sizeof key - 1, len = 0;
  char *out = malloc(n * (strlen(coll) + 1) + 1);
  if (!out) return NULL;
  for (size_t i = 0; i < n;) {
    if (n - i >= k && !memcmp(w + i, key, k)) {
      memcpy(out + len, coll, strlen(coll));
      len += strlen(coll);
      i += k;
    } else {
      out[len++] = w[i++];
    }
  }
  out[len] = 0;
  return out;
}

char **nn_ab_bench_words(const char *cmd, const char *coll) {
  size_t cap = 2;
  for (const char *p = cmd; *p; p++) cap += *p == ' ' || *p == '\t';
  char **av = calloc(cap, sizeof *av);
  size_t n = 0;
  for (const char *p = cmd; av && *p;) {
    p += strspn(p, " \t");
    size_t w = strcspn(p, " \t");
    if (!w) break;
    if (!(av[n++] = expand_word(p, w, coll))) {
      nn_abenv_free(av);
      return NULL;
    }
    p += w;
  }
  return av;
}

/* ---------- options ---------- */

void nn_ab_opts_init(struct nn_ab_opts *o) {
  memset(o, 0, sizeof *o);
  o->tests_dir = getenv("NCCL_TESTS_DIR");
  o->colls[0] = "all_reduce";
  o->colls[1] = "all_gather";
  o->colls[2] = "reduce_scatter";
  o->n_colls = 3;
  o->minb = "8";
  o->maxb = "256M";
  o->factor = "2";
  o->iters = 20;
  o->warmup = 5;
  o->repeats = 5;
  o->timeout_s = 1800;
  o->progress = stderr;
}

/* A number option's value: 1 taken, -1 (err says why). */
static int int_arg(const char *opt, const char *v, int lo, int hi, int *out, char *err,
                   size_t errsz) {
  if (!nn_int_parse(v, lo, hi, out)) return 1;
  nn_errbuf_set(err, errsz, "%s: '%s' is not a number in %d..%d", opt, v, lo, hi);
  return -1;
}

static int parse_colls(char *list, struct nn_ab_opts *o, char *err, size_t errsz) {
  o->n_colls = 0;
  for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const char *c = nn_abenv_coll_name(t);
    if (!c || o->n_colls >= NN_AB_MAX_COLLS) {
      nn_errbuf_set(err, errsz, "--colls: bad collective '%s'", t);
      return -1;
    }
    o->colls[o->n_colls++] = c;
  }
  if (!o->n_colls) nn_errbuf_set(err, errsz, "--colls: no collective given");
  return o->n_colls ? 0 : -1;
}

/* The index of an nccl-tests argument that turns its correctness check off (-c 0,
 * --check 0, -c0, --check=0), or -1: an arm whose results are not checked could win with
 * wrong ones. */
static int check_off_at(char **a, int n) {
  for (int i = 0; i < n; i++) {
    const char *v = !strcmp(a[i], "-c") || !strcmp(a[i], "--check") ? (i + 1 < n ? a[i + 1] : "")
                    : !strncmp(a[i], "--check=", 8)                 ? a[i] + 8
                    : !strncmp(a[i], "-c", 2)                       ? a[i] + 2
                                                                    : NULL;
    if (v && !strcmp(v, "0")) return i;
  }
  return -1;
}

/* Whether --bench-cmd keeps nccl-tests' correctness check on (else err names the word). */
static int bench_cmd_checked(const char *cmd, char *err, size_t errsz) {
  char **av = nn_ab_bench_words(cmd, "coll");
  int n = 0;
  while (av && av[n]) n++;
  int off = av ? check_off_at(av, n) : -1;
  if (off >= 0) {
    int joined = !strcmp(av[off], "-c") || !strcmp(av[off], "--check");
    nn_errbuf_set(
      err, errsz,
      "--bench-cmd: '%s%s' turns nccl-tests' correctness check off: every run checks its "
      "results (nccl-tests' -c 1); a run with #wrong > 0 is FAILED, never a winner",
      av[off], joined ? " 0" : "");
  }
  nn_abenv_free(av);
  return off < 0;
}

/* "--": everything after it goes to nccl-tests as is (but -c 0). */
static int take_extra(int argc, char **argv, int i, struct nn_ab_opts *o, char *err, size_t errsz) {
  o->extra = argv + i + 1;
  o->n_extra = argc - i - 1;
  int off = check_off_at(o->extra, o->n_extra);
  if (off >= 0) {
    int joined = !strcmp(o->extra[off], "-c") || !strcmp(o->extra[off], "--check");
    nn_errbuf_set(err, errsz,
                  "-- %s%s: every run checks its results (nccl-tests' -c 1); a run with #wrong > 0 "
                  "is FAILED, never a winner",
                  o->extra[off], joined ? " 0" : "");
    return -1;
  }
  if (o->n_extra <= NN_AB_MAX_EXTRA) return 2;
  nn_errbuf_set(err, errsz, "--: more than %d arguments for nccl-tests", NN_AB_MAX_EXTRA);
  return -1;
}

/* The shared options: the short ones are getopt's own characters, the long ones these codes. */
enum {
  OPT_REPEATS = 0x100,
  OPT_COLLS,
  OPT_NCCL_TESTS,
  OPT_TIMEOUT,
  OPT_NCCL_VERSION,
  OPT_BENCH_CMD,
  OPT_LAUNCH = 0x200,
  OPT_OWN = 0x300,
  OPT_HELP = 'h'
};
static const struct option common_long[] = {
  {"repeats", required_argument, NULL, OPT_REPEATS},
  {"colls", required_argument, NULL, OPT_COLLS},
  {"nccl-tests", required_argument, NULL, OPT_NCCL_TESTS},
  {"timeout", required_argument, NULL, OPT_TIMEOUT},
  {"nccl-version", required_argument, NULL, OPT_NCCL_VERSION},
  {"bench-cmd", required_argument, NULL, OPT_BENCH_CMD}};
static const char *const launch_long[] = {"launcher", "nodes", "ranks-per-node"};
#define NN_AB_N_COMMON (sizeof common_long / sizeof common_long[0])
#define NN_AB_N_LAUNCH (sizeof launch_long / sizeof launch_long[0])
#define NN_AB_MAX_LONG (NN_AB_N_COMMON + NN_AB_N_LAUNCH + NN_AB_MAX_OWN + 2)

/* How the user spelled shared option `id`, for messages: "-b", "--colls". */
static const char *spelling(int id, char *buf, size_t size) {
  for (size_t k = 0; k < NN_AB_N_COMMON; k++)
    if (common_long[k].val == id) snprintf(buf, size, "--%s", common_long[k].name);
  if (id < OPT_REPEATS) snprintf(buf, size, "-%c", id);
  return buf;
}

static int set_size(struct nn_ab_opts *o, const char *opt, char *v, char *err, size_t errsz) {
  uint64_t bytes;
  if (nn_rundir_size_parse(v, &bytes)) {
    nn_errbuf_set(err, errsz, "%s: '%s' is not a size (e.g. 8, 64K, 256M)", opt, v);
    return -1;
  }
  if (opt[1] == 'b') o->minb = v;
  else o->maxb = v;
  return 1;
}

static int set_bench_cmd(struct nn_ab_opts *o, char *v, char *err, size_t errsz) {
  if (!strstr(v, "{coll}")) {
    nn_errbuf_set(err, errsz, "--bench-cmd: '%s' has no {coll} (replaced by all_reduce, ...)", v);
    return -1;
  }
  o->bench_cmd = v;
  return bench_cmd_checked(v, err, errsz) ? 1 : -1;
}

static int set_nccl_version(struct nn_ab_opts *o, const char *v, char *err, size_t errsz) {
  int code = nn_ncclver_parse_arg("--nccl-version", v, err, errsz);
  o->nccl_code = code > 0 ? code : 0;
  return code > 0 ? 1 : -1;
}

/* One shared option's value, by its getopt code. */
static int set_common(struct nn_ab_opts *o, int id, char *v, char *err, size_t errsz) {
  char opt[24];
  int f;
  spelling(id, opt, sizeof opt);
  switch (id) {
  case 'b':
  case 'e':
    return set_size(o, opt, v, err, errsz);
  case 'f':
    if (int_arg(opt, v, 2, 1 << 20, &f, err, errsz) < 0) return -1;
    o->factor = v;
    return 1;
  case 'g':
    return int_arg(opt, v, 1, 1024, &o->gpus, err, errsz);
  case 'n':
    return int_arg(opt, v, 1, 1 << 24, &o->iters, err, errsz);
  case 'w':
    return int_arg(opt, v, 0, 1 << 24, &o->warmup, err, errsz);
  case OPT_REPEATS:
    return int_arg(opt, v, 1, NN_RUN_MAX_REPEATS, &o->repeats, err, errsz);
  case OPT_TIMEOUT:
    return int_arg(opt, v, 0, 1 << 24, &o->timeout_s, err, errsz);
  case OPT_COLLS:
    return parse_colls(v, o, err, errsz) ? -1 : 1;
  case OPT_NCCL_TESTS:
    o->tests_dir = v;
    return 1;
  case OPT_BENCH_CMD:
    return set_bench_cmd(o, v, err, errsz);
  case OPT_NCCL_VERSION:
    return set_nccl_version(o, v, err, errsz);
  default:
    nn_errbuf_set(err, errsz, "option code %d has no handler", id);
    return -1;
  }
}

/* The option table getopt_long reads: shared, launcher, the command's own, --help. */
static int long_table(const struct nn_ab_own *own, struct option *t) {
  int n = 0;
  for (size_t k = 0; k < NN_AB_N_COMMON; k++) t[n++] = common_long[k];
  for (size_t k = 0; k < NN_AB_N_LAUNCH; k++)
    t[n++] = (struct option){launch_long[k], required_argument, NULL, OPT_LAUNCH + (int)k};
  for (int k = 0; own && k < own->n && k < NN_AB_MAX_OWN; k++)
    t[n++] = (struct option){own->opts[k].name, own->opts[k].flag ? no_argument : required_argument,
                             NULL, OPT_OWN + k};
  t[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
  t[n] = (struct option){0, 0, 0, 0};
  return n;
}

/* One option getopt_long returned: its code says which table it came from (long_table). */
static int take_one(int c, const struct nn_ab_own *own, struct nn_ab_opts *o, char *err,
                    size_t errsz) {
  if (c >= OPT_OWN && c - OPT_OWN < own->n) {
    const struct nn_ab_own_opt *w = &own->opts[c - OPT_OWN];
    return own->take(own->arg, w->name, w->flag ? NULL : optarg) < 0 ? -1 : 1;
  }
  if (c >= OPT_LAUNCH && c - OPT_LAUNCH < (int)NN_AB_N_LAUNCH)
    return nn_launcher_set_opt(&o->launch, launch_long[c - OPT_LAUNCH], optarg, err, errsz);
  return set_common(o, c, optarg, err, errsz);
}

int nn_ab_parse_args(int argc, char **argv, struct nn_ab_opts *o, const struct nn_ab_own *own,
                     char *err, size_t errsz) {
  struct option table[NN_AB_MAX_LONG + 1];
  long_table(own, table);
  nn_errbuf_set(err, errsz, "%s", "");
  optind = 0; /* a fresh scan, "+" included: options end at the first other argument */
  opterr = 0;
  int c;
  const char *last_value = NULL; /* a "--" that was an option's value ends nothing */
  while ((c = getopt_long(argc, argv, "+:b:e:f:g:n:w:h", table, NULL)) != -1) {
    last_value = optarg;
    if (c == OPT_HELP) return NN_AB_HELP;
    if (c == '?' || c == ':') {
      nn_options_problem(c, argc, argv, err, errsz);
      return NN_AB_UNKNOWN;
    }
    if (take_one(c, own, o, err, errsz) < 0) return NN_AB_USAGE;
  }
  if (optind > 1 && optind <= argc && !strcmp(argv[optind - 1], "--") &&
      argv[optind - 1] != last_value)
    return take_extra(argc, argv, optind - 1, o, err, errsz) < 0 ? NN_AB_USAGE : 0;
  if (optind < argc) {
    nn_errbuf_set(err, errsz, "unexpected argument '%s' (nccl-tests' own arguments go after --)",
                  argv[optind]);
    return NN_AB_UNKNOWN;
  }
  return 0;
}
