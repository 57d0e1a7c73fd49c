/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_guest.c - discover --guest: guest GPUs matched to the host map, discover_guest.c */
#include "cli/discover/discover_map.h"
#include "guest_fixture.h"
#include "nn_test.h"

#include <sys/stat.h>

#define MARKER "# nccl-numa: host-side mapping\n"
/* Two GPUs with non-contiguous hostpci numbers (the trailing comments carry them). */
#define GAPS_MAP \
  MARKER "cpu vendor=AuthenticAMD family=25 model=17\n" \
         "gpu 0 numa=0 host=0000:01:00.0   # hostpci2\n" \
         "gpu 1 numa=1 host=0000:81:00.0   # hostpci9\n"

/* A fake guest root: ROOT/sys as Linux lays out PCI devices and NUMA nodes. */
struct guest_root {
  char dir[64];
};

static void make_dirs(const char *path) {
  char p[512];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = 0;
    mkdir(p, 0755);
    *s = '/';
  }
  mkdir(p, 0755);
}

/* A device on root bus 0000:00; `chain` is "PORT" or "PORT/DEVICE". Returns its directory. */
static const char *add_device(struct guest_root *g, const char *chain, const char *vendor,
                              const char *cls) {
  static char dir[400];
  char devices[128], link[640], target[512];
  const char *name = strrchr(chain, '/') ? strrchr(chain, '/') + 1 : chain;
  snprintf(dir, sizeof dir, "%s/sys/devices/pci0000:00/%s", g->dir, chain);
  make_dirs(dir);
  nn_test_put(dir, "vendor", vendor);
  nn_test_put(dir, "class", cls);
  nn_test_put(dir, "numa_node", "-1\n");
  snprintf(devices, sizeof devices, "%s/sys/bus/pci/devices", g->dir);
  make_dirs(devices);
  snprintf(link, sizeof link, "%s/%s", devices, name);
  snprintf(target, sizeof target, "../../../devices/pci0000:00/%s", chain);
  assert_int_equal(symlink(target, link), 0);
  return dir;
}

/* A root port whose PCIe capability (after two others) holds `port_number` in LnkCap. */
static void add_port(struct guest_root *g, const char *id, int port_number) {
  unsigned char cfg[256];
  root_port_config(cfg, sizeof cfg, port_number);
  char path[600];
  snprintf(path, sizeof path, "%s/config", add_device(g, id, "0x1b36\n", "0x060400\n"));
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(cfg, 1, sizeof cfg, f), sizeof cfg);
  fclose(f);
}

static void add_gpu(struct guest_root *g, const char *chain) {
  add_device(g, chain, "0x10de\n", "0x030200\n");
}

static void add_node(struct guest_root *g, int node, const char *cpus) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/sys/devices/system/node/node%d", g->dir, node);
  make_dirs(dir);
  nn_test_put(dir, "cpulist", cpus);
}

static void guest_root_make(struct guest_root *g) {
  strcpy(g->dir, "/tmp/nn-guest-XXXXXX");
  assert_non_null(mkdtemp(g->dir));
}

/* The guest of GAPS_MAP: hostpci9 behind 00:10.5 (bus 01), hostpci2 behind 00:1c.2 (bus 02). */
static void gaps_guest(struct guest_root *g) {
  guest_root_make(g);
  add_port(g, "0000:00:1c.2", 3);
  add_port(g, "0000:00:10.5", 10);
  add_gpu(g, "0000:00:10.5/0000:01:00.0");
  add_gpu(g, "0000:00:1c.2/0000:02:00.0");
}

struct run {
  struct nn_discover_opts o;
  char map[128];
  char *text;
  size_t len;
  int rc;
};

static void run_guest(struct run *r, const struct guest_root *g, const char *map_text) {
  memset(r, 0, sizeof *r);
  if (map_text) snprintf(r->map, sizeof r->map, "%s", nn_test_put(g->dir, "host.map", map_text));
  else snprintf(r->map, sizeof r->map, "%s/no-such.map", g->dir);
  r->o.host_map = r->map;
  r->o.root = g->dir;
  r->o.no_cuda = 1;
  r->o.out = open_memstream(&r->text, &r->len);
  assert_non_null(r->o.out);
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  r->rc = nn_discover_guest(&r->o);
  unsetenv("SOURCE_DATE_EPOCH");
  fclose(r->o.out);
}

static void run_done(struct run *r) {
  nn_diag_clear(&r->o.msgs);
  nn_diag_clear(&r->o.map_problems);
  free(r->text);
}

/* Guest bus order decides the index; numa= and host= follow each GPU's root port. */
static void test_matched_through_ports(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  gaps_guest(&g);
  add_node(&g, 0, "0-7\n");
  add_node(&g, 1, "8-15\n");
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, 0);
  assert_int_equal(r.o.msgs.n, 0);
  char head[512];
  snprintf(head, sizeof head,
           "# nccl-numa discover --guest: sysfs under %s, host map %s, 1970-01-01T00:00:00Z\n",
           g.dir, r.map);
  assert_memory_equal(r.text, head, strlen(head));
  assert_string_equal(
    strstr(r.text, "cpu "),
    "cpu vendor=AuthenticAMD family=25 model=17\n"
    "# numa lines: guest NUMA node N is taken to be backed by host node N\n"
    "# (Proxmox numaN: hostnodes=N); check the VM config if it is not.\n"
    "numa 0 cpus=0-7\n"
    "numa 1 cpus=8-15\n"
    "gpu 0 bus=0000:01:00.0 numa=1 host=0000:81:00.0   # hostpci9, from the LnkCap port number\n"
    "gpu 1 bus=0000:02:00.0 numa=0 host=0000:01:00.0   # hostpci2, from the LnkCap port number\n");
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

