/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_xml.c - the generated NCCL topology XML and the CPU-list conversion. */
#include "nn_test.h"

#include <pthread.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "numparse.h"
#include "topo_xml.h"

/* ---- cpumap conversion (expected values worked out by hand) ---- */

static void expect_map(const char *list, const char *want) {
  char out[300];
  int n = nn_cpulist_to_cpumap(list, out, sizeof out);
  if (n < 0) fail_msg("'%s' refused (%d)", list, n);
  assert_string_equal(out, want);
  assert_int_equal(n, (int)strlen(want));
}

static void test_cpumap_cases(void **state) {
  (void)state;
  expect_map("0", "00000001");
  expect_map("31", "80000000");
  expect_map("32", "00000001,00000000");
  expect_map("0-3\n", "0000000f");
  expect_map("  8-15 ", "0000ff00");
  expect_map("1,3,5", "0000002a");
  expect_map("4-7,0", "000000f1");
  expect_map("0-63", "ffffffff,ffffffff");
  expect_map("16-47", "0000ffff,ffff0000");
  expect_map("0-31,64-95", "ffffffff,00000000,ffffffff");
  expect_map("32-63,96-127", "ffffffff,00000000,ffffffff,00000000");
  expect_map("0-3,2-5", "0000003f"); /* overlap is harmless */
  expect_map("100", "00000010,00000000,00000000,00000000");
}

static void test_cpumap_widest(void **state) {
  (void)state;
  /* 896 CPUs = 28 words = 28*8 + 27 commas = 251 characters: the most that fits. */
  char out[300];
  assert_int_equal(nn_cpulist_to_cpumap("0-895", out, sizeof out), 251);
  for (int i = 0; i < 251; i++) assert_true(out[i] == ((i % 9 == 8) ? ',' : 'f'));
  assert_true(strlen(out) <= NN_TOPO_XML_MAX_VALUE);
  /* CPU 895 alone: the top bit of the first word. */
  assert_int_equal(nn_cpulist_to_cpumap("895", out, sizeof out), 251);
  assert_memory_equal(out, "80000000,00000000", 17);
}

static void test_cpumap_errors(void **state) {
  (void)state;
  const char *bad[] = {"",        "\n",  " ",     "a",  "3-1", "1,,2",  "1-",
                       "-1",      "1 2", "0-31,", ",0", "0x1", "1-2-3", "99999999999999999999",
                       "4194304", "1;2", NULL};
  char out[64];
  for (int i = 0; bad[i]; i++)
    if (nn_cpulist_to_cpumap(bad[i], out, sizeof out) != -1) fail_msg("'%s' accepted", bad[i]);
  assert_int_equal(nn_cpulist_to_cpumap(NULL, out, sizeof out), -1);
  /* "0" needs 8 digits and the NUL. */
  assert_int_equal(nn_cpulist_to_cpumap("0", out, 8), -2);
  assert_int_equal(nn_cpulist_to_cpumap("0", out, 9), 8);
  assert_int_equal(nn_cpulist_to_cpumap("32", out, 17), -2);
  char big[300];
  assert_int_equal(nn_cpulist_to_cpumap("896", big, 256), -2);
}

/* ---- a hand-built mapping ---- */

struct fixture {
  struct nn_config cfg;
  struct nn_gpu gpus[8];
  struct nn_numa numas[2];
  struct nn_cpu_kind cpu;
};

/* The reference machine: GPUs 0-3 on NUMA 1, 4-7 on NUMA 0, bus 01..08. */
static void fixture_init(struct fixture *f, int with_numa_lines) {
  memset(f, 0, sizeof *f);
  for (int i = 0; i < 8; i++) {
    f->gpus[i].index = i;
    f->gpus[i].has_bus = 1;
    f->gpus[i].bus.bus = (uint8_t)(i + 1);
    f->gpus[i].numa = i < 4 ? 1 : 0;
    f->gpus[i].line = 10 + i;
  }
  f->numas[0] = (struct nn_numa){.node = 0, .cpus = "0-31,64-95", .line = 3};
  f->numas[1] = (struct nn_numa){.node = 1, .cpus = "32-63,96-127", .line = 4};
  f->cfg.gpus = f->gpus;
  f->cfg.n_gpus = 8;
  f->cfg.numas = with_numa_lines ? f->numas : NULL;
  f->cfg.n_numas = with_numa_lines ? 2 : 0;
  strcpy(f->cpu.vendor, "AuthenticAMD");
  f->cpu.family = 25;
  f->cpu.model = 17;
}

