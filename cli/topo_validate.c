/* topo_validate.c - checks a topology XML against NCCL's parser rules and a mapping. */
#include "cli/topo_validate.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"
#include "topo_xml.h"

/* ---------------------------------------------------------------- findings */

static void rep_add(struct nn_topo_report *r, int line, int warning, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void rep_add(struct nn_topo_report *r, int line, int warning, const char *fmt, ...) {
  if (warning) r->warnings++;
  else r->errors++;
  if (r->n >= NN_TOPO_VALIDATE_MAX_PROBLEMS) {
    r->dropped++;
    return;
  }
  if (r->n == r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    void *p = realloc(r->items, (size_t)cap * sizeof *r->items);
    if (!p) {
      r->dropped++;
      return;
    }
    r->items = p;
    r->cap = cap;
  }
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *msg = strdup(buf);
  if (!msg) {
    r->dropped++;
    return;
  }
  r->items[r->n++] = (struct nn_topo_problem){.line = line, .warning = warning, .msg = msg};
}

/* Insertion sort by line: stable, so findings of one line keep the order found
 * (at most NN_TOPO_VALIDATE_MAX_PROBLEMS items). */
static void rep_sort(struct nn_topo_report *r, int from) {
  for (int i = from + 1; i < r->n; i++) {
    struct nn_topo_problem p = r->items[i];
    int j = i;
    for (; j > from && r->items[j - 1].line > p.line; j--) r->items[j] = r->items[j - 1];
    r->items[j] = p;
  }
}

void nn_topo_report_print(const struct nn_topo_report *rep, const char *name, FILE *out) {
  for (int i = 0; i < rep->n; i++) {
    const struct nn_topo_problem *p = &rep->items[i];
    if (p->line > 0) fprintf(out, "%s:%d: %s%s\n", name, p->line, p->warning ? "warning: " : "", p->msg);
    else fprintf(out, "%s: %s%s\n", name, p->warning ? "warning: " : "", p->msg);
  }
  if (rep->dropped) fprintf(out, "%s: ... and %d more problems not shown\n", name, rep->dropped);
}

void nn_topo_report_free(struct nn_topo_report *rep) {
  for (int i = 0; i < rep->n; i++) free(rep->items[i].msg);
  free(rep->items);
  memset(rep, 0, sizeof *rep);
}

/* ---------------------------------------------------------------- raw text */

/* The raw scan follows NCCL's reader: it sees bytes, not a tree, so tabs, the
 * declaration, line breaks inside a tag and entity text are only visible here. */
struct scan {
  const char *s;
  size_t n, i;
  int line;
  struct nn_topo_report *rep;
  int doctype;            /* a DOCTYPE was seen: libxml2 never gets the text */
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
    rep_add(rep, 1, 0, "byte-order mark at the start: NCCL's parser expects '<'");
  int line = 1, tab_line = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\0') {
      rep_add(rep, line, 0, "NUL byte: not a text file");
      return 0;
    }
    if (s[i] == '\t' && tab_line != line) {
      rep_add(rep, line, 0, "tab character (column %zu): NCCL accepts only space, LF and CR "
              "between elements and attributes", i - line_start + 1);
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
    rep_add(c->rep, line, 0, "XML declaration '<?xml ...?>': NCCL's parser rejects it; remove the line");
  else
    rep_add(c->rep, line, 0, "processing instruction '<?...?>': NCCL's parser rejects it");
  if (!sc_skip_past(c, "?>")) rep_add(c->rep, line, 0, "unterminated '<?'");
}

static void scan_comment(struct scan *c) {
  int line = c->line;
  /* NCCL reads the comment's first word as an element name and fails on '='. */
  for (size_t k = 1; c->i + k < c->n; k++) {
    char ch = c->s[c->i + k];
    if (ch == ' ' || ch == '>' || ch == '/' || ch == '\n' || ch == '\r') break;
    if (ch == '=') {
      rep_add(c->rep, line, 0, "'=' in the first word of a comment: NCCL's parser fails on it");
      break;
    }
  }
  c->i += 4;
  if (!sc_skip_past(c, "-->")) rep_add(c->rep, line, 0, "unterminated comment");
}

static void scan_doctype(struct scan *c) {
  int line = c->line;
  c->doctype = 1;
  rep_add(c->rep, line, 0, "DOCTYPE: refused (no DTDs or entity declarations in a topology file; "
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
  rep_add(c->rep, c->line, 0, "'%s': NCCL's parser knows only elements and comments",
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
    rep_add(c->rep, line, 0, "closing tag '</%.*s' must end with '>' right after the name "
            "(NCCL's parser fails otherwise)", len > 64 ? 64 : len, c->s + start);
  sc_skip_past(c, ">");
}

/* One tag being scanned, for messages. */
struct tag {
  const char *name;
  int name_len;
  int line;
  int split;              /* reported "split over lines" already */
};

static void tag_split(struct scan *c, struct tag *t) {
  if (t->split) return;
  t->split = 1;
  rep_add(c->rep, t->line, 0, "attributes of <%.*s> are split over lines: NCCL reads each element "
          "from one line", t->name_len, t->name);
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
    rep_add(c->rep, c->line, 0, "attribute name of %d characters in <%.*s>: NCCL reads at most %d",
            alen, t->name_len, t->name, NN_TOPO_XML_MAX_VALUE);
  if (sc_peek(c, 0) != '=') {
    rep_add(c->rep, c->line, 0, "attribute '%.*s' of <%.*s> has no '=' right after its name",
            shown, an, t->name_len, t->name);
    return -1;
  }
  c->i++;
  char q = sc_peek(c, 0);
  if (q != '"' && q != '\'') {
    rep_add(c->rep, c->line, 0, "value of '%.*s' in <%.*s> is not quoted right after '='", shown, an,
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
    rep_add(c->rep, t->line, 0, "unterminated value of '%.*s' in <%.*s>", shown, an, t->name_len, t->name);
    return -1;
  }
  size_t vlen = c->i - v;
  c->i++;
  if (vlen > NN_TOPO_XML_MAX_VALUE)
    rep_add(c->rep, t->line, 0, "value of '%.*s' in <%.*s> has %zu characters: NCCL reads at most %d",
            shown, an, t->name_len, t->name, vlen, NN_TOPO_XML_MAX_VALUE);
  if (amp)
    rep_add(c->rep, t->line, 0, "value of '%.*s' in <%.*s> contains '&' (an entity or character "
            "reference): NCCL does not decode entities; write the plain value", shown, an,
            t->name_len, t->name);
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
      rep_add(c->rep, t->line, 1, "space before the end of <%.*s>: NCCL reads it as an empty attribute",
              t->name_len, t->name);
  } else if (spaces > 1 && !other) {
    rep_add(c->rep, t->line, 0, "several spaces between attributes of <%.*s>: NCCL wants exactly one",
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
  if (t.name_len == 0) rep_add(c->rep, t.line, 0, "'<' not followed by an element name");
  if (t.name_len > NN_TOPO_XML_MAX_VALUE)
    rep_add(c->rep, t.line, 0, "element name of %d characters: NCCL reads at most %d", t.name_len,
            NN_TOPO_XML_MAX_VALUE);
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
      rep_add(c->rep, c->line, 0, "unexpected '%c' in <%.*s>: expected a space, '>' or '/>'",
              isprint((unsigned char)ch) ? ch : '?', t.name_len, t.name);
    }
    /* Resynchronise at the end of this tag. */
    while (sc_more(c) && sc_peek(c, 0) != '>' && sc_peek(c, 0) != '<') sc_step(c);
    if (sc_peek(c, 0) == '>') c->i++;
    return;
  }
  rep_add(c->rep, t.line, 0, "unterminated <%.*s>", t.name_len, t.name);
}

static void scan_text(struct scan *c) {
  int line = c->line;
  char ch = sc_peek(c, 0);
  rep_add(c->rep, line, 0, "text '%c' outside a tag: NCCL's parser expects only '<' and whitespace",
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

/* ---------------------------------------------------------------- tree */

struct seen_cpu { long numaid; int line; };
struct seen_pci { const char *busid; int line; long numaid; int gpu; };

struct tree {
  struct nn_topo_report *rep;
  const struct nn_config *cfg;
  xmlNodePtr first_cpu;
  struct seen_cpu *cpus;
  int n_cpus;
  struct seen_pci *pcis;
  int n_pcis, cap_pcis;
};

static int line_of(xmlNodePtr n) {
  long l = xmlGetLineNo(n);
  return l > 0 && l < 0x7fffffff ? (int)l : 0;
}

/* The plain text of an attribute; "" when it holds entity references. */
static const char *attr(xmlNodePtr n, const char *name) {
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    if (strcmp((const char *)a->name, name)) continue;
    if (!a->children) return "";
    if (a->children->type == XML_TEXT_NODE && !a->children->next)
      return (const char *)a->children->content;
    return "";
  }
  return NULL;
}

static int is_uint_text(const char *v, int hex_ok) {
  if (hex_ok && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && v[2]) {
    for (const char *p = v + 2; *p; p++)
      if (!isxdigit((unsigned char)*p)) return 0;
    return strlen(v) <= 10;
  }
  if (!*v || strlen(v) > 9) return 0;
  for (const char *p = v; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  return 1;
}

static int is_lower_hex(char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); }

/* dddd:bb:dd.f, lowercase, device <= 1f, function <= 7. */
static int busid_ok(const char *v) {
  static const char shape[] = "hhhh:hh:hh.h";
  if (strlen(v) != sizeof shape - 1) return 0;
  for (size_t i = 0; shape[i]; i++) {
    if (shape[i] == 'h' ? !is_lower_hex(v[i]) : v[i] != shape[i]) return 0;
  }
  return strtol(v + 8, NULL, 16) <= 0x1f && v[11] <= '7';
}

/* Comma-separated words of 8 hex digits: the sysfs cpumap format. */
static int cpumap_ok(const char *v) {
  size_t n = strlen(v);
  if (n % 9 != 8) return 0;
  for (size_t i = 0; i < n; i++)
    if (i % 9 == 8 ? v[i] != ',' : !isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

static int class_ok(const char *v) {
  if (strlen(v) != 8 || v[0] != '0' || v[1] != 'x') return 0;
  for (int i = 2; i < 8; i++)
    if (!isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

static int in_list(const char *v, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(v, *list)) return 1;
  return 0;
}

static const char *const arches[] = {"x86_64", "arm64", "ppc64", NULL};
static const char *const vendors[] = {"GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  ", NULL};
static const char *const speeds[] = {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s",
                                     "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                     "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe", NULL};

static void check_counts(struct tree *t, xmlNodePtr n) {
  int attrs = 0, kids = 0;
  for (xmlAttrPtr a = n->properties; a; a = a->next) attrs++;
  for (xmlNodePtr k = n->children; k; k = k->next) kids += k->type == XML_ELEMENT_NODE;
  if (attrs > NN_TOPO_XML_MAX_ATTRS)
    rep_add(t->rep, line_of(n), 0, "<%s> has %d attributes: NCCL reads at most %d", n->name, attrs,
            NN_TOPO_XML_MAX_ATTRS);
  if (kids > NN_TOPO_XML_MAX_CHILDREN)
    rep_add(t->rep, line_of(n), 0, "<%s> has %d child elements: NCCL reads at most %d", n->name, kids,
            NN_TOPO_XML_MAX_CHILDREN);
}

static int same_or_both_missing(const char *a, const char *b) {
  return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Every cpu must describe the same CPU kind as the first one: one message per cpu. */
static void check_cpu_same_kind(struct tree *t, xmlNodePtr n, const char *numaid) {
  static const char *const keys[] = {"arch", "vendor", "familyid", "modelid", NULL};
  if (!t->first_cpu) {
    t->first_cpu = n;
    return;
  }
  char diff[400] = "";
  size_t used = 0;
  for (int k = 0; keys[k]; k++) {
    const char *a = attr(t->first_cpu, keys[k]), *b = attr(n, keys[k]);
    if (same_or_both_missing(a, b) || used >= sizeof diff) continue;
    int w = snprintf(diff + used, sizeof diff - used, "%s%s %s%.32s%s vs %s%.32s%s", used ? ", " : "",
                     keys[k], b ? "'" : "", b ? b : "none", b ? "'" : "", a ? "'" : "",
                     a ? a : "none", a ? "'" : "");
    if (w > 0) used += (size_t)w;
  }
  if (used)
    rep_add(t->rep, line_of(n), 0, "cpu numaid=%s differs from the cpu at line %d (%s): every cpu "
            "must carry the same arch, vendor, familyid and modelid", numaid, line_of(t->first_cpu),
            diff);
}

static void check_cpu_kind(struct tree *t, xmlNodePtr n, const char *id) {
  int line = line_of(n);
  const char *arch = attr(n, "arch"), *vendor = attr(n, "vendor");
  if (!arch) rep_add(t->rep, line, 0, "cpu numaid=%s has no arch (x86_64, arm64 or ppc64)", id);
  else if (!in_list(arch, arches))
    rep_add(t->rep, line, 0, "cpu numaid=%s: arch '%s' is unknown to NCCL (x86_64, arm64 or ppc64)", id, arch);
  if (arch && !strcmp(arch, "x86_64") && !vendor)
    rep_add(t->rep, line, 0, "cpu numaid=%s has no vendor (AuthenticAMD or GenuineIntel)", id);
  else if (vendor && !in_list(vendor, vendors))
    rep_add(t->rep, line, 0, "cpu numaid=%s: vendor '%s' is unknown to NCCL, which then models the "
            "link between CPUs as free (AuthenticAMD or GenuineIntel)", id, vendor);
  const char *fam = attr(n, "familyid"), *mod = attr(n, "modelid");
  if (fam && !is_uint_text(fam, 1))
    rep_add(t->rep, line, 0, "cpu numaid=%s: familyid '%s' is not an integer", id, fam);
  if (mod && !is_uint_text(mod, 1))
    rep_add(t->rep, line, 0, "cpu numaid=%s: modelid '%s' is not an integer", id, mod);
  if (vendor && !strcmp(vendor, "GenuineIntel") && (!fam || !mod))
    rep_add(t->rep, line, 0, "cpu numaid=%s: GenuineIntel needs familyid and modelid (NCCL's model "
            "of the link between CPUs depends on them)", id);
}

/* Returns the numaid, or -1 when missing or malformed. */
static long check_cpu(struct tree *t, xmlNodePtr n) {
  int line = line_of(n);
  const char *id = attr(n, "numaid");
  long numaid = -1;
  int v;
  if (!id) rep_add(t->rep, line, 0, "cpu without numaid (NCCL requires it)");
  else if (!is_uint_text(id, 0) || nn_int_parse(id, 0, INT32_MAX, &v))
    rep_add(t->rep, line, 0, "numaid '%s' is not a non-negative integer", id);
  else numaid = v;
  for (int i = 0; numaid >= 0 && i < t->n_cpus; i++)
    if (t->cpus[i].numaid == numaid)
      rep_add(t->rep, line, 0, "numaid %ld is already used by the cpu at line %d: each cpu needs its own",
              numaid, t->cpus[i].line);
  if (numaid >= 0) t->cpus[t->n_cpus++] = (struct seen_cpu){numaid, line};
  const char *shown = id ? id : "?";
  const char *aff = attr(n, "affinity");
  if (!aff)
    rep_add(t->rep, line, 1, "cpu numaid=%s has no affinity: NCCL then takes it from sysfs, which "
            "inside a VM does not know the host's sockets", shown);
  else if (!cpumap_ok(aff))
    rep_add(t->rep, line, 0, "cpu numaid=%s: affinity '%.64s' is not a sysfs cpumap (comma-separated "
            "words of 8 hex digits, most significant first)", shown, aff);
  check_cpu_kind(t, n, shown);
  check_cpu_same_kind(t, n, shown);
  return numaid;
}

static int has_child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr k = n->children; k; k = k->next)
    if (k->type == XML_ELEMENT_NODE && !strcmp((const char *)k->name, name)) return 1;
  return 0;
}

static const struct nn_gpu *mapping_gpu(const struct nn_config *cfg, const char *busid) {
  for (int i = 0; cfg && i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    char b[16];
    if (!g->has_bus) continue;
    snprintf(b, sizeof b, "%04x:%02x:%02x.%x", (unsigned)g->bus.domain, (unsigned)g->bus.bus,
             (unsigned)g->bus.dev, (unsigned)g->bus.func);
    if (!strcmp(b, busid)) return g;
  }
  return NULL;
}

static void remember_pci(struct tree *t, const char *busid, int line, long numaid, int gpu) {
  if (t->n_pcis == t->cap_pcis) {
    int cap = t->cap_pcis ? t->cap_pcis * 2 : 16;
    void *p = realloc(t->pcis, (size_t)cap * sizeof *t->pcis);
    if (!p) return;
    t->pcis = p;
    t->cap_pcis = cap;
  }
  t->pcis[t->n_pcis++] = (struct seen_pci){busid, line, numaid, gpu};
}

static void check_pci_link(struct tree *t, xmlNodePtr n, const char *bus) {
  const char *speed = attr(n, "link_speed"), *width = attr(n, "link_width");
  if (speed && !in_list(speed, speeds))
    rep_add(t->rep, line_of(n), 0, "pci %s: link_speed '%.64s' is not one NCCL knows (e.g. "
            "\"16.0 GT/s PCIe\", \"32.0 GT/s PCIe\", \"64.0 GT/s PCIe\")", bus, speed);
  if (width && (!is_uint_text(width, 0) || strtol(width, NULL, 10) > 32))
    rep_add(t->rep, line_of(n), 0, "pci %s: link_width '%.64s' is not a lane count (an integer "
            "0-32)", bus, width);
}

static void check_pci(struct tree *t, xmlNodePtr n, long numaid) {
  int line = line_of(n);
  const char *bus = attr(n, "busid"), *cls = attr(n, "class");
  if (!bus) rep_add(t->rep, line, 0, "pci without busid");
  else if (!busid_ok(bus))
    rep_add(t->rep, line, 0, "busid '%.64s' is not dddd:bb:dd.f (4-digit domain, lowercase hex, "
            "device <= 1f, function <= 7): NCCL compares bus ids as strings", bus);
  for (int i = 0; bus && i < t->n_pcis; i++)
    if (!strcmp(t->pcis[i].busid, bus))
      rep_add(t->rep, line, 0, "busid %s already appears at line %d", bus, t->pcis[i].line);
  const char *shown = bus ? bus : "(no busid)";
  if (!cls) rep_add(t->rep, line, 0, "pci %s has no class (NCCL requires it)", shown);
  else if (!class_ok(cls))
    rep_add(t->rep, line, 0, "pci %s: class '%.64s' is not 0xcccccc (six hex digits)", shown, cls);
  int gpu_class = cls && !strncmp(cls, "0x03", 4);
  int gpu = gpu_class || has_child(n, "gpu") || (bus && mapping_gpu(t->cfg, bus));
  if (gpu && cls && !gpu_class)
    rep_add(t->rep, line, 0, "pci %s is a GPU (%s) but its class is '%.64s': a GPU needs 0x03xxxx", shown,
            has_child(n, "gpu") ? "it holds a gpu element" : "the mapping says so", cls);
  check_pci_link(t, n, shown);
  if (bus) remember_pci(t, bus, line, numaid, gpu);
}

static int allowed_child(const char *parent, const char *name) {
  static const char *const rules[][2] = {
    {"system", "cpu"}, {"cpu", "pci"}, {"cpu", "nic"}, {"pci", "pci"}, {"pci", "gpu"},
    {"pci", "nic"}, {"pci", "pcilink"}, {"gpu", "nvlink"}, {"gpu", "c2c"}, {"nic", "net"}};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (!strcmp(rules[i][0], parent) && !strcmp(rules[i][1], name)) return 1;
  return 0;
}

static void walk(struct tree *t, xmlNodePtr parent, long numaid) {
  for (xmlNodePtr n = parent->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    const char *name = (const char *)n->name, *pname = (const char *)parent->name;
    check_counts(t, n);
    long sub = numaid;
    if (!allowed_child(pname, name))
      rep_add(t->rep, line_of(n), 1, "<%.64s> inside <%.64s> is ignored by NCCL", name, pname);
    else if (!strcmp(name, "cpu")) sub = check_cpu(t, n);
    else if (!strcmp(name, "pci")) check_pci(t, n, numaid);
    else if (!strcmp(name, "gpu"))
      rep_add(t->rep, line_of(n), 1, "gpu element: its values (dev, gdr, ...) override NCCL's own "
              "detection; leave gpu elements out");
    walk(t, n, sub);
  }
}

static int count_elements(xmlNodePtr n) {
  int k = 0;
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) k += 1 + count_elements(c);
  return k;
}

static void check_root(struct tree *t, xmlNodePtr root) {
  int line = line_of(root);
  if (strcmp((const char *)root->name, "system")) {
    rep_add(t->rep, line, 0, "root element is <%.64s>: NCCL wants <system version=\"1\">", root->name);
    return;
  }
  check_counts(t, root);
  const char *v = attr(root, "version");
  if (!v) rep_add(t->rep, line, 0, "<system> without version: NCCL wants version=\"1\"");
  else if (strcmp(v, "1")) rep_add(t->rep, line, 0, "<system version=\"%.64s\">: NCCL wants version=\"1\"", v);
}

/* Each GPU of the mapping under the cpu of its NUMA node; no GPU the mapping lacks. */
static void check_mapping(struct tree *t, int root_line) {
  const struct nn_config *cfg = t->cfg;
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    if (!g->has_bus) continue;
    char b[16];
    snprintf(b, sizeof b, "%04x:%02x:%02x.%x", (unsigned)g->bus.domain, (unsigned)g->bus.bus,
             (unsigned)g->bus.dev, (unsigned)g->bus.func);
    const struct seen_pci *p = NULL;
    for (int k = 0; k < t->n_pcis && !p; k++)
      if (!strcmp(t->pcis[k].busid, b)) p = &t->pcis[k];
    if (!p)
      rep_add(t->rep, root_line, 0, "GPU %d (%s, mapping line %d) is missing", g->index, b, g->line);
    else if (p->numaid < 0)
      rep_add(t->rep, p->line, 0, "GPU %d (%s) is not under a cpu with a valid numaid; the mapping "
              "(line %d) puts it on NUMA node %d", g->index, b, g->line, g->numa);
    else if (p->numaid != g->numa)
      rep_add(t->rep, p->line, 0, "GPU %d (%s) is under numaid %ld, but the mapping (line %d) puts it "
              "on NUMA node %d", g->index, b, p->numaid, g->line, g->numa);
  }
  for (int k = 0; k < t->n_pcis; k++)
    if (t->pcis[k].gpu && !mapping_gpu(cfg, t->pcis[k].busid))
      rep_add(t->rep, t->pcis[k].line, 0, "GPU %s is not in the mapping", t->pcis[k].busid);
}

static void check_tree(xmlDocPtr doc, const struct nn_config *cfg, struct nn_topo_report *rep) {
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (doc->intSubset || doc->extSubset) rep_add(rep, 1, 0, "DOCTYPE: refused");
  if (!root) {
    rep_add(rep, 0, 0, "no root element");
    return;
  }
  struct tree t = {.rep = rep, .cfg = cfg};
  t.cpus = calloc((size_t)count_elements(root) + 1, sizeof *t.cpus);
  if (!t.cpus) {
    rep_add(rep, 0, 0, "out of memory");
    return;
  }
  check_root(&t, root);
  if (!strcmp((const char *)root->name, "system")) walk(&t, root, -1);
  if (cfg) check_mapping(&t, line_of(root));
  free(t.cpus);
  free(t.pcis);
}

/* ---------------------------------------------------------------- driver */

static int parse_options(void) {
  /* IGNORE_ENC with UTF-8 forced: libxml2 reads exactly the bytes the raw scan saw. */
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
             XML_PARSE_IGNORE_ENC;
#if LIBXML_VERSION >= 21300
  opts |= XML_PARSE_NO_XXE;
#endif
  return opts;
}

static void parse_and_check(const char *name, const char *buf, size_t len,
                            const struct nn_config *cfg, struct nn_topo_report *rep) {
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    rep_add(rep, 0, 0, "out of memory");
    return;
  }
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, "UTF-8", parse_options());
  if (!doc) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "unknown error");
    msg[strcspn(msg, "\r\n")] = 0;
    rep_add(rep, e ? e->line : 0, 0, "not well-formed XML: %s", msg);
  } else {
    check_tree(doc, cfg, rep);
    xmlFreeDoc(doc);
  }
  xmlFreeParserCtxt(ctxt);
}

int nn_topo_validate_buffer(const char *name, const char *buf, size_t len,
                            const struct nn_config *cfg, struct nn_topo_report *rep) {
  int from = rep->n;
  if (len > NN_TOPO_VALIDATE_MAX_BYTES) {
    rep_add(rep, 0, 0, "%zu bytes, larger than the %u-byte limit: refused", len,
            NN_TOPO_VALIDATE_MAX_BYTES);
    return rep->errors;
  }
  if (len == 0) {
    rep_add(rep, 0, 0, "empty file: NCCL needs <system version=\"1\">");
    return rep->errors;
  }
  if (scan_bytes(buf, len, rep)) {
    struct scan c = {.s = buf, .n = len, .line = 1, .rep = rep};
    if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) c.i = 3;   /* reported by scan_bytes */
    scan_markup(&c);
    if (!c.doctype && (memmem(buf, len, "<!DOCTYPE", 9) || memmem(buf, len, "<!ENTITY", 8))) {
      /* Hidden from the scan (in a comment, say): still never handed to libxml2. */
      rep_add(rep, 0, 0, "'<!DOCTYPE' or '<!ENTITY' in the text: refused");
      c.doctype = 1;
    }
    /* A DOCTYPE is refused outright: libxml2 never sees entity declarations. */
    if (!c.doctype) parse_and_check(name, buf, len, cfg, rep);
  }
  rep_sort(rep, from);
  return rep->errors;
}

