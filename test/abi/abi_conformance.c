/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abi_conformance.c - loads the built plugin with dlopen(RTLD_NOW|RTLD_LOCAL) as NCCL
 * does, resolves every symbol and drives tuner v2-v7 and env v1/v2 with realistic
 * tables, asserting the contract. Usage: abi_conformance path/to/libnccl-tuner-numa.so
 * With --no-libxml2 (run where libxml2 cannot load, or anywhere): only that the env plugin
 * serves its topology and the mapping's env defaults without libxml2: no libxml2 is mapped
 * into the process before or after. The env plugin's checks are in abi_env.c.
 */
#include <stdarg.h>
#include <math.h>

#include "abi_conformance.h"

#define NA NN_NCCL_NUM_ALGORITHMS
#define NP NN_NCCL_NUM_PROTOCOLS

const char *const REFERENCE =
  "# reference machine: VM GPUs 0-3 on host NUMA 1, 4-7 on NUMA 0\n"
  "cpu vendor=AuthenticAMD family=25 model=17\n"
  "numa 0 cpus=0-15\nnuma 1 cpus=16-31\n"
  "gpu 0 bus=01:00.0 numa=1 host=f1:00.0\ngpu 1 bus=02:00.0 numa=1 host=e1:00.0\n"
  "gpu 2 bus=03:00.0 numa=1 host=91:00.0\ngpu 3 bus=04:00.0 numa=1 host=81:00.0\n"
  "gpu 4 bus=05:00.0 numa=0 host=71:00.0\ngpu 5 bus=06:00.0 numa=0 host=61:00.0\n"
  "gpu 6 bus=07:00.0 numa=0 host=11:00.0\ngpu 7 bus=08:00.0 numa=0 host=01:00.0\n";

static const char *RULES =
  "rule coll=allreduce bytes=0-64K scope=intra algo=ring proto=ll channels=4\n"
  "rule coll=allreduce bytes=64K- algo=tree\n"
  "rule coll=allgather proto=simple\n"
  "rule coll=reducescatter algo=nvls proto=simple channels=9\n"
  "rule coll=reducescatter channels=2\n"
  "rule coll=broadcast algo=pat proto=ll128\n"
  "model pci-latency-us=13\n"
  "env NCCL_SOCKET_IFNAME=lo\n"
  "env NCCL_P2P_LEVEL=SYS\n";

/* NCCL's usual PCIe-only table: Tree/Ring x LL/Simple enabled; LL128, CollNet, NVLS, PAT off. */
static void pcie_table(float t[NA][NP]) {
  for (int a = 0; a < NA; a++)
    for (int p = 0; p < NP; p++) t[a][p] = -1.0f;
  t[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL] = 10.0f;
  t[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_SIMPLE] = 20.0f;
  t[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL] = 12.0f;
  t[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_SIMPLE] = 15.0f;
}

/* The entry NCCL would pick: smallest >= 0, ties to the lower index. */
static int nccl_pick(float t[NA][NP]) {
  int best = -1;
  for (int i = 0; i < NA * NP; i++) {
    float v = t[i / NP][i % NP];
    if (v >= 0 && (best < 0 || v < t[best / NP][best % NP])) best = i;
  }
  return best;
}

static void check_disabled_stay_disabled(float before[NA][NP], float after[NA][NP],
                                         const char *what) {
  for (int a = 0; a < NA; a++)
    for (int p = 0; p < NP; p++)
      if (!(before[a][p] >= 0))
        CHECK(!(after[a][p] >= 0), "%s: disabled [%d][%d] became %f", what, a, p, after[a][p]);
}

typedef nn_ncclResult_t (*get_fn)(void *, nn_ncclFunc_t, size_t, int, float **, int, int, int,
                                  int *);

struct call_result {
  int pick;
  int channels;
  int changed;
};

static struct call_result call(const nn_ncclTuner_v5_t *t, void *ctx, int coll, size_t bytes) {
  float table[NA][NP], before[NA][NP];
  pcie_table(table);
  memcpy(before, table, sizeof table);
  int ch = 0;
  float *flat = &table[0][0];
  CHECK(
    t->getCollInfo(ctx, coll, bytes, 1, (float **)(void *)flat, NA, NP, 0, &ch) == nn_ncclSuccess,
    "getCollInfo");
  check_disabled_stay_disabled(before, table, "v5 call");
  return (struct call_result){nccl_pick(table), ch, memcmp(before, table, sizeof table) != 0};
}

