/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_map.c - discover's host mapping and the parts its modes share (discover_map.c). */
#include "cli/discover/discover_parts.h"
#include "nn_test.h"

#define FIX "test/fixtures/hwloc/"
#define ASSUMED "   # numa= assumed by the user (--assume-numa)"

struct sink {
  char *buf;
  size_t len;
  FILE *f;
};

static void sink_open(struct sink *s, struct nn_discover_opts *o) {
  s->buf = NULL;
  s->f = open_memstream(&s->buf, &s->len);
  assert_non_null(s->f);
  o->out = s->f;
  o->no_cuda = 1;
}

static char *sink_close(struct sink *s) {
  fclose(s->f);
  return s->buf;
}

static void assume(struct nn_discover_opts *o, const char *arg) {
  char why[160];
  assert_int_equal(nn_discover_assume_add(o, arg, why, sizeof why), 0);
}

static void test_assume_add(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  char why[160], id[32];
  assume(&o, "0000:81:00.0=1");
  assert_int_equal(o.n_assumed, 1);
  assert_int_equal(o.assumed[0].numa, 1);
  assert_false(o.assumed[0].used);
  nn_busid_format(&o.assumed[0].bus, id, sizeof id);
  assert_string_equal(id, "0000:81:00.0");
  assert_int_equal(nn_discover_assume_add(&o, "81:00.0", why, sizeof why), -1);
  assert_string_equal(why, "--assume-numa wants BUSID=NODE, got '81:00.0'");
  assert_int_equal(nn_discover_assume_add(&o, "82:00.0=1024", why, sizeof why), -1);
  assert_string_equal(why, "--assume-numa wants BUSID=NODE (NODE 0-1023), got '82:00.0=1024'");
  assert_int_equal(nn_discover_assume_add(&o, "zz:00.0=0", why, sizeof why), -1);
  assert_string_equal(why, "--assume-numa wants BUSID=NODE (NODE 0-1023), got 'zz:00.0=0'");
  assert_int_equal(nn_discover_assume_add(&o, "81:00.0=0", why, sizeof why),
                   -1); /* same GPU, no domain */
  assert_string_equal(why, "--assume-numa given twice for GPU 0000:81:00.0 (numa 1 and 0)");
  assert_int_equal(o.n_assumed, 1);
}

static void test_add_node(void **state) {
  (void)state;
  int nodes[4], n = 0;
  n = nn_discover_add_node(nodes, n, 3);
  n = nn_discover_add_node(nodes, n, 1);
  n = nn_discover_add_node(nodes, n, 3);
  n = nn_discover_add_node(nodes, n, 0);
  assert_int_equal(n, 3);
  assert_int_equal(nodes[0], 0);
  assert_int_equal(nodes[1], 1);
  assert_int_equal(nodes[2], 3);
}

static struct nn_discovery_pci gpu_at(const char *id, int numa) {
  struct nn_discovery_pci p = {.is_gpu = 1, .numa = numa};
  assert_int_equal(nn_busid_parse(id, &p.bus), 0);
  snprintf(p.unknown_why, sizeof p.unknown_why, "its first non-I/O ancestor is the Machine");
  return p;
}

