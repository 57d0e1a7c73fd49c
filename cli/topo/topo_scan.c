/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_scan.c - the raw pass of the topology validator (topo_check.h): the text as
 * NCCL's own reader sees it, before and apart from libxml2's tree.
 *
 * NCCL's parser (NCCL 2.28.9 src/graph/xml.cc) reads bytes, not a tree: it knows only
 * elements and comments, one element per line, single spaces between attributes, no
 * entities. A file libxml2 accepts can still break it, so those rules are checked here. */
#include <ctype.h>
#include <string.h>

#include "cli/topo/topo_check.h"
#include "topo_xml.h"

/* The raw scan follows NCCL's reader: it sees bytes, not a tree, so tabs, the
 * declaration, line breaks inside a tag and entity text are only visible here. */
struct scan {
  const char *s;
  size_t n, i;
  int line;
  struct nn_topo_report *rep;
  int doctype; /* a DOCTYPE was seen: libxml2 never gets the text */
};

static int sc_more(const struct scan *c) { return c->i < c->n; }
static char sc_peek(const struct scan *c, size_t k) { return c->i + k < c->n ? c->s[c->i + k] : 0; }

static int sc_starts(const struct scan *c, const char *lit) {
  size_t l = strlen(lit);
  return c->n - c->i >= l && !memcmp(c->s + c->i, lit, l);
}

static void sc_step(struct scan *c) {
  char ch = c->s[c->i++];
  if (ch == '\n' || (ch == '\r' && sc_peek(c, 0) != '\n')) c->line++;
}

/* Advances past `lit`, or to the end; returns whether it was found. */
static int sc_skip_past(struct scan *c, const char *lit) {
  while (sc_more(c) && !sc_starts(c, lit)) sc_step(c);
  if (!sc_more(c)) return 0;
  for (size_t k = strlen(lit); k; k--) sc_step(c);
  return 1;
}

static int is_space(char ch) { return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'; }

/* Tabs, NUL bytes and a byte-order mark, line by line. Returns 0 when a NUL byte
 * makes the text unusable. */
static int scan_bytes(const char *s, size_t n, struct nn_topo_report *rep) {
  if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
    nn_topo_report_add(rep, 1, 0, "byte-order mark at the start: NCCL's parser expects '<'");
  int line = 1, tab_line = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\0') {
      nn_topo_report_add(rep, line, 0, "NUL byte: not a text file");
      return 0;
    }
    if (s[i] == '\t' && tab_line != line) {
      nn_topo_report_add(rep, line, 0,
                         "tab character (column %zu): NCCL accepts only space, LF and CR "
                         "between elements and attributes",
                         i - line_start + 1);
      tab_line = line;
    }
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n'))) {
      line++;
      line_start = i + 1;
    }
  }
  return 1;
}

static void scan_pi(struct scan *c) {
  int line = c->line;
  if (sc_starts(c, "<?xml") && (is_space(sc_peek(c, 5)) || sc_peek(c, 5) == '?'))
    nn_topo_report_add(c->rep, line, 0,
                       "XML declaration '<?xml ...?>': NCCL's parser rejects it; remove the line");
  else
    nn_topo_report_add(c->rep, line, 0,
                       "processing instruction '<?...?>': NCCL's parser rejects it");
  if (!sc_skip_past(c, "?>")) nn_topo_report_add(c->rep, line, 0, "unterminated '<?'");
}

static void scan_comment(struct scan *c) {
  int line = c->line;
  /* NCCL reads the comment's first word as an element name and fails on '='. */
  for (size_t k = 1; c->i + k < c->n; k++) {
    char ch = c->s[c->i + k];
    if (ch == ' ' || ch == '>' || ch == '/' || ch == '\n' || ch == '\r') break;
    if (ch == '=') {
      nn_topo_report_add(c->rep, line, 0,
                         "'=' in the first word of a comment: NCCL's parser fails on it");
      break;
    }
  }
  c->i += 4;
  if (!sc_skip_past(c, "-->")) nn_topo_report_add(c->rep, line, 0, "unterminated comment");
}

static void scan_doctype(struct scan *c) {
  int line = c->line;
  c->doctype = 1;
  nn_topo_report_add(c->rep, line, 0,
                     "DOCTYPE: refused (no DTDs or entity declarations in a topology file; "
                     "NCCL's parser rejects them too)");
  while (sc_more(c) && sc_peek(c, 0) != '[' && sc_peek(c, 0) != '>') sc_step(c);
  if (sc_peek(c, 0) == '[') {
    /* Internal subset: skip to "]" followed by '>' so its declarations are not scanned as tags. */
    while (sc_more(c)) {
      if (sc_peek(c, 0) == ']') {
        sc_step(c);
        while (sc_more(c) && is_space(sc_peek(c, 0))) sc_step(c);
        if (sc_peek(c, 0) == '>') break;
      } else {
        sc_step(c);
      }
    }
  }
  if (sc_more(c)) sc_step(c);
}