#define IDX(a, p) ((a)*NP + (p))

/* The version the plugin names: FNV-1a over the file's length and its bytes in 8-byte
 * little-endian words, folded to 32 bits (snapshot.h), so a rank's log says which content it
 * used. */
static void expected_version(const char *cfg, char *out, size_t size) {
  static char text[1 << 16];
  FILE *f = fopen(cfg, "rb");
  uint64_t n = f ? fread(text, 1, sizeof text, f) : 0, h = 14695981039346656037ULL;
  if (f) fclose(f);
  h = (h ^ n) * 1099511628211ULL;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    memcpy(&w, text + i, n - i < 8 ? n - i : 8);
    h = (h ^ w) * 1099511628211ULL;
  }
  snprintf(out, size, "\"configHash\":\"%08x\"", (unsigned)(h ^ (h >> 32)));
}

/* NCCL_NUMA_LOG_FILE: one JSON object per init, with the rule behind each table entry. */
static void check_json_record(const char *path, const char *cfg) {
  char buf[8192] = "", want[700];
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "log file %s written", path);
  if (!f) return;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  CHECK(n > 0 && buf[0] == '{' && buf[n - 1] == '\n' && strchr(buf, '\n') == buf + n - 1,
        "one line, one object");
  CHECK(strstr(buf, "\"commId\":\"0x0000000000001234\"") != NULL, "commId in record");
  CHECK(strstr(buf, "\"nRanks\":4,\"nNodes\":1") != NULL, "shape in record");
  CHECK(strstr(buf, "\"scope\":\"intra\"") != NULL, "scope in record");
  CHECK(strstr(buf, "\"version\":\"" NN_VERSION "\"") != NULL, "version %s in record", NN_VERSION);
  char host[256] = "", want_host[300];
  gethostname(host, sizeof host - 1);
  snprintf(want_host, sizeof want_host, "\"host\":\"%s\"", host);
  CHECK(strstr(buf, want_host) != NULL, "host in record (%s)", want_host);
  CHECK(strstr(buf, "\"rank\":3,\"rankFrom\":\"OMPI_COMM_WORLD_RANK\"") != NULL,
        "launcher rank in record");
  expected_version(cfg, want, sizeof want);
  CHECK(strstr(buf, want) != NULL, "content version in record (%s)", want);
  snprintf(want, sizeof want, "\"choice\":\"ring/ll channels=4\",\"rule\":\"%s:13\"", cfg);
  CHECK(strstr(buf, want) != NULL, "rule line behind the entry (%s)", want);
}

