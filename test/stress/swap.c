/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * swap.c - the mapping replaced while communicators are being created.
 *
 * Usage: swap LIB [atomic|inplace] [SECONDS=5] [THREADS=4] [PAUSE_US=200]
 * Two mappings, A and B, hold the same GPUs and rules over the same collective/size
 * ranges but with different choices (A: ring/ll, B: tree/simple with channels), padded
 * with comments to about 100 KB so that reading one takes several read() calls. A writer
 * replaces the file with A and B in turn:
 *   atomic  - write a temporary file and rename() it over the mapping;
 *   inplace - rewrite the mapping itself (O_TRUNC, then 4 KiB writes with yields between).
 * Creator threads meanwhile init a v5 communicator, probe one call per rule, finalize,
 * and classify what the communicator saw: all of A, all of B, a pass-through (nothing
 * matched: an empty or rejected file), or a mix (anything else).
 *
 * A communicator created while the file stood still (the writer had finished one file and
 * not started the next, before its init and after its last probe) must have seen exactly
 * that file whole: a replaced file is adopted by the next init, and a version read half-way
 * never outlives the write. Exit 1 on any violation, when A or B was never seen whole, when
 * no communicator was created in a still window, on a crash or an unsafe table; in atomic
 * mode a mix or a pass-through is a failure too. In in-place mode a communicator created
 * while the file is being written may see a half-written file that stood still between two
 * writes (the documented limit of in-place rewrites): those are counted, not failed.
 */
#include <pthread.h>
#include <sched.h>

#include "stress_common.h"

#define RULES 40
#define PAD_LINES 1600

static char *g_text[2];
static size_t g_len[2];
static char g_path[64];
static int g_inplace, g_stop; /* g_stop: atomic */
static long g_pause_us = 200; /* between two replacements */
static struct st_plugin g_p;
static long g_seen[4]; /* A, B, pass-through, mix (atomic) */
/* Odd while the writer writes; even when file (g_seq / 2) % 2 stands whole on disk. */
static long g_seq;
static long g_still_checked, g_still_wrong;

enum { SAW_A, SAW_B, SAW_NONE, SAW_MIX };

static size_t probe_bytes(int i) { return ((size_t)1 << (i % 20 + 6)) + 3; }
static int probe_coll(int i) { return i < 20 ? 4 : 2; } /* allreduce, then allgather */

/* Rule i covers exactly the size probe_bytes(i) of its collective. */
static char *make_text(int b, size_t *len) {
  size_t cap = 200000, n = 0;
  char *t = malloc(cap);
  if (!t) return NULL;
  n += (size_t)snprintf(t + n, cap - n,
                        "gpu 0 bus=0000:01:00.0 numa=0\ngpu 1 bus=0000:02:00.0 numa=1\n");
  for (int i = 0; i < RULES; i++) {
    size_t x = probe_bytes(i);
    n += (size_t)snprintf(t + n, cap - n, "rule coll=%s bytes=%zu-%zu %s\n",
                          probe_coll(i) == 4 ? "allreduce" : "allgather", x, x,
                          b ? "algo=tree proto=simple channels=3" : "algo=ring proto=ll");
    for (int k = 0; k < PAD_LINES / RULES; k++)
      n += (size_t)snprintf(
        t + n, cap - n, "# padding %c %04d so the file takes several reads to get through ....\n",
        'A' + b, i * 100 + k);
  }
  *len = n;
  return t;
}

/* The expected chosen entry and nChannels of probe i under mapping b. */
static int want_choice(int b) { return b ? 0 * ST_NP + 2 : 1 * ST_NP + 0; }

static int classify(void *ctx) {
  int a = 0, b = 0, none = 0;
  for (int i = 0; i < RULES; i++) {
    float t[ST_NA][ST_NP];
    int channels = 0;
    st_fill_table(t);
    g_p.tuner->getCollInfo(ctx, (nn_ncclFunc_t)probe_coll(i), probe_bytes(i), 1,
                           (float **)(void *)t, ST_NA, ST_NP, 0, &channels);
    int c = st_choice(t);
    if (c == -2) return -1;
    if (c == -1 && channels == 0) none++;
    else if (c == want_choice(0) && channels == 0) a++;
    else if (c == want_choice(1) && channels == 3) b++;
  }
  return a == RULES ? SAW_A : b == RULES ? SAW_B : none == RULES ? SAW_NONE : SAW_MIX;
}

static int write_inplace(const char *buf, size_t len) {
  int fd = open(g_path, O_WRONLY | O_TRUNC);
  if (fd < 0) return -1;
  for (size_t done = 0; done < len;) {
    size_t chunk = len - done < 4096 ? len - done : 4096;
    ssize_t w = write(fd, buf + done, chunk);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)w;
    sched_yield();
  }
  return close(fd);
}

