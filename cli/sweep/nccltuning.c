/* SPDX-License-Identifier: BSD-3-Clause */
/* nccltuning.c - NCCL's tuning table (NCCL_DEBUG_SUBSYS=TUNING) read from a log. */
#include "cli/sweep/nccltuning.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/text.h"
#include "errbuf.h"
#include "nccl_model.h"
#include "nn_config.h"
#include "numparse.h"

#define MAX_STREAMS 16 /* threads printing tables at the same time */
#define MAX_LINE 4096  /* NCCL's messages are at most 1023 bytes */
#define MAX_CELLS 64

/* One thread's table in progress. */
struct stream {
  char key[96]; /* host:pid:tid of the log prefix, "" without prefix */
  int used, active;
  int broken; /* line where the table broke off, 0 while it is whole */
  int start_line;
  int nblocks;
  int balgo[NN_NCCLTUNING_MAX_ALGOS], nb;   /* the block's algorithms (indices into tab.algos) */
  int bproto[NN_NCCLTUNING_MAX_PROTOS], np; /* its protocols; np 0 until the Protocol row */
  unsigned first_funcs, block_funcs;        /* bit per tab.funcs index */
  struct nn_nccltuning tab;                 /* this table alone */
};

struct parse {
  struct nn_nccltuning *out;
  struct stream *st; /* MAX_STREAMS */
  int first_broken;  /* line of the first table that broke off */
};

/* ---------- names ---------- */

/* Equal ignoring case and underscores. */
static int name_eq(const char *a, const char *b) {
  for (;;) {
    while (*a == '_') a++;
    while (*b == '_') b++;
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    if (!*a) return 1;
    a++;
    b++;
  }
}

/* Index of name in names[n], adding it when there is room; -1 when full. */
static int name_index(char (*names)[NN_NCCLTUNING_NAME_MAX], int *n, int max, const char *name) {
  for (int i = 0; i < *n; i++)
    if (name_eq(names[i], name)) return i;
  if (*n >= max) return -1;
  snprintf(names[*n], NN_NCCLTUNING_NAME_MAX, "%s", name);
  return (*n)++;
}

static int name_find(const char (*names)[NN_NCCLTUNING_NAME_MAX], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (name_eq(names[i], name)) return i;
  return -1;
}

/* A plausible NCCL name: letters and digits, 1..NAME_MAX-1 long. */
static int is_word(const char *s) {
  size_t n = strlen(s);
  if (!n || n >= NN_NCCLTUNING_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i])) return 0;
  return 1;
}

/* ---------- cells ---------- */

/* Splits s at '|' into trimmed cells; the text after the last '|' must be
 * blank (every row NCCL prints ends with one). Returns the count, -1 when the
 * row does not end with '|' or has too many cells. */
static int split_cells(char *s, char **cell, int max) {
  int n = 0;
  for (char *p = s;;) {
    char *bar = strchr(p, '|');
    if (!bar) return *nn_text_trim(p) ? -1 : n;
    *bar = 0;
    if (n >= max) return -1;
    cell[n++] = nn_text_trim(p);
    p = bar + 1;
  }
}

/* "latency/bandwidth" -> both; -1 when not that shape. 2.31 prints "-1.0/  -1.0" for a
 * model it hard-disables (src/tuning/: generalLatencies/generalBandwidths of -1): disabled,
 * like a bandwidth of 0. */
static int lat_bw(const char *c, double *lat, double *bw) {
  const char *end;
  if (nn_double_parse_prefix(c, lat, &end) || *end != '/') return -1;
  if (nn_double_parse_prefix(end + 1, bw, &end) || *end || (*bw < 0 && *bw != -1.0)) return -1;
  return 0;
}

/* ---------- tables ---------- */

static void broke(struct stream *s, int line) {
  if (!s->broken) s->broken = line;
}

/* Ends the current block: it needs a Protocol row, the first block's
 * collectives, and AllReduce: NCCL prints the collectives in its enum order,
 * which ends with AllReduce in every release read (2.18 ... 2.30), so a block
 * without it was cut off. */
static void end_block(struct stream *s, int line) {
  int ar =
    name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])s->tab.funcs, s->tab.n_funcs, "AllReduce");
  int whole = s->np && ar >= 0 && (s->block_funcs & (1u << ar));
  if (whole && s->nblocks == 1) s->first_funcs = s->block_funcs;
  if (!whole || s->block_funcs != s->first_funcs) broke(s, line);
}

