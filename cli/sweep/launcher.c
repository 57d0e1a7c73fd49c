/* SPDX-License-Identifier: BSD-3-Clause */
/* launcher.c - ab and calibrate through mpirun, srun or another job launcher. */
#include "cli/sweep/launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#include "cli/sweep/rundir.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"

#define NN_LAUNCHER_MAX_NODES 65536
#define NN_LAUNCHER_MAX_RPN 4096

int nn_launcher_set_opt(struct nn_launcher *l, const char *name, const char *v, char *err,
                        size_t errsz) {
  int is_nodes = !strcmp(name, "nodes"), is_rpn = !strcmp(name, "ranks-per-node");
  if (!is_nodes && !is_rpn) {
    if (strcmp(name, "launcher")) return 0;
    l->spec = v;
    return 1;
  }
  int max = is_nodes ? NN_LAUNCHER_MAX_NODES : NN_LAUNCHER_MAX_RPN;
  if (nn_int_parse(v, 1, max, is_nodes ? &l->nodes : &l->ranks_per_node)) {
    nn_errbuf_set(err, errsz, "--%s: '%s' is not a number in 1..%d", name, v, max);
    return -1;
  }
  return 1;
}

/* The program's path: as given when it has a slash, else the first executable on PATH. */
static char *resolve(const char *prog) {
  if (strchr(prog, '/')) return access(prog, X_OK) ? NULL : strdup(prog);
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t n = strcspn(p, ":");
    char cand[PATH_MAX];
    struct stat st;
    if (n && (size_t)snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, prog) < sizeof cand &&
        !stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
      return strdup(cand);
    p += n + (p[n] == ':');
  }
  return NULL;
}

static enum nn_launcher_style style_of(const char *word) {
  const char *base = strrchr(word, '/');
  base = base ? base + 1 : word;
  if (!strcmp(base, "mpirun") || !strcmp(base, "mpiexec") || !strcmp(base, "orterun"))
    return NN_LAUNCHER_MPIRUN;
  return !strcmp(base, "srun") ? NN_LAUNCHER_SRUN : NN_LAUNCHER_OTHER;
}

static int split_spec(struct nn_launcher *l, char *err, size_t errsz) {
  wordexp_t we;
  if (wordexp(l->spec, &we, WRDE_NOCMD) != 0) {
    nn_errbuf_set(err, errsz,
                  "--launcher '%s': cannot split into words (unbalanced quotes, "
                  "or a $(...) or `...`, which are not run)",
                  l->spec);
    return -1;
  }
  int rc = 0;
  if (we.we_wordc == 0 || we.we_wordc > NN_LAUNCHER_MAX_WORDS) {
    nn_errbuf_set(err, errsz, "--launcher '%s': %s", l->spec,
                  we.we_wordc ? "too many words" : "empty command");
    rc = -1;
  }
  for (size_t w = 0; !rc && w < we.we_wordc; w++)
    if (!(l->words[l->n_words++] = strdup(we.we_wordv[w]))) {
      nn_errbuf_set(err, errsz, "out of memory");
      rc = -1;
    }
  wordfree(&we);
  return rc;
}

int nn_launcher_finish(struct nn_launcher *l, int *gpus, int mapping_gpus, char *err,
                       size_t errsz) {
  if (!l->spec) {
    if (!l->nodes && !l->ranks_per_node) return 0;
    nn_errbuf_set(err, errsz, "--nodes and --ranks-per-node need --launcher");
    return -1;
  }
  if (split_spec(l, err, errsz)) return -1;
  l->style = style_of(l->words[0]);
  char *path = resolve(l->words[0]);
  if (!path) {
    nn_errbuf_set(err, errsz, "--launcher: '%s' is not an executable%s", l->words[0],
                  strchr(l->words[0], '/') ? "" : " on PATH");
    return -1;
  }
  free(l->words[0]);
  l->words[0] = path;
  if (l->style == NN_LAUNCHER_OTHER) {
    if (l->nodes || l->ranks_per_node) {
      nn_errbuf_set(err, errsz,
                    "--nodes and --ranks-per-node work with mpirun and srun; "
                    "the command '%s' must start its ranks itself",
                    l->spec);
      return -1;
    }
    return 0;
  }
  if (!l->nodes) l->nodes = 1;
  if (!l->ranks_per_node) l->ranks_per_node = *gpus ? 1 : mapping_gpus > 0 ? mapping_gpus : 1;
  if (!*gpus) *gpus = 1;
  return 0;
}