static void *writer(void *arg) {
  (void)arg;
  struct timespec pause = {g_pause_us / 1000000, g_pause_us % 1000000 * 1000};
  for (int k = 1; !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE); k ^= 1) {
    __atomic_add_fetch(&g_seq, 1, __ATOMIC_SEQ_CST);
    int rc =
      g_inplace ? write_inplace(g_text[k], g_len[k]) : st_write_atomic(g_path, g_text[k], g_len[k]);
    if (rc != 0) {
      perror("swap: writing the mapping");
      exit(1);
    }
    __atomic_add_fetch(&g_seq, 1, __ATOMIC_SEQ_CST);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static void *creator(void *arg) {
  (void)arg;
  nn_ncclTunerConstants_v5_t *constants = calloc(1, sizeof *constants);
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 1, 2};
  while (constants && !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    void *ctx = NULL;
    long before = __atomic_load_n(&g_seq, __ATOMIC_SEQ_CST);
    g_p.tuner->init(&ctx, 7, 2, 1, st_logger, &nvl, constants);
    int saw = classify(ctx);
    long after = __atomic_load_n(&g_seq, __ATOMIC_SEQ_CST);
    g_p.tuner->finalize(ctx);
    if (saw < 0) {
      fprintf(stderr, "swap: a disabled entry was enabled\n");
      exit(1);
    }
    __atomic_add_fetch(&g_seen[saw], 1, __ATOMIC_RELAXED);
    if (before == after && before % 2 == 0) { /* the file stood still throughout */
      __atomic_add_fetch(&g_still_checked, 1, __ATOMIC_RELAXED);
      if (saw != (int)(before / 2 % 2)) __atomic_add_fetch(&g_still_wrong, 1, __ATOMIC_RELAXED);
    }
  }
  free(constants);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIB [atomic|inplace] [SECONDS] [THREADS] [PAUSE_US]\n", argv[0]);
    return 2;
  }
  g_inplace = argc > 2 && !strcmp(argv[2], "inplace");
  int seconds = (int)st_arg(argc, argv, 3, 5, 1, 3600), n = (int)st_arg(argc, argv, 4, 4, 1, 256);
  g_pause_us = st_arg(argc, argv, 5, 200, 0, 10000000);
  char dir[] = "/tmp/nn-swap-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  snprintf(g_path, sizeof g_path, "%s/map.conf", dir);
  for (int b = 0; b < 2; b++)
    if (!(g_text[b] = make_text(b, &g_len[b]))) return 1;
  if (st_write_atomic(g_path, g_text[0], g_len[0]) != 0) return 1;
  setenv("NCCL_NUMA_CONFIG", g_path, 1);
  unsetenv("NCCL_NUMA_LOG_FILE");
  if (st_load(argv[1], &g_p) != 0) return 1;
  /* The process is already using the old mapping when the replacing starts: that is the
   * "old config" every later communicator may keep. (A process whose very first read meets
   * a file that is rewritten in place without pause cannot be promised a whole file.) */
  void *first = NULL;
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 1, 2};
  nn_ncclTunerConstants_v5_t *constants = calloc(1, sizeof *constants);
  if (!constants) return 1;
  g_p.tuner->init(&first, 7, 2, 1, st_logger, &nvl, constants);
  int saw_first = classify(first);
  g_p.tuner->finalize(first);
  free(constants);
  if (saw_first != SAW_A) {
    fprintf(stderr, "swap: the first communicator did not see mapping A whole\n");
    return 1;
  }
  pthread_t w, th[256];
  pthread_create(&w, NULL, writer, NULL);
  for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, creator, NULL);
  sleep((unsigned)seconds);
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  pthread_join(w, NULL);
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  dlclose(g_p.handle);
  unlink(g_path);
  rmdir(dir);
  free(g_text[0]);
  free(g_text[1]);
  printf("swap (%s, %zu/%zu bytes, %ld replacements): %ld communicators saw A whole, %ld B whole, "
         "%ld a pass-through, %ld a mix; %ld created while the file stood still, %ld of them not "
         "on that file\n",
         g_inplace ? "in-place rewrite" : "atomic rename", g_len[0], g_len[1], g_seq / 2,
         g_seen[SAW_A], g_seen[SAW_B], g_seen[SAW_NONE], g_seen[SAW_MIX], g_still_checked,
         g_still_wrong);
  int bad = 0;
  if (!g_seen[SAW_A] || !g_seen[SAW_B])
    bad = fprintf(stderr, "swap: A and B were not both seen whole\n");
  if (!g_still_checked)
    bad = fprintf(stderr, "swap: no communicator was created while the file stood still\n");
  if (g_still_wrong)
    bad = fprintf(stderr,
                  "swap: %ld communicators created while the file stood still did not "
                  "use it whole\n",
                  g_still_wrong);
  if (!g_inplace && (g_seen[SAW_MIX] || g_seen[SAW_NONE]))
    bad = fprintf(stderr, "swap: an atomic replacement was not seen whole\n");
  return bad ? 1 : 0;
}
