/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_topo_xml_golden.c - the plugin's own XML writer against libxml2: every topology
 * file of topo_xml_cases.h is written, parsed with libxml2 (strictly: no recovery) and
 * compared, bytes and tree, with the golden file the libxml2-based writer produced
 * (test/fixtures/topo-xml); and the writer's escaping is read back through libxml2.
 */
#include "nn_test.h"

#include <errno.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "topo_xml.h"
#include "topo_xml_cases.h"
#include "xml_writer.h"

static xmlDocPtr parse_strict(const char *text, size_t len, const char *what) {
  xmlDocPtr doc =
    xmlReadMemory(text, (int)len, what, NULL,
                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOENT);
  if (!doc) fail_msg("%s: libxml2 cannot parse it", what);
  return doc;
}

/* Element by element, attribute by attribute, in order: 0 when the trees are equal. */
static int same_tree(xmlNodePtr a, xmlNodePtr b, const char *what) {
  for (; a || b; a = a->next, b = b->next) {
    while (a && a->type != XML_ELEMENT_NODE) a = a->next;
    while (b && b->type != XML_ELEMENT_NODE) b = b->next;
    if (!a || !b) return a || b ? (print_error("%s: element counts differ\n", what), 1) : 0;
    if (xmlStrcmp(a->name, b->name))
      return print_error("%s: <%s> vs <%s>\n", what, a->name, b->name), 1;
    xmlAttrPtr x = a->properties, y = b->properties;
    for (; x && y; x = x->next, y = y->next) {
      xmlChar *vx = xmlNodeGetContent((xmlNodePtr)x), *vy = xmlNodeGetContent((xmlNodePtr)y);
      int differ = xmlStrcmp(x->name, y->name) || xmlStrcmp(vx, vy);
      if (differ)
        print_error("%s: <%s> %s=\"%s\" vs %s=\"%s\"\n", what, a->name, x->name, vx, y->name, vy);
      xmlFree(vx);
      xmlFree(vy);
      if (differ) return 1;
    }
    if (x || y) return print_error("%s: <%s> attribute counts differ\n", what, a->name), 1;
    if (same_tree(a->children, b->children, what)) return 1;
  }
  return 0;
}

static char *read_golden(const char *name, size_t *len) {
  char path[256];
  snprintf(path, sizeof path, TXML_GOLDEN_DIR "/%s.xml", name);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fail_msg("%s: no golden file (%s)", path, strerror(errno));
    return NULL;
  }
  static char buf[1 << 16];
  *len = fread(buf, 1, sizeof buf - 1, fp);
  buf[*len] = 0;
  fclose(fp);
  return buf;
}

static void test_every_case_matches_golden(void **state) {
  (void)state;
  char tmp[] = "/tmp/nn-txml-golden-XXXXXX";
  assert_non_null(mkdtemp(tmp));
  int compared = 0;
  for (int i = 0; i < TXML_N_CASES; i++) {
    const struct txml_case *c = &txml_cases[i];
    struct nn_config *cfg = txml_case_config(c);
    if (!cfg) fail_msg("%s: the mapping does not parse", c->name);
    struct nn_cpu_kind cpu;
    char err[512];
    assert_int_equal(nn_topology_cpu_kind(cfg, TXML_CPUINFO, &cpu, err, sizeof err), 0);
    char *xml = NULL;
    size_t len = 0;
    if (nn_topo_xml_generate(cfg, &cpu, txml_case_sysfs(c, tmp), &xml, &len, err, sizeof err))
      fail_msg("%s: %s", c->name, err);
    size_t glen;
    const char *golden = read_golden(c->name, &glen);
    xmlDocPtr mine = parse_strict(xml, len, c->name), old = parse_strict(golden, glen, "golden");
    if (same_tree(xmlDocGetRootElement(mine), xmlDocGetRootElement(old), c->name))
      fail_msg("%s: the tree differs from the golden file's", c->name);
    if (len != glen || memcmp(xml, golden, len))
      fail_msg("%s: same tree, other bytes than the golden file:\n%s", c->name, xml);
    xmlFreeDoc(mine);
    xmlFreeDoc(old);
    free(xml);
    nn_config_free(cfg);
    compared++;
  }
  assert_int_equal(compared, TXML_N_CASES);
  assert_true(compared >= 10);
  assert_int_equal(nn_test_remove_tree(tmp), 0);
}

/* ---- the writer alone ---- */