static int is_passed(const char *entry) {
  return !strncmp(entry, "NCCL_", 5) && strchr(entry, '=');
}

/* Appends a copy of s; the array has room. */
static int push(char **av, int *n, const char *s) { return (av[(*n)++] = strdup(s)) ? 0 : -1; }

/* srun's --export=ALL,NAME=VALUE,...: NULL when a value has a comma (err set). */
static char *srun_export(char *const *env, char *err, size_t errsz) {
  size_t len = sizeof "--export=ALL";
  for (char *const *e = env; *e; e++) len += is_passed(*e) ? strlen(*e) + 1 : 0;
  char *s = malloc(len);
  if (!s) return NULL;
  strcpy(s, "--export=ALL");
  for (char *const *e = env; *e; e++) {
    if (!is_passed(*e)) continue;
    if (strchr(*e, ',')) {
      nn_errbuf_set(err, errsz, "srun --export cannot pass '%s': Slurm splits its list at commas",
                    *e);
      free(s);
      return NULL;
    }
    strcat(strcat(s, ","), *e);
  }
  return s;
}

/* The options of the style: rank counts and how the variables reach every rank. */
static int style_options(const struct nn_launcher *l, char *const *env, char **av, int *n,
                         char *err, size_t errsz) {
  char num[64];
  if (l->style == NN_LAUNCHER_MPIRUN) {
    snprintf(num, sizeof num, "%d", l->nodes * l->ranks_per_node);
    if (push(av, n, "-np") || push(av, n, num) || push(av, n, "--map-by")) return -1;
    snprintf(num, sizeof num, "ppr:%d:node", l->ranks_per_node);
    if (push(av, n, num)) return -1;
    for (char *const *e = env; *e; e++) {
      if (!is_passed(*e)) continue;
      if (push(av, n, "-x") || !(av[(*n)++] = strndup(*e, (size_t)(strchr(*e, '=') - *e))))
        return -1;
    }
  } else if (l->style == NN_LAUNCHER_SRUN) {
    snprintf(num, sizeof num, "--nodes=%d", l->nodes);
    if (push(av, n, num)) return -1;
    snprintf(num, sizeof num, "--ntasks-per-node=%d", l->ranks_per_node);
    if (push(av, n, num)) return -1;
    if (!(av[(*n)++] = srun_export(env, err, errsz))) return -1;
  }
  return 0;
}

char **nn_launcher_argv(const struct nn_launcher *l, char *const *env, char *const *prog, char *err,
                        size_t errsz) {
  size_t cap = (size_t)l->n_words + 8;
  for (char *const *e = env; *e; e++) cap += 2;
  for (char *const *p = prog; *p; p++) cap++;
  char **av = calloc(cap, sizeof *av);
  int n = 0;
  nn_errbuf_set(err, errsz, "out of memory");
  if (!av) return NULL;
  for (int w = 0; w < l->n_words; w++)
    if (push(av, &n, l->words[w])) goto fail;
  if (style_options(l, env, av, &n, err, errsz)) goto fail;
  for (char *const *p = prog; *p; p++)
    if (push(av, &n, *p)) goto fail;
  return av;
fail:
  nn_launcher_argv_free(av);
  return NULL;
}

void nn_launcher_argv_free(char **av) {
  if (!av) return;
  for (char **a = av; *a; a++) free(*a);
  free(av);
}

static const char *style_name(enum nn_launcher_style s) {
  return s == NN_LAUNCHER_MPIRUN ? "mpirun" : s == NN_LAUNCHER_SRUN ? "srun" : "other";
}

int nn_launcher_write(const struct nn_launcher *l, int dir_fd) {
  FILE *f = nn_rundir_fopen(dir_fd, "launch", NN_RUNDIR_NEW);
  if (!f) return -1;
  fprintf(f, "style %s\ncommand %s\nnodes %d\nranks_per_node %d\n", style_name(l->style), l->spec,
          l->nodes, l->ranks_per_node);
  return fclose(f);
}

/* Opens a file of a run directory for reading by the bounded reader's rules: a run
 * directory is shared, and `calibrate --from` reads someone else's (never a FIFO). */
