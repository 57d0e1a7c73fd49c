/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_validate.c - the topology XML validator on in-memory documents,
 * and on thousands of mangled ones (no crash, no leak under ASan). */
#include "nn_test.h"

#include "cli/topo/topo_summary.h"
#include "cli/topo/topo_validate.h"

static const char good[] = "<system version=\"1\">\n"
                           " <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\" "
                           "vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"17\">\n"
                           "  <pci busid=\"0000:c1:00.0\" class=\"0x030000\" link_speed=\"32.0 "
                           "GT/s PCIe\" link_width=\"16\"/>\n"
                           " </cpu>\n"
                           " <cpu numaid=\"1\" affinity=\"ffff0000\" arch=\"x86_64\" "
                           "vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"17\">\n"
                           "  <pci busid=\"0000:41:00.0\" class=\"0x030000\"/>\n"
                           " </cpu>\n"
                           "</system>\n";

static int run(const char *text, const struct nn_config *cfg, struct nn_topo_report *rep) {
  memset(rep, 0, sizeof *rep);
  return nn_topo_validate_buffer("t.xml", text, strlen(text), cfg, rep);
}

/* Whether some finding on `line` contains `needle`. */
static int has(const struct nn_topo_report *rep, int line, const char *needle) {
  for (int i = 0; i < rep->n; i++)
    if (rep->items[i].line == line && strstr(rep->items[i].msg, needle)) return 1;
  return 0;
}

static void expect(const char *text, int errors, int line, const char *needle) {
  struct nn_topo_report rep;
  int n = run(text, NULL, &rep);
  if (n != errors || rep.errors != errors || (needle && !has(&rep, line, needle))) {
    nn_topo_report_print(&rep, "t.xml", stderr);
    fail_msg("wanted %d errors with '%s' at line %d, got %d", errors, needle ? needle : "", line,
             n);
  }
  nn_topo_report_free(&rep);
}

static void test_good(void **state) {
  (void)state;
  expect(good, 0, 0, NULL);
}

static void test_raw_rules(void **state) {
  (void)state;
  expect("<?xml version=\"1.0\"?>\n<system version=\"1\"/>\n", 1, 1, "XML declaration");
  expect("<system version=\"1\">\n\t<cpu numaid=\"0\" affinity=\"00000001\" arch=\"x86_64\" "
         "vendor=\"AuthenticAMD\"/>\n</system>\n",
         1, 2, "tab character (column 1)");
  expect("<system\nversion=\"1\"/>\n", 1, 1, "split over lines");
  expect("<system version=\"1\"  x=\"1\"/>\n", 1, 1, "several spaces");
  expect("<system version = \"1\"/>\n", 1, 1, "no '=' right after");
  expect("<system version=1/>\n", 2, 1, "not quoted"); /* and libxml2's own error */
  expect("<system version=\"1\">text</system>\n", 1, 1, "outside a tag");
  expect("<system version=\"1\"></system >\n", 1, 1, "closing tag");
  expect("<system version=\"1\"><!--a=b --></system>\n", 1, 1, "first word of a comment");
  expect("<system version=\"1\"><![CDATA[x]]></system>\n", 1, 1, "only elements and comments");
  expect("\xef\xbb\xbf<system version=\"1\"/>\n", 1, 1, "byte-order mark");
}

static void test_doctype_never_parsed(void **state) {
  (void)state;
  /* An undefined entity would be a libxml2 error; with the DOCTYPE refused first,
   * only our two findings remain: libxml2 never saw the text. */
  expect("<!DOCTYPE system [<!ENTITY a \"b\">]>\n<system version=\"&a;\"/>\n", 2, 1, "DOCTYPE");
  expect("<system version=\"1\"><!-- <!DOCTYPE x> --></system>\n", 1, 0,
         "'<!DOCTYPE' or '<!ENTITY'");
}

static void test_lengths(void **state) {
  (void)state;
  char doc[1024];
  char v[300];
  memset(v, 'a', sizeof v);
  v[253] = 0;
  snprintf(doc, sizeof doc, "<system version=\"1\" n=\"%s\"/>\n", v);
  expect(doc, 0, 0, NULL); /* 253 characters: still read intact by NCCL */
  v[253] = 'a';
  v[254] = 0;
  snprintf(doc, sizeof doc, "<system version=\"1\" n=\"%s\"/>\n", v);
  expect(doc, 1, 1, "has 254 characters");
  snprintf(doc, sizeof doc, "<system version=\"1\" %s=\"1\"/>\n", v);
  expect(doc, 1, 1, "attribute name of 254 characters");
}

static void test_mapping(void **state) {
  (void)state;
  struct nn_gpu gpus[3] = {
    {.index = 0, .has_bus = 1, .bus = {0, 0x41, 0, 0}, .numa = 1, .line = 5},
    {.index = 1, .has_bus = 1, .bus = {0, 0xc1, 0, 0}, .numa = 1, .line = 6},
    {.index = 2, .has_bus = 1, .bus = {0, 0xd1, 0, 0}, .numa = 0, .line = 7},
  };
  struct nn_config cfg = {.gpus = gpus, .n_gpus = 2};
  struct nn_topo_report rep;
  assert_int_equal(run(good, &cfg, &rep), 1);
  assert_true(
    has(&rep, 3,
        "GPU 1 (0000:c1:00.0) is under numaid 0, but the mapping (line 6) puts it on NUMA node 1"));
  nn_topo_report_free(&rep);
  cfg.n_gpus = 3;
  gpus[1].numa = 0;
  assert_int_equal(run(good, &cfg, &rep), 1);
  assert_true(has(&rep, 1, "GPU 2 (0000:d1:00.0, mapping line 7) is missing"));
  nn_topo_report_free(&rep);
  cfg.n_gpus = 1;
  assert_int_equal(run(good, &cfg, &rep), 1);
  assert_true(has(&rep, 3, "GPU 0000:c1:00.0 is not in the mapping"));
  nn_topo_report_free(&rep);
}