static void test_v5_decisions(void *h, const char *cfg) {
  const nn_ncclTuner_v5_t *t = nn_abi_symbol(h, "ncclTunerPlugin_v5");
  setenv("NCCL_NUMA_CONFIG", cfg, 1);
  nn_ncclTunerConstants_v5_t c;
  memset(&c, 0, sizeof c);
  c.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL128] = 2.5;
  c.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL] = 1.0;
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 4, 4};
  void *ctx = NULL;
  char log_path[600];
  snprintf(log_path, sizeof log_path, "%s.log.json", cfg);
  setenv("NCCL_NUMA_LOG_FILE", log_path, 1);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  CHECK(t->init(&ctx, 0x1234, 4, 1, NULL, &nvl, &c) == nn_ncclSuccess, "v5 init");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("NCCL_NUMA_LOG_FILE");
  check_json_record(log_path, cfg);
  CHECK(ctx != NULL, "context");
  CHECK(c.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL] == 13.0,
        "model applied to tree/ll");
  CHECK(c.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_RING][NN_NCCL_PROTO_SIMPLE] == 13.0,
        "model applied to ring/simple");
  CHECK(c.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL128] == 2.5,
        "LL128 latency untouched");

  struct call_result r = call(t, ctx, nn_ncclFuncAllReduce, 1024);
  CHECK(r.pick == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_LL) && r.channels == 4,
        "intra allreduce 1K: ring/ll ch4 (pick %d ch %d)", r.pick, r.channels);
  r = call(t, ctx, nn_ncclFuncAllReduce, 64 << 10);
  CHECK(r.pick == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_LL), "64K is inside 0-64K (pick %d)",
        r.pick);
  r = call(t, ctx, nn_ncclFuncAllReduce, (64 << 10) + 1);
  CHECK(r.pick == IDX(NN_NCCL_ALGO_TREE, NN_NCCL_PROTO_LL) && r.channels == 0,
        "algo-only: tree with its cheapest proto (pick %d)", r.pick);
  r = call(t, ctx, nn_ncclFuncAllGather, 4096);
  CHECK(r.pick == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_SIMPLE),
        "proto-only: cheapest algo with simple (pick %d)", r.pick);
  r = call(t, ctx, nn_ncclFuncReduceScatter, 4096);
  CHECK(!r.changed && r.channels == 2, "impossible nvls falls through whole to channels=2 (ch %d)",
        r.channels);
  r = call(t, ctx, nn_ncclFuncBroadcast, 4096);
  CHECK(!r.changed && r.channels == 0, "impossible pat/ll128 and no other rule: untouched");
  r = call(t, ctx, nn_ncclFuncReduce, 4096);
  CHECK(!r.changed && r.channels == 0, "no rule for reduce: untouched");
  CHECK(t->finalize(ctx) == nn_ncclSuccess, "finalize");

  /* 8 ranks on 1 node: cross-socket; the intra rule must not fire. */
  ctx = NULL;
  CHECK(t->init(&ctx, 0x99, 8, 1, NULL, &nvl, &c) == nn_ncclSuccess, "v5 init 8 ranks");
  r = call(t, ctx, nn_ncclFuncAllReduce, 1024);
  CHECK(!r.changed && r.channels == 0, "scope=intra rule skipped for a cross communicator");
  t->finalize(ctx);
  CHECK(t->finalize(NULL) == nn_ncclSuccess, "finalize(NULL)");
}

/* Chosen entries win even when another enabled entry is 0.0: NCCL breaks ties by the lower
 * index, so any other 0.0 is raised above the choice. */
static void test_tie_break(void *h) {
  const nn_ncclTuner_v5_t *t = nn_abi_symbol(h, "ncclTunerPlugin_v5");
  void *ctx = NULL;
  nn_ncclTunerConstants_v5_t c;
  memset(&c, 0, sizeof c);
  t->init(&ctx, 1, 4, 1, NULL, NULL, &c);
  float table[NA][NP];
  pcie_table(table);
  table[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL] = 0.0f;
  table[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_SIMPLE] = NAN;
  int ch = 0;
  t->getCollInfo(ctx, nn_ncclFuncAllReduce, 100, 1, (float **)(void *)&table[0][0], NA, NP, 0, &ch);
  CHECK(nccl_pick(table) == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_LL),
        "ring/ll beats a lower-index 0.0");
  CHECK(isnan(table[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_SIMPLE]), "NaN entry left alone");
  /* A table smaller than the rule's indices: the rule is impossible, nothing is written past it. */
  float small[2][2] = {{5, 6}, {7, 8}};
  float guard = 42.0f;
  (void)guard;
  ch = 0;
  t->getCollInfo(ctx, nn_ncclFuncBroadcast, 100, 1, (float **)(void *)&small[0][0], 2, 2, 0, &ch);
  CHECK(small[0][0] == 5 && small[1][1] == 8 && ch == 0, "small table untouched");
  t->finalize(ctx);
}