static FILE *open_run_file(const char *path) {
  return nn_file_fopen(path, NN_FILE_NOFOLLOW, 64u << 20);
}

int nn_launcher_nodes(const char *rundir) {
  char path[PATH_MAX], line[256];
  snprintf(path, sizeof path, "%s/launch", rundir);
  FILE *f = open_run_file(path);
  int nodes = 1;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "nodes ", 6) && nn_int_parse(line + 6, 1, NN_LAUNCHER_MAX_NODES, &nodes))
      nodes = 1;
  }
  if (f) fclose(f);
  return nodes;
}

struct placement {
  int rank, pid, device;
  char host[128];
};

/* One "Rank R Group G Pid P on HOST device D ..." comment line; 0 when it is one. */
static int parse_rank_line(char *line, struct placement *p) {
  char *tok[10], *save = NULL;
  int n = 0;
  for (char *t = strtok_r(line, " \t\r\n#", &save); t && n < 10;
       t = strtok_r(NULL, " \t\r\n", &save))
    tok[n++] = t;
  if (n < 10 || strcmp(tok[0], "Rank") || strcmp(tok[2], "Group") || strcmp(tok[4], "Pid") ||
      strcmp(tok[6], "on") || strcmp(tok[8], "device"))
    return -1;
  if (nn_int_parse(tok[1], 0, 1 << 30, &p->rank) || nn_int_parse(tok[5], 0, 1 << 30, &p->pid) ||
      nn_int_parse(tok[9], 0, 1 << 20, &p->device))
    return -1;
  snprintf(p->host, sizeof p->host, "%s", tok[7]);
  return 0;
}

/* "HOST: R,R; HOST: R" over the distinct ranks, hosts in the order first seen. */
static void summarize(const struct placement *p, int n, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len < size; i++) {
    int first = 1;
    for (int j = 0; j < i && first; j++) first = strcmp(p[j].host, p[i].host) != 0;
    if (!first) continue;
    int w = snprintf(buf + len, size - len, "%s%s:", len ? "; " : "", p[i].host);
    for (int j = i; j < n && w >= 0 && len + (size_t)w < size; j++)
      if (!strcmp(p[j].host, p[i].host)) {
        int x =
          snprintf(buf + len + w, size - len - (size_t)w, "%s%d", j == i ? " " : ",", p[j].rank);
        if (x < 0) break;
        w += x;
      }
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* The distinct ranks listed in a run's output; malloc'd in *out. */
static int read_placement(const char *out_path, struct placement **out) {
  FILE *f = open_run_file(out_path);
  if (!f) return -1;
  struct placement *p = NULL, cur;
  int n = 0, cap = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    if (line[0] != '#' || parse_rank_line(line, &cur)) continue;
    int seen = 0;
    for (int i = 0; i < n && !seen; i++) seen = p[i].rank == cur.rank;
    if (seen) continue;
    if (n == cap) {
      struct placement *q = realloc(p, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *p);
      if (!q) break;
      p = q;
    }
    p[n++] = cur;
  }
  fclose(f);
  *out = p;
  return n;
}

static int by_rank(const void *a, const void *b) {
  return ((const struct placement *)a)->rank - ((const struct placement *)b)->rank;
}

int nn_launcher_record(int dir_fd, const char *out_path, const char *arm, int seq, const char *coll,
                       char *summary, size_t size) {
  struct placement *p = NULL;
  int n = read_placement(out_path, &p);
  summary[0] = 0;
  if (n < 0) return -1;
  if (n > 0) qsort(p, (size_t)n, sizeof *p, by_rank);
  FILE *f = nn_rundir_fopen(dir_fd, "placement.tsv", NN_RUNDIR_APPEND);
  if (!f) {
    free(p);
    return -1;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && st.st_size == 0)
    fprintf(f, "arm\tseq\tcoll\trank\thost\tpid\tdevice\n");
  for (int i = 0; i < n; i++)
    fprintf(f, "%s\t%d\t%s\t%d\t%s\t%d\t%d\n", arm, seq, coll, p[i].rank, p[i].host, p[i].pid,
            p[i].device);
  int rc = fclose(f) ? -1 : n;
  summarize(p, n, summary, size);
  free(p);
  return rc;
}

void nn_launcher_free(struct nn_launcher *l) {
  for (int w = 0; w < l->n_words; w++) free(l->words[w]);
  l->n_words = 0;
}
