/* SPDX-License-Identifier: BSD-3-Clause */
/* test_p2preport.c - nccl-numa p2p's reading of its children's lines and its verdict, on
 * lines the stand-in driver cannot produce: a child killed by a signal, a driver error, a
 * probe that died, junk, the level from a mapping that lacks a GPU, the ring's lines, the
 * per-socket advice, and the mapping text --update writes. */
#include "cli/p2p/p2preport.h"
#include "cli/p2p/p2pupdate.h"
#include "nn_config.h"
#include "nn_test.h"

static struct nn_p2p_report no_mapping; /* two GPUs' pairs, read without a mapping */

static struct nn_sup_result run_of(const char *text, int timed_out, int exit_code, int sig) {
  struct nn_sup_result r = {timed_out ? NN_SUP_TIMED_OUT
                            : sig     ? NN_SUP_SIGNALED
                                      : NN_SUP_EXITED,
                            exit_code,
                            sig,
                            0,
                            (char *)text,
                            strlen(text),
                            0};
  return r;
}

static void pair_ok(void **state) {
  (void)state;
  struct nn_p2p_pair p = {0};
  struct nn_sup_result r =
    run_of("peer 1 0 1 1 0\nbegin setup\nbegin write\nstep write ok\nbegin read\nstep read ok\n"
           "begin copy\nstep copy ok\nbegin latency\nlatency 1.250\nstep latency ok\n"
           "begin bandwidth\nbandwidth 27.120\nstep bandwidth ok\ndone ok\n",
           0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
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
  struct nn_sup_result r =
    run_of("peer 1 0 1 0 0\nbegin setup\nbegin write\nstep write ok\nbegin read\n", 0, -1, 11);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "the test process died (signal 11) during 'read'");
  /* a driver error is the reason, not the death that follows */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nbegin setup\nerror setup: cuCtxEnablePeerAccess failed: "
             "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)\n",
             0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "driver error in setup: cuCtxEnablePeerAccess failed: "
                                "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)");
  /* "done ok" after a failed step (never written so, but never trusted either) */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nstep copy fail 3 of 8 words wrong\ndone ok\n", 0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_string_equal(p.reason, "copy: 3 of 8 words wrong");
  /* a time-out wins over everything it wrote */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 0 1 0 0\nbegin latency\n", 1, -1, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 7);
  assert_string_equal(p.reason, "hung: no answer within 7 s during 'latency', killed");
  /* junk and a short peer line change nothing */
  memset(&p, 0, sizeof p);
  r = run_of("peer 1 x\nlatency abc\nstep nosuch ok\ndone nopeer\n", 0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_int_equal(p.state, NN_P2P_PAIR_NOPEER);
  assert_int_equal(p.can, -1);
  assert_true(p.latency_us < 0);
}