static void test_v2_v3_v4_v6(void *h) {
  const nn_ncclTuner_v2_t *t2 = nn_abi_symbol(h, "ncclTunerPlugin_v2");
  const nn_ncclTuner_v3_t *t3 = nn_abi_symbol(h, "ncclTunerPlugin_v3");
  const nn_ncclTuner_v4_t *t4 = nn_abi_symbol(h, "ncclTunerPlugin_v4");
  const nn_ncclTuner_v6_t *t6 = nn_abi_symbol(h, "ncclTunerPlugin_v6");
  void *ctx = NULL;
  CHECK(t2->init(4, 1, NULL, &ctx) == nn_ncclSuccess, "v2 init");
  int a = -1, p = -1, ch = 0;
  t2->getCollInfo(ctx, nn_ncclFuncAllReduce, 1024, 0, 0, 1, &a, &p, &ch);
  CHECK(a == NN_NCCL_ALGO_RING && p == NN_NCCL_PROTO_LL && ch == 4, "v2 ring/ll ch4 (%d %d %d)", a,
        p, ch);
  a = p = -1;
  ch = 0;
  t2->getCollInfo(ctx, nn_ncclFuncAllReduce, 1 << 20, 0, 0, 1, &a, &p, &ch);
  CHECK(a == -1 && p == -1 && ch == 0, "v2: algo-only rule is not in the safe set");
  a = p = -1;
  ch = 0;
  t2->getCollInfo(ctx, nn_ncclFuncBroadcast, 1024, 0, 0, 1, &a, &p, &ch);
  CHECK(a == -1 && p == -1 && ch == 0, "v2: pat/ll128 never chosen");
  a = p = -1;
  ch = 0;
  t2->getCollInfo(ctx, nn_ncclFuncReduceScatter, 1024, 0, 0, 1, &a, &p, &ch);
  CHECK(a == -1 && p == -1 && ch == 0, "v2: channels-only rule falls through");
  CHECK(t2->destroy(ctx) == nn_ncclSuccess && t2->destroy(NULL) == nn_ncclSuccess, "v2 destroy");

  setenv("NCCL_ALGO", "ring", 1);
  ctx = NULL;
  t2->init(4, 1, NULL, &ctx);
  a = p = -1;
  ch = 0;
  t2->getCollInfo(ctx, nn_ncclFuncAllReduce, 1024, 0, 0, 1, &a, &p, &ch);
  CHECK(a == -1 && p == -1 && ch == 0, "v2 with NCCL_ALGO set chooses nothing");
  t2->destroy(ctx);
  unsetenv("NCCL_ALGO");

  float table[NA][NP];
  ctx = NULL;
  CHECK(t3->init(4, 1, NULL, &ctx) == nn_ncclSuccess, "v3 init");
  pcie_table(table);
  ch = 0;
  t3->getCollInfo(ctx, nn_ncclFuncAllReduce, 1024, 1, (float **)(void *)&table[0][0], NA, NP, &ch);
  CHECK(nccl_pick(table) == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_LL) && ch == 4, "v3 ring/ll");
  CHECK(t3->destroy(ctx) == nn_ncclSuccess && t3->destroy(NULL) == nn_ncclSuccess, "v3 destroy");

  ctx = NULL;
  CHECK(t4->init(4, 1, NULL, &ctx) == nn_ncclSuccess, "v4 init");
  pcie_table(table);
  ch = 0;
  t4->getCollInfo(ctx, nn_ncclFuncAllGather, 1024, 1, (float **)(void *)&table[0][0], NA, NP, 1,
                  &ch);
  CHECK(nccl_pick(table) == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_SIMPLE), "v4 proto-only");
  CHECK(t4->destroy(ctx) == nn_ncclSuccess && t4->destroy(NULL) == nn_ncclSuccess, "v4 destroy");

  ctx = NULL;
  nn_ncclTunerConstants_v6_t c;
  memset(&c, 0, sizeof c);
  CHECK(t6->init(&ctx, 7, 4, 1, NULL, NULL, &c) == nn_ncclSuccess, "v6 init");
  pcie_table(table);
  ch = 0;
  t6->getCollInfo(ctx, nn_ncclFuncAllReduce, 1 << 20, 1, (float **)(void *)&table[0][0], NA, NP, 0,
                  &ch);
  CHECK(nccl_pick(table) == IDX(NN_NCCL_ALGO_TREE, NN_NCCL_PROTO_LL), "v6 algo-only");
  for (int coll = 0; coll < 5; coll++) {
    size_t chunk = 131072;
    CHECK(t6->getChunkSize &&
            t6->getChunkSize(ctx, coll, 1 << 20, NN_NCCL_ALGO_RING, NN_NCCL_PROTO_SIMPLE, 4,
                             &chunk) == nn_ncclSuccess &&
            chunk == 131072,
          "v6 without chunk= rules leaves NCCL's chunk size (coll %d)", coll);
  }
  CHECK(t6->finalize(ctx) == nn_ncclSuccess, "v6 finalize");
}

