/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox_numa.c - the Proxmox VM config rewrite (proxmox_numa.h) as a pure
 * function: made-up hosts built in memory (no hwloc), configs parsed with
 * proxmox.h, and the rules checked on the text that comes out. The CLI test
 * (test/cli/test_proxmox_numa.sh) covers the reference machine's exact output. */
#include "nn_config.h"
#include "nn_test.h"

#include "cli/proxmox/proxmox_numa.h"
#include "proxmox_fixture.h"

/* Rewrites `text` (VM 100 on node pve1, no mapping file); returns 0 or -1 with err. */
static int rewrite(const struct nn_discovery *host, const char *text,
                   struct nn_proxmox_numa_output *out, char *err, size_t errsz) {
  struct nn_proxmox_vm vm;
  if (nn_proxmox_vm_parse("100.conf", text, strlen(text), &vm, err, errsz)) return -1;
  int rc = nn_proxmox_assign(&vm, NULL, "pve1", err, errsz);
  if (!rc) {
    struct nn_proxmox_numa_input in = {"100.conf", "100", text, strlen(text), &vm, NULL,
                                       "pve1",     host,  0};
    rc = nn_proxmox_numa_rewrite(&in, out, err, errsz);
  }
  nn_proxmox_vm_free(&vm);
  return rc;
}

/* Rewrites `text` on a made-up host of the n functions p over n_nodes nodes;
 * the rewrite must succeed. The caller frees out with nn_proxmox_numa_output_free. */
static void rewrite_on(const struct fake_pci *p, int n, int n_nodes, const char *text,
                       struct nn_proxmox_numa_output *out) {
  struct nn_discovery d;
  char err[1024] = "";
  fake_host(&d, p, n, n_nodes);
  if (rewrite(&d, text, out, err, sizeof err)) fail_msg("rewrite failed: %s", err);
  nn_discovery_free(&d);
}

/* The key lines of a config (no comments), joined by '\n'. */
static char *keys_only(const char *text) {
  char *out = calloc(strlen(text) + 1, 1);
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    if (*p != '#') strncat(out, p, n + (p[n] == '\n'));
    p += n + (p[n] == '\n');
  }
  return out;
}

/* The value of one key line of the output, or NULL. */
static char *value_of(const char *text, const char *key) {
  static char buf[8192];
  size_t kl = strlen(key);
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    if (n > kl + 1 && !strncmp(p, key, kl) && p[kl] == ':') {
      snprintf(buf, sizeof buf, "%.*s", (int)(n - kl - 2), p + kl + 2);
      return buf;
    }
    p += n + (p[n] == '\n');
  }
  return NULL;
}

static void test_vmid_from_path(void **state) {
  char id[16];
  (void)state;
  assert_int_equal(nn_proxmox_numa_vmid_from_path("/etc/pve/qemu-server/101.conf", id, sizeof id),
                   0);
  assert_string_equal(id, "101");
  assert_int_equal(nn_proxmox_numa_vmid_from_path("9.conf", id, sizeof id), 0);
  assert_string_equal(id, "9");
  assert_int_equal(nn_proxmox_numa_vmid_from_path("/x/101.conf.bak", id, sizeof id), -1);
  assert_string_equal(id, "");
  assert_int_equal(nn_proxmox_numa_vmid_from_path("/x/vm101.conf", id, sizeof id), -1);
  assert_int_equal(nn_proxmox_numa_vmid_from_path("/x/.conf", id, sizeof id), -1);
  assert_int_equal(nn_proxmox_numa_vmid_from_path("/x/1234567890.conf", id, sizeof id), -1);
}

/* Missing keys are added in Proxmox's sorted order; nothing else moves. */
static void test_minimal_config_key_order(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0)};
  struct nn_proxmox_numa_output out;
  (void)state;
  rewrite_on(pcis, 1, 1, "hostpci0: 01:00.0,pcie=1\nmachine: q35\nmemory: 1024\n", &out);
  char *keys = keys_only(out.text);
  assert_string_equal(
    keys,
    "args: -device pxb-pcie,id=nnpxb0,bus_nr=128,numa_node=0,bus=pcie.0 "
    "-device pcie-root-port,id=nnrp0_0,bus=nnpxb0,chassis=32,slot=0,port=32 "
    "-device vfio-pci,host=0000:01:00.0,bus=nnrp0_0\n"
    "machine: q35\nmemory: 1024\nnuma: 1\nnuma0: cpus=0,hostnodes=0,memory=1024,policy=bind\n");
  assert_string_equal(out.notes, "");
  free(keys);
  nn_proxmox_numa_output_free(&out);
}