static char *generate(const struct fixture *f, const char *root, char *err, size_t errsz) {
  char *xml = NULL;
  size_t len = 0;
  int rc = nn_topo_xml_generate(&f->cfg, &f->cpu, root, &xml, &len, err, errsz);
  if (rc) fail_msg("generate failed: %s", err);
  assert_non_null(xml);
  assert_int_equal(len, strlen(xml));
  return xml;
}

static void test_exact_small(void **state) {
  (void)state;
  struct fixture f;
  fixture_init(&f, 1);
  f.cfg.n_gpus = 1;
  f.gpus[0].numa = 0;
  f.gpus[0].bus = (struct nn_busid){.domain = 0xab, .bus = 0xc1, .dev = 0x1f, .func = 7};
  char err[256];
  char *xml = generate(&f, "/nonexistent", err, sizeof err);
  assert_string_equal(xml,
                      "<system version=\"1\">\n"
                      " <cpu numaid=\"0\" affinity=\"ffffffff,00000000,ffffffff\" arch=\"x86_64\" "
                      "vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"17\">\n"
                      "  <pci busid=\"00ab:c1:1f.7\" class=\"0x030000\"/>\n"
                      " </cpu>\n"
                      "</system>\n");
  assert_string_equal(err, "");
  free(xml);
}

/* Every start tag ends on the line it starts on; no tab, no declaration. */
static void check_raw_rules(const char *xml) {
  assert_null(strstr(xml, "<?"));
  assert_null(strchr(xml, '\t'));
  assert_null(strchr(xml, '&'));
  for (const char *p = xml; (p = strchr(p, '<')); p++) {
    const char *gt = strchr(p, '>');
    assert_non_null(gt);
    for (const char *q = p; q < gt; q++) assert_true(*q != '\n' && *q != '\r');
  }
  /* Lines: only spaces before '<', nothing after '>'. */
  for (const char *line = xml; *line;) {
    const char *nl = strchr(line, '\n');
    assert_non_null(nl);
    const char *s = line;
    while (*s == ' ') s++;
    assert_true(*s == '<');
    assert_true(nl[-1] == '>');
    line = nl + 1;
  }
}

static xmlDocPtr parse(const char *xml) {
  xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "gen.xml", NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  assert_non_null(doc);
  assert_null(doc->intSubset);
  return doc;
}

static const char *attr(xmlNodePtr n, const char *name) {
  for (xmlAttrPtr a = n->properties; a; a = a->next)
    if (!strcmp((const char *)a->name, name) && a->children)
      return (const char *)a->children->content;
  return NULL;
}

static int count_attrs(xmlNodePtr n) {
  int k = 0;
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    assert_true(strlen((const char *)a->name) <= NN_TOPO_XML_MAX_VALUE);
    if (a->children)
      assert_true(strlen((const char *)a->children->content) <= NN_TOPO_XML_MAX_VALUE);
    k++;
  }
  return k;
}

static const struct nn_gpu *gpu_by_bus(const struct fixture *f, const char *busid) {
  for (int i = 0; i < f->cfg.n_gpus; i++) {
    char b[16];
    const struct nn_busid *x = &f->gpus[i].bus;
    snprintf(b, sizeof b, "%04x:%02x:%02x.%x", x->domain, x->bus, x->dev, x->func);
    if (!strcmp(b, busid)) return &f->gpus[i];
  }
  return NULL;
}