/* Tuner v7: v6's decisions, and the model line writes hwLatencies[PCI] tree/ring x ll/simple
 * of the 5-row constants and nothing else: every other double, the Rubin rows included, keeps
 * its sentinel. */
static void test_v7(void *h, const char *cfg) {
  const nn_ncclTuner_v7_t *t7 = nn_abi_symbol(h, "ncclTunerPlugin_v7");
  const nn_ncclTuner_v6_t *t6 = nn_abi_symbol(h, "ncclTunerPlugin_v6");
  setenv("NCCL_NUMA_CONFIG", cfg, 1);
  nn_ncclTunerConstants_v7_t c;
  double *d = (double *)(void *)&c;
  size_t n = sizeof c / sizeof *d;
  for (size_t i = 0; i < n; i++) d[i] = 1000.0 + (double)i;
  void *ctx7 = NULL, *ctx6 = NULL;
  nn_ncclNvlDomainInfo_v7_t nvl = {1, 4, 4};
  CHECK(t7->init(&ctx7, 0x77, 4, 1, NULL, &nvl, &c) == nn_ncclSuccess && ctx7, "v7 init");
  CHECK(t6->init(&ctx6, 0x66, 4, 1, NULL, NULL, NULL) == nn_ncclSuccess && ctx6,
        "v6 init without constants");
  size_t changed = 0;
  size_t hw =
    (offsetof(nn_ncclTunerConstants_v7_t, hwLatencies) + sizeof c.hwLatencies[0] * NN_NCCL_HW_PCI) /
    sizeof *d;
  for (size_t i = 0; i < n; i++) {
    size_t k = i - hw;
    int model = i >= hw && k < (size_t)(NA * NP) && k / NP <= NN_NCCL_ALGO_RING &&
                k % NP != NN_NCCL_PROTO_LL128;
    if (model) CHECK(d[i] == 13.0, "v7 model writes hwLatencies[PCI] entry %zu", k);
    else if (d[i] != 1000.0 + (double)i) changed++;
  }
  CHECK(changed == 0, "v7 init changes no other constant (%zu changed)", changed);
  CHECK(c.perChMaxNVLSTreeBws[NN_NCCL_RUBIN_COMPCAP_IDX][2] == 1000.0 + (double)(n - 1),
        "v7 last Rubin entry kept");
  static const int colls[] = {nn_ncclFuncAllReduce, nn_ncclFuncAllGather, nn_ncclFuncReduceScatter,
                              nn_ncclFuncBroadcast};
  static const size_t sizes[] = {100, 1024, 1 << 20, (size_t)1 << 30};
  for (size_t i = 0; i < sizeof colls / sizeof *colls; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
      float a[NA][NP], b[NA][NP];
      int ch_a = 0, ch_b = 0;
      pcie_table(a);
      pcie_table(b);
      t7->getCollInfo(ctx7, colls[i], sizes[j], 1, (float **)(void *)&a[0][0], NA, NP, 0, &ch_a);
      t6->getCollInfo(ctx6, colls[i], sizes[j], 1, (float **)(void *)&b[0][0], NA, NP, 0, &ch_b);
      CHECK(!memcmp(a, b, sizeof a) && ch_a == ch_b, "v7 decides as v6 (coll %d, %zu B)", colls[i],
            sizes[j]);
    }
  size_t chunk = 65536;
  CHECK(t7->getChunkSize(ctx7, nn_ncclFuncAllReduce, 1 << 20, NN_NCCL_ALGO_RING,
                         NN_NCCL_PROTO_SIMPLE, 2, &chunk) == nn_ncclSuccess &&
          chunk == 65536,
        "v7 without chunk= rules leaves NCCL's chunk size");
  CHECK(t7->finalize(ctx7) == nn_ncclSuccess && t7->finalize(NULL) == nn_ncclSuccess,
        "v7 finalize");
  t6->finalize(ctx6);
}