static void test_place_gpu(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  int assumed = -1;
  struct nn_discovery_pci placed = gpu_at("01:00.0", 1), lost = gpu_at("02:00.0", -1);
  assume(&o, "01:00.0=0");
  assert_int_equal(nn_discover_place_gpu(&o, &placed, "hostpci3: ", &assumed), -1);
  assert_int_equal(assumed, 0);
  assert_int_equal(o.msgs.n, 1);
  assert_string_equal(o.msgs.msgs[0], "hostpci3: GPU 0000:01:00.0: --assume-numa says 0 but hwloc "
                                      "places it on NUMA node 1");
  assert_true(o.assumed[0].used);
  assert_int_equal(nn_discover_place_gpu(&o, &lost, "", &assumed), -1);
  assert_string_equal(o.msgs.msgs[1], "GPU 0000:02:00.0: NUMA node unknown: its first non-I/O "
                                      "ancestor is the Machine");
  assert_int_equal(o.n_unknown, 1);
  o.allow_unknown = 1;
  assert_int_equal(nn_discover_place_gpu(&o, &lost, "", &assumed), -1);
  assert_string_equal(
    o.msgs.msgs[2], "GPU 0000:02:00.0: NUMA node unknown: its first non-I/O ancestor is the Machine"
                    " (and no --assume-numa for it)");
  assume(&o, "02:00.0=3");
  assert_int_equal(nn_discover_place_gpu(&o, &lost, "", &assumed), 3);
  assert_int_equal(assumed, 1);
  assert_int_equal(o.msgs.n, 3);
  assert_int_equal(nn_discover_unused_assumptions(&o), 0);
  assume(&o, "0000:55:00.0=0");
  assert_int_equal(nn_discover_unused_assumptions(&o), 1);
  assert_string_equal(o.msgs.msgs[3], "--assume-numa 0000:55:00.0: no such GPU");
  nn_diag_clear(&o.msgs);
}

static void test_sm_source(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  struct nn_discover_sm sm;
  struct sink s;
  sink_open(&s, &o);
  nn_discover_sm_open(&sm, 1, "unused", 1);
  assert_null(sm.probe);
  nn_discover_sm_header(s.f, &sm, 0, 2);
  nn_discover_sm_open(&sm, 0, "the topology is not this machine's", 0);
  assert_null(sm.probe);
  nn_discover_sm_header(s.f, &sm, 0, 2);
  char *text = sink_close(&s);
  assert_string_equal(
    text, "# sm= left out: the CUDA driver cannot tell (--no-cuda)\n"
          "# sm= left out: the CUDA driver cannot tell (the topology is not this machine's)\n");
  free(text);
}

static void test_host_interleaved(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  struct sink s;
  sink_open(&s, &o);
  o.xml = FIX "2s-8gpu-interleaved.xml";
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  int rc = nn_discover_host(&o);
  unsetenv("SOURCE_DATE_EPOCH");
  char *text = sink_close(&s);
  assert_int_equal(rc, 0);
  assert_int_equal(o.msgs.n, 0);
  assert_string_equal(
    text, "# nccl-numa discover: on bare-metal-8gpu, from hwloc XML " FIX
          "2s-8gpu-interleaved.xml, 1970-01-01T00:00:00Z\n"
          "# GPU indices follow PCI bus order: nvidia-smi's order, and CUDA's for identical\n"
          "# GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID.\n"
          "# sm= left out: the CUDA driver cannot tell (--no-cuda)\n"
          "cpu vendor=GenuineIntel family=6 model=143\n"
          "numa 0 cpus=0-7,16-23\n"
          "numa 1 cpus=8-15,24-31\n"
          "gpu 0 bus=0000:01:00.0 numa=0 host=0000:01:00.0\n"
          "gpu 1 bus=0000:21:00.0 numa=1 host=0000:21:00.0\n"
          "gpu 2 bus=0000:41:00.0 numa=0 host=0000:41:00.0\n"
          "gpu 3 bus=0000:61:00.0 numa=1 host=0000:61:00.0\n"
          "gpu 4 bus=0000:81:00.0 numa=0 host=0000:81:00.0\n"
          "gpu 5 bus=0000:a1:00.0 numa=1 host=0000:a1:00.0\n"
          "gpu 6 bus=0000:c1:00.0 numa=0 host=0000:c1:00.0\n"
          "gpu 7 bus=0000:e1:00.0 numa=1 host=0000:e1:00.0\n");
  free(text);
}