/* One guest node belongs to no host socket: every host node's numa line gets all its CPUs. */
static void test_one_guest_node(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  gaps_guest(&g);
  add_node(&g, 0, "0-15\n");
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, 0);
  assert_non_null(strstr(
    r.text, "# the guest has 1 NUMA node: its CPUs are tied to no host socket, so each host\n"));
  assert_non_null(strstr(r.text, "\nnuma 0 cpus=0-15\nnuma 1 cpus=0-15\ngpu 0 "));
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

/* A host entry with no GPU in the guest: a warning naming its line, and a note in the output. */
static void test_unmatched_host_entry(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  guest_root_make(&g);
  add_port(&g, "0000:00:1c.2", 3);
  add_gpu(&g, "0000:00:1c.2/0000:01:00.0");
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, 0);
  char want[700];
  snprintf(want, sizeof want, "warning: %s:4: hostpci9 has no GPU in this guest", r.map);
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0], want);
  assert_non_null(strstr(
    r.text, "# the guest has no NUMA nodes: no numa lines, so NCCL gets no CPU affinity.\n"));
  assert_string_equal(
    strstr(r.text, "# hostpci9 of"),
    "# hostpci9 of the host map has no GPU in this guest\n"
    "gpu 0 bus=0000:01:00.0 numa=0 host=0000:01:00.0   # hostpci2, from the LnkCap port number\n");
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

static void test_unmatchable_gpus(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  char want[700];
  guest_root_make(&g);
  add_port(&g, "0000:00:1c.0", 6); /* says hostpci5, which the map lacks */
  add_gpu(&g, "0000:00:1c.0/0000:01:00.0");
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  snprintf(want, sizeof want,
           "guest GPU 0000:01:00.0 is hostpci5 (LnkCap port number), which %s does not list",
           r.map);
  assert_string_equal(r.o.msgs.msgs[0], want);
  assert_string_equal(r.text, "");
  run_done(&r);
  add_gpu(&g, "0000:00:05.0"); /* on the root bus: no port to tell */
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 2); /* in bus order, both said */
  assert_string_equal(r.o.msgs.msgs[1], want);
  assert_string_equal(r.o.msgs.msgs[0],
                      "guest GPU 0000:00:05.0: cannot tell its hostpci entry: it sits on the root "
                      "bus, not behind a PCIe root port (needs machine: q35 and pcie=1)");
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

static void test_two_gpus_one_entry(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  guest_root_make(&g);
  add_port(&g, "0000:00:1c.2", 3);
  add_port(&g, "0000:00:10.0", 3);
  add_gpu(&g, "0000:00:1c.2/0000:01:00.0");
  add_gpu(&g, "0000:00:10.0/0000:02:00.0");
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0], "two guest GPUs claim hostpci2");
  assert_string_equal(r.text, "");
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

static void test_host_map_errors(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  char want[900];
  gaps_guest(&g);
  run_guest(&r, &g, "cpu vendor=AuthenticAMD family=25 model=17\ngpu 0 numa=0 host=0000:01:00.0\n");
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  snprintf(
    want, sizeof want,
    "%s: not a host-side mapping (no \"# nccl-numa: host-side mapping\" line); make one on "
    "the Proxmox host with: nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf",
    r.map);
  assert_string_equal(r.o.msgs.msgs[0], want);
  run_done(&r);
  run_guest(&r, &g, MARKER "gpu 0 numa=x host=0000:01:00.0\n");
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 0);
  assert_true(r.o.map_problems.n >= 1);
  snprintf(want, sizeof want, "%s:2: gpu: bad numa 'x' (expected a NUMA node 0-1023)", r.map);
  assert_string_equal(r.o.map_problems.msgs[0], want);
  run_done(&r);
  run_guest(&r, &g, NULL);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.map_problems.n, 1);
  snprintf(want, sizeof want, "%s: cannot open: No such file or directory", r.map);
  assert_string_equal(r.o.map_problems.msgs[0], want);
  assert_string_equal(r.text, "");
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

static void test_sysfs_errors(void **state) {
  (void)state;
  static struct run r;
  struct guest_root g;
  char want[600];
  guest_root_make(&g);
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  snprintf(want, sizeof want, "%s/sys/bus/pci/devices: cannot read: No such file or directory",
           g.dir);
  assert_string_equal(r.o.msgs.msgs[0], want);
  run_done(&r);
  add_port(&g, "0000:00:1c.2", 3); /* a port, but no GPU behind it */
  run_guest(&r, &g, GAPS_MAP);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  snprintf(want, sizeof want, "no NVIDIA GPU under %s/sys/bus/pci/devices", g.dir);
  assert_string_equal(r.o.msgs.msgs[0], want);
  run_done(&r);
  nn_test_remove_tree(g.dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_matched_through_ports), cmocka_unit_test(test_one_guest_node),
    cmocka_unit_test(test_unmatched_host_entry),  cmocka_unit_test(test_unmatchable_gpus),
    cmocka_unit_test(test_two_gpus_one_entry),    cmocka_unit_test(test_host_map_errors),
    cmocka_unit_test(test_sysfs_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