/* chunk= rules through getChunkSize (v6, v7): the first rule covering the call whose algo=/proto=
 * are what NCCL selected, never below the protocol's grain; a rule with only chunk= leaves
 * getCollInfo alone. */
typedef nn_ncclResult_t (*chunk_fn)(void *, nn_ncclFunc_t, size_t, int, int, int, size_t *);

static size_t chunk_of(chunk_fn get, void *ctx, int coll, size_t bytes, int algo, int proto) {
  size_t chunk = 131072;
  CHECK(get(ctx, coll, bytes, algo, proto, 2, &chunk) == nn_ncclSuccess, "getChunkSize succeeds");
  return chunk;
}

static char g_info[8192]; /* NCCL's logger's INFO lines, from init_logged */
static void init_logged(void *h, const char *cfg);

static void test_chunk(void *h, const char *dir) {
  char path[512];
  const char *cfg =
    nn_abi_write_config(dir, "chunk.conf",
                        "rule coll=allreduce bytes=1M- algo=ring proto=simple chunk=256K\n"
                        "rule coll=allgather chunk=64K\n"
                        "rule coll=broadcast proto=ll128 chunk=1K\n"
                        "rule coll=broadcast chunk=32K\n",
                        path, sizeof path);
  setenv("NCCL_NUMA_CONFIG", cfg, 1);
  const nn_ncclTuner_v6_t *t6 = nn_abi_symbol(h, "ncclTunerPlugin_v6");
  const nn_ncclTuner_v7_t *t7 = nn_abi_symbol(h, "ncclTunerPlugin_v7");
  void *c6 = NULL, *c7 = NULL;
  t6->init(&c6, 0x61, 4, 1, NULL, NULL, NULL);
  t7->init(&c7, 0x71, 4, 1, NULL, NULL, NULL);
  enum {
    R = NN_NCCL_ALGO_RING,
    T = NN_NCCL_ALGO_TREE,
    S = NN_NCCL_PROTO_SIMPLE,
    L = NN_NCCL_PROTO_LL,
    L128 = NN_NCCL_PROTO_LL128
  };
  for (int v = 0; v < 2; v++) {
    chunk_fn hook = v ? t7->getChunkSize : t6->getChunkSize;
    void *ctx = v ? c7 : c6;
    CHECK(chunk_of(hook, ctx, nn_ncclFuncAllReduce, 4 << 20, R, S) == 262144,
          "v%d allreduce ring/simple 4M", v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncAllReduce, 4 << 20, T, S) == 131072,
          "v%d algo= is a condition", v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncAllReduce, 1024, R, S) == 131072,
          "v%d bytes= is a condition", v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncAllGather, 100, T, L) == 65536, "v%d chunk-only rule",
          v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncBroadcast, 100, R, L128) == 131072,
          "v%d 1K is below LL128's 1920-byte grain: NCCL's kept, no later rule", v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncBroadcast, 100, R, L) == 32768, "v%d next rule for ll",
          v + 6);
    CHECK(chunk_of(hook, ctx, nn_ncclFuncReduceScatter, 1 << 20, R, S) == 131072, "v%d no rule",
          v + 6);
    CHECK(chunk_of(hook, NULL, nn_ncclFuncAllGather, 100, R, S) == 131072, "v%d NULL context",
          v + 6);
  }
  float table[NA][NP], before[NA][NP];
  pcie_table(table);
  memcpy(before, table, sizeof table);
  int ch = 0;
  t6->getCollInfo(c6, nn_ncclFuncAllGather, 100, 1, (float **)(void *)&table[0][0], NA, NP, 0, &ch);
  CHECK(!memcmp(before, table, sizeof table) && ch == 0,
        "a chunk-only rule leaves getCollInfo alone");
  t6->getCollInfo(c6, nn_ncclFuncAllReduce, 4 << 20, 1, (float **)(void *)&table[0][0], NA, NP, 0,
                  &ch);
  CHECK(nccl_pick(table) == IDX(NN_NCCL_ALGO_RING, NN_NCCL_PROTO_SIMPLE),
        "the same rule's choice still applies");
  t6->finalize(c6);
  t7->finalize(c7);
  /* NCCL_DEBUG_SUBSYS=TUNING: the chunk= rules in the init log's table */
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_SUBSYS", "INIT,TUNING", 1);
  init_logged(h, cfg);
  char want[1024];
  snprintf(want, sizeof want,
           "nccl-numa:   chunk allreduce     1M-max -> 256K when NCCL runs ring/simple from %s:1\n",
           cfg);
  CHECK(strstr(g_info, want) != NULL, "init log: the chunk rule for allreduce (%s)", g_info);
  snprintf(want, sizeof want,
           "nccl-numa:   chunk allgather     0-max -> 64K when NCCL runs */* from %s:2\n", cfg);
  CHECK(strstr(g_info, want) != NULL, "init log: the chunk-only rule");
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_SUBSYS");
}