/* A VM's topology: no GPU has a node, so nothing is written unless the user gives each one. */
static void test_host_unknown(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  struct sink s;
  sink_open(&s, &o);
  o.xml = FIX "vm-gpus-under-machine.xml";
  assert_int_equal(nn_discover_host(&o), -1);
  char *text = sink_close(&s);
  assert_string_equal(text, "");
  free(text);
  assert_int_equal(o.n_unknown, 4);
  assert_int_equal(o.msgs.n, 5);
  assert_string_equal(o.msgs.msgs[3], "GPU 0000:04:00.0: NUMA node unknown: its first non-I/O "
                                      "ancestor is the Machine");
  assert_non_null(strstr(o.msgs.msgs[4], "run discover where the sockets are visible"));
  nn_diag_clear(&o.msgs);
}

static void test_host_assumed(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  struct sink s;
  sink_open(&s, &o);
  o.xml = FIX "vm-gpus-under-machine.xml";
  o.allow_unknown = 1;
  assume(&o, "01:00.0=1");
  assume(&o, "02:00.0=1");
  assume(&o, "03:00.0=0");
  assume(&o, "04:00.0=0");
  int rc = nn_discover_host(&o);
  char *text = sink_close(&s);
  assert_int_equal(rc, 0);
  const char *numa_lines = "numa 0 cpus=0-3,8-11\nnuma 1 cpus=4-7,12-15\n";
  const char *gpus = "gpu 0 bus=0000:01:00.0 numa=1 host=0000:01:00.0" ASSUMED "\n"
                     "gpu 1 bus=0000:02:00.0 numa=1 host=0000:02:00.0" ASSUMED "\n"
                     "gpu 2 bus=0000:03:00.0 numa=0 host=0000:03:00.0" ASSUMED "\n"
                     "gpu 3 bus=0000:04:00.0 numa=0 host=0000:04:00.0" ASSUMED "\n";
  assert_non_null(strstr(text, numa_lines));
  assert_string_equal(strstr(text, "gpu 0 "), gpus);
  free(text);
}

static void test_host_errors(void **state) {
  (void)state;
  static struct nn_discover_opts o;
  struct sink s;
  sink_open(&s, &o);
  o.xml = FIX "2s-8gpu-interleaved.xml";
  assume(&o, "01:00.0=1"); /* hwloc says 0 */
  assume(&o, "55:00.0=0"); /* no such device */
  assert_int_equal(nn_discover_host(&o), -1);
  assert_int_equal(o.msgs.n, 2);
  assert_string_equal(o.msgs.msgs[0],
                      "GPU 0000:01:00.0: --assume-numa says 1 but hwloc places it on NUMA node 0");
  assert_string_equal(o.msgs.msgs[1], "--assume-numa 0000:55:00.0: no such GPU");
  nn_diag_clear(&o.msgs);
  o.n_assumed = 0;
  o.xml = FIX "no-gpu.xml";
  assert_int_equal(nn_discover_host(&o), -1);
  assert_int_equal(o.msgs.n, 1);
  assert_string_equal(o.msgs.msgs[0],
                      "no NVIDIA GPU (vendor 0x10de, class 0x03xx) in hwloc XML " FIX "no-gpu.xml");
  nn_diag_clear(&o.msgs);
  o.xml = FIX "does-not-exist.xml";
  assert_int_equal(nn_discover_host(&o), -1);
  assert_int_equal(o.msgs.n, 1);
  assert_string_equal(o.msgs.msgs[0],
                      FIX "does-not-exist.xml: cannot open: No such file or directory");
  nn_diag_clear(&o.msgs);
  char *text = sink_close(&s);
  assert_string_equal(text, "");
  free(text);
}

int main(void) {
#ifndef NN_HAVE_HWLOC
  puts("skipped: nccl-numa built without hwloc (HWLOC=0), so discover cannot be tested");
  return 77;
#endif
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_assume_add),       cmocka_unit_test(test_add_node),
    cmocka_unit_test(test_place_gpu),        cmocka_unit_test(test_sm_source),
    cmocka_unit_test(test_host_interleaved), cmocka_unit_test(test_host_unknown),
    cmocka_unit_test(test_host_assumed),     cmocka_unit_test(test_host_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
