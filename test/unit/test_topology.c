/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topology.c - scope of communicators (decided from facts equal on every rank) and the
 * CPU-link verdict (served only where NCCL's graph search survives the two-socket file). */
#include "nn_config.h"
#include "nn_test.h"
#include "topology.h"

#define AMD "cpu vendor=AuthenticAMD family=25 model=17\n"
#define REF \
  AMD "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=1\ngpu 3 " \
      "bus=04:00.0 numa=1\n" \
      "gpu 4 bus=05:00.0 numa=0\ngpu 5 bus=06:00.0 numa=0\ngpu 6 bus=07:00.0 numa=0\ngpu 7 " \
      "bus=08:00.0 numa=0\n"

static void test_scope_reference(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF);
  assert_int_equal(nn_topology_scope(cfg, 4, 1), NN_SCOPE_INTRA); /* TP=4: GPUs 0-3 / 4-7 */
  assert_int_equal(nn_topology_scope(cfg, 2, 1), NN_SCOPE_INTRA);
  assert_int_equal(nn_topology_scope(cfg, 1, 1), NN_SCOPE_INTRA);
  assert_int_equal(nn_topology_scope(cfg, 8, 1), NN_SCOPE_CROSS);   /* TP=8 */
  assert_int_equal(nn_topology_scope(cfg, 5, 1), NN_SCOPE_CROSS);   /* more than 4 per node */
  assert_int_equal(nn_topology_scope(cfg, 3, 1), NN_SCOPE_UNKNOWN); /* 3 does not divide 8 */
  assert_int_equal(nn_topology_scope(cfg, 16, 2), NN_SCOPE_CROSS);  /* 8 per node */
  assert_int_equal(nn_topology_scope(cfg, 8, 2), NN_SCOPE_INTRA);   /* 4 per node */
  assert_int_equal(nn_topology_scope(cfg, 7, 2), NN_SCOPE_UNKNOWN); /* not an integer per node */
  assert_int_equal(nn_topology_scope(cfg, 4, 0), NN_SCOPE_UNKNOWN);
  nn_config_free(cfg);
}

static void test_scope_interleaved_and_single(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n"
                                            "gpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=1\n");
  assert_int_equal(nn_topology_scope(cfg, 2, 1), NN_SCOPE_UNKNOWN); /* blocks {0,1} straddle */
  assert_int_equal(nn_topology_scope(cfg, 3, 1), NN_SCOPE_CROSS);
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=3\ngpu 1 bus=02:00.0 numa=3\n");
  assert_int_equal(nn_topology_scope(cfg, 64, 1), NN_SCOPE_INTRA); /* one NUMA node: always intra */
  nn_config_free(cfg);
  cfg = nn_test_parse("rule algo=ring\n");
  assert_int_equal(nn_topology_scope(cfg, 4, 1), NN_SCOPE_UNKNOWN); /* no GPUs */
  nn_config_free(cfg);
  assert_int_equal(nn_topology_scope(NULL, 4, 1), NN_SCOPE_UNKNOWN);
}