static void pair_cross_process(void **state) {
  (void)state;
  struct nn_p2p_pair p;
  struct nn_sup_result r =
    run_of("peer 1 0 1 1 0\nstep write ok\nstep read ok\nstep copy ok\nbegin xmap\nbegin xwrite\n"
           "step xwrite fail lost: 8 of 8 words wrong\nstep xread ok\nstep xll8 ok\n"
           "step xll16 fail lost: 4 of 4 words wrong\nstep ipcwrite ok\nstep ipcread ok\n",
           0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 1, 0, &r, 30);
  assert_int_equal(p.a, 1);
  assert_int_equal(p.b, 0);
  assert_int_equal(p.state, NN_P2P_PAIR_BROKEN);
  assert_int_equal(p.step[NN_P2P_XWRITE], NN_P2P_FAILED);
  assert_int_equal(p.step[NN_P2P_IPCREAD], NN_P2P_PASSED);
  assert_string_equal(
    p.reason,
    "cross-process write: lost: 8 of 8 words wrong; cross-process LL 16-byte stores: lost: "
    "4 of 4 words wrong");
  /* an error in the owner's process names that process's step */
  r = run_of("peer 1 0 1 1 0\nbegin xmap\nerror xsetup: cuMemCreate (POSIX fd shareable) failed: "
             "CUDA_ERROR_NOT_SUPPORTED (801)\n",
             0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_string_equal(
    p.reason, "driver error in cross-process setup (GPU b's process): cuMemCreate (POSIX fd "
              "shareable) failed: CUDA_ERROR_NOT_SUPPORTED (801)");
  r = run_of("peer 1 0 1 1 0\nbegin ipcwrite\n", 1, -1, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 9);
  assert_string_equal(p.reason, "hung: no answer within 9 s during 'legacy IPC write', killed");
  r = run_of("peer 1 0 1 1 0\nsmbandwidth 21.500\ndone ok\n", 0, 0, 0);
  nn_p2preport_pair(&no_mapping, &p, 0, 1, &r, 30);
  assert_true(p.sm_gbps > 21.4 && p.sm_gbps < 21.6);
}

static void ring(void **state) {
  (void)state;
  struct nn_p2p_report *rep = calloc(1, sizeof *rep);
  struct nn_sup_result r = run_of("ring GPU 0 wrong 0 of 2097152 rounds 1 gbps 12.500\n"
                                  "ring GPU 1 wrong 0 of 2097152 rounds 1 gbps 11.000\nring-done\n",
                                  0, 0, 0);
  nn_p2preport_ring(rep, 2, 3, &r, 60);
  assert_true(rep->ring.run && rep->ring.ok);
  assert_int_equal(rep->ring.n, 2);
  assert_int_equal(rep->ring.gpus[1].checked, 2097152);
  assert_true(rep->ring.gpus[0].gbps > 12.4);
  /* a second ring (another NUMA node's) with lines lost: the first failure is the reason */
  r = run_of("ring GPU 2 wrong 5 of 100 rounds 1 gbps 1.0\nring GPU 3 wrong 0 of 100 rounds 1 gbps "
             "1.0\nring-done\n",
             0, 0, 0);
  nn_p2preport_ring(rep, 2, 3, &r, 60);
  assert_int_equal(rep->ring.rings, 2);
  assert_false(rep->ring.ok);
  assert_string_equal(rep->ring.reason,
                      "GPU 2's process found 5 of 100 LL lines (data and flag) from its ring "
                      "neighbours wrong while every GPU wrote at once");
  memset(rep, 0, sizeof *rep);
  r = run_of("ring GPU 0 wrong 0 of 1 rounds 1 gbps 1\n", 0, 0, 0); /* GPU 1's process died */
  nn_p2preport_ring(rep, 2, 3, &r, 60);
  assert_string_equal(rep->ring.reason,
                      "1 of 2 GPU processes reported while every GPU wrote at once (exit 0)");
  memset(rep, 0, sizeof *rep);
  r =
    run_of("error ring-gpu1: cuMemMap failed: CUDA_ERROR_INVALID_VALUE (1)\nring-done\n", 0, 0, 0);
  nn_p2preport_ring(rep, 2, 3, &r, 60);
  assert_string_equal(rep->ring.reason,
                      "driver error while every GPU wrote at once: ring-gpu1: cuMemMap failed: "
                      "CUDA_ERROR_INVALID_VALUE (1)");
  memset(rep, 0, sizeof *rep);
  r = run_of("ring GPU 0 wrong x of 1 rounds 1 gbps 1\n", 1, -1, 0);
  nn_p2preport_ring(rep, 2, 3, &r, 63);
  assert_string_equal(rep->ring.reason,
                      "hung: no answer within 63 s while every GPU wrote at once, killed");
  free(rep);
}

/* Four GPUs on two nodes (0, 1 | 2, 3): the pairs across fail, or lack peer access. */
static void advice(void **state) {
  (void)state;
  struct nn_p2p_report *rep = calloc(1, sizeof *rep);
  struct nn_p2p_pair pairs[12];
  int n = 0;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      if (a != b)
        pairs[n++] = (struct nn_p2p_pair){
          .a = a, .b = b, .path = (a < 2) != (b < 2) ? NN_P2P_LEVEL_SYS : NN_P2P_LEVEL_PHB};
  rep->pairs = pairs;
  rep->n_pairs = n;
  rep->n_gpus = 4;
  rep->mapping = "two.conf";
  for (int g = 0; g < 4; g++)
    rep->gpus[g] = (struct nn_p2p_gpu){.ordinal = g, .numa = g / 2, .index = g};
  for (int i = 0; i < n; i++)
    pairs[i].state = pairs[i].path == NN_P2P_LEVEL_SYS ? NN_P2P_PAIR_BROKEN : NN_P2P_PAIR_OK;
  nn_p2preport_decide(rep, "d");
  assert_int_equal(rep->verdict, NN_P2P_BROKEN);
  assert_int_equal(rep->advice, NN_P2P_ADVICE_SOCKET_CLIQUE);
  pairs[0].state = NN_P2P_PAIR_BROKEN; /* 0->1, within node 0 */
  nn_p2preport_decide(rep, "d");
  assert_int_equal(rep->advice, NN_P2P_ADVICE_NONE);
  for (int i = 0; i < n; i++)
    pairs[i].state = pairs[i].path == NN_P2P_LEVEL_SYS ? NN_P2P_PAIR_NOPEER : NN_P2P_PAIR_OK;
  nn_p2preport_decide(rep, "d");
  assert_int_equal(rep->verdict, NN_P2P_OK);
  assert_int_equal(rep->advice, NN_P2P_ADVICE_SOCKET_NOPEER);
  assert_string_equal(rep->line, "p2p ok level=PHB gpus=0-3 xproc=ok tested=d");
  pairs[2].state = NN_P2P_PAIR_OK; /* 0->3 has peer access after all: not a clique per socket */
  nn_p2preport_decide(rep, "d");
  assert_int_equal(rep->advice, NN_P2P_ADVICE_NONE);
  /* the ring failing makes it broken; a deadline that left pairs untested gives no line */
  rep->ring.run = 1;
  nn_p2preport_decide(rep, "d");
  assert_int_equal(rep->verdict, NN_P2P_BROKEN);
  rep->ring.run = 0;
  rep->incomplete = 1;
  nn_p2preport_decide(rep, "d");
  assert_string_equal(rep->line, "");
  free(rep);
}

static void update_text(void **state) {
  (void)state;
  size_t len;
  int replaced;
  const char *line = "p2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok tested=d";
  char *t =
    nn_p2pupdate_text("gpu 0 numa=0\n# p2p ok here\n  P2P broken\nenv A=b\np2p unsupported\n", 63,
                      line, &len, &replaced);
  assert_int_equal(replaced, 2);
  assert_string_equal(
    t, "gpu 0 numa=0\n# p2p ok here\np2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok tested=d\n"
       "env A=b\n");
  assert_int_equal(len, strlen(t));
  free(t);
  t = nn_p2pupdate_text("gpu 0 numa=0\r\np2p ok\r\np2pfoo x", 30, "p2p broken", &len, &replaced);
  assert_int_equal(replaced, 1);
  assert_string_equal(t, "gpu 0 numa=0\r\np2p broken\r\np2pfoo x");
  free(t);
  t = nn_p2pupdate_text("gpu 0 numa=0", 12, "p2p broken", &len, &replaced);
  assert_int_equal(replaced, 0);
  assert_string_equal(t, "gpu 0 numa=0\np2p broken\n");
  free(t);
  t = nn_p2pupdate_text("", 0, "p2p broken", &len, &replaced);
  assert_string_equal(t, "p2p broken\n");
  free(t);
}

static void probe(void **state) {
  (void)state;
  struct nn_p2p_report *rep = calloc(1, sizeof *rep);
  char why[256];
  struct nn_sup_result r =
    run_of("cuda 12080\ngpu 0 0000:17:00.0 NVIDIA GeForce RTX 3090\ngpu 1 0000:65:00.0 NVIDIA "
           "GeForce RTX 3090\n"
           "nvml-driver 570.86.15\nnvml 0 1 1 1\nnvml 1 0 0 0\nnvml 99 0 0 0\nend\n",
           0, 0, 0);
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
  struct nn_p2p_pair pairs[4] = {pair(0, 1, NN_P2P_LEVEL_PHB, NN_P2P_PAIR_OK),
                                 pair(1, 0, NN_P2P_LEVEL_PHB, NN_P2P_PAIR_OK),
                                 pair(0, 2, NN_P2P_LEVEL_SYS, NN_P2P_PAIR_NOPEER),
                                 pair(2, 0, NN_P2P_LEVEL_SYS, NN_P2P_PAIR_NOPEER)};
  rep->pairs = pairs;
  rep->n_pairs = 4;
  rep->n_gpus = 3;
  snprintf(rep->driver, sizeof rep->driver, "570.86.15");
  /* the SYS pairs have no peer access: the level is the widest verified, PHB; gpus= the pairs'
   * GPUs, by CUDA number without a mapping */
  nn_p2preport_decide(rep, "2026-12-03");
  assert_int_equal(rep->verdict, NN_P2P_OK);
  assert_string_equal(rep->line,
                      "p2p ok level=PHB gpus=0-2 driver=570.86.15 xproc=ok tested=2026-12-03");
  pairs[2].state = NN_P2P_PAIR_OK;
  nn_p2preport_decide(rep, "2026-12-03");
  assert_string_equal(rep->line,
                      "p2p ok level=SYS gpus=0-2 driver=570.86.15 xproc=ok tested=2026-12-03");
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
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(pair_ok), cmocka_unit_test(pair_died),  cmocka_unit_test(pair_cross_process),
    cmocka_unit_test(probe),   cmocka_unit_test(decide),     cmocka_unit_test(ring),
    cmocka_unit_test(advice),  cmocka_unit_test(update_text)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