static void scan_other_markup(struct scan *c) {
  nn_topo_report_add(c->rep, c->line, 0, "'%s': NCCL's parser knows only elements and comments",
                     sc_starts(c, "<![CDATA[") ? "<![CDATA[" : "<!");
  sc_skip_past(c, ">");
}

static void scan_close_tag(struct scan *c) {
  int line = c->line;
  c->i += 2;
  size_t start = c->i;
  while (sc_more(c) && !is_space(sc_peek(c, 0)) && sc_peek(c, 0) != '>' && sc_peek(c, 0) != '<')
    c->i++;
  int len = (int)(c->i - start);
  if (sc_peek(c, 0) != '>')
    nn_topo_report_add(c->rep, line, 0,
                       "closing tag '</%.*s' must end with '>' right after the name "
                       "(NCCL's parser fails otherwise)",
                       len > 64 ? 64 : len, c->s + start);
  sc_skip_past(c, ">");
}

/* One tag being scanned, for messages. */
struct tag {
  const char *name;
  int name_len;
  int line;
  int split; /* reported "split over lines" already */
};

static void tag_split(struct scan *c, struct tag *t) {
  if (t->split) return;
  t->split = 1;
  nn_topo_report_add(c->rep, t->line, 0,
                     "attributes of <%.*s> are split over lines: NCCL reads each element "
                     "from one line",
                     t->name_len, t->name);
}

static int is_name_end(char ch) { return is_space(ch) || ch == '>' || ch == '/' || ch == '='; }

/* name="value" at c->i; returns 0, or -1 when the tag cannot be followed further. */
static int scan_attr(struct scan *c, struct tag *t) {
  size_t a = c->i;
  while (sc_more(c) && !is_name_end(sc_peek(c, 0)) && sc_peek(c, 0) != '"' && sc_peek(c, 0) != '\'')
    c->i++;
  int alen = (int)(c->i - a), shown = alen > 64 ? 64 : alen;
  const char *an = c->s + a;
  if (alen > NN_TOPO_XML_MAX_VALUE)
    nn_topo_report_add(c->rep, c->line, 0,
                       "attribute name of %d characters in <%.*s>: NCCL reads at most %d", alen,
                       t->name_len, t->name, NN_TOPO_XML_MAX_VALUE);
  if (sc_peek(c, 0) != '=') {
    nn_topo_report_add(c->rep, c->line, 0,
                       "attribute '%.*s' of <%.*s> has no '=' right after its name", shown, an,
                       t->name_len, t->name);
    return -1;
  }
  c->i++;
  char q = sc_peek(c, 0);
  if (q != '"' && q != '\'') {
    nn_topo_report_add(c->rep, c->line, 0,
                       "value of '%.*s' in <%.*s> is not quoted right after '='", shown, an,
                       t->name_len, t->name);
    return -1;
  }
  c->i++;
  size_t v = c->i;
  int amp = 0;
  while (sc_more(c) && sc_peek(c, 0) != q) {
    char ch = sc_peek(c, 0);
    if (ch == '\n' || ch == '\r') tag_split(c, t);
    amp |= ch == '&';
    sc_step(c);
  }
  if (!sc_more(c)) {
    nn_topo_report_add(c->rep, t->line, 0, "unterminated value of '%.*s' in <%.*s>", shown, an,
                       t->name_len, t->name);
    return -1;
  }
  size_t vlen = c->i - v;
  c->i++;
  if (vlen > NN_TOPO_XML_MAX_VALUE)
    nn_topo_report_add(c->rep, t->line, 0,
                       "value of '%.*s' in <%.*s> has %zu characters: NCCL reads at most %d", shown,
                       an, t->name_len, t->name, vlen, NN_TOPO_XML_MAX_VALUE);
  if (amp)
    nn_topo_report_add(c->rep, t->line, 0,
                       "value of '%.*s' in <%.*s> contains '&' (an entity or character "
                       "reference): NCCL does not decode entities; write the plain value",
                       shown, an, t->name_len, t->name);
  return 0;
}