static void test_cpu_kind(void **state) {
  (void)state;
  char *info =
    nn_test_write_file("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                       "model\t\t: 143\nmodel name\t: Xeon\n\nprocessor\t: 1\nvendor_id\t: X\n");
  struct nn_config *cfg = nn_test_parse("gpu 0 bus=01:00.0 numa=0\n");
  struct nn_cpu_kind cpu;
  char err[256];
  assert_int_equal(nn_topology_cpu_kind(cfg, info, &cpu, err, sizeof err), 0);
  assert_string_equal(cpu.vendor, "GenuineIntel");
  assert_int_equal(cpu.family, 6);
  assert_int_equal(cpu.model, 143);
  assert_int_equal(cpu.from_cpuinfo, 1);
  assert_int_equal(nn_topology_cpu_kind(cfg, "/nonexistent/cpuinfo", &cpu, err, sizeof err), -1);
  assert_non_null(strstr(err, "unreadable"));
  nn_config_free(cfg);
  nn_test_remove_file(info);
}

/* The verdict's sentences: the renderers' (the verdict carries a kind and facts only). */
static const char *reason(const struct nn_topo_verdict *v) {
  static char buf[1024];
  nn_topology_verdict_text(v, buf, sizeof buf);
  return buf;
}

static const char *warning(const struct nn_topo_verdict *v) {
  static char buf[512];
  nn_topology_verdict_warning(v, buf, sizeof buf);
  return buf;
}

/* Links for the 8 GPUs of a mapping, as the `pcie=` key gives them. */
static struct nn_verdict_in with_links(int version, int gen, int width, struct nn_pcie_link *l) {
  for (int i = 0; i < 8; i++) l[i] = (struct nn_pcie_link){gen, width, NN_LINK_CONFIG};
  return (struct nn_verdict_in){.nccl_version = version, .links = l};
}

/* Expected values: NCCL's own search (nccl-oracle built from v2.28.9-1, v2.30.7-1 and dev) on the
 * served file and on one flat CPU. */
static void test_verdict_by_release(void **state) {
  (void)state;
  struct nn_config *cfg;
  struct nn_pcie_link l[8];
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0}, zen5 = {"AuthenticAMD", 26, 2, 0},
                     erp = {"GenuineIntel", 6, 207, 0};
  struct nn_topo_verdict v;
  struct nn_verdict_in in;
  cfg = nn_test_parse(REF);
  /* 2.28.9, Hopper, gen5 x16: served 1 x 15 against NCCL's own 2 x 24 */
  in = with_links(22809, 5, 16, l);
  in.runtime_sm = 90;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.kind, NN_VERDICT_WORSE);
  assert_int_equal(v.serve, 0);
  assert_int_equal(v.served.ring.nchannels, 1);
  assert_true(v.served.ring.bw_intra == 15.0f);
  assert_int_equal(v.served.ring.crossings, 2);
  assert_int_equal(v.own.ring.nchannels, 2);
  assert_true(v.own.ring.bw_intra == 24.0f);
  assert_non_null(strstr(reason(&v), "NCCL 2.28.9"));
  assert_non_null(strstr(reason(&v), "ring 1 x 15.0 GB/s"));
  assert_non_null(strstr(reason(&v), "ring 2 x 24.0 GB/s"));
  /* ... gen3 x16: both 1 x 12, served is not worse */
  in = with_links(22809, 3, 16, l);
  in.runtime_sm = 90;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.kind, NN_VERDICT_NOT_WORSE);
  assert_int_equal(v.serve, 1);
  assert_true(nn_search_ring_gbps(&v.served) == 12.0f && nn_search_ring_gbps(&v.own) == 12.0f);
  /* Emerald Rapids, Blackwell: 2 x 20 either way */
  in = with_links(22809, 5, 16, l);
  in.runtime_sm = 120;
  nn_topology_verdict(cfg, &erp, &in, &v);
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.served.ring.nchannels, 2);
  assert_true(v.served.ring.bw_intra == 20.0f);
  /* 2.30.7, Zen 3/4 at 16 GB/s under the 18 GB/s floor: the served search fails */
  in = with_links(23007, 5, 16, l);
  in.runtime_sm = 100;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.serve, 0);
  assert_int_equal(v.served.ring.ok, 0);
  assert_int_equal(v.fails_regardless, 0);
  assert_non_null(strstr(reason(&v), "16 GB/s, below its 18 GB/s floor"));
  /* 2.31.2: Zen 3/4 at 24 GB/s passes, but 1 x 24 is worse than NCCL's own 2 x 24 */
  in = with_links(23102, 5, 16, l);
  in.runtime_sm = 100;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.serve, 0);
  assert_int_equal(v.served.ring.ok, 1);
  assert_int_equal(v.served.ring.nchannels, 1);
  assert_true(v.served.ring.bw_intra == 24.0f);
  assert_int_equal(v.own.ring.nchannels, 2);
  /* Zen 5: the ring passes with 2 x 15, the tree fails and cuts it to 1 channel */
  nn_topology_verdict(cfg, &zen5, &in, &v);
  assert_int_equal(v.serve, 0);
  assert_int_equal(v.served.ring.nchannels, 2);
  assert_true(v.served.ring.bw_intra == 15.0f);
  assert_int_equal(v.served.tree.ok, 0);
  assert_int_equal(v.served.model_nchannels, 1);
  /* gen3 x16 on Blackwell: 12 GB/s under the floor whatever is served */
  in = with_links(23102, 3, 16, l);
  in.runtime_sm = 120;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.fails_regardless, 1);
  assert_int_equal(v.own.ring.ok, 0);
  nn_config_free(cfg);
}