/* Random tables and sizes: a disabled entry never becomes enabled, in any version. */
static void test_never_enable(void *h) {
  const nn_ncclTuner_v5_t *t = nn_abi_symbol(h, "ncclTunerPlugin_v5");
  void *ctx = NULL;
  t->init(&ctx, 3, 4, 1, NULL, NULL, NULL);
  srand(7);
  for (int it = 0; it < 20000; it++) {
    float table[NA][NP], before[NA][NP];
    for (int i = 0; i < NA * NP; i++)
      table[i / NP][i % NP] = (rand() % 3 == 0) ? -1.0f : (float)(rand() % 5);
    memcpy(before, table, sizeof table);
    int ch = 0;
    size_t bytes = (size_t)1 << (rand() % 34);
    t->getCollInfo(ctx, rand() % 5, bytes + (size_t)(rand() % 3), 1, (float **)(void *)&table[0][0],
                   NA, NP, rand() % 2, &ch);
    check_disabled_stay_disabled(before, table, "random");
    CHECK(ch >= 0 && ch <= 64, "channels in range");
    if (nn_failures) break;
  }
  t->finalize(ctx);
}

static void expect_pass_through(void *h, const char *what) {
  const nn_ncclTuner_v5_t *t = nn_abi_symbol(h, "ncclTunerPlugin_v5");
  nn_ncclTunerConstants_v5_t c, orig;
  memset(&c, 0, sizeof c);
  c.hwLatencies[NN_NCCL_HW_PCI][0][0] = 1.0;
  orig = c;
  void *ctx = NULL;
  CHECK(t->init(&ctx, 5, 4, 1, NULL, NULL, &c) == nn_ncclSuccess, "%s: init succeeds", what);
  CHECK(!memcmp(&c, &orig, sizeof c), "%s: constants untouched", what);
  for (int coll = 0; coll < 5; coll++) {
    struct call_result r = call(t, ctx, coll, 1024);
    CHECK(!r.changed && r.channels == 0, "%s: pass-through for coll %d", what, coll);
  }
  t->finalize(ctx);
}

static void test_bad_configs(void *h, const char *dir) {
  char path[512];
  setenv("NCCL_NUMA_CONFIG",
         nn_abi_write_config(dir, "bad.conf", "gpu 0 bus=zz numa=0\nrule algo=ring\n", path,
                             sizeof path),
         1);
  expect_pass_through(h, "bad config");
  setenv("NCCL_NUMA_CONFIG", "/nonexistent/nccl-numa.conf", 1);
  expect_pass_through(h, "missing config");
  setenv("NCCL_NUMA_CONFIG", dir, 1);
  expect_pass_through(h, "directory as config");
}

__attribute__((format(printf, 5, 6))) static void keep_info(int level, unsigned long flags,
                                                            const char *file, int line,
                                                            const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  size_t used = strlen(g_info);
  if (level != NN_NCCL_LOG_INFO || used + 2 >= sizeof g_info) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_info + used, sizeof g_info - used - 1, fmt, ap);
  va_end(ap);
  strcat(g_info, "\n");
}

/* The INIT log says which of NCCL_ALGO / NCCL_PROTO decides first, from where, and which rules
 * cannot fire; nothing of the kind when neither is set. */