static void merge(struct nn_nccltuning *out, const struct nn_nccltuning *t) {
  for (int f = 0; f < t->n_funcs; f++) {
    int gf = name_index(out->funcs, &out->n_funcs, NN_NCCLTUNING_MAX_FUNCS, t->funcs[f]);
    for (int a = 0; a < t->n_algos && gf >= 0; a++) {
      int ga = name_index(out->algos, &out->n_algos, NN_NCCLTUNING_MAX_ALGOS, t->algos[a]);
      for (int p = 0; p < t->n_protos && ga >= 0; p++) {
        int gp = name_index(out->protos, &out->n_protos, NN_NCCLTUNING_MAX_PROTOS, t->protos[p]);
        if (gp < 0 || !t->seen[f][a][p]) continue;
        if (!out->seen[gf][ga][gp]) {
          out->lat[gf][ga][gp] = t->lat[f][a][p];
          out->bw[gf][ga][gp] = t->bw[f][a][p];
        }
        out->seen[gf][ga][gp] = 1;
        out->enabled[gf][ga][gp] |= t->enabled[f][a][p];
      }
    }
  }
}

static void close_table(struct parse *ps, struct stream *s, int line) {
  if (!s->active) return;
  end_block(s, line);
  if (s->broken) {
    ps->out->n_truncated++;
    if (!ps->first_broken) ps->first_broken = s->broken;
  } else {
    merge(ps->out, &s->tab);
    if (!ps->out->n_tables++) ps->out->first_line = s->start_line;
  }
  s->active = 0;
}

static void open_table(struct stream *s, int line) {
  memset(&s->tab, 0, sizeof s->tab);
  s->active = 1;
  s->broken = 0;
  s->start_line = line;
  s->nblocks = 0;
  s->first_funcs = 0;
}

/* "  Algorithm   | ... |": a new block, or a new table when it names an
 * algorithm this table already has (the next communicator). */
static void algo_row(struct parse *ps, struct stream *s, char **cell, int n, int line) {
  int fresh = 1;
  for (int i = 1; i < n && s->active; i++)
    if (cell[i][0] && name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])s->tab.algos, s->tab.n_algos,
                                cell[i]) >= 0)
      fresh = 0;
  if (s->active && fresh) end_block(s, line);
  else {
    close_table(ps, s, line);
    open_table(s, line);
  }
  s->nblocks++;
  s->nb = s->np = 0;
  s->block_funcs = 0;
  for (int i = 1; i < n; i++) {
    int a = is_word(cell[i]) && s->nb < NN_NCCLTUNING_MAX_ALGOS
              ? name_index(s->tab.algos, &s->tab.n_algos, NN_NCCLTUNING_MAX_ALGOS, cell[i])
              : -1;
    for (int k = 0; k < s->nb && a >= 0; k++)
      if (s->balgo[k] == a) a = -1; /* named twice */
    if (a < 0) {
      broke(s, line);
      return;
    }
    s->balgo[s->nb++] = a;
  }
  if (!s->nb) broke(s, line);
}

/* "  Protocol    | LL | LL128 | Simple | LL | ...": the names until the first repeats. */
static void proto_row(struct stream *s, char **cell, int n, int line) {
  if (!s->active || s->np) return;
  for (int i = 1; i < n; i++) {
    if (s->np && name_eq(cell[i], s->tab.protos[s->bproto[0]])) break;
    int p = is_word(cell[i]) && s->np < NN_NCCLTUNING_MAX_PROTOS
              ? name_index(s->tab.protos, &s->tab.n_protos, NN_NCCLTUNING_MAX_PROTOS, cell[i])
              : -1;
    if (p < 0) {
      broke(s, line);
      return;
    }
    s->bproto[s->np++] = p;
  }
  if (!s->np) broke(s, line);
}

/* "    AllReduce |     6.3/  45.0 | ...": one cell per algorithm x protocol of the block. */
static void func_row(struct stream *s, char **cell, int n, int line) {
  if (n - 1 != s->nb * s->np) {
    broke(s, line);
    return;
  }
  int f = name_index(s->tab.funcs, &s->tab.n_funcs, NN_NCCLTUNING_MAX_FUNCS, cell[0]);
  if (f < 0 || (s->block_funcs & (1u << f))) {
    broke(s, line);
    return;
  }
  for (int i = 1; i < n; i++) {
    double lat, bw;
    if (lat_bw(cell[i], &lat, &bw)) {
      broke(s, line);
      return;
    }
    int a = s->balgo[(i - 1) / s->np], p = s->bproto[(i - 1) % s->np];
    s->tab.seen[f][a][p] = 1;
    s->tab.lat[f][a][p] = (float)lat;
    s->tab.bw[f][a][p] = (float)bw;
    s->tab.enabled[f][a][p] = bw > 0;
  }
  s->block_funcs |= 1u << f;
}

/* ---------- lines ---------- */