static void test_verdict_modes(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF "topology mode=numa\n");
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0}, spr = {"GenuineIntel", 6, 207, 0};
  struct nn_pcie_link l[8];
  struct nn_verdict_in in = with_links(23007, 5, 16, l);
  struct nn_topo_verdict v;
  nn_topology_verdict(cfg, &amd, &in, &v); /* served although its search fails */
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.served.ring.ok, 0);
  assert_int_equal(v.sm_assumed, 1); /* no sm known: 10.0 assumed */
  nn_config_free(cfg);
  cfg = nn_test_parse(REF "topology mode=off\n");
  nn_topology_verdict(cfg, &spr, &in, &v);
  assert_int_equal(v.kind, NN_VERDICT_MODE_OFF);
  assert_int_equal(v.serve, 0);
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0 sm=120\ngpu 1 bus=02:00.0 numa=0 sm=120\n");
  nn_topology_verdict(cfg, &amd, NULL, &v); /* one NUMA node: always served */
  assert_int_equal(v.kind, NN_VERDICT_ONE_NODE);
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.sm, 120);
  assert_int_equal(v.version_unverified, 1); /* no release known: the newest row */
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0 sm=90\ngpu 1 bus=02:00.0 numa=1 sm=120\n");
  assert_int_equal(nn_topology_declared_sm(cfg), -1);
  nn_topology_verdict(cfg, &amd, NULL, &v);
  assert_int_equal(v.kind, NN_VERDICT_SM_DISAGREE);
  assert_int_equal(v.serve, 0);
  struct nn_cpu_kind unknown = {"", -1, -1, 0};
  nn_topology_verdict(cfg, &unknown, NULL, &v);
  assert_int_equal(v.kind, NN_VERDICT_SM_DISAGREE); /* the first ground found is the one given */
  nn_config_free(cfg);
  cfg = nn_test_parse(AMD "gpu 0 bus=01:00.0 numa=0\n");
  nn_topology_verdict(cfg, &unknown, NULL, &v);
  assert_int_equal(v.kind, NN_VERDICT_CPU_UNKNOWN);
  assert_string_equal(reason(&v),
                      "no topology served: CPU kind unknown (add a `cpu vendor=` line)");
  nn_config_free(cfg);
  cfg = nn_test_parse(REF);
  int count; /* a release newer than the table: its newest row, said so */
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  in = with_links(t[count - 1].last + 2, 5, 16, l);
  nn_topology_verdict(cfg, &amd, &in, &v);
  char buf[160], want[160], ver[16];
  nn_topology_describe_release(&v, buf, sizeof buf);
  nn_nccl_version_format(t[count - 1].last + 2, ver, sizeof ver);
  snprintf(want, sizeof want, "NCCL %s (newer than checked: treated as %s)", ver,
           t[count - 1].name);
  assert_string_equal(buf, want);
  char two[600];
  nn_topology_describe_predictions(&v, "  ", two, sizeof two);
  assert_non_null(strstr(two, "file with 2 CPU nodes"));
  assert_non_null(strstr(two, "flat file (1 CPU node)"));
  assert_non_null(strstr(two, "NCCL's own view"));
  nn_config_free(cfg);
}

/* mode=numa on a file NCCL's model rates slower: the factor, and the warning that carries it.
 * At 4 GiB NCCL's time is bandwidth-bound: the served file's failed search (1 x 0.1 GB/s)
 * against its own view's 2 x 24 GB/s is 480x. */