/* 9 vCPUs and 1001 MiB over two nodes: remainders to node 0, sockets kept with a note. */
static void test_odd_split(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0), GPU("0000:81:00.0", 1)};
  struct nn_proxmox_numa_output out;
  (void)state;
  rewrite_on(pcis, 2, 2,
             "cores: 3\nhostpci0: 81:00.0,pcie=1\nhostpci1: 01:00.0,pcie=1\nmachine: q35\n"
             "memory: 1001\nsockets: 3\n",
             &out);
  assert_string_equal(value_of(out.text, "numa0"), "cpus=0-4,hostnodes=0,memory=501,policy=bind");
  assert_string_equal(value_of(out.text, "numa1"), "cpus=5-8,hostnodes=1,memory=500,policy=bind");
  assert_string_equal(value_of(out.text, "sockets"), "3");
  assert_string_equal(value_of(out.text, "cores"), "3");
  assert_non_null(strstr(out.notes, "9 vCPUs do not split into 2 equal sockets"));
  nn_proxmox_numa_output_free(&out);
}

/* vCPUs that divide: one socket per guest node; one vCPU per node is a single id. */
static void test_sockets_follow_nodes(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0), GPU("0000:81:00.0", 1)};
  struct nn_proxmox_numa_output out;
  (void)state;
  rewrite_on(pcis, 2, 2,
             "affinity: 0-3\ncores: 2\nhostpci0: 81:00.0,pcie=1\nhostpci1: 01:00.0,pcie=1\n"
             "machine: q35\nmemory: 2048\n",
             &out);
  assert_string_equal(
    out.notes, "affinity: 0-3 is kept; the guest's memory is now bound to host node 0 (CPUs 0), "
               "1 (CPUs 0): check that the affinity covers those CPUs\n");
  assert_string_equal(value_of(out.text, "affinity"), "0-3");
  assert_string_equal(value_of(out.text, "numa0"), "cpus=0,hostnodes=0,memory=1024,policy=bind");
  assert_string_equal(value_of(out.text, "numa1"), "cpus=1,hostnodes=1,memory=1024,policy=bind");
  assert_string_equal(value_of(out.text, "sockets"), "2");
  assert_string_equal(value_of(out.text, "cores"), "1");
  assert_non_null(strstr(out.text, "#  sockets 2 x cores 1 (was 1 x 2)"));
  nn_proxmox_numa_output_free(&out);
}

/* Expander buses: each its own bus plus one per root port plus headroom, rounded to 16. */
static void test_bus_spacing_three_nodes(void **state) {
  struct fake_pci pcis[12];
  static const char *const buses[12] = {
    "0000:01:00.0", "0000:41:00.0", "0000:42:00.0", "0000:43:00.0", "0000:44:00.0", "0000:45:00.0",
    "0000:46:00.0", "0000:47:00.0", "0000:48:00.0", "0000:49:00.0", "0000:c1:00.0", "0000:c2:00.0"};
  static const int nodes[12] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2};
  struct nn_proxmox_numa_output out;
  char text[2048] = "cores: 6\nmachine: q35\nmemory: 3072\n";
  (void)state;
  for (int i = 0; i < 12; i++) {
    struct fake_pci p = GPU(buses[i], nodes[i]);
    pcis[i] = p;
    snprintf(text + strlen(text), sizeof text - strlen(text), "hostpci%d: %s,pcie=1\n", i,
             buses[i] + 5);
  }
  rewrite_on(pcis, 12, 3, text, &out);
  const char *args = value_of(out.text, "args");
  assert_non_null(strstr(args, "pxb-pcie,id=nnpxb0,bus_nr=128,numa_node=0")); /* 1 GPU: 2+8 -> 16 */
  assert_non_null(
    strstr(args, "pxb-pcie,id=nnpxb1,bus_nr=144,numa_node=1")); /* 9 GPUs: 10+8 -> 32 */
  assert_non_null(strstr(args, "pxb-pcie,id=nnpxb2,bus_nr=176,numa_node=2"));
  assert_non_null(strstr(
    args, "id=nnrp1_8,bus=nnpxb1,chassis=41,slot=0,port=41 -device vfio-pci,host=0000:49:00.0"));
  assert_non_null(strstr(
    args, "id=nnrp2_1,bus=nnpxb2,chassis=43,slot=0,port=43 -device vfio-pci,host=0000:c2:00.0"));
  assert_string_equal(value_of(out.text, "sockets"), "3");
  assert_string_equal(value_of(out.text, "numa2"), "cpus=4-5,hostnodes=2,memory=1024,policy=bind");
  /* hostpci12 was one of them and nothing else of slot 00:11 stays: no filler */
  assert_null(strstr(args, "nnfill"));
  nn_proxmox_numa_output_free(&out);
}

