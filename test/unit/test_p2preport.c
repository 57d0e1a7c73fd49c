/* SPDX-License-Identifier: BSD-3-Clause */
/* test_p2preport.c - nccl-numa p2p's reading of its children's lines and its verdict, on
 * lines the stand-in driver cannot produce: a child killed by a signal, a driver error, a
 * probe that died, junk, and the level from a mapping that lacks a GPU. */
#include "cli/p2p/p2preport.h"
#include "nn_config.h"
#include "nn_test.h"

static struct nn_p2prun run_of(const char *text, int timed_out, int exit_code, int sig) {
  struct nn_p2prun r = {timed_out, exit_code, sig, (char *)text};
  return r;
}

static void pair_ok(void **state) {
  (void)state;
  struct nn_p2p_pair p = {0};
  struct nn_p2prun r = run_of("peer 1 0 1 1 0\nbegin setup\nbegin write\nstep write ok\nbegin read\nstep read ok\n"
                              "begin copy\nstep copy ok\nbegin latency\nlatency 1.250\nstep latency ok\n"
                              "begin bandwidth\nbandwidth 27.120\nstep bandwidth ok\ndone ok\n", 0, 0, 0);
  nn_p2preport_pair(&p, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_OK);
  assert_int_equal(p.can, 1);
  assert_int_equal(p.attr[1], 1);
  assert_true(p.latency_us > 1.24 && p.latency_us < 1.26);
  assert_true(p.gbps > 27.1 && p.gbps < 27.2);
  assert_int_equal(p.step[NN_P2P_COPY], NN_P2P_PASSED);
  assert_string_equal(p.reason, "");
}

static void pair_died(void **state) {
  (void)state;
  struct nn_p2p_pair p = {0};
  /* killed by SIGSEGV in the read step, after the write passed */
  struct nn_p2prun r = run_of("peer 1 0 1 0 0\nbegin setup\nbegin write\nstep write ok\nbegin read\n", 0, -1, 11);
  nn_p2preport_pair(&p, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "the test process died (signal 11) during 'read'");
  /* a driver error is the reason, not the death that follows */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nbegin setup\nerror setup: cuCtxEnablePeerAccess failed: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)\n",
             0, 0, 0);
  nn_p2preport_pair(&p, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "driver error in setup: cuCtxEnablePeerAccess failed: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)");
  /* "done ok" after a failed step (never written so, but never trusted either) */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nstep copy fail 3 of 8 words wrong\ndone ok\n", 0, 0, 0);
  nn_p2preport_pair(&p, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "copy: 3 of 8 words wrong");
  /* a time-out wins over everything it wrote */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nbegin latency\n", 1, -1, 0);
  nn_p2preport_pair(&p, &r, 7);
  assert_string_equal(p.reason, "hung: no answer within 7 s during 'latency', killed");
  /* junk and a short peer line change nothing */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 x\nlatency abc\nstep nosuch ok\ndone nopeer\n", 0, 0, 0);
  nn_p2preport_pair(&p, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_NOPEER);
  assert_int_equal(p.can, -1);
  assert_true(p.latency_us < 0);
}