static void test_verdict_slower(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF "topology mode=numa\n");
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0}, spr = {"GenuineIntel", 6, 207, 0};
  struct nn_pcie_link l[8];
  struct nn_verdict_in in = with_links(22809, 5, 16, l);
  struct nn_topo_verdict v;
  in.runtime_sm = 120;
  in.decide_only = 1; /* as the env plugin asks */
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.kind, NN_VERDICT_MODE_NUMA);
  assert_int_equal(v.serve, 1);
  assert_int_equal(v.pred_gpus, 8);
  assert_true(v.slower > 480 * 0.99 && v.slower < 480 * 1.01);
  assert_int_equal(v.slower_log2, 32);
  assert_non_null(strstr(warning(&v), "(NCCL 2.28.9): NCCL's model makes a 4 GiB all-reduce 480x "
                                      "slower with this file"));
  nn_config_free(cfg);
  /* auto withholds it and gives the same figure instead of inviting mode=numa */
  cfg = nn_test_parse(REF);
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.serve, 0);
  assert_string_equal(warning(&v), "");
  assert_int_equal(v.kind, NN_VERDICT_WORSE);
  assert_non_null(strstr(reason(&v), "NCCL's model makes a 4 GiB all-reduce 480x slower"));
  assert_null(strstr(reason(&v), "A/B with"));
  nn_config_free(cfg);
  /* a file rated no slower (Emerald Rapids: 2 x 20 both ways): served without a warning */
  cfg = nn_test_parse(REF "topology mode=numa\n");
  nn_topology_verdict(cfg, &spr, &in, &v);
  assert_true(v.slower > 0 && v.slower < 1.005);
  assert_string_equal(warning(&v), "");
  char buf[200];
  nn_topology_describe_slower(&v, buf, sizeof buf);
  assert_string_equal(
    buf, "NCCL's model rates an all-reduce of any size no slower with this file than with its "
         "own view");
  nn_config_free(cfg);
}

/* A guest with NUMA nodes (proxmox-numa's): NCCL's own view reads the two sockets from sysfs and
 * fails on 2.28.9 and 2.30.7 (16 GB/s under the 18 GB/s floor), the NUMA file fails the same way,
 * the flat file gives 2 x 24: it is served. On 2.31 the NUMA file passes with 1 x 24 but NCCL's
 * own two-socket view is the same, and the flat file's 2 x 24 beats both. The p2p line changes
 * nothing: NCCL's model gives the same graphs with peer access (p2p-facts.txt). */