/* Parses the XML back and checks it against the mapping, element by element. */
static void check_against_mapping(const char *xml, const struct fixture *f, int with_affinity) {
  check_raw_rules(xml);
  xmlDocPtr doc = parse(xml);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  assert_string_equal((const char *)root->name, "system");
  assert_string_equal(attr(root, "version"), "1");
  assert_int_equal(count_attrs(root), 1);
  int last_numa = -1, last_index = -1, seen = 0;
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    assert_string_equal((const char *)c->name, "cpu");
    int numa;
    assert_int_equal(nn_int_parse(attr(c, "numaid"), 0, NN_MAX_NUMA_ID, &numa), 0);
    assert_true(numa > last_numa); /* ascending, unique */
    last_numa = numa;
    last_index = -1;
    assert_string_equal(attr(c, "arch"), "x86_64");
    assert_string_equal(attr(c, "vendor"), f->cpu.vendor);
    assert_true(count_attrs(c) <= NN_TOPO_XML_MAX_ATTRS);
    if (with_affinity) {
      const struct nn_numa *nl = numa == 0 ? &f->numas[0] : &f->numas[1];
      char want[300];
      assert_true(nn_cpulist_to_cpumap(nl->cpus, want, sizeof want) > 0);
      assert_string_equal(attr(c, "affinity"), want);
    }
    for (xmlNodePtr p = c->children; p; p = p->next) {
      if (p->type != XML_ELEMENT_NODE) continue;
      assert_string_equal((const char *)p->name, "pci");
      assert_null(p->children);
      assert_int_equal(count_attrs(p), 2);
      assert_string_equal(attr(p, "class"), "0x030000");
      const struct nn_gpu *g = gpu_by_bus(f, attr(p, "busid"));
      assert_non_null(g);
      assert_int_equal(g->numa, numa);
      assert_true(g->index > last_index); /* GPU index order */
      last_index = g->index;
      seen++;
    }
  }
  assert_int_equal(seen, f->cfg.n_gpus);
  xmlFreeDoc(doc);
}

static void test_reference_machine(void **state) {
  (void)state;
  struct fixture f;
  fixture_init(&f, 1);
  char err[256];
  char *xml = generate(&f, NULL, err, sizeof err);
  check_against_mapping(xml, &f, 1);
  /* NUMA 0 (GPUs 4-7) comes first. */
  assert_true(strstr(xml, "numaid=\"0\"") < strstr(xml, "numaid=\"1\""));
  assert_true(strstr(xml, "0000:05:00.0") < strstr(xml, "0000:01:00.0"));
  /* Identical input, identical bytes. */
  char *again = generate(&f, NULL, err, sizeof err);
  assert_string_equal(xml, again);
  free(again);
  free(xml);
}

static void test_intel_and_unknown_family(void **state) {
  (void)state;
  struct fixture f;
  fixture_init(&f, 1);
  strcpy(f.cpu.vendor, "GenuineIntel");
  f.cpu.family = 6;
  f.cpu.model = 207;
  char err[256];
  char *xml = generate(&f, NULL, err, sizeof err);
  check_against_mapping(xml, &f, 1);
  assert_non_null(strstr(xml, "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\">"));
  free(xml);
  strcpy(f.cpu.vendor, "AuthenticAMD");
  f.cpu.family = f.cpu.model = -1;
  xml = generate(&f, NULL, err, sizeof err);
  check_against_mapping(xml, &f, 1);
  assert_null(strstr(xml, "familyid"));
  assert_null(strstr(xml, "modelid"));
  free(xml);
}

