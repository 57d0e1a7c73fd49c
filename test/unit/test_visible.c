/* SPDX-License-Identifier: BSD-3-Clause */
/* test_visible.c - CUDA_VISIBLE_DEVICES against the mapping, and the verdict on one socket's
 * GPUs against NCCL's own code: test/fixtures/nccl-cost/visible-facts.txt holds, per release
 * and one-socket subset of the 4+4, 2+6 and 3+3 mappings, what NCCL (nccl-oracle, written by
 * test/cost/visible_facts.py) does with the file nccl-numa serves and with its own view. */
#include "nn_config.h"
#include "nn_test.h"
#include "numparse.h"
#include "topology.h"
#include "visible.h"
#include "nn_facts.h"

#define VFACTS "test/fixtures/nccl-cost/visible-facts.txt"
#define AMD26 "cpu vendor=AuthenticAMD family=26 model=2\n"

/* A mapping of `layout` ("4+4"): GPU i at bus 0x11+0x10*i, part k on NUMA node k. */
static struct nn_config *mapping(const char *layout, const char *cpu, int sm) {
  char text[4096];
  int len = snprintf(text, sizeof text, "%snuma 0 cpus=0-15\nnuma 1 cpus=16-31\n", cpu);
  int a = layout[0] - '0', b = layout[2] - '0';
  for (int i = 0; i < a + b; i++)
    len +=
      snprintf(text + len, sizeof text - (size_t)len, "gpu %d bus=0000:%02x:00.0 numa=%d sm=%d\n",
               i, 0x11 + 0x10 * i, i < a ? 0 : 1, sm);
  return nn_test_parse(text);
}

static void resolve(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  struct nn_visible v;
  nn_visible_resolve(cfg, NULL, NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_string_equal(v.why, "");
  nn_visible_resolve(cfg, "4,5,6,7", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.n, 4);
  assert_int_equal(v.numa, 1);
  assert_int_equal(v.gpu[0], 4);
  assert_non_null(strstr(v.why, "4 GPUs, all on NUMA node 1"));
  /* CUDA stops at the first entry it cannot read: 2 and 1, then nothing */
  nn_visible_resolve(cfg, "2,1,x,5", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.n, 2);
  assert_int_equal(v.gpu[0], 2);
  assert_int_equal(v.gpu[1], 1);
  nn_visible_resolve(cfg, "3,4", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_SPANS);
  nn_visible_resolve(cfg, "5", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_non_null(strstr(v.why, "one GPU visible"));
  /* an index past the mapping's (the machine's) GPUs ends the list, as CUDA's invalid ordinal
   * does: 0,1,2,9 is 3 GPUs */
  nn_visible_resolve(cfg, "0,1,2,9", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.n, 3);
  assert_non_null(strstr(
    v.why, "GPU 9 is not in the mapping (GPUs 0-7): CUDA stops at the first invalid ordinal"));
  nn_visible_resolve(cfg, "9,0", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_int_equal(v.n, 0);
  assert_non_null(strstr(v.why, "GPU 9 is not in the mapping"));
  /* GPUs on both nodes: the subset applies (NCCL keeps only these), scoped cross when the
   * communicator needs more GPUs than one node holds */
  nn_visible_resolve(cfg, "0,1,4,5", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_SPANS);
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view, scoped;
  nn_visible_view(cfg, &v, own, &view);
  assert_int_equal(view.n_gpus, 4);
  assert_int_equal(nn_config_numa_count(&view), 2);
  assert_int_equal(nn_topology_scope(nn_visible_for_comm(cfg, &v, 4, 1, own, &scoped), 4, 1),
                   NN_SCOPE_CROSS);
  assert_int_equal(nn_topology_scope(nn_visible_for_comm(cfg, &v, 2, 1, own, &scoped), 2, 1),
                   NN_SCOPE_INTRA);
  nn_visible_resolve(cfg, "GPU-8f2b3c1d,GPU-11", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_non_null(strstr(v.why, "need the CUDA driver"));
  assert_non_null(strstr(v.why, "the whole mapping is judged"));
  nn_config_free(cfg);
}

/* The engine's numbering (nn_visible_order): the visible GPUs whatever their nodes and count. */
static void order(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  struct nn_visible v;
  int pos[NN_MAX_GPUS];
  nn_visible_resolve(cfg, NULL, NULL, &v);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), 8);
  assert_int_equal(pos[7], 7);
  nn_visible_resolve(cfg, "7,6,5,4", NULL, &v);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), 4);
  assert_int_equal(pos[0], 7);
  assert_int_equal(pos[3], 4);
  nn_visible_resolve(cfg, "3,4", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_SPANS);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), 2);
  assert_int_equal(pos[1], 4);
  nn_visible_resolve(cfg, "5", NULL, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), 1);
  assert_int_equal(pos[0], 5);
  nn_visible_resolve(cfg, "x", NULL, &v);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), 0);
  nn_visible_resolve(cfg, "0,9", NULL, &v);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS),
                   1); /* CUDA stops at 9: GPU 0 alone */
  nn_visible_resolve(cfg, "GPU-11", NULL, &v);
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_MAX_GPUS), -1);
  nn_config_free(cfg);
}

