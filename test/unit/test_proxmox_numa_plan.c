/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox_numa_plan.c - what the Proxmox rewrite decides before any text
 * (cli/proxmox/proxmox_numa_plan.c): GPUs in guest order, guest nodes, the vCPU and memory
 * split, the sockets, and refusals that name the line. */
#include "nn_config.h"
#include "nn_test.h"

#include "proxmox_fixture.h"

static const struct fake_pci two_nodes[] = {GPU("0000:01:00.0", 0), GPU("0000:02:00.0", 0),
                                            GPU("0000:81:00.0", 1)};

/* Three GPUs over two host nodes, listed out of order: guest order is host node, then bus. */
static void test_guest_order(void **state) {
  (void)state;
  struct nn_discovery d;
  fake_host(&d, two_nodes, 3, 2);
  struct fake_rewrite *r =
    fake_rewrite_open(&d, "cores: 4\nhostpci0: 81:00.0,pcie=1\nhostpci1: 02:00.0,pcie=1\n"
                          "hostpci2: 01:00.0,pcie=1\nmachine: q35\nmemory: 4096\n");
  assert_int_equal(nn_proxmox_numa_plan(&r->c), 0);
  const struct nn_proxmox_numa_plan *p = &r->c.plan;
  assert_int_equal(p->n_gpus, 3);
  assert_int_equal(p->gpus[0].hostpci, 2); /* 01:00.0, node 0 */
  assert_int_equal(p->gpus[1].hostpci, 1); /* 02:00.0, node 0 */
  assert_int_equal(p->gpus[2].hostpci, 0); /* 81:00.0, node 1 */
  assert_int_equal(p->gpus[0].node, 0);
  assert_int_equal(p->gpus[2].node, 1);
  assert_int_equal(p->gpus[1].guest_node, 0);
  assert_int_equal(p->gpus[1].port_index, 1);
  assert_int_equal(p->gpus[2].guest_node, 1);
  assert_int_equal(p->gpus[2].port_index, 0);
  assert_int_equal(p->n_nodes, 2);
  assert_int_equal(p->nodes[0], 0);
  assert_int_equal(p->nodes[1], 1);
  assert_int_equal(p->per_node[0], 2);
  assert_int_equal(p->per_node[1], 1);
  assert_true(nn_proxmox_numa_is_removed(p, 0) && nn_proxmox_numa_is_removed(p, 2));
  assert_false(nn_proxmox_numa_is_removed(p, 3));
  fake_rewrite_close(r);
  nn_discovery_free(&d);
}

/* 4 vCPUs and 4096 MiB over two guest nodes: 2 and 2048 each, one socket per node. */
static void test_split(void **state) {
  (void)state;
  struct nn_discovery d;
  fake_host(&d, two_nodes, 3, 2);
  struct fake_rewrite *r =
    fake_rewrite_open(&d, "cores: 4\nhostpci0: 81:00.0,pcie=1\nhostpci1: 01:00.0,pcie=1\n"
                          "machine: q35\nmemory: 4096\n");
  assert_int_equal(nn_proxmox_numa_plan(&r->c), 0);
  const struct nn_proxmox_numa_plan *p = &r->c.plan;
  assert_int_equal(p->vcpus, 4);
  assert_int_equal(p->cpu_first[0], 0);
  assert_int_equal(p->cpu_count[0], 2);
  assert_int_equal(p->cpu_first[1], 2);
  assert_int_equal(p->cpu_count[1], 2);
  assert_int_equal(p->mem[0], 2048);
  assert_int_equal(p->mem[1], 2048);
  assert_int_equal(p->new_sockets, 2);
  assert_int_equal(p->new_cores, 2);
  assert_true(p->topo_changed);
  fake_rewrite_close(r);
  nn_discovery_free(&d);
}

/* A refusal names the file and line, and the plan says why. */
static void test_refused(void **state) {
  (void)state;
  struct nn_discovery d;
  fake_host(&d, two_nodes, 3, 2);
  struct fake_rewrite *r = fake_rewrite_open(&d, "hostpci0: 01:00.0,pcie=1\nmachine: q35\n");
  assert_int_equal(nn_proxmox_numa_plan(&r->c), -1);
  assert_string_equal(r->err, "100.conf: no memory: line; set the VM's memory explicitly first "
                              "(its NUMA split needs it)");
  fake_rewrite_close(r);
  r = fake_rewrite_open(&d, "hostpci0: 01:00.0,pcie=1,frobnicate=1\nmachine: q35\nmemory: 1024\n");
  assert_int_equal(nn_proxmox_numa_plan(&r->c), -1);
  assert_non_null(strstr(r->err, "100.conf:1: hostpci0: option 'frobnicate' is unknown"));
  fake_rewrite_close(r);
  nn_discovery_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_guest_order),
    cmocka_unit_test(test_split),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