static void init_logged(void *h, const char *cfg) {
  const nn_ncclTuner_v6_t *t = nn_abi_symbol(h, "ncclTunerPlugin_v6");
  setenv("NCCL_NUMA_CONFIG", cfg, 1);
  g_info[0] = 0;
  void *ctx = NULL;
  CHECK(t->init(&ctx, 0x42, 4, 1, keep_info, NULL, NULL) == nn_ncclSuccess,
        "init with NCCL's logger");
  t->finalize(ctx);
}

static void test_forced_logged(void *h, const char *dir) {
  char path[512], want[1024];
  const char *cfg = nn_abi_write_config(dir, "forced.conf",
                                        "rule coll=allreduce algo=tree proto=ll\n"
                                        "rule coll=allgather algo=ring channels=2\n"
                                        "env NCCL_PROTO=simple\n",
                                        path, sizeof path);
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_ALGO", "allreduce:ring", 1);
  init_logged(h, cfg);
  snprintf(want, sizeof want,
           "nccl-numa: NCCL_ALGO=allreduce:ring (from the environment) decides before any tuner "
           "for allreduce: 1 rule choosing what it leaves out cannot fire there (first %s:1)\n",
           cfg);
  CHECK(strstr(g_info, want) != NULL, "INIT log names NCCL_ALGO and the rule it blocks (%s)",
        g_info);
  snprintf(want, sizeof want,
           "nccl-numa: NCCL_PROTO=simple (from %s:3's env line) decides before any tuner for "
           "broadcast, reduce, allgather, reducescatter, allreduce: 1 rule choosing what it leaves "
           "out cannot fire "
           "there (first %s:1)\n",
           cfg, cfg);
  CHECK(strstr(g_info, want) != NULL, "INIT log names the env line's NCCL_PROTO (%s)", g_info);
  CHECK(strstr(g_info, "nccl-numa " NN_VERSION ": tuner v6") != NULL,
        "the INIT line itself is there");
  unsetenv("NCCL_ALGO");
  cfg = nn_abi_write_config(dir, "forced.conf", "rule coll=allreduce algo=tree proto=ll\n", path,
                            sizeof path);
  init_logged(h, cfg);
  CHECK(strstr(g_info, "nccl-numa " NN_VERSION ": tuner v6") &&
          !strstr(g_info, "decides before any tuner"),
        "neither set: no such line (%s)", g_info);
  unsetenv("NCCL_DEBUG");
}

static void test_all(void *h, const char *dir) {
  char text[8192], path[512];
  snprintf(text, sizeof text, "%s%s", REFERENCE, RULES);
  const char *cfg = nn_abi_write_config(dir, "ref.conf", text, path, sizeof path);
  test_v5_decisions(h, cfg);
  test_tie_break(h);
  test_v2_v3_v4_v6(h);
  test_v7(h, cfg);
  test_forced_logged(h, dir);
  test_chunk(h, dir);
  setenv("NCCL_NUMA_CONFIG", cfg, 1); /* the reference rules again for the random tables */
  test_never_enable(h);
  char cfg_copy[512];
  snprintf(cfg_copy, sizeof cfg_copy, "%s", cfg);
  nn_abi_env_test(h, dir, cfg_copy);
  test_bad_configs(h, dir);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s plugin.so [--no-libxml2]\n", argv[0]);
    return 2;
  }
  char dir[] = "/tmp/nn-abi-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("XDG_RUNTIME_DIR", dir, 1);
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  void *h = nn_abi_load(argv[1]);
  const char *names[] = {"ncclTunerPlugin_v2", "ncclTunerPlugin_v3", "ncclTunerPlugin_v4",
                         "ncclTunerPlugin_v5", "ncclTunerPlugin_v6", "ncclTunerPlugin_v7",
                         "ncclEnvPlugin_v1",   "ncclEnvPlugin_v2"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *const *name = nn_abi_symbol(h, names[i]);
    CHECK(!strcmp(*name, "nccl-numa"), "%s is named nccl-numa", names[i]);
  }
  if (argc > 2 && !strcmp(argv[2], "--no-libxml2")) nn_abi_env_test_no_libxml2(h, dir);
  else test_all(h, dir);
  dlclose(h);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", dir);
  printf("%d checks, %d failed\n", (int)nn_checks, (int)nn_failures);
  return nn_failures ? 1 : 0;
}
