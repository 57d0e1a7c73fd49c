/* SPDX-License-Identifier: BSD-3-Clause */
/* csv_rules.c - NCCL example-tuner CSV rule files, read into nccl-numa rules. */
#include "ascii.h"
#include "csv_rules.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "printable.h"
#include "snapshot.h"

#define CSV_MIN_FIELDS 8
#define CSV_MAX_FIELDS 10

enum { F_COLL, F_MIN, F_MAX, F_ALGO, F_PROTO, F_CHANNELS, F_NODES, F_RANKS, F_PIPEOPS, F_REGBUFF };

static const char *const field_names[CSV_MAX_FIELDS] = {
  "collective", "min_bytes", "max_bytes", "algorithm",  "protocol",
  "channels",   "nNodes",    "nRanks",    "numPipeOps", "regBuff"};

#define CSV_QUOTE_MAX 48 /* field bytes shown in a message, as the mapping parser's nn_quote */

/* A field quoted back in a message, into buf (CSV_QUOTE_BUF bytes): escaped, cut when long. */
#define CSV_QUOTE_BUF (CSV_QUOTE_MAX * 4 + 8)
static const char *quote(char *buf, const char *s) {
  size_t n = strnlen(s, CSV_QUOTE_MAX + 1);
  nn_printable(buf, CSV_QUOTE_BUF, s, n > CSV_QUOTE_MAX ? CSV_QUOTE_MAX : n, "\\");
  if (n > CSV_QUOTE_MAX) strcat(buf, "...");
  return buf;
}

struct csv_line {
  const char *path;
  int line;
  struct nn_diag *diag;
};

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    s[n - 1] = 0;
    s++;
  }
  return s;
}

/* Splits on commas in place; returns the field count (CSV_MAX_FIELDS + 1 when too many). */
static int split(char *line, char **f) {
  int n = 0;
  char *p = line;
  for (;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    if (n == CSV_MAX_FIELDS) return CSV_MAX_FIELDS + 1;
    f[n++] = trim(p);
    if (!comma) return n;
    p = comma + 1;
  }
}