/* Writes <root>/sys/devices/system/node/node<N>/cpulist. */
static void make_cpulist(const char *root, int node, const char *text) {
  char path[512];
  const char *parts[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/node"};
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s%s", root, parts[i]);
    mkdir(path, 0755);
  }
  snprintf(path, sizeof path, "%s/sys/devices/system/node/node%d", root, node);
  mkdir(path, 0755);
  strcat(path, "/cpulist");
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

static void test_affinity_from_sysfs(void **state) {
  (void)state;
  char root[] = "/tmp/nn-topo-sysfs-XXXXXX";
  assert_non_null(mkdtemp(root));
  make_cpulist(root, 0, "0-7,16-23\n");
  struct fixture f;
  fixture_init(&f, 0);
  char err[512];
  char *xml = generate(&f, root, err, sizeof err);
  check_against_mapping(xml, &f, 0);
  assert_non_null(strstr(xml, "<cpu numaid=\"0\" affinity=\"00ff00ff\" arch"));
  assert_non_null(strstr(xml, "<cpu numaid=\"1\" arch")); /* node1 has no cpulist */
  assert_non_null(strstr(err, "NUMA node 1"));
  assert_non_null(strstr(err, "affinity left out"));
  assert_null(strstr(err, "NUMA node 0"));
  free(xml);
  /* An empty cpulist (memory-only node) is no affinity either. */
  make_cpulist(root, 1, "\n");
  xml = generate(&f, root, err, sizeof err);
  assert_non_null(strstr(xml, "<cpu numaid=\"1\" arch"));
  assert_non_null(strstr(err, "NUMA node 1"));
  free(xml);
  /* The mapping's numa line wins over sysfs. */
  fixture_init(&f, 1);
  xml = generate(&f, root, err, sizeof err);
  assert_non_null(strstr(xml, "<cpu numaid=\"0\" affinity=\"ffffffff,00000000,ffffffff\""));
  assert_string_equal(err, "");
  free(xml);
  assert_int_equal(nn_test_remove_tree(root), 0);
}

static void expect_refused(const struct fixture *f, const char *needle) {
  char *xml = (char *)"untouched";
  size_t len = 99;
  char err[256] = "";
  assert_int_equal(nn_topo_xml_generate(&f->cfg, &f->cpu, NULL, &xml, &len, err, sizeof err), -1);
  assert_null(xml);
  assert_int_equal(len, 0);
  if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_refusals(void **state) {
  (void)state;
  struct fixture f;
  fixture_init(&f, 1);
  f.cfg.n_gpus = 0;
  expect_refused(&f, "no gpu lines");
  fixture_init(&f, 1);
  f.gpus[2].has_bus = 0;
  expect_refused(&f, "GPU 2 has no bus=");
  fixture_init(&f, 1);
  f.cpu.vendor[0] = 0;
  expect_refused(&f, "not AuthenticAMD or GenuineIntel");
  fixture_init(&f, 1);
  strcpy(f.cpu.vendor, "HygonGenuine");
  expect_refused(&f, "HygonGenuine");
  fixture_init(&f, 1);
  strcpy(f.cpu.vendor, "GenuineIntel");
  f.cpu.model = -1;
  expect_refused(&f, "family and model");
  fixture_init(&f, 1);
  f.numas[1].cpus = "0-2000";
  expect_refused(&f, "too many CPUs");
  fixture_init(&f, 1);
  f.numas[0].cpus = "7-3";
  expect_refused(&f, "line 3: numa 0 cpus=7-3: not a CPU list");
  fixture_init(&f, 1);
  assert_int_equal(nn_topo_xml_generate(&f.cfg, &f.cpu, NULL, NULL, NULL, NULL, 0), -1);
}

static void test_children_limit(void **state) {
  (void)state;
  struct nn_gpu gpus[130];
  struct fixture f;
  fixture_init(&f, 1);
  for (int i = 0; i < 130; i++)
    gpus[i] =
      (struct nn_gpu){.index = i,
                      .has_bus = 1,
                      .numa = 0,
                      .bus = {.domain = (uint16_t)(i / 32), .bus = 1, .dev = (uint8_t)(i % 32)}};
  f.cfg.gpus = gpus;
  f.cfg.n_gpus = 128;
  char err[256];
  char *xml = generate(&f, NULL, err, sizeof err);
  check_raw_rules(xml);
  free(xml);
  f.cfg.n_gpus = 129;
  expect_refused(&f, "at most 128");
}

struct gen_arg {
  const struct fixture *f;
  char *xml;
};

static void *gen_thread(void *p) {
  struct gen_arg *a = p;
  char err[256];
  size_t len;
  if (nn_topo_xml_generate(&a->f->cfg, &a->f->cpu, NULL, &a->xml, &len, err, sizeof err))
    a->xml = NULL;
  return NULL;
}

/* NCCL asks from several threads at once: every thread gets the same bytes. */
static void test_concurrent_generation(void **state) {
  (void)state;
  struct fixture f;
  fixture_init(&f, 1);
  enum { N = 8 };
  pthread_t th[N];
  struct gen_arg args[N];
  for (int i = 0; i < N; i++) {
    args[i] = (struct gen_arg){.f = &f};
    assert_int_equal(pthread_create(&th[i], NULL, gen_thread, &args[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_non_null(args[i].xml);
    assert_string_equal(args[i].xml, args[0].xml);
  }
  for (int i = 0; i < N; i++) free(args[i].xml);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concurrent_generation),
    cmocka_unit_test(test_cpumap_cases),
    cmocka_unit_test(test_cpumap_widest),
    cmocka_unit_test(test_cpumap_errors),
    cmocka_unit_test(test_exact_small),
    cmocka_unit_test(test_reference_machine),
    cmocka_unit_test(test_intel_and_unknown_family),
    cmocka_unit_test(test_affinity_from_sysfs),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_children_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
