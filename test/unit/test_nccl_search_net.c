/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_search_net.c - the search port on several nodes: NICs under CPUs. NCCL's own
 * search on the reference machine (24 views and 18 per-GPU cases against nic-facts.txt):
 * test/cli/test_explain_nics.sh; here what a unit can see. */
#include "nccl_model.h"
#include "nccl_search.h"
#include "nn_test.h"

/* Two GPUs and one NIC under one CPU (2.28.9, sm 9.0, AMD): NCCL's own view of a small guest. The
 * NIC's 12 GB/s link bounds the channel; a NIC without a CPU, or more NICs than the search holds,
 * is refused. */
static void test_nics(void **state) {
  (void)state;
  const struct nn_nccl_release *r = nn_nccl_release_find(NN_NCCL_VERSION(2, 28, 9), NULL);
  struct nn_search_topo t = {.n_gpus = 2,
                             .n_cpus = 1,
                             .gpu_rank = {0, 1},
                             .gpu_link_gbps = {48.0f, 48.0f},
                             .cpu_numa = {-1},
                             .arch = NN_ARCH_X86,
                             .vendor = NN_VENDOR_AMD,
                             .cpu_link_gbps = 16.0f,
                             .sm = 90,
                             .n_nics = 1,
                             .nic_link_gbps = {12.0f},
                             .nic_net_gbps = {50.0f}};
  struct nn_search_pred p;
  assert_int_equal(nn_search_predict(r, &t, &p), 0);
  assert_true(p.ring.ok);
  assert_int_equal(p.ring.type_inter, NN_PATH_PHB);
  assert_true(p.ring.bw_inter <= 12.0f);
  assert_int_equal(p.ring.nets[0], 0);
  assert_int_equal(p.ring.nets[1], 0);
  int net[2] = {-1, -1}, path[2] = {0, 0};
  assert_int_equal(nn_search_gpu_nets(r, &t, net, path), 0);
  assert_int_equal(net[0], 0);
  assert_int_equal(net[1], 0);
  assert_int_equal(path[0], NN_PATH_PHB);
  assert_int_equal(path[1], NN_PATH_PHB);
  t.nic_cpu[0] = 1;
  assert_int_equal(nn_search_predict(r, &t, &p), -1);
  assert_int_equal(nn_search_gpu_nets(r, &t, net, path), -1);
  t.nic_cpu[0] = 0;
  t.n_nics = NN_SEARCH_MAX_NICS + 1;
  assert_int_equal(nn_search_predict(r, &t, &p), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