/* Decimal integer, or -1; the result in *out, -1 meaning any. */
static int parse_int_any(const char *s, long long max, long long *out) {
  if (!strcmp(s, "-1")) {
    *out = -1;
    return 0;
  }
  if (!*s) return -1;
  unsigned long long v = 0;
  for (const char *p = s; *p; p++) {
    if (!isdigit((unsigned char)*p)) return -1;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (max >= 0 && v > (unsigned long long)max) return -1;
  *out = v > (unsigned long long)INT64_MAX ? INT64_MAX : (long long)v;
  return 0;
}

static int parse_bytes(const struct csv_line *c, const char *s, int field, uint64_t *out) {
  if (!strcmp(s, "-1")) {
    *out = field == F_MIN ? 0 : NN_UNBOUNDED;
    return 0;
  }
  uint64_t v = 0;
  if (!*s) goto bad;
  for (const char *p = s; *p; p++) {
    if (!isdigit((unsigned char)*p)) goto bad;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) goto bad;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
bad:;
  char q[CSV_QUOTE_BUF];
  nn_diag_add(c->diag, "%s:%d: %s '%s' is not a byte count (a whole number or -1)", c->path,
              c->line, field_names[field], quote(q, s));
  return -1;
}

static int parse_small(const struct csv_line *c, const char *s, int field, long long lo,
                       long long hi, long long *out) {
  if (!parse_int_any(s, hi, out) && (*out == -1 || *out >= lo)) return 0;
  char q[CSV_QUOTE_BUF];
  nn_diag_add(c->diag, "%s:%d: %s '%s' must be -1 or %lld..%lld", c->path, c->line,
              field_names[field], quote(q, s), lo, hi);
  return -1;
}

static int parse_name(const struct csv_line *c, const char *s, int field,
                      int (*lookup)(const char *), const char *valid, int *out) {
  if (!strcmp(s, "-1") && field != F_COLL) {
    *out = NN_ANY;
    return 0;
  }
  int v = lookup(s);
  if (v >= 0) {
    *out = v;
    return 0;
  }
  char q[CSV_QUOTE_BUF];
  nn_diag_add(c->diag, "%s:%d: unknown %s '%s' (expected %s)", c->path, c->line, field_names[field],
              quote(q, s), valid);
  return -1;
}

static int coll_only(const char *s) {
  int v = nn_coll_from_name(s);
  return v == NN_ANY ? -2 : v; /* the CSV format names one collective per line */
}

static int parse_fields(const struct csv_line *c, char **f, int n, struct nn_rule *r) {
  int bad = 0;
  long long ch = -1, nodes = -1, ranks = -1, pipe = -1, reg = -1;
  memset(r, 0, sizeof *r);
  r->file = c->path;
  r->line = c->line;
  r->scope = NN_SCOPE_ANY;
  bad |= parse_name(c, f[F_COLL], F_COLL, coll_only,
                    "broadcast, reduce, allgather, reducescatter or allreduce", &r->coll);
  bad |= parse_bytes(c, f[F_MIN], F_MIN, &r->bytes_lo);
  bad |= parse_bytes(c, f[F_MAX], F_MAX, &r->bytes_hi);
  bad |=
    parse_name(c, f[F_ALGO], F_ALGO, nn_algo_from_name,
               "tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat or -1", &r->algo);
  bad |=
    parse_name(c, f[F_PROTO], F_PROTO, nn_proto_from_name, "ll, ll128, simple or -1", &r->proto);
  bad |= parse_small(c, f[F_CHANNELS], F_CHANNELS, 1, NN_MAX_CHANNELS, &ch);
  bad |= parse_small(c, f[F_NODES], F_NODES, 1, INT32_MAX, &nodes);
  bad |= parse_small(c, f[F_RANKS], F_RANKS, 1, INT32_MAX, &ranks);
  if (n > F_PIPEOPS) bad |= parse_small(c, f[F_PIPEOPS], F_PIPEOPS, 1, INT32_MAX, &pipe);
  if (n > F_REGBUFF) bad |= parse_small(c, f[F_REGBUFF], F_REGBUFF, 0, 1, &reg);
  if (bad) return -1;
  if (r->bytes_lo > r->bytes_hi) { /* both parsed: digits only */
    nn_diag_add(c->diag, "%s:%d: min_bytes %s is above max_bytes %s", c->path, c->line, f[F_MIN],
                f[F_MAX]);
    return -1;
  }
  if (r->algo == NN_ANY && r->proto == NN_ANY && ch == -1) {
    nn_diag_add(c->diag,
                "%s:%d: the line chooses nothing (algorithm, protocol and channels all -1)",
                c->path, c->line);
    return -1;
  }
  r->channels = ch == -1 ? 0 : (int)ch;
  r->nodes_lo = nodes == -1 ? 0 : (uint64_t)nodes;
  r->nodes_hi = nodes == -1 ? NN_UNBOUNDED : (uint64_t)nodes;
  r->ranks_lo = ranks == -1 ? 0 : (uint64_t)ranks;
  r->ranks_hi = ranks == -1 ? NN_UNBOUNDED : (uint64_t)ranks;
  r->pipeops = (int)pipe;
  r->regbuff = (int)reg;
  return 0;
}

static int is_header(char **f, int n) {
  return n >= 1 && (nn_ascii_caseeq_n(f[0], "collective", 10) || nn_ascii_caseeq(f[0], "coll"));
}

/* One line of text (NUL-terminated, no newline). Returns -1 on error, 0 skipped, 1 rule. */
static int parse_line(const struct csv_line *c, char *text, int first_content, struct nn_rule *r) {
  char *s = text;
  while (*s == ' ' || *s == '\t') s++;
  if (!*s || *s == '#') return 0;
  char *f[CSV_MAX_FIELDS];
  int n = split(s, f);
  if (first_content && is_header(f, n)) return 0;
  if (n < CSV_MIN_FIELDS || n > CSV_MAX_FIELDS) {
    nn_diag_add(c->diag,
                "%s:%d: %s%d fields; expected 8 to 10 "
                "(collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,"
                "numPipeOps[,regBuff]])",
                c->path, c->line, n > CSV_MAX_FIELDS ? "more than " : "",
                n > CSV_MAX_FIELDS ? CSV_MAX_FIELDS : n);
    return -1;
  }
  return parse_fields(c, f, n, r) ? -1 : 1;
}

int nn_csv_rules_parse(const char *path, const char *buf, size_t len, struct nn_rule **rules,
                       int *n_rules, struct nn_diag *diag) {
  *rules = NULL;
  *n_rules = 0;
  if (len > NN_MAX_FILE_BYTES) {
    nn_diag_add(diag, "%s: larger than %u bytes", path, NN_MAX_FILE_BYTES);
    return -1;
  }
  struct nn_rule *out = NULL;
  int n = 0, cap = 0, errors = 0, seen_content = 0;
  char line[NN_MAX_LINE_BYTES + 2];
  struct csv_line c = {path, 0, diag};
  size_t pos = 0;
  while (pos < len) {
    size_t end = pos;
    while (end < len && buf[end] != '\n') end++;
    size_t ln = end - pos;
    c.line++;
    if (ln && buf[end - 1] == '\r') ln--;
    if (memchr(buf + pos, 0, ln)) {
      nn_diag_add(diag, "%s:%d: NUL byte", path, c.line);
      errors++;
    } else if (ln > NN_MAX_LINE_BYTES) {
      nn_diag_add(diag, "%s:%d: line longer than %d bytes", path, c.line, NN_MAX_LINE_BYTES);
      errors++;
    } else {
      memcpy(line, buf + pos, ln);
      line[ln] = 0;
      struct nn_rule r;
      int got = parse_line(&c, line, !seen_content, &r);
      const char *s = line + strspn(line, " \t");
      if (*s && *s != '#') seen_content = 1;
      if (got < 0) {
        errors++;
      } else if (got > 0) {
        if (n >= NN_MAX_RULES) {
          nn_diag_add(diag, "%s:%d: more than %d rules", path, c.line, NN_MAX_RULES);
          errors++;
          break;
        }
        if (n == cap) {
          cap = cap ? cap * 2 : 16;
          struct nn_rule *g = realloc(out, (size_t)cap * sizeof *g);
          if (!g) {
            nn_diag_add(diag, "%s: out of memory", path);
            errors++;
            break;
          }
          out = g;
        }
        out[n++] = r;
      }
    }
    pos = end + 1;
  }
  if (errors) {
    free(out);
    return -1;
  }
  *rules = out;
  *n_rules = n;
  return 0;
}

int nn_csv_rules_load(const char *path, struct nn_rule **rules, int *n_rules,
                      struct nn_diag *diag) {
  *rules = NULL;
  *n_rules = 0;
  char *buf, err[512];
  size_t len;
  if (nn_snapshot_read(path, NN_MAX_FILE_BYTES, &buf, &len, err, sizeof err) != NN_SNAP_OK) {
    nn_diag_add(diag, "%s", err);
    return -1;
  }
  int rc = nn_csv_rules_parse(path, buf, len, rules, n_rules, diag);
  free(buf);
  if (rc == 0 && err[0]) nn_diag_add(diag, "%s", err);
  return rc;
}