/* Spaces (and line breaks) before an attribute or the end of the tag. */
static void scan_gap(struct scan *c, struct tag *t) {
  size_t spaces = 0;
  int other = 0;
  while (sc_more(c) && is_space(sc_peek(c, 0))) {
    char ch = sc_peek(c, 0);
    if (ch == ' ') spaces++;
    else other = 1;
    if (ch == '\n' || ch == '\r') tag_split(c, t);
    sc_step(c);
  }
  char next = sc_peek(c, 0);
  if (next == '>' || next == '/') {
    if (!t->split)
      nn_topo_report_add(c->rep, t->line, 1,
                         "space before the end of <%.*s>: NCCL reads it as an empty attribute",
                         t->name_len, t->name);
  } else if (spaces > 1 && !other) {
    nn_topo_report_add(c->rep, t->line, 0,
                       "several spaces between attributes of <%.*s>: NCCL wants exactly one",
                       t->name_len, t->name);
  }
}

static void scan_start_tag(struct scan *c) {
  struct tag t = {.line = c->line};
  c->i++;
  size_t start = c->i;
  while (sc_more(c) && !is_name_end(sc_peek(c, 0)) && sc_peek(c, 0) != '<') c->i++;
  t.name = c->s + start;
  t.name_len = (int)(c->i - start);
  if (t.name_len == 0) nn_topo_report_add(c->rep, t.line, 0, "'<' not followed by an element name");
  if (t.name_len > NN_TOPO_XML_MAX_VALUE)
    nn_topo_report_add(c->rep, t.line, 0, "element name of %d characters: NCCL reads at most %d",
                       t.name_len, NN_TOPO_XML_MAX_VALUE);
  if (t.name_len > 64) t.name_len = 64;
  while (sc_more(c)) {
    char ch = sc_peek(c, 0);
    if (ch == '>') {
      c->i++;
      return;
    }
    if (ch == '/' && sc_peek(c, 1) == '>') {
      c->i += 2;
      return;
    }
    if (is_space(ch)) {
      scan_gap(c, &t);
      ch = sc_peek(c, 0);
      if (ch == '>' || ch == '/' || !sc_more(c)) continue;
      if (scan_attr(c, &t) == 0) continue;
    } else {
      nn_topo_report_add(c->rep, c->line, 0,
                         "unexpected '%c' in <%.*s>: expected a space, '>' or '/>'",
                         isprint((unsigned char)ch) ? ch : '?', t.name_len, t.name);
    }
    /* Resynchronise at the end of this tag. */
    while (sc_more(c) && sc_peek(c, 0) != '>' && sc_peek(c, 0) != '<') sc_step(c);
    if (sc_peek(c, 0) == '>') c->i++;
    return;
  }
  nn_topo_report_add(c->rep, t.line, 0, "unterminated <%.*s>", t.name_len, t.name);
}

static void scan_text(struct scan *c) {
  int line = c->line;
  char ch = sc_peek(c, 0);
  nn_topo_report_add(c->rep, line, 0,
                     "text '%c' outside a tag: NCCL's parser expects only '<' and whitespace",
                     isprint((unsigned char)ch) ? ch : '?');
  while (sc_more(c) && sc_peek(c, 0) != '<') sc_step(c);
}

static void scan_markup(struct scan *c) {
  while (sc_more(c)) {
    char ch = sc_peek(c, 0);
    if (is_space(ch)) sc_step(c);
    else if (ch != '<') scan_text(c);
    else if (sc_starts(c, "<?")) scan_pi(c);
    else if (sc_starts(c, "<!--")) scan_comment(c);
    else if (sc_starts(c, "<!DOCTYPE")) scan_doctype(c);
    else if (sc_starts(c, "<!")) scan_other_markup(c);
    else if (sc_starts(c, "</")) scan_close_tag(c);
    else scan_start_tag(c);
  }
}

int nn_topo_scan_text(const char *buf, size_t len, struct nn_topo_report *rep) {
  if (!scan_bytes(buf, len, rep)) return 0;
  struct scan c = {.s = buf, .n = len, .line = 1, .rep = rep};
  if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) c.i = 3; /* reported by scan_bytes */
  scan_markup(&c);
  if (!c.doctype && (memmem(buf, len, "<!DOCTYPE", 9) || memmem(buf, len, "<!ENTITY", 8))) {
    /* Hidden from the scan (in a comment, say): still never handed to libxml2. */
    nn_topo_report_add(rep, 0, 0, "'<!DOCTYPE' or '<!ENTITY' in the text: refused");
    c.doctype = 1;
  }
  /* A DOCTYPE is refused outright: libxml2 never sees entity declarations. */
  return !c.doctype;
}