/* A whole device passes every function; a `;` list the named ones, duplicates once. */
static void test_functions(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0), AUDIO("0000:01:00.1", 0),
                                         GPU("0000:02:00.0", 0), AUDIO("0000:02:00.1", 0)};
  struct nn_proxmox_numa_output out;
  (void)state;
  rewrite_on(pcis, 4, 1,
             "hostpci0: 01:00,pcie=1,rombar=off\nhostpci1: host=02:00.0;0000:02:00.0,pcie=1\n"
             "machine: q35\nmemory: 1024\n",
             &out);
  const char *args = value_of(out.text, "args");
  assert_non_null(strstr(
    args, "-device vfio-pci,host=0000:01:00.0,bus=nnrp0_0,addr=0.0,multifunction=on,rombar=0 "
          "-device vfio-pci,host=0000:01:00.1,bus=nnrp0_0,addr=0.1 "));
  assert_non_null(strstr(args, "-device vfio-pci,host=0000:02:00.0,bus=nnrp0_1"));
  assert_null(strstr(args, "0000:02:00.1"));
  assert_null(strstr(args, "nnrp0_1,addr"));
  nn_proxmox_numa_output_free(&out);
}

/* Removing hostpci12 while hostpci13 stays: an empty root port takes 00:11.0. */
static void test_slot_filler(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0), NIC("0000:41:00.0", 0)};
  struct nn_proxmox_numa_output out;
  (void)state;
  rewrite_on(pcis, 2, 1,
             "hostpci12: 01:00.0,pcie=1\nhostpci13: 41:00.0,pcie=1\nmachine: q35\nmemory: 1024\n",
             &out);
  assert_non_null(strstr(value_of(out.text, "args"), "-device "
                                                     "pcie-root-port,id=nnfill12,bus=pcie.0,addr="
                                                     "11.0,multifunction=on,chassis=49,port=49 "));
  assert_string_equal(value_of(out.text, "hostpci13"), "41:00.0,pcie=1");
  assert_null(value_of(out.text, "hostpci12"));
  nn_proxmox_numa_output_free(&out);
}

/* Snapshot sections and description lines stay byte for byte; only the current config changes. */
static void test_sections_kept(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0)};
  struct nn_proxmox_numa_output out;
  const char *text =
    "#my notes\nhostpci0: 01:00.0,pcie=1\nmachine: q35\nmemory: 1024\nnuma0: cpus=0,memory=1024\n"
    "\n[snap]\nhostpci0: 01:00.0,pcie=1\nnuma0: cpus=0,memory=1024\n";
  (void)state;
  rewrite_on(pcis, 1, 1, text, &out);
  assert_non_null(strstr(out.text, "\n#my notes\nargs: "));
  const char *snap = strstr(out.text, "\n\n[snap]\n");
  assert_non_null(snap);
  assert_string_equal(snap, "\n\n[snap]\nhostpci0: 01:00.0,pcie=1\nnuma0: cpus=0,memory=1024\n");
  assert_string_equal(value_of(out.text, "numa0"), "cpus=0,hostnodes=0,memory=1024,policy=bind");
  nn_proxmox_numa_output_free(&out);
}