static void test_sorted_and_capped(void **state) {
  (void)state;
  /* 300 lines with a tab each: 300 errors counted, 200 kept, in line order. */
  size_t cap = 64 * 1024;
  char *doc = malloc(cap);
  size_t n = (size_t)sprintf(doc, "<system version=\"1\">\n");
  for (int i = 0; i < 300; i++) n += (size_t)sprintf(doc + n, "\t<!-- x -->\n");
  sprintf(doc + n, "</system>\n");
  struct nn_topo_report rep;
  assert_int_equal(run(doc, NULL, &rep), 300);
  assert_int_equal(rep.n, NN_TOPO_VALIDATE_MAX_PROBLEMS);
  assert_int_equal(rep.dropped, 300 - NN_TOPO_VALIDATE_MAX_PROBLEMS);
  for (int i = 1; i < rep.n; i++) assert_true(rep.items[i - 1].line <= rep.items[i].line);
  nn_topo_report_free(&rep);
  free(doc);
}

static void test_size_cap(void **state) {
  (void)state;
  struct nn_topo_report rep = {0};
  /* The length alone is refused: not one byte is read. */
  assert_int_equal(
    nn_topo_validate_buffer("t.xml", good, NN_TOPO_VALIDATE_MAX_BYTES + 1u, NULL, &rep), 1);
  assert_true(has(&rep, 0, "limit: refused"));
  nn_topo_report_free(&rep);
}

/* Deterministic mangling: truncation, byte flips and splices of markup fragments. */
static void test_mangled_inputs_do_not_crash(void **state) {
  (void)state;
  static const char *const bits[] = {"<",  ">",         "\"", "'",  "&",  "\t", "\n", "<!--", "-->",
                                     "<?", "<!DOCTYPE", "]>", "/>", "</", "=",  " ",  "\r",   "\0"};
  unsigned seed = 12345;
  size_t glen = strlen(good);
  char buf[2048];
  for (int round = 0; round < 3000; round++) {
    memcpy(buf, good, glen);
    size_t len = glen;
    int edits = 1 + round % 6;
    for (int e = 0; e < edits; e++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      const char *b = bits[(seed >> 20) % (sizeof bits / sizeof bits[0])];
      size_t bl = b[0] ? strlen(b) : 1;
      if ((seed >> 4) % 3 == 0) len = at + 1; /* truncate */
      else if (len + bl < sizeof buf) { /* splice */ memmove(buf + at + bl, buf + at, len - at);
        memcpy(buf + at, b, bl);
        len += bl;
      }
    }
    struct nn_topo_report rep = {0};
    nn_topo_validate_buffer("m.xml", buf, len, NULL, &rep);
    assert_true(rep.n <= NN_TOPO_VALIDATE_MAX_PROBLEMS);
    nn_topo_report_free(&rep);
  }
}

/* The summary `check` reads: GPUs per <cpu numaid>, the CPU kind; refusals named. */
static void test_summary(void **state) {
  (void)state;
  static struct nn_topo_summary s;
  char why[256] = "";
  char *f = nn_test_write_file("<system version=\"1\">\n <cpu numaid=\"1\" vendor=\"AuthenticAMD\" "
                               "familyid=\"0x19\" modelid=\"17\">\n"
                               "  <pci busid=\"0000:41:00.0\" class=\"0x060400\">\n   <pci "
                               "busid=\"0000:42:00.0\" class=\"0x030000\"/>\n"
                               "  </pci>\n  <pci busid=\"0000:43:00.0\" class=\"0x020000\"/>\n "
                               "</cpu>\n <cpu numaid=\"0\"/>\n</system>\n");
  assert_int_equal(nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why), 0);
  assert_int_equal(s.n_cpus_with_gpus, 1);
  assert_int_equal(s.n_gpus, 1); /* the display class below a bridge; not the NIC */
  assert_int_equal(s.gpus[0].numaid, 1);
  assert_int_equal(s.gpus[0].bus.bus, 0x42);
  assert_string_equal(s.vendor, "AuthenticAMD");
  assert_int_equal(s.family, 25); /* 0x19 */
  assert_int_equal(s.model, 17);
  nn_test_remove_file(f);
  f = nn_test_write_file("<!DOCTYPE system [<!ENTITY x \"y\">]><system>&x;</system>\n");
  assert_int_equal(nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why), -1);
  assert_string_equal(why, "has a DOCTYPE, which nccl-numa does not read");
  nn_test_remove_file(f);
  f = nn_test_write_file("<topology/>\n");
  assert_int_equal(nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why), -1);
  assert_string_equal(why, "root element is <topology>, not <system>");
  nn_test_remove_file(f);
  f = nn_test_write_file("<system");
  assert_int_equal(nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why), -1);
  assert_non_null(strstr(why, "does not parse as XML"));
  nn_test_remove_file(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_summary),
    cmocka_unit_test(test_good),
    cmocka_unit_test(test_raw_rules),
    cmocka_unit_test(test_doctype_never_parsed),
    cmocka_unit_test(test_lengths),
    cmocka_unit_test(test_mapping),
    cmocka_unit_test(test_sorted_and_capped),
    cmocka_unit_test(test_size_cap),
    cmocka_unit_test(test_mangled_inputs_do_not_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