/* Reads a regular file of at most NN_TOPO_VALIDATE_MAX_BYTES (the one bounded reader);
 * returns a malloc'd buffer, or NULL with the reason reported. */
static char *read_capped(const char *path, size_t *len, struct nn_topo_report *rep) {
  char *buf = NULL, why[512];
  if (nn_file_read(AT_FDCWD, path, NN_FILE_BARE, NN_TOPO_VALIDATE_MAX_BYTES, &buf, len, why, sizeof why))
    rep_add(rep, 0, 0, "%s", why);
  return buf;
}

int nn_topo_validate_file(const char *path, const struct nn_config *cfg,
                          struct nn_topo_report *rep) {
  size_t len = 0;
  char *buf = read_capped(path, &len, rep);
  if (!buf) return rep->errors;
  nn_topo_validate_buffer(path, buf, len, cfg, rep);
  free(buf);
  return rep->errors;
}

/* ---- the summary `check` reads ---- */

/* A decimal or 0x-hex attribute value, else `fallback`. */
static int attr_int(xmlNodePtr n, const char *name, int fallback) {
  const char *v = attr(n, name);
  int x = fallback;
  if (!v) return fallback;
  if (nn_int_parse(v, 0, INT32_MAX, &x) == 0) return x;
  if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X') || !v[2] || strlen(v + 2) > 7) return fallback;
  long h = 0;
  for (const char *p = v + 2; *p; p++) {
    if (!isxdigit((unsigned char)*p)) return fallback;
    h = h * 16 + (isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
  }
  return (int)h;
}

static void collect_pci(xmlNodePtr n, int numa, struct nn_topo_summary *s, int *count) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE || xmlStrcmp(k->name, (const xmlChar *)"pci")) continue;
    const char *bus = attr(k, "busid"), *cls = attr(k, "class");
    struct nn_busid b;
    if (bus && cls && !strncmp(cls, "0x03", 4) && !nn_busid_parse(bus, &b) && s->n_gpus < NN_TOPO_SUMMARY_MAX_GPUS) {
      s->gpus[s->n_gpus].bus = b;
      s->gpus[s->n_gpus++].numaid = numa;
      (*count)++;
    }
    collect_pci(k, numa, s, count);
  }
}