static void probe(void **state) {
  (void)state;
  struct nn_p2p_report *rep = calloc(1, sizeof *rep);
  char why[256];
  struct nn_p2prun r = run_of("cuda 12080\ngpu 0 0000:17:00.0 NVIDIA GeForce RTX 3090\ngpu 1 0000:65:00.0 NVIDIA GeForce RTX 3090\n"
                              "nvml-driver 570.86.15\nnvml 0 1 1 1\nnvml 1 0 0 0\nnvml 99 0 0 0\nend\n", 0, 0, 0);
  assert_int_equal(nn_p2preport_probe(rep, &r, 30, why, sizeof why), 0);
  assert_int_equal(rep->n_gpus, 2);
  assert_string_equal(rep->gpus[1].bus, "0000:65:00.0");
  assert_string_equal(rep->gpus[1].name, "NVIDIA GeForce RTX 3090");
  assert_int_equal(rep->cuda_version, 12080);
  assert_string_equal(rep->nvml_driver, "570.86.15");
  assert_int_equal(rep->nvml[0][1][0], 1);
  assert_int_equal(rep->nvml[1][0][1], 0);
  /* the mapping lacks GPU 1: its numa stays unknown */
  struct nn_config *cfg = nn_test_parse("gpu 0 bus=0000:17:00.0 numa=1\n");
  assert_int_equal(nn_p2preport_numa(rep, cfg), 1);
  assert_int_equal(rep->gpus[0].numa, 1);
  assert_int_equal(rep->gpus[1].numa, -1);
  nn_config_free(cfg);
  /* a probe that died before "end", and one that said what is missing */
  memset(rep, 0, sizeof *rep);
  r = run_of("cuda 12080\n", 0, -1, 9);
  assert_int_equal(nn_p2preport_probe(rep, &r, 30, why, sizeof why), -1);
  assert_string_equal(why, "the CUDA driver's probe died (signal 9) before listing the GPUs");
  memset(rep, 0, sizeof *rep);
  r = run_of("missing the CUDA driver: cuInit failed: CUDA_ERROR_NO_DEVICE (100)\n", 0, 0, 0);
  assert_int_equal(nn_p2preport_probe(rep, &r, 30, why, sizeof why), -1);
  assert_string_equal(why, "the CUDA driver: cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
  free(rep);
}

static struct nn_p2p_pair pair(int a, int b, int level, int state) {
  struct nn_p2p_pair p = {0};
  p.a = a;
  p.b = b;
  p.path = level;
  p.state = state;
  return p;
}

static void decide(void **state) {
  (void)state;
  struct nn_p2p_report *rep = calloc(1, sizeof *rep);
  struct nn_p2p_pair pairs[4] = {pair(0, 1, NN_P2P_LEVEL_PHB, NN_P2P_PAIR_OK), pair(1, 0, NN_P2P_LEVEL_PHB, NN_P2P_PAIR_OK),
                                 pair(0, 2, NN_P2P_LEVEL_SYS, NN_P2P_PAIR_NOPEER), pair(2, 0, NN_P2P_LEVEL_SYS, NN_P2P_PAIR_NOPEER)};
  rep->pairs = pairs;
  rep->n_pairs = 4;
  rep->n_gpus = 3;
  snprintf(rep->driver, sizeof rep->driver, "570.86.15");
  /* the SYS pairs have no peer access: the level is the widest verified, PHB; gpus= the pairs'
   * GPUs, by CUDA number without a mapping */
  nn_p2preport_decide(rep, "2026-12-03");
  assert_int_equal(rep->verdict, NN_P2P_OK);
  assert_string_equal(rep->line, "p2p ok level=PHB gpus=0-2 driver=570.86.15 tested=2026-12-03");
  pairs[2].state = NN_P2P_PAIR_OK;
  nn_p2preport_decide(rep, "2026-12-03");
  assert_string_equal(rep->line, "p2p ok level=SYS gpus=0-2 driver=570.86.15 tested=2026-12-03");
  /* one broken pair decides; an unknown driver is left out */
  pairs[3].state = NN_P2P_PAIR_BROKEN;
  rep->driver[0] = '\0';
  nn_p2preport_decide(rep, "2026-12-03");
  assert_int_equal(rep->verdict, NN_P2P_BROKEN);
  assert_string_equal(rep->line, "p2p broken gpus=0-2 tested=2026-12-03");
  /* with a mapping, its gpu numbers */
  struct nn_p2p_gpu g[3] = {{.index = 5}, {.index = 6}, {.index = -1}};
  memcpy(rep->gpus, g, sizeof g);
  rep->mapping = "m.conf";
  nn_p2preport_decide(rep, "2026-12-03");
  assert_string_equal(rep->line, "p2p broken gpus=5-6 tested=2026-12-03");
  rep->mapping = NULL;
  for (int i = 0; i < 4; i++) pairs[i].state = NN_P2P_PAIR_NOPEER;
  nn_p2preport_decide(rep, "2026-12-03");
  assert_string_equal(rep->line, "p2p unsupported gpus=0-2 tested=2026-12-03");
  rep->self = 1;
  nn_p2preport_decide(rep, "2026-12-03");
  assert_int_equal(rep->verdict, NN_P2P_NONE);
  assert_string_equal(rep->line, "");
  free(rep);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(pair_ok), cmocka_unit_test(pair_died), cmocka_unit_test(probe),
                                     cmocka_unit_test(decide)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