/* The driver's view: GPUs 6 and 5 of the mapping, then a MIG instance of 5 again. */
static int fake_driver(struct nn_busid *out, int max) {
  static const char *bus[] = {"0000:71:00.0", "0000:61:00.0", "0000:61:00.0"};
  for (int i = 0; i < 3 && i < max; i++) assert_int_equal(nn_busid_parse(bus[i], &out[i]), 0);
  return 3;
}

static int all_eight(struct nn_busid *out, int max) {
  for (int i = 0; i < 8 && i < max; i++)
    out[i] = (struct nn_busid){0, (uint8_t)(0x11 + 0x10 * i), 0, 0};
  return 8;
}

static int no_driver_gpu(struct nn_busid *out, int max) {
  (void)max;
  return nn_busid_parse("0000:e1:00.0", &out[0]) == 0 ? 1 : -1;
}

static void resolve_by_driver(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  struct nn_visible v;
  nn_visible_resolve(cfg, "MIG-0a1b,GPU-22", fake_driver, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.n, 2);
  assert_int_equal(v.gpu[0], 6);
  assert_int_equal(v.gpu[1], 5);
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_view(cfg, &v, own, &view);
  assert_int_equal(view.n_gpus, 2);
  assert_int_equal(view.gpus[0].index, 0);
  assert_int_equal(view.gpus[0].bus.bus, 0x71);
  assert_int_equal(nn_config_numa_count(&view), 1);
  /* the tuner's scope: a communicator of 2 ranks fits the view, of 8 does not */
  assert_ptr_equal(nn_visible_for_comm(cfg, &v, 2, 1, own, &view), &view);
  assert_ptr_equal(nn_visible_for_comm(cfg, &v, 8, 1, own, &view), cfg);
  assert_int_equal(nn_topology_scope(&view, 2, 1), NN_SCOPE_INTRA);
  assert_int_equal(nn_topology_scope(cfg, 8, 1), NN_SCOPE_CROSS);
  /* CUDA_VISIBLE_DEVICES unset (a container showing only some GPUs): the driver's view decides */
  nn_visible_resolve(cfg, NULL, fake_driver, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_non_null(strstr(v.why, "the CUDA devices of this process: 2 GPUs, all on NUMA node 1"));
  nn_visible_resolve(cfg, NULL, all_eight, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_string_equal(v.why, "");
  /* a device whose bus id the mapping lacks: the mapping is another machine's */
  nn_visible_resolve(cfg, "GPU-33", no_driver_gpu, &v);
  assert_int_equal(v.kind, NN_VISIBLE_UNMAPPED);
  assert_int_equal(v.source, NN_VISIBLE_FROM_CUDA);
  assert_non_null(strstr(v.why, "the GPU at 0000:e1:00.0 is not in the mapping t.conf"));
  assert_non_null(strstr(v.why, "no topology served, no rules applied"));
  nn_config_free(cfg);
}

/* A made-up ROOT/proc/driver/nvidia/gpus/ holding a directory per bus id of `list`
 * (space-separated, made in that order); returns ROOT (static). */
static const char *driver_root(const char *list) {
  static char root[64];
  snprintf(root, sizeof root, "/tmp/nn-visible-XXXXXX");
  assert_non_null(mkdtemp(root));
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && mkdir -p proc/driver/nvidia/gpus && cd proc/driver/nvidia/gpus && "
           "for b in %s; do mkdir \"$b\" && echo 'Model: made up' >\"$b/information\"; done",
           root, list);
  assert_int_equal(system(cmd), 0);
  return root;
}

/* The list as the driver shows it: bus order whatever the directory order, names that are
 * not bus ids skipped, the lowest `max` kept, -1 without the directory. */
static void driver_list(void **state) {
  (void)state;
  const char *root = driver_root("0000:81:00.0 0000:51:00.0 0000:71:00.0 0000:61:00.0 registry");
  struct nn_busid b[NN_VISIBLE_MAX];
  assert_int_equal(nn_visible_driver_busids(root, b, NN_VISIBLE_MAX), 4);
  for (int i = 0; i < 4; i++) assert_int_equal(b[i].bus, 0x51 + 0x10 * i);
  assert_int_equal(nn_visible_driver_busids(root, b, 2), 2);
  assert_int_equal(b[0].bus, 0x51);
  assert_int_equal(b[1].bus, 0x61);
  assert_int_equal(nn_test_remove_tree(root), 0);
  assert_int_equal(nn_visible_driver_busids(root, b, NN_VISIBLE_MAX), -1);
}

/* A pod given one socket's 4 GPUs (CUDA_VISIBLE_DEVICES unset, CUDA not loaded): the
 * container's list decides, matched by bus id, and the view renumbers them from 0. */
static void pod_one_socket(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  const char *root = driver_root("0000:81:00.0 0000:71:00.0 0000:61:00.0 0000:51:00.0");
  struct nn_visible v;
  nn_visible_resolve_at(cfg, NULL, NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.source, NN_VISIBLE_FROM_PROC);
  assert_int_equal(v.n, 4);
  assert_int_equal(v.numa, 1);
  for (int i = 0; i < 4; i++) assert_int_equal(v.gpu[i], 4 + i);
  assert_non_null(
    strstr(v.why, "the GPUs the NVIDIA driver shows this container: 4 GPUs, all on NUMA node 1"));
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_view(cfg, &v, own, &view);
  assert_int_equal(view.n_gpus, 4);
  assert_int_equal(view.gpus[0].index, 0);
  assert_int_equal(view.gpus[0].bus.bus, 0x51);
  assert_int_equal(view.gpus[3].numa, 1);
  assert_ptr_equal(nn_visible_for_comm(cfg, &v, 4, 1, own, &view), &view);
  /* CUDA_VISIBLE_DEVICES=1,2 in that pod: CUDA's 1 and 2 there are the node's GPUs 5 and 6 */
  nn_visible_resolve_at(cfg, "1,2", NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.gpu[0], 5);
  assert_int_equal(v.gpu[1], 6);
  assert_non_null(
    strstr(v.why, "CUDA_VISIBLE_DEVICES=1,2 of the GPUs the NVIDIA driver shows this container"));
  /* ... and an index past the pod's GPUs ends the list, as CUDA does: one GPU left */
  nn_visible_resolve_at(cfg, "3,4", NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_non_null(strstr(v.why, "one GPU visible"));
  /* the CUDA driver, once loaded, wins over the list */
  nn_visible_resolve_at(cfg, NULL, fake_driver, root, &v);
  assert_int_equal(v.source, NN_VISIBLE_FROM_CUDA);
  assert_int_equal(v.n, 2);
  /* without the list the mapping's indices are read, as before */
  nn_visible_resolve_at(cfg, "1,2", NULL, "/nonexistent", &v);
  assert_int_equal(v.source, NN_VISIBLE_FROM_VARIABLE);
  assert_int_equal(v.gpu[0], 1);
  nn_visible_resolve_at(cfg, NULL, NULL, "/nonexistent", &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_string_equal(v.why, "");
  assert_int_equal(nn_test_remove_tree(root), 0);
  nn_config_free(cfg);
}

/* A pod given both sockets' GPUs: all 8 is the whole mapping, silently; 2 of each, the whole
 * mapping's verdict, said. */
static void pod_both_sockets(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  const char *root = driver_root("0000:11:00.0 0000:21:00.0 0000:31:00.0 0000:41:00.0 "
                                 "0000:51:00.0 0000:61:00.0 0000:71:00.0 0000:81:00.0");
  struct nn_visible v;
  nn_visible_resolve_at(cfg, NULL, NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_int_equal(v.n, 8); /* listed, in bus order, for the engine's binding */
  assert_string_equal(v.why, "");
  int pos[NN_VISIBLE_MAX];
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_VISIBLE_MAX), 8);
  assert_int_equal(pos[7], 7);
  /* a mapping's index entries on a host whose driver shows all its GPUs: as before */
  nn_visible_resolve_at(cfg, "6,7", NULL, root, &v);
  assert_int_equal(v.source, NN_VISIBLE_FROM_VARIABLE);
  assert_int_equal(v.gpu[0], 6);
  assert_int_equal(nn_test_remove_tree(root), 0);
  root = driver_root("0000:31:00.0 0000:41:00.0 0000:51:00.0 0000:61:00.0");
  nn_visible_resolve_at(cfg, NULL, NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_SPANS);
  assert_int_equal(v.n, 4);
  assert_non_null(strstr(
    v.why, "this container: 4 GPUs on more than one NUMA node; NCCL keeps only these of the file"));
  assert_int_equal(nn_test_remove_tree(root), 0);
  nn_config_free(cfg);
}

/* A pod with a GPU the mapping does not list: nothing applies, and the message says which
 * GPU and which file. A mapping without bus ids cannot be matched: read as before. */
static void pod_unmapped_gpu(void **state) {
  (void)state;
  struct nn_config *cfg = mapping("4+4", AMD26, 120);
  const char *root = driver_root("0000:51:00.0 0000:61:00.0 0000:e1:00.0");
  struct nn_visible v;
  nn_visible_resolve_at(cfg, NULL, NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_UNMAPPED);
  assert_int_equal(v.n, 0);
  int pos[NN_VISIBLE_MAX];
  assert_int_equal(nn_visible_order(cfg, &v, pos, NN_VISIBLE_MAX), -1); /* no binding either */
  assert_string_equal(
    v.why,
    "the GPUs the NVIDIA driver shows this container: the GPU at 0000:e1:00.0 is not in "
    "the mapping t.conf (no gpu line with bus=0000:e1:00.0): the mapping does not describe this "
    "machine: no topology served, no rules applied");
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_view(cfg, &v, own, &view);
  assert_int_equal(view.n_gpus, 8);
  /* a host-side mapping (the CLI reads one; its gpu lines have no bus=) */
  for (int i = 0; i < cfg->n_gpus; i++) cfg->gpus[i].has_bus = 0;
  nn_visible_resolve_at(cfg, NULL, NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ALL);
  assert_string_equal(v.why, "");
  nn_visible_resolve_at(cfg, "0,1", NULL, root, &v);
  assert_int_equal(v.kind, NN_VISIBLE_ONE_NODE);
  assert_int_equal(v.source, NN_VISIBLE_FROM_VARIABLE);
  assert_int_equal(nn_test_remove_tree(root), 0);
  nn_config_free(cfg);
}

/* One case block of the facts file: its header fields and the text of its lines after it. */
/* The number after `key` in `s` (e.g. "-node" in a case name). */
static int int_after(const char *s, const char *key) {
  const char *at = strstr(s, key);
  int v;
  if (!at || nn_int_parse_prefix(at + strlen(key), 0, 1000000, &v, NULL))
    fail_msg("no number after '%s' in %s", key, s);
  return v;
}

/* The plugin's verdict on the served block's GPUs, as the env plugin computes it. */
static void check_verdict(const struct nn_fact_block *served) {
  char layout[4];
  snprintf(layout, sizeof layout, "%.3s", served->name); /* "4+4" */
  int first = int_after(served->name, "-g"), n = int_after(served->name + 4, "+");
  assert_int_equal(served->ranks, n); /* one rank per visible GPU */
  struct nn_config *cfg = mapping(
    layout, served->amd ? AMD26 : "cpu vendor=GenuineIntel family=6 model=207\n", served->sm);
  char list[64] = "";
  for (int i = first; i < first + n; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i > first ? "," : "", i);
  struct nn_visible vis;
  nn_visible_resolve(cfg, list, NULL, &vis);
  assert_int_equal(vis.kind, NN_VISIBLE_ONE_NODE);
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_view(cfg, &vis, own, &view);
  struct nn_pcie_link links[NN_SEARCH_MAX_GPUS];
  int flat[NN_SEARCH_MAX_GPUS];
  for (int i = 0; i < NN_SEARCH_MAX_GPUS; i++) {
    links[i] = (struct nn_pcie_link){5, 16, NN_LINK_SYSFS};
    flat[i] = -1;
  }
  struct nn_cpu_kind cpu;
  char err[256];
  assert_int_equal(nn_topology_cpu_kind(&view, NULL, &cpu, err, sizeof err), 0);
  struct nn_verdict_in in = {.nccl_version = nn_facts_version(served->rel),
                             .links = links,
                             .own_numa = flat,
                             .own_cpu = &cpu};
  struct nn_topo_verdict v;
  nn_topology_verdict(&view, &cpu, &in, &v);
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.predicted, 1);
  char what[200];
  snprintf(what, sizeof what, "%s %s ring", served->rel, served->name);
  nn_facts_expect_graph(what, served->ring, v.served.model_nchannels, &v.served.ring);
  nn_facts_expect_graph(what, served->ring, v.own.model_nchannels, &v.own.ring);
  snprintf(what, sizeof what, "%s %s tree", served->rel, served->name);
  nn_facts_expect_graph(what, served->tree, v.served.model_nchannels, &v.served.tree);
  /* the env plugin's path: no prediction needed, the same decision */
  in.decide_only = 1;
  nn_topology_verdict(&view, &cpu, &in, &v);
  assert_int_equal(v.serve, 1);
  /* the whole mapping keeps its verdict: both sockets, not this one's file */
  nn_visible_resolve(cfg, NULL, NULL, &vis);
  nn_visible_view(cfg, &vis, own, &view);
  assert_int_equal(view.n_gpus, cfg->n_gpus);
  nn_config_free(cfg);
}

static void oracle_subsets(void **state) {
  (void)state;
  size_t len;
  char *text = nn_test_slurp(VFACTS, &len);
  const char *p = text;
  struct nn_fact_block served = {.body_len = 0}, own = {.body_len = 0};
  int pairs = 0, releases = 0;
  char last_rel[16] = "";
  while ((p = nn_facts_read_block(p, &served)) != NULL) {
    p = nn_facts_read_block(p, &own);
    assert_non_null(p);
    assert_non_null(strstr(served.name, "-served-"));
    assert_non_null(strstr(own.name, "-own-"));
    /* NCCL's fact: the served one-node file and its own view give the same graphs and choices */
    if (!served.body || !own.body) fail_msg("a case without its lines");
    if (served.body_len != own.body_len || memcmp(served.body, own.body, served.body_len))
      fail_msg("%s %s: NCCL's graphs or choice differ from its own view's", served.rel,
               served.name);
    check_verdict(&served);
    releases += strcmp(last_rel, served.rel) != 0;
    snprintf(last_rel, sizeof last_rel, "%s", served.rel);
    pairs++;
  }
  /* three releases x six subsets x two GPU kinds */
  assert_int_equal(releases, 3);
  assert_int_equal(pairs, 36);
  printf("%d one-socket subsets: NCCL's choice the same served and flat, the plugin's search and "
         "verdict agree\n",
         pairs);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(resolve),           cmocka_unit_test(order),
    cmocka_unit_test(resolve_by_driver), cmocka_unit_test(driver_list),
    cmocka_unit_test(pod_one_socket),    cmocka_unit_test(pod_both_sockets),
    cmocka_unit_test(pod_unmapped_gpu),  cmocka_unit_test(oracle_subsets)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