static void test_verdict_guest_numa(void **state) {
  (void)state;
  static const char *texts[] = {REF "numa 0 cpus=0-7\nnuma 1 cpus=8-15\n",
                                REF "numa 0 cpus=0-7\nnuma 1 cpus=8-15\np2p ok level=PHB\n"};
  struct nn_cpu_kind amd = {"AuthenticAMD", 25, 17, 0};
  struct nn_pcie_link l[8];
  int sockets[8] = {1, 1, 1, 1, 0, 0, 0, 0};
  static const int versions[] = {22809, 23007, 23102};
  for (size_t t = 0; t < 2; t++) {
    struct nn_config *cfg = nn_test_parse(texts[t]);
    for (size_t k = 0; k < 3; k++) {
      struct nn_verdict_in in = with_links(versions[k], 5, 16, l);
      struct nn_topo_verdict v;
      in.own_numa = sockets;
      nn_topology_verdict(cfg, &amd, &in, &v);
      assert_int_equal(v.kind, NN_VERDICT_FLAT);
      assert_int_equal(v.file, NN_FILE_FLAT);
      assert_int_equal(v.serve, 1);
      assert_int_equal(v.served.ring.nchannels, 2);
      assert_true(v.served.ring.bw_intra == 24.0f);
      assert_int_equal(v.served.ring.crossings, 0);
      assert_true(v.slower > 0 && v.slower < 1.005);
      assert_int_equal(v.own.ring.ok, versions[k] >= 23102);
      assert_non_null(strstr(reason(&v), "topology served (mode=auto"));
      assert_non_null(strstr(reason(&v), "the flat file (every GPU under one CPU node)"));
      assert_null(strstr(reason(&v), "worse"));
      /* the env plugin's path decides the same */
      in.decide_only = 1;
      nn_topology_verdict(cfg, &amd, &in, &v);
      assert_int_equal(v.file, NN_FILE_FLAT);
    }
    nn_config_free(cfg);
  }
  /* the same GPUs in a guest without NUMA nodes: NCCL's own view is the flat one; the flat file
   * would gain nothing, the NUMA file fails: nothing served, and the sentence says so */
  struct nn_config *cfg = nn_test_parse(texts[0]);
  struct nn_verdict_in in = with_links(22809, 5, 16, l);
  struct nn_topo_verdict v;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_int_equal(v.kind, NN_VERDICT_WORSE);
  assert_int_equal(v.file, NN_FILE_NONE);
  assert_non_null(strstr(reason(&v), "NCCL's own view (ring 2 x 24.0 GB/s"));
  assert_non_null(strstr(reason(&v), "its ring search fails"));
  assert_non_null(strstr(reason(&v), "the flat file (ring 2 x 24.0 GB/s, 0 socket crossings | tree "
                                     "2 x 24.0 GB/s): NCCL's own view is flat already"));
  assert_null(strstr(reason(&v), "no slower"));
  /* NCCL's own view on an Intel CPU (2 x 20) against the flat file with the mapping's AMD line
   * (2 x 24): flattening gains nothing there; the CPU kind alone never makes the flat file */
  struct nn_cpu_kind erp = {"GenuineIntel", 6, 207, 0};
  in.own_cpu = &erp;
  nn_topology_verdict(cfg, &amd, &in, &v);
  assert_true(v.own.ring.bw_intra == 20.0f && v.flat.pred.ring.bw_intra == 24.0f);
  assert_int_equal(v.flat_gains, 0);
  assert_int_equal(v.file, NN_FILE_NONE);
  nn_config_free(cfg);
}

/* The flat file's mapping: every GPU on the lowest node, whose CPUs are all the nodes' CPUs. */
static void test_flat_view(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF "numa 0 cpus=0-7\nnuma 1 cpus=8-15\n");
  struct nn_topo_verdict v = {.file = NN_FILE_FLAT};
  static struct nn_flat_view f;
  char err[256];
  const struct nn_config *flat =
    nn_topology_served_view(cfg, &v, "/nonexistent", &f, err, sizeof err);
  assert_non_null(flat);
  assert_int_equal(flat->n_gpus, 8);
  for (int i = 0; i < 8; i++) assert_int_equal(flat->gpus[i].numa, 0);
  assert_int_equal(nn_config_numa_count(flat), 1);
  assert_int_equal(flat->n_numas, 1);
  assert_string_equal(flat->numas[0].cpus, "8-15,0-7");
  assert_int_equal(cfg->gpus[0].numa, 1); /* the mapping itself is untouched */
  v.file = NN_FILE_NUMA;
  assert_ptr_equal(nn_topology_served_view(cfg, &v, NULL, &f, err, sizeof err), cfg);
  nn_config_free(cfg);
}

static void test_describe_sockets(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(REF);
  char buf[64];
  nn_topology_describe_sockets(cfg, buf, sizeof buf);
  assert_string_equal(buf, "NUMA0=4 NUMA1=4");
  nn_config_free(cfg);
  nn_topology_describe_sockets(NULL, buf, sizeof buf);
  assert_string_equal(buf, "no GPUs mapped");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scope_reference),    cmocka_unit_test(test_scope_interleaved_and_single),
    cmocka_unit_test(test_cpu_kind),           cmocka_unit_test(test_verdict_by_release),
    cmocka_unit_test(test_verdict_modes),      cmocka_unit_test(test_verdict_slower),
    cmocka_unit_test(test_verdict_guest_numa), cmocka_unit_test(test_flat_view),
    cmocka_unit_test(test_describe_sockets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
