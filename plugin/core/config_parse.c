/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_parse.c - the mapping file, format 1: a buffer read line by line, each
 * line handed to its directive (config_machine.c, config_rules.c).
 *
 * The parser never stops at the first problem: every line is checked and every
 * problem recorded, so that one run of `check-config` shows all of them; any
 * problem rejects the whole file. Nothing in the input is trusted: lengths,
 * numbers and counts are bounded before they are used, and text quoted back in
 * messages is escaped and shortened so a hostile file cannot flood a terminal.
 */
#include "ascii.h"
#include "config_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits the line in p->buf into fields; a field starting with '#' ends the line. */
static void split_fields(struct nn_parser *p) {
  p->nf = 0;
  char *s = p->buf;
  while (*s) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '#') break;
    p->f[p->nf++] = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    if (*s) *s++ = 0;
  }
}

/* ------------------------------------------------------------------ lines */

/* The directives, in the order the "expected ..." message names them and their finish steps
 * run: the one list of them (the fuzz dictionary and docs/user/mapping.md are checked against
 * it by test_config_parse.c). */
const struct nn_config_directive nn_config_directives[] = {
  {"gpu", nn_config_parser_gpu, nn_gpus_finish},
  {"numa", nn_config_parser_numa, NULL},
  {"cpu", nn_config_parser_cpu, NULL},
  {"rule", nn_config_parser_rule, NULL},
  {"env", nn_config_parser_env, NULL},
  {"model", nn_config_parser_model, NULL},
  {"topology", nn_config_parser_topology, NULL},
  {"include-csv", nn_config_parser_include_csv, NULL},
  {"p2p", nn_config_parser_p2p, nn_config_parser_p2p_finish},
  {"nic", nn_config_parser_nic, nn_config_parser_nic_finish},
};
const int nn_config_n_directives = NN_COUNT_OF(nn_config_directives);

const char *nn_config_directive_name(int i) {
  return i >= 0 && i < nn_config_n_directives ? nn_config_directives[i].name : NULL;
}

/* "gpu, numa, ... or p2p": the directives' names for the unknown-directive message. */
static void directive_list(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < nn_config_n_directives && used < size; i++) {
    const char *sep = !i ? "" : i == nn_config_n_directives - 1 ? " or " : ", ";
    int n = snprintf(buf + used, size - used, "%s%s", sep, nn_config_directives[i].name);
    if (n > 0) used += (size_t)n;
  }
}

static void comment_line(struct nn_parser *p, const char *s, size_t len) {
  static const char marker[] = NN_CONFIG_HOST_SIDE_MARKER;
  if (len >= sizeof marker - 1 && memmem(s, len, marker, sizeof marker - 1)) p->cfg->host_side = 1;
}

static void parse_line(struct nn_parser *p, const char *s, size_t len) {
  if (len && s[len - 1] == '\r') len--;
  if (len > NN_MAX_LINE_BYTES) {
    nn_perr(p, "line is %zu bytes, over the %d-byte limit", len, NN_MAX_LINE_BYTES);
    return;
  }
  const char *nul = memchr(s, 0, len);
  if (nul) {
    nn_perr(p, "NUL byte at column %zu (not a text file?)", (size_t)(nul - s) + 1);
    return;
  }
  size_t lead = 0;
  while (lead < len && (s[lead] == ' ' || s[lead] == '\t')) lead++;
  if (lead < len && s[lead] == '#') {
    comment_line(p, s + lead, len - lead);
    return;
  }
  for (size_t i = 0; i < len; i++) { /* one pass checks and copies */
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      nn_perr(p, "control character \\x%02x at column %zu (not a text file?)", c, i + 1);
      return;
    }
    p->buf[i] = (char)c;
  }
  p->buf[len] = 0;
  split_fields(p);
  if (!p->nf) return;
  for (int i = 0; i < nn_config_n_directives; i++)
    if (nn_ascii_caseeq(p->f[0], nn_config_directives[i].name)) {
      nn_config_directives[i].parse(p);
      return;
    }
  char expected[256];
  directive_list(expected, sizeof expected);
  nn_perr(p, "unknown directive '%s' (expected %s)", nn_quote(p, p->f[0]), expected);
}

