/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_floors.c - the lowest buffer, chunk and FIFO size a mapping may serve (env_names.c)
 * survives NCCL's own arithmetic, and one byte less of NCCL's true minimum would not: the
 * formulas below are facts read from NCCL's source (v2.28.9-1, v2.30.7-1 and dev alike),
 * written here from their description, not copied:
 *  - src/include/device.h: NCCL_STEPS 8; a protocol's grain (ncclProtoGrainSize) is 16 bytes for
 *    LL, 512 for Simple, and for LL128 WARP_SIZE 32 x NCCL_LL128_SHMEM_ELEMS_PER_THREAD 8 /
 *    NCCL_LL128_LINEELEMS 16 x NCCL_LL128_DATAELEMS 15 x 8 bytes = 1920;
 *  - src/enqueue.cc calcCollChunking: a step is the protocol's buffer / NCCL_STEPS; the chunk is
 *    a step times chunkSteps (Ring Simple: ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2; else 1), halved
 *    for LL, times 15/16 in whole lines of 16 elements for LL128, then cut down to whole grains;
 *    the loop count divides the bytes by nChannels x chunks-per-loop x chunk;
 *  - src/init.cc computeBuffSizes: the P2P chunk is NCCL_P2P_{NET,NVL,PCI}_CHUNKSIZE, at most the
 *    Simple buffer / NCCL_STEPS; src/enqueue.cc (the P2P plan) divides it by 8 (one node) or 2
 *    for the smallest part, and by 4 for a small network send;
 *  - src/init.cc: NCCL_WORK_FIFO_BYTES must be a power of two; a plan may use half of it. */
#include "nn_test.h"

#include "env_names.h"

enum { LL = 0, LL128, SIMPLE };
#define NCCL_STEPS 8
#define CHUNKSTEPS_RING_SIMPLE (NCCL_STEPS / 2)

static long grain(int proto) {
  return proto == LL ? 16 : proto == SIMPLE ? 512 : 32 * 8 / 16 * 15 * 8;
}

/* The collective chunk NCCL makes of a buffer of `buff` bytes (before any tuner). */
static long coll_chunk(long buff, int proto, int ring) {
  long step = buff / NCCL_STEPS;
  long chunk = step * (proto == SIMPLE && ring ? CHUNKSTEPS_RING_SIMPLE : 1);
  if (proto == LL) chunk /= 2;
  if (proto == LL128) chunk = chunk / 16 * 15;
  return chunk / grain(proto) * grain(proto);
}

/* The smallest P2P part NCCL divides by: the P2P chunk, clamped by the Simple buffer. */
static long p2p_part(long p2p_chunk, long simple_buff, int multi_node) {
  long chunk = p2p_chunk * NCCL_STEPS > simple_buff ? simple_buff / NCCL_STEPS : p2p_chunk;
  return multi_node ? chunk / 2 : chunk / 8;
}

static long lowest(const char *name) {
  long long lo, hi;
  if (nn_env_number_range(name, &lo, &hi)) fail_msg("%s takes no number range", name);
  char v[32], why[640];
  snprintf(v, sizeof v, "%lld", lo);
  if (nn_env_value_refusal(name, v, why, sizeof why))
    fail_msg("%s=%s, its own floor, refused: %s", name, v, why);
  snprintf(v, sizeof v, "%lld", lo - 1);
  if (!nn_env_value_refusal(name, v, why, sizeof why))
    fail_msg("%s=%s, below the floor, served", name, v);
  return (long)lo;
}

/* Each protocol's floor leaves a whole grain for Tree and Ring; NCCL's true minimum minus one
 * would leave 0 (the formulas can fail). */
static void test_buffer_floors(void **state) {
  (void)state;
  static const char *const names[] = {"NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE", "NCCL_BUFFSIZE"};
  static const long nccl_min[] = {256, 16384, 4096};
  for (int p = LL; p <= SIMPLE; p++) {
    long lo = lowest(names[p]);
    for (int ring = 0; ring < 2; ring++) {
      long chunk = coll_chunk(lo, p, ring);
      if (chunk < grain(p)) fail_msg("%s=%ld: a chunk of %ld bytes", names[p], lo, chunk);
      print_message("%s floor %ld: %s chunk %ld bytes (%ld grains)\n", names[p], lo,
                    ring ? "ring" : "tree", chunk, chunk / grain(p));
    }
    assert_true(coll_chunk(nccl_min[p], p, 0) > 0);
    assert_int_equal(coll_chunk(nccl_min[p] - 1, p, 0), 0);
    assert_true(lo >= 4 * nccl_min[p]); /* with margin */
  }
}

static void test_p2p_floors(void **state) {
  (void)state;
  long simple = lowest("NCCL_BUFFSIZE");
  static const char *const names[] = {"NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_NVL_CHUNKSIZE",
                                      "NCCL_P2P_PCI_CHUNKSIZE", "NCCL_CHUNK_SIZE"};
  for (int i = 0; i < 4; i++) {
    long lo = lowest(names[i]);
    for (int multi = 0; multi < 2; multi++) {
      long part = p2p_part(lo, simple, multi);
      if (part < 512)
        fail_msg("%s=%ld with NCCL_BUFFSIZE=%ld: a part of %ld bytes", names[i], lo, simple, part);
    }
    assert_true(lo / 4 >= grain(SIMPLE)); /* a small network send's quarter chunk */
  }
  assert_int_equal(p2p_part(7, 1L << 22, 0), 0); /* what the floor keeps out */
}

static void test_work_fifo_floor(void **state) {
  (void)state;
  long lo = lowest("NCCL_WORK_FIFO_BYTES");
  assert_true((lo & (lo - 1)) == 0);
  assert_true(lo / 2 >= 16 * 1024); /* a plan's half leaves room for its work */
  char why[640];
  assert_non_null(
    nn_env_value_refusal("NCCL_WORK_FIFO_BYTES", "98304", why, sizeof why)); /* 96 KiB */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_buffer_floors),
                                     cmocka_unit_test(test_p2p_floors),
                                     cmocka_unit_test(test_work_fifo_floor)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