/* The stream a line belongs to: host:pid:tid before "[dev] NCCL INFO". */
static struct stream *stream_of(struct parse *ps, const char *prefix, size_t len) {
  char key[96] = "";
  while (len && isspace((unsigned char)prefix[len - 1])) len--;
  if (len && prefix[len - 1] == ']') { /* "[dev]" */
    while (len && prefix[len - 1] != '[') len--;
    if (len) len--;
  }
  while (len && isspace((unsigned char)prefix[len - 1])) len--;
  size_t b = len;
  while (b && !isspace((unsigned char)prefix[b - 1])) b--;
  snprintf(key, sizeof key, "%.*s", (int)(len - b), prefix + b);
  struct stream *free_slot = NULL;
  for (int i = 0; i < MAX_STREAMS; i++) {
    if (ps->st[i].used && !strcmp(ps->st[i].key, key)) return &ps->st[i];
    if (!ps->st[i].used && !free_slot) free_slot = &ps->st[i];
  }
  if (!free_slot) return NULL;
  free_slot->used = 1;
  snprintf(free_slot->key, sizeof free_slot->key, "%s", key);
  return free_slot;
}

static void one_line(struct parse *ps, char *text, int line) {
  static const char tag[] = "NCCL INFO ";
  char *body = strstr(text, tag);
  struct stream *s = body ? stream_of(ps, text, (size_t)(body - text)) : stream_of(ps, "", 0);
  body = body ? body + strlen(tag) : text;
  if (!s || !strchr(body, '|')) return;
  char *cell[MAX_CELLS];
  int n = split_cells(body, cell, MAX_CELLS);
  if (n < 1) {
    /* a table row cut short: it ends the table that was open */
    if (s->active && n < 0) broke(s, line);
    return;
  }
  if (!strcmp(cell[0], "Algorithm")) algo_row(ps, s, cell, n, line);
  else if (!strcmp(cell[0], "Protocol")) proto_row(s, cell, n, line);
  else if (s->active && s->np && is_word(cell[0]) && n > 1 && strchr(cell[1], '/'))
    func_row(s, cell, n, line);
}

int nn_nccltuning_parse(const char *buf, size_t len, struct nn_nccltuning *t, char *err,
                        size_t errsz) {
  memset(t, 0, sizeof *t);
  struct parse ps = {.out = t, .st = calloc(MAX_STREAMS, sizeof(struct stream))};
  if (!ps.st) {
    nn_errbuf_set(err, errsz, "out of memory");
    return NN_NCCLTUNING_NONE;
  }
  char *line = malloc(MAX_LINE);
  int lineno = 0;
  for (size_t pos = 0; line && pos < len;) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - buf) : len;
    size_t n = end - pos;
    lineno++;
    if (n < MAX_LINE && !memchr(buf + pos, 0, n)) {
      memcpy(line, buf + pos, n);
      line[n] = 0;
      if (n && line[n - 1] == '\r') line[n - 1] = 0;
      one_line(&ps, line, lineno);
    }
    pos = end + 1;
  }
  for (int i = 0; i < MAX_STREAMS; i++) close_table(&ps, &ps.st[i], lineno + 1);
  int rc = NN_NCCLTUNING_FOUND;
  if (!line) {
    nn_errbuf_set(err, errsz, "out of memory");
    rc = NN_NCCLTUNING_NONE;
  } else if (!t->n_tables && t->n_truncated) {
    nn_errbuf_set(err, errsz, "line %d: NCCL's tuning table breaks off (truncated output?)",
                  ps.first_broken);
    rc = NN_NCCLTUNING_TRUNCATED;
  } else if (!t->n_tables) {
    nn_errbuf_set(err, errsz,
                  "no NCCL tuning table (needs NCCL_DEBUG=INFO and "
                  "NCCL_DEBUG_SUBSYS=TUNING, printed by rank 0 at init)");
    rc = NN_NCCLTUNING_NONE;
  }
  free(line);
  free(ps.st);
  return rc;
}

int nn_nccltuning_enabled(const struct nn_nccltuning *t, const char *func, const char *algo,
                          const char *proto) {
  int f = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->funcs, t->n_funcs, func);
  int a = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->algos, t->n_algos, algo);
  int p = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->protos, t->n_protos, proto);
  if (f < 0 || a < 0 || p < 0 || !t->seen[f][a][p]) return -1;
  return t->enabled[f][a][p];
}

int nn_nccltuning_cell(const struct nn_nccltuning *t, int coll, int algo, int proto, float *lat,
                       float *bw) {
  int f = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->funcs, t->n_funcs,
                    nn_nccl_name(NN_NAME_COLL, coll));
  int a = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->algos, t->n_algos,
                    nn_nccl_name(NN_NAME_ALGO, algo));
  int p = name_find((const char(*)[NN_NCCLTUNING_NAME_MAX])t->protos, t->n_protos,
                    nn_nccl_name(NN_NAME_PROTO, proto));
  if (f < 0 || a < 0 || p < 0 || !t->seen[f][a][p]) return -1;
  *lat = t->lat[f][a][p];
  *bw = t->bw[f][a][p];
  return t->enabled[f][a][p];
}

int nn_nccltuning_proto_runs_pcie(int version_code, int proto) {
  const struct nn_nccl_release *r = nn_nccl_release_find(version_code, NULL);
  return !r->cost_model_subsystem || nn_nccl_proto_enabled_pcie(r, proto, 0);
}