/* The host-side marker may come after gpu lines; scan comments first so the
 * "missing bus=" hint does not depend on line order. Only the lines holding a '#' are looked
 * at: a 16 MiB file of short lines costs one memchr, not one per line. */
static void scan_marker(struct nn_parser *p, const char *buf, size_t len) {
  size_t pos = 0;
  const char *hash;
  while (pos < len && !p->cfg->host_side && (hash = memchr(buf + pos, '#', len - pos))) {
    size_t at = (size_t)(hash - buf), start = at;
    while (start > 0 && (buf[start - 1] == ' ' || buf[start - 1] == '\t')) start--;
    const char *nl = memchr(hash, '\n', len - at);
    size_t end = nl ? (size_t)(nl - buf) : len;
    if ((start == 0 || buf[start - 1] == '\n') && end - start <= NN_MAX_LINE_BYTES + 1)
      comment_line(p, hash, end - at);
    pos = end + 1;
  }
}

/* ------------------------------------------------------------------ whole file */

static struct nn_config *config_new(const char *name) {
  struct nn_config *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->path = strdup(name);
  c->files = calloc(1, sizeof *c->files);
  if (c->files) c->files[0] = strdup(name);
  c->n_files = c->files && c->files[0] ? 1 : 0;
  c->cpu.family = c->cpu.model = -1;
  c->topo_mode = NN_TOPO_AUTO;
  if (!c->path || !c->n_files) {
    nn_config_free(c);
    return NULL;
  }
  return c;
}

int nn_config_parse(const char *name, const char *buf, size_t len, const struct nn_parse_opts *opts,
                    struct nn_config **out, struct nn_diag *diag) {
  if (out) *out = NULL;
  if (!name) name = "(mapping)";
  if (!buf && len) {
    nn_diag_add(diag, "%s: no data", name);
    return -1;
  }
  if (len > NN_MAX_FILE_BYTES) {
    nn_diag_add(diag, "%s: file is %zu bytes, over the %u MiB limit", name, len,
                NN_MAX_FILE_BYTES >> 20);
    return -1;
  }
  struct nn_parser *p = calloc(1, sizeof *p);
  struct nn_config *cfg = config_new(name);
  if (!p || !cfg) {
    free(p);
    nn_config_free(cfg);
    nn_diag_add(diag, "%s: out of memory", name);
    return -1;
  }
  p->name = name;
  p->opts = opts;
  p->diag = diag;
  p->cfg = cfg;
  /* A UTF-8 byte-order mark, which some Windows editors write, is not part of the text. */
  size_t pos = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
  scan_marker(p, buf + pos, len - pos);
  int first_only = opts && (opts->flags & NN_PARSE_FIRST_ERROR);
  while (pos < len && !(first_only && p->errors)) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
    p->line++;
    parse_line(p, buf + pos, n);
    pos += n + 1;
  }
  for (int i = 0; i < nn_config_n_directives && !(first_only && p->errors); i++)
    if (nn_config_directives[i].finish) nn_config_directives[i].finish(p);
  if (!p->errors && nn_gpus_install(p)) {
    p->line = 0;
    nn_perr(p, "out of memory");
  }
  int errors = p->errors;
  free(p->gpus);
  free(p);
  if (errors) { /* a rejected file lists its refused lines among its problems */
    for (int i = 0; i < cfg->refused.n; i++) nn_diag_add(diag, "%s", cfg->refused.msgs[i]);
    if (diag) diag->dropped += cfg->refused.dropped;
    nn_config_free(cfg);
    return -1;
  }
  if (out) *out = cfg;
  else nn_config_free(cfg);
  return 0;
}

void nn_config_free(struct nn_config *cfg) {
  if (!cfg) return;
  for (int i = 0; i < cfg->n_numas; i++) free(cfg->numas[i].cpus);
  for (int i = 0; i < cfg->n_envs; i++) {
    free(cfg->envs[i].name);
    free(cfg->envs[i].value);
  }
  nn_diag_clear(&cfg->refused);
  nn_diag_clear(&cfg->notes);
  for (int i = 0; i < cfg->n_files; i++) free(cfg->files[i]);
  free(cfg->files);
  free(cfg->numas);
  free(cfg->envs);
  free(cfg->rules);
  free(cfg->gpus);
  free(cfg->path);
  free(cfg);
}