static char *write_one(const char *attr_value, size_t *len) {
  struct nn_xml_writer w;
  nn_xml_writer_init(&w);
  nn_xml_writer_start(&w, "a");
  nn_xml_writer_attr(&w, "v", attr_value);
  nn_xml_writer_start(&w, "b");
  nn_xml_writer_end(&w);
  nn_xml_writer_end(&w);
  char *text = NULL;
  return nn_xml_writer_finish(&w, &text, len) ? NULL : text;
}

/* Every byte an attribute can hold, escaped or not, reads back through libxml2 unchanged. */
static void test_escaping_reads_back(void **state) {
  (void)state;
  const char *values[] = {"plain",       "a&b",        "<tag>",    "say \"hi\"",        "it's",
                          "tab\there",   "two\nlines", "cr\rlf\n", "&amp; stays &amp;", "]]>",
                          "caf\xc3\xa9", "",           NULL};
  for (int i = 0; values[i]; i++) {
    size_t len;
    char *text = write_one(values[i], &len);
    if (!text) {
      fail_msg("'%s' refused", values[i]);
      return;
    }
    assert_null(strchr(text, '\t'));
    xmlDocPtr doc = parse_strict(text, len, values[i]);
    xmlChar *back = xmlGetProp(xmlDocGetRootElement(doc), (const xmlChar *)"v");
    if (!back || strcmp((const char *)back, values[i]))
      fail_msg("'%s' read back as '%s' from %s", values[i], back ? (const char *)back : "(none)",
               text);
    xmlFree(back);
    xmlFreeDoc(doc);
    free(text);
  }
}

static void test_layout(void **state) {
  (void)state;
  size_t len;
  char *text = write_one("x&y", &len);
  assert_non_null(text);
  assert_string_equal(text, "<a v=\"x&amp;y\">\n <b/>\n</a>\n");
  assert_int_equal(len, strlen(text));
  free(text);
}

static void expect_refused(void (*build)(struct nn_xml_writer *), const char *why) {
  struct nn_xml_writer w;
  nn_xml_writer_init(&w);
  build(&w);
  char *text = (char *)"untouched";
  size_t len = 7;
  if (nn_xml_writer_finish(&w, &text, &len) != -1) fail_msg("not refused: %s", why);
  assert_null(w.buf);
}

static void control_byte(struct nn_xml_writer *w) {
  nn_xml_writer_start(w, "a");
  nn_xml_writer_attr(w, "v", "bell\a");
  nn_xml_writer_end(w);
}
static void bad_element_name(struct nn_xml_writer *w) {
  nn_xml_writer_start(w, "a b");
  nn_xml_writer_end(w);
}
static void bad_attr_name(struct nn_xml_writer *w) {
  nn_xml_writer_start(w, "a");
  nn_xml_writer_attr(w, "v=\"x\" w", "1");
  nn_xml_writer_end(w);
}
static void attr_after_child(struct nn_xml_writer *w) {
  nn_xml_writer_start(w, "a");
  nn_xml_writer_start(w, "b");
  nn_xml_writer_end(w);
  nn_xml_writer_attr(w, "v", "1");
  nn_xml_writer_end(w);
}
static void second_root(struct nn_xml_writer *w) {
  nn_xml_writer_start(w, "a");
  nn_xml_writer_end(w);
  nn_xml_writer_start(w, "b");
  nn_xml_writer_end(w);
}
static void left_open(struct nn_xml_writer *w) { nn_xml_writer_start(w, "a"); }
static void end_without_start(struct nn_xml_writer *w) { nn_xml_writer_end(w); }
static void nothing(struct nn_xml_writer *w) { (void)w; }
static void too_deep(struct nn_xml_writer *w) {
  for (int i = 0; i <= NN_XML_WRITER_MAX_DEPTH; i++) nn_xml_writer_start(w, "a");
  for (int i = 0; i <= NN_XML_WRITER_MAX_DEPTH; i++) nn_xml_writer_end(w);
}

static void test_refusals(void **state) {
  (void)state;
  expect_refused(control_byte, "a control byte XML cannot hold");
  expect_refused(bad_element_name, "an element name with a space");
  expect_refused(bad_attr_name, "an attribute name that would inject another");
  expect_refused(attr_after_child, "an attribute after a child");
  expect_refused(second_root, "a second root element");
  expect_refused(left_open, "an element left open");
  expect_refused(end_without_start, "an end without a start");
  expect_refused(nothing, "an empty document");
  expect_refused(too_deep, "nesting deeper than the writer keeps");
}

/* The writer itself never loads libxml2: this program links it, the plugin does not
 * (test_no_libxml2.sh and abi_conformance --no-libxml2 check the built library). */
int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_case_matches_golden),
    cmocka_unit_test(test_escaping_reads_back),
    cmocka_unit_test(test_layout),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