/* Each refusal names the line and the reason. */
static void test_refusals(void **state) {
  static const struct fake_pci pcis[] = {GPU("0000:01:00.0", 0), AUDIO("0000:01:00.1", 0),
                                         GPU("0000:02:00.0", 0), NIC("0000:41:00.0", 0),
                                         GPU("0000:81:00.0", 1), GPU("0000:82:00.0", -1)};
  static const struct {
    const char *text, *want;
  } cases[] = {
    {"cores: 1\nhostpci0: 01:00.0,pcie=1\nhostpci1: 81:00.0,pcie=1\nmachine: q35\nmemory: 1024\n",
     "100.conf: the VM has 1 vCPU (sockets x cores) for 2 guest NUMA nodes"},
    {"hostpci0: 01:00.0,pcie=1\nmachine: q35\n", "100.conf: no memory: line"},
    {"args: -device pcie-root-port,id=x,chassis=40\nhostpci0: 01:00.0,pcie=1\nmachine: "
     "q35\nmemory: 1024\n",
     "100.conf:1: args: uses chassis 40, which the new root ports need (32-49)"},
    {"args: -device vfio-pci,host=0000:09:00.0\nhostpci0: 01:00.0,pcie=1\nmachine: q35\nmemory: "
     "1024\n",
     "100.conf:1: args: already passes devices with vfio-pci"},
    {"hostpci0: 01:00.0;41:00.0,pcie=1\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0 mixes the GPU 0000:01:00.0 with functions of another device"},
    {"hostpci0: 01:00.0;02:00.0,pcie=1\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0 passes 2 NVIDIA GPUs in one entry"},
    {"hostpci0: 01:00.0,pcie=1,frobnicate=1\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0: option 'frobnicate' is unknown"},
    {"hostpci0: 01:00.0,pcie=1,romfile=a b\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0: romfile 'a b' is not a plain file name"},
    {"hostpci0: 01:00.0,pcie=1,device-id=10de\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0: device-id=10de is not 0x followed by 4 hex digits"},
    {"hostpci0: 01:00.0,pcie=1,mdev=nvidia-42\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0: mdev is not supported behind a PCIe expander"},
    {"hostpci0: 82:00.0,pcie=1\nmachine: q35\nmemory: 1024\n",
     "100.conf:1: hostpci0: the NUMA node of GPU 0000:82:00.0 is unknown"},
    {"hostpci0: 01:00.0,pcie=1\nmachine: pc-i440fx-8.1\nmemory: 1024\n",
     "100.conf:2: the VM is 'pc-i440fx-8.1', not q35"},
  };
  struct nn_discovery d;
  struct nn_proxmox_numa_output out;
  char err[1024];
  (void)state;
  fake_host(&d, pcis, 6, 2);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    err[0] = 0;
    out.text = (char *)"untouched";
    int rc = rewrite(&d, cases[i].text, &out, err, sizeof err);
    if (rc != -1 || strncmp(err, cases[i].want, strlen(cases[i].want)))
      fail_msg("case %zu: rc %d, message '%s', wanted it to start with '%s'", i, rc, err,
               cases[i].want);
    assert_null(out.text);
  }
  nn_discovery_free(&d);
}

/* More host nodes with GPUs than Proxmox's 8 guest nodes. */
static void test_too_many_nodes(void **state) {
  struct fake_pci pcis[9];
  static char buses[9][16];
  struct nn_discovery d;
  struct nn_proxmox_numa_output out;
  char err[1024], text[1024] = "cores: 9\nmachine: q35\nmemory: 9216\n";
  (void)state;
  for (int i = 0; i < 9; i++) {
    snprintf(buses[i], sizeof buses[i], "0000:%02x:00.0", 0x10 * (i + 1));
    struct fake_pci p = GPU(buses[i], i);
    pcis[i] = p;
    snprintf(text + strlen(text), sizeof text - strlen(text), "hostpci%d: %s,pcie=1\n", i,
             buses[i]);
  }
  fake_host(&d, pcis, 9, 9);
  assert_int_equal(rewrite(&d, text, &out, err, sizeof err), -1);
  assert_non_null(strstr(err, "more than 8 host NUMA nodes"));
  nn_discovery_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vmid_from_path),
    cmocka_unit_test(test_minimal_config_key_order),
    cmocka_unit_test(test_odd_split),
    cmocka_unit_test(test_sockets_follow_nodes),
    cmocka_unit_test(test_bus_spacing_three_nodes),
    cmocka_unit_test(test_functions),
    cmocka_unit_test(test_slot_filler),
    cmocka_unit_test(test_sections_kept),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_too_many_nodes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
