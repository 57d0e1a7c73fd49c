/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pupdate.c - the mapping's p2p line rewritten in place; see p2pupdate.h. */
#include "cli/p2p/p2pupdate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ascii.h"
#include "cli/common/atomicwrite.h"
#include "cli/common/cliconfig.h"
#include "cli/common/strbuf.h"
#include "fileread.h"
#include "nn_config.h"
#include "trust.h"

/* Whether the line s (n bytes, no newline) is a p2p directive. */
static int is_p2p_line(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  size_t start = i;
  while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') i++;
  if (i - start != 3) return 0;
  char word[4] = {s[start], s[start + 1], s[start + 2], 0};
  return nn_ascii_caseeq(word, "p2p");
}

char *nn_p2pupdate_text(const char *old, size_t len, const char *line, size_t *out_len,
                        int *replaced) {
  struct nn_strbuf b = {0};
  *replaced = 0;
  for (size_t pos = 0; pos < len;) {
    const char *nl = memchr(old + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (old + pos)) : len - pos;
    if (!is_p2p_line(old + pos, n)) nn_strbuf_put(&b, old + pos, n + (nl != NULL));
    else if (!(*replaced)++)
      nn_strbuf_printf(&b, "%s%s", line, n && old[pos + n - 1] == '\r' ? "\r\n" : "\n");
    pos += n + (nl != NULL);
  }
  if (!*replaced) {
    if (len && old[len - 1] != '\n') nn_strbuf_put(&b, "\n", 1);
    nn_strbuf_printf(&b, "%s\n", line);
  }
  if (b.oom) {
    free(nn_strbuf_take(&b));
    return NULL;
  }
  *out_len = b.len;
  return nn_strbuf_take(&b);
}

/* The trusted file's bytes and what it was (for the new file's owner, group and mode). */
static int read_trusted(const char *path, char **buf, size_t *len, struct stat *st, char *err,
                        size_t errsz) {
  int fd = -1;
  int trust = nn_trust_open(NULL, path, &fd, err, errsz);
  if (trust != NN_TRUST_OK && trust != NN_TRUST_OPTED_OUT) return -1;
  int rc = fstat(fd, st) ? (snprintf(err, errsz, "%s: cannot stat: %s", path, strerror(errno)), -1)
                         : nn_file_read_fd(fd, path, NN_MAX_FILE_BYTES, buf, len, err, errsz);
  close(fd);
  return rc;
}

int nn_p2pupdate_file(const char *path, const char *line, int *replaced, char *err, size_t errsz) {
  char *old = NULL, *text;
  size_t len = 0, new_len = 0;
  struct stat st;
  if (read_trusted(path, &old, &len, &st, err, errsz)) return -1;
  text = nn_p2pupdate_text(old, len, line, &new_len, replaced);
  free(old);
  if (!text) {
    snprintf(err, errsz, "%s: out of memory", path);
    return -1;
  }
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  int rc = nn_config_parse(path, text, new_len, NULL, &cfg, &diag);
  if (rc) {
    nn_cli_print_problems(path, &diag);
    snprintf(err, errsz,
             "%s: left as it was: with the new p2p line it would not be a valid mapping", path);
  } else {
    rc = nn_atomicwrite_file(path, text, new_len, &st, err, errsz);
  }
  nn_config_free(cfg);
  nn_diag_clear(&diag);
  free(text);
  return rc ? -1 : 0;
}