static void summarise(xmlNodePtr root, struct nn_topo_summary *s) {
  for (xmlNodePtr n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || xmlStrcmp(n->name, (const xmlChar *)"cpu")) continue;
    int count = 0;
    collect_pci(n, attr_int(n, "numaid", -1), s, &count);
    if (!count) continue;
    s->n_cpus_with_gpus++;
    const char *v = attr(n, "vendor");
    snprintf(s->vendor, sizeof s->vendor, "%s", v ? v : "");
    s->family = attr_int(n, "familyid", -1);
    s->model = attr_int(n, "modelid", -1);
  }
}

int nn_topo_summarise_file(const char *path, size_t max, struct nn_topo_summary *s, char *why, size_t whysz) {
  char *buf = NULL;
  size_t len = 0;
  if (nn_file_read(AT_FDCWD, path, NN_FILE_BARE, max, &buf, &len, why, whysz)) return -1;
  int doctype = memmem(buf, len, "<!DOCTYPE", 9) || memmem(buf, len, "<!ENTITY", 8);
  xmlDocPtr doc = len > 0 && !doctype && len <= INT32_MAX ? xmlReadMemory(buf, (int)len, path, NULL, parse_options()) : NULL;
  free(buf);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  int rc = -1;
  if (doctype) nn_errbuf_set(why, whysz, "has a DOCTYPE, which nccl-numa does not read");
  else if (!doc || !root) nn_errbuf_set(why, whysz, "does not parse as XML (NCCL then fails communicator creation)");
  else if (xmlStrcmp(root->name, (const xmlChar *)"system"))
    nn_errbuf_set(why, whysz, "root element is <%.40s>, not <system>", (const char *)root->name);
  else {
    memset(s, 0, sizeof *s);
    s->family = s->model = -1;
    summarise(root, s);
    rc = 0;
  }
  if (doc) xmlFreeDoc(doc);
  return rc;
}
