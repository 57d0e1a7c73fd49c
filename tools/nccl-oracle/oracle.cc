/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * oracle.cc - replays the topology / graph / tuning part of NCCL's initTransportsRank
 * (init.cc) for every rank of a single-node communicator whose GPUs are those of an
 * NCCL_TOPO_FILE, then asks NCCL's own algorithm selection (enqueue.cc getAlgoInfo)
 * what it picks per collective and size.  Only the sequencing below is the oracle's;
 * every decision is taken by NCCL's unmodified code:
 *
 *   per rank, one thread each (they meet in the stubbed bootstrap all-gather):
 *     ncclTopoGetSystem          (NCCL_TOPO_FILE -> ncclTopoGetXmlFromFile, ncclTopoFillGpu
 *                                 with the NVML stub, ncclTopoTrimXml, ncclTopoFuseXml,
 *                                 ncclTopoGetSystemFromXml)
 *   then per rank, as init.cc does:
 *     ncclTopoComputePaths, ncclTopoTrimSystem, ncclTopoComputePaths, ncclTopoSearchInit,
 *     ncclTopoComputeCommCPU, ncclTopoCompute(ring), ncclTopoCompute(tree),
 *     ncclTopoPreset, [all-gather 3 emulated exactly as init.cc], ncclTopoPostset,
 *     ncclTopoInitTunerConstants, [tuner constants override = what a v5 tuner's init may
 *     do], ncclTopoTuneModel   (2.31/dev: ncclTuningInit, with the override done by a stub
 *     tuner's init, where NCCL calls it)
 *   then for rank 0: getAlgoInfo (updateCollCostTable + topoGetAlgoInfo) per coll x size.
 *
 * Usage: oracle [--sm N] [--pci-latency-us X] [--p2p] [--sizes LIST] [--colls LIST]
 *               [--kv] [-v|-vv] TOPO.xml
 */
#include "comm.h"
#include "graph.h"
#include "topo.h"
#include "xml.h"
#include "enqueue.h"
#include "bootstrap.h"
#include "transport.h"
#include "oracle_stubs.h"
#include "oracle_api.h"

#include <algorithm>
#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <string>
#include <thread>
#include <vector>

extern ncclNet_t oracleNet;
void oracleNetUseIb();

/* where the cost model keeps its constants and thread limits: comm itself up to 2.30,
 * comm->tuningContext (src/tuning/) from 2.31 */
#ifdef ORACLE_TUNING_SUBSYSTEM
#include "tuning.h"
#define ORACLE_CONSTANTS(c) ((c)->tuningContext.tuningConstants)
#define ORACLE_MAXTHREADS(c) ((c)->tuningContext.maxThreads)
#else
#define ORACLE_CONSTANTS(c) ((c)->tunerConstants)
#define ORACLE_MAXTHREADS(c) ((c)->maxThreads)
#endif

#define CHECK(call) do { ncclResult_t _r = (call); if (_r != ncclSuccess) { \
  fprintf(stderr, "oracle: %s failed (%d) at %s:%d\n", #call, (int)_r, __FILE__, __LINE__); exit(3); } } while (0)

static void usage() {
  fprintf(stderr,
    "usage: oracle [--sm N] [--pci-latency-us X] [--p2p] [--sizes a,b,..] [--colls allreduce,...]\n"
    "              [--kv] [-v|-vv] TOPO.xml\n"
    "  --sm N             compute capability the (stubbed) CUDA/NVML report, e.g. 90, 100, 120;\n"
    "                     default: the sm= of the first <gpu> in the file\n"
    "  --pci-latency-us X set hwLatencies[PCI][Tree,Ring][LL,Simple] = X us where a tuner\n"
    "                     v5+ init() may: after ncclTopoInitTunerConstants (<= 2.30); in 2.31 (dev)\n"
    "                     a stub tuner's init writes them into the constants NCCL hands it\n"
    "  --p2p              let CUDA/NVML report peer access (default: none, as in the VM)\n"
    "  --no-nic           no network device at all (default: one virtual socket NIC, as in a VM)\n"
    "  --nvml-pcie G,W    NCCL 2.30+: the current PCIe generation,width NVML reports for a GPU\n"
    "                     whose <pci> has no link_speed/link_width (default 5,16)\n"
    "  --nic BUSID[:NAME] an IB-class NIC (RDMA, GPUDirect-capable) at that PCI function, as the IB\n"
    "                     plugin reports it (repeatable; replaces the virtual socket NIC). NCCL finds\n"
    "                     it by bus id: under the file's <pci busid>, else (no sysfs) under a\n"
    "                     <cpu numaid=-1>, as a guest's numa_node -1 NIC\n"
    "  --nic-speed MBPS   the NICs' speed (default 400000)\n"
    "  --gdr              the GPUs report GPUDirect RDMA support (nvidia-peermem loaded)\n"
    "  --nodes N          a communicator over N identical nodes (this file on each): prints per GPU\n"
    "                     the NIC NCCL gives it, the path and GDR, and the inter-node ring and tree\n"
    "                     search; no cost model\n"
    "  --kv               machine-readable key=value lines only\n");
  exit(2);
}

static const char* funcName(int f) {
  switch (f) {
    case ncclFuncBroadcast: return "broadcast";
    case ncclFuncReduce: return "reduce";
    case ncclFuncAllGather: return "allgather";
    case ncclFuncReduceScatter: return "reducescatter";
    case ncclFuncAllReduce: return "allreduce";
  }
  return "?";
}
static const char* algoName(int a) {
  static const char* n[] = { "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT" };
  return (a >= 0 && a < NCCL_NUM_ALGORITHMS) ? n[a] : "?";
}
static const char* protoName(int p) {
  static const char* n[] = { "LL", "LL128", "Simple" };
  return (p >= 0 && p < NCCL_NUM_PROTOCOLS) ? n[p] : "?";
}
static const char* pathName(int t) {
  static const char* n[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS" };
  return (t >= 0 && t < 12) ? n[t] : "?";
}
static std::string sizeStr(size_t b) {
  char buf[32];
  if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) snprintf(buf, sizeof buf, "%zuG", b >> 30);
  else if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) snprintf(buf, sizeof buf, "%zuM", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) snprintf(buf, sizeof buf, "%zuK", b >> 10);
  else snprintf(buf, sizeof buf, "%zu", b);
  return buf;
}
static size_t parseSize(const char* s) {
  char* end;
  double v = strtod(s, &end);
  switch (*end) { case 'k': case 'K': v *= 1024; break; case 'm': case 'M': v *= 1048576; break;
                  case 'g': case 'G': v *= 1073741824.0; break; }
  return (size_t)v;
}

/* GPUs of the file: <pci> with a <gpu> child or a display class (0x03...), in bus order. */
static void findGpus(const char* file, std::vector<int64_t>* busIds, int* smInFile) {
  struct ncclXml* xml;
  CHECK(xmlAlloc(&xml, NCCL_TOPO_XML_MAX_NODES));
  CHECK(ncclTopoGetXmlFromFile(file, xml, 1));
  *smInFile = 0;
  for (int i = 0; i < xml->maxIndex; i++) {
    struct ncclXmlNode* n = xml->nodes + i;
    if (strcmp(n->name, "pci") != 0) continue;
    const char* cls = NULL; const char* bus = NULL;
    xmlGetAttr(n, "class", &cls);
    xmlGetAttr(n, "busid", &bus);
    struct ncclXmlNode* g = NULL;
    xmlGetSub(n, "gpu", &g);
    if (!bus) continue;
    if (g == NULL && !(cls && strncmp(cls, "0x03", 4) == 0)) continue;
    int64_t id;
    CHECK(busIdToInt64(bus, &id));
    busIds->push_back(id);
    if (g && *smInFile == 0) {
      const char* sm = NULL;
      xmlGetAttr(g, "sm", &sm);
      if (sm) *smInFile = atoi(sm);
    }
  }
  free(xml);
  std::sort(busIds->begin(), busIds->end());
}

/* --nic BUSID[:NAME]: a made-up sysfs directory named by the bus id whose subsystem is "pci",
 * which is all ncclTopoFillNet reads of a pciPath (graph/xml.cc, 2.28.9-2.31) */
static char sysRoot[] = "/tmp/nccl-oracle-sys-XXXXXX";
/* at exit: the made-up sysfs tree goes again */
static void removeSysRoot() {
  char path[600];
  for (int i = 0; i < oracle.nIbNics; i++) {
    snprintf(path, sizeof path, "%s/subsystem", oracle.ibPciPath[i]);
    unlink(path);
    rmdir(oracle.ibPciPath[i]);
  }
  const char* dirs[] = { "/devices", "/bus/pci", "/bus", "" };
  for (const char* d : dirs) { snprintf(path, sizeof path, "%s%s", sysRoot, d); rmdir(path); }
}

static void addIbNic(const char* arg) {
  int i = oracle.nIbNics;
  if (i >= 16) usage();
  char bus[64];
  snprintf(bus, sizeof bus, "%s", arg);
  char* colon = strchr(bus + 8, ':');   /* past dddd:bb: */
  if (colon) *colon = 0;
  snprintf(oracle.ibName[i], sizeof oracle.ibName[i], "%s", colon ? colon + 1 : "");
  if (!oracle.ibName[i][0]) snprintf(oracle.ibName[i], sizeof oracle.ibName[i], "mlx5_%d", i);
  for (char* c = bus; *c; c++) *c = tolower(*c);
  if (strlen(bus) != 12) usage();
  const char* root = sysRoot;
  static int made = 0;
  char path[600];
  if (!made) {
    if (!mkdtemp(sysRoot)) { perror("mkdtemp"); exit(3); }
    atexit(removeSysRoot);
    snprintf(path, sizeof path, "%s/bus", root); mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/bus/pci", root); mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/devices", root); mkdir(path, 0700);
    made = 1;
  }
  snprintf(oracle.ibPciPath[i], sizeof oracle.ibPciPath[i], "%s/devices/%s", root, bus);
  mkdir(oracle.ibPciPath[i], 0700);
  snprintf(path, sizeof path, "%s/subsystem", oracle.ibPciPath[i]);
  if (symlink("../../bus/pci", path) && errno != EEXIST) { perror("symlink"); exit(3); }
  oracle.nIbNics++;
}

static int cpuNumaOf(struct ncclTopoSystem* sys, struct ncclTopoNode* node) {
  int best = -1, bestType = INT_MAX;
  for (int c = 0; c < sys->nodes[CPU].count; c++)
    if (node->paths[CPU] && node->paths[CPU][c].type < bestType) { bestType = node->paths[CPU][c].type; best = c; }
  if (best < 0) return -99;
  int64_t lid = (int64_t)NCCL_TOPO_ID_LOCAL_ID(sys->nodes[CPU].nodes[best].id);
  return lid == (int64_t)NCCL_TOPO_ID_LOCAL_ID_MASK ? -1 : (int)lid;
}

static const char* netName(struct ncclTopoSystem* sys, int64_t id, int* devOut) {
  int idx;
  if (ncclTopoIdToIndex(sys, NET, id, &idx) != ncclSuccess) { *devOut = -1; return "?"; }
  int dev = sys->nodes[NET].nodes[idx].net.dev;
  *devOut = dev;
  return dev >= 0 && dev < oracle.nIbNics ? oracle.ibName[dev] : "?";
}

/* Per GPU (rank 0's view): ncclTopoGetLocalNet for channel 0, the GPU->NET path type, and
 * ncclTopoCheckGdr for reads (sends) and writes (receives); each NIC's CPU node. */
static void reportNics(struct ncclComm* comm, int kv) {
  struct ncclTopoSystem* sys = comm->topo;
  for (int i = 0; i < sys->nodes[NET].count; i++) {
    struct ncclTopoNode* net = sys->nodes[NET].nodes + i;
    int dev = net->net.dev;
    printf(kv ? "nic dev=%d name=%s cpu=%d gdr=%d bw=%.1f\n" : "  NIC %d %s: under CPU numa %d, GDR-capable %d, %.1f GB/s\n",
           dev, dev >= 0 && dev < oracle.nIbNics ? oracle.ibName[dev] : "?", cpuNumaOf(sys, net), net->net.gdrSupport, net->net.bw);
  }
  for (int g = 0; g < sys->nodes[GPU].count; g++) {
    struct ncclTopoNode* gpu = sys->nodes[GPU].nodes + g;
    int rank = gpu->gpu.rank, dev, idx;
    int64_t id;
    if (ncclTopoGetLocalNet(sys, rank, 0, &id, &dev) != ncclSuccess) continue;
    CHECK(ncclTopoIdToIndex(sys, NET, id, &idx));
    enum ncclTopoGdrMode rd, wr;
    CHECK(ncclTopoCheckGdr(sys, rank, id, 1, &rd));
    CHECK(ncclTopoCheckGdr(sys, rank, id, 0, &wr));
    int c;
    CHECK(ncclGetLocalCpu(sys, g, &c));
    int64_t lid = c >= 0 ? (int64_t)NCCL_TOPO_ID_LOCAL_ID(sys->nodes[CPU].nodes[c].id) : -99;
    if (lid == (int64_t)NCCL_TOPO_ID_LOCAL_ID_MASK) lid = -1;
    printf(kv ? "gpunet rank=%d cpu=%d net=%d name=%s path=%s gdr.read=%d gdr.write=%d\n"
              : "  GPU rank %d (CPU numa %d): NIC %d %s, path %s, GDR read %d write %d\n",
           rank, (int)lid, dev, dev < oracle.nIbNics ? oracle.ibName[dev] : "?", pathName(gpu->paths[NET][idx].type),
           rd != ncclTopoGdrModeDisable, wr != ncclTopoGdrModeDisable);
  }
}

/* The inter-node search of rank 0 (ncclTopoCompute with system->inter set by TrimSystem, as on
 * every node of an N-node job of this machine): channels, bandwidths, path types, and each
 * channel's NICs (graph->inter). */
static void reportInterNode(struct ncclComm* comm, struct ncclTopoGraph* gr, const char* what, int kv) {
  std::string nets;
  for (int c = 0; c < gr->nChannels; c++) {
    int d0, d1;
    const char* n0 = netName(comm->topo, gr->inter[c * 2], &d0);
    const char* n1 = netName(comm->topo, gr->inter[c * 2 + 1], &d1);
    char b[96];
    snprintf(b, sizeof b, "%s%s>%s", c ? "," : "", n0, n1);
    nets += b;
  }
  printf("%sinter %s.nChannels=%d %s.bwIntra=%.1f %s.bwInter=%.1f %s.typeIntra=%s %s.typeInter=%s %s.crossNic=%d %s.nets=%s\n",
         kv ? "" : "  ",
         what, gr->nChannels, what, gr->bwIntra, what, gr->bwInter, what, pathName(gr->typeIntra), what,
         pathName(gr->typeInter), what, gr->crossNic, what, nets.c_str());
}

struct RankState {
  struct ncclComm* comm;
  /* as in initTransportsRank: the graphs live in comm->graphs[] (the 2.31 cost model reads them there) */
  struct ncclTopoGraph *ring, *tree, *collNetChain, *collNetDirect, *nvls;
  struct ncclTopoGraph* graphs[NCCL_NUM_ALGORITHMS];
  struct ncclTopoRanks topoRanks;
  int rings[64 * MAXCHANNELS];
};

struct GraphInfo { int pattern, nChannels, sameChannels; float bwIntra, bwInter; int typeIntra, typeInter, crossNic; };

int main(int argc, char** argv) {
  const char* file = NULL;
  int sm = -1, kv = 0, nodes = 1;
  oracle.ibSpeedMbps = 400000;
  double pciLat = -1;
  std::vector<size_t> sizes;
  std::vector<int> colls = { ncclFuncAllReduce, ncclFuncAllGather, ncclFuncReduceScatter, ncclFuncBroadcast };
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sm") && i + 1 < argc) sm = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pci-latency-us") && i + 1 < argc) pciLat = atof(argv[++i]);
    else if (!strcmp(argv[i], "--p2p")) oracle.p2pOk = 1;
    else if (!strcmp(argv[i], "--no-nic")) oracle.nNics = 0;
    else if (!strcmp(argv[i], "--nvml-pcie") && i + 1 < argc) {
      if (sscanf(argv[++i], "%u,%u", &oracle.nvmlLinkGen, &oracle.nvmlLinkWidth) != 2) usage();
    }
    else if (!strcmp(argv[i], "--nic") && i + 1 < argc) addIbNic(argv[++i]);
    else if (!strcmp(argv[i], "--nic-speed") && i + 1 < argc) oracle.ibSpeedMbps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--gdr")) oracle.gdr = 1;
    else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--kv")) kv = 1;
    else if (!strcmp(argv[i], "-v")) oracle.verbose = 1;
    else if (!strcmp(argv[i], "-vv")) oracle.verbose = 2;
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      char* s = strdup(argv[++i]);
      for (char* t = strtok(s, ","); t; t = strtok(NULL, ",")) sizes.push_back(parseSize(t));
      free(s);
    } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
      colls.clear();
      char* s = strdup(argv[++i]);
      for (char* t = strtok(s, ","); t; t = strtok(NULL, ",")) {
        if (!strcasecmp(t, "allreduce")) colls.push_back(ncclFuncAllReduce);
        else if (!strcasecmp(t, "allgather")) colls.push_back(ncclFuncAllGather);
        else if (!strcasecmp(t, "reducescatter")) colls.push_back(ncclFuncReduceScatter);
        else if (!strcasecmp(t, "broadcast")) colls.push_back(ncclFuncBroadcast);
        else if (!strcasecmp(t, "reduce")) colls.push_back(ncclFuncReduce);
        else usage();
      }
      free(s);
    } else if (argv[i][0] == '-') usage();
    else file = argv[i];
  }
  if (!file || nodes < 1 || nodes > 64) usage();
  if (oracle.nIbNics) { oracle.nNics = oracle.nIbNics; oracleNetUseIb(); }
  if (sizes.empty()) for (size_t b = 8; b <= (1ULL << 30); b *= 2) sizes.push_back(b);

  std::vector<int64_t> busIds;
  int smInFile = 0;
  findGpus(file, &busIds, &smInFile);
  int n = (int)busIds.size();
  if (n < 1 || n > 32) { fprintf(stderr, "oracle: %d GPUs in %s\n", n, file); return 1; }
  if (sm < 0) sm = smInFile;
  if (sm <= 0) { fprintf(stderr, "oracle: no sm= in the file; pass --sm\n"); return 2; }
  oracle.nGpus = n;
  oracle.sm = sm;
  for (int i = 0; i < n; i++) oracle.gpuBusId[i] = busIds[i];

  /* NCCL_TOPO_FILE is how the file reaches ncclTopoGetSystem (as with the env plugin) */
  setenv("NCCL_TOPO_FILE", file, 1);

  /* ---- communicator skeletons: what init.cc has filled in before the topology step */
  std::vector<RankState> rs(n);
  int nRanks = n * nodes;   /* ranks of the other nodes: peer info only (another hostHash) */
  struct ncclPeerInfo* peerInfo = (struct ncclPeerInfo*)calloc(nRanks + 1, sizeof(struct ncclPeerInfo));
  uint64_t hostHash = getHostHash();
  for (int r = 0; r < n; r++) {
    struct ncclComm* comm = (struct ncclComm*)calloc(1, sizeof(struct ncclComm));
    rs[r].comm = comm;
    comm->rank = r;
    comm->nRanks = nRanks;
    comm->cudaDev = r;
    comm->nvmlDev = r;
    comm->busId = busIds[r];
    comm->compCap = sm;
    comm->minCompCap = comm->maxCompCap = sm;
    comm->peerInfo = peerInfo;
    comm->bootstrap = &oracle;
    comm->ncclNet = &oracleNet;
    comm->ncclCollNet = NULL;
    comm->MNNVL = 0;
    comm->sharedRes = (struct ncclSharedResources*)calloc(1, sizeof(struct ncclSharedResources));
    comm->sharedRes->owner = comm;
    rs[r].ring = &comm->graphs[NCCL_ALGO_RING];
    rs[r].tree = &comm->graphs[NCCL_ALGO_TREE];
    rs[r].collNetChain = &comm->graphs[NCCL_ALGO_COLLNET_CHAIN];
    rs[r].collNetDirect = &comm->graphs[NCCL_ALGO_COLLNET_DIRECT];
    rs[r].nvls = &comm->graphs[NCCL_ALGO_NVLS];
    comm->intraRanks = 1;   /* one process per rank */
    comm->config.minCTAs = 1;
    comm->config.maxCTAs = MAXCHANNELS;
    comm->config.collnetEnable = 0;
    comm->config.CTAPolicy = NCCL_CTA_POLICY_DEFAULT;
    comm->netDeviceType = NCCL_NET_DEVICE_HOST;
    struct ncclPeerInfo* info = peerInfo + r;
    info->rank = r;
    info->cudaDev = r;
    info->nvmlDev = r;
    info->gdrSupport = oracle.gdr;
    info->hostHash = hostHash;
    info->pidHash = 0x1000 + r;   /* one process per rank, as SGLang / torchrun */
    info->shmDev = 1;
    info->busId = busIds[r];
    info->comm = comm;
    info->cudaCompCap = sm;
    info->cuMemSupport = 1;
    info->version = NCCL_VERSION_CODE;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 30, 0)
    info->mloPart = NCCL_TOPO_UNDEF;   /* not an MLOPart GPU */
#endif
  }
  for (int r = n; r < nRanks; r++) {
    peerInfo[r] = peerInfo[0];
    peerInfo[r].rank = r;
    peerInfo[r].cudaDev = peerInfo[r].nvmlDev = r % n;
    peerInfo[r].hostHash = hostHash + 1 + r / n;
    peerInfo[r].pidHash = 0x1000 + r;
    peerInfo[r].busId = busIds[r % n];
    peerInfo[r].comm = NULL;
  }
  for (int r = 0; r < n; r++) {
    struct ncclComm* comm = rs[r].comm;
    for (int i = 0; i < n; i++) {
      comm->minCompCap = std::min(comm->minCompCap, peerInfo[i].cudaCompCap);
      comm->maxCompCap = std::max(comm->maxCompCap, peerInfo[i].cudaCompCap);
    }
  }

  /* ---- topology detection, every rank at once (they fuse XML through the all-gather) */
  oracleBarrierInit(n);
  {
    std::vector<std::thread> th;
    std::vector<ncclResult_t> res(n, ncclSuccess);
    for (int r = 0; r < n; r++)
      th.emplace_back([&, r]() {
        oracleRunLock();
        oracle.currentRank = r;
        res[r] = ncclTopoGetSystem(rs[r].comm, &rs[r].comm->topo);
        oracleRunUnlock();
      });
    for (auto& t : th) t.join();
    for (int r = 0; r < n; r++) if (res[r] != ncclSuccess) { fprintf(stderr, "oracle: ncclTopoGetSystem failed on rank %d (%d)\n", r, res[r]); return 3; }
  }

  int fallbackRing = 0, fallbackTree = 0;
  for (int r = 0; r < n; r++) {
    struct ncclComm* comm = rs[r].comm;
    oracle.currentRank = r;
    CHECK(ncclTopoComputePaths(comm->topo, comm));
    CHECK(ncclTopoTrimSystem(comm->topo, comm));
    CHECK(ncclTopoComputePaths(comm->topo, comm));
    CHECK(ncclTopoSearchInit(comm->topo));
    CHECK(ncclTopoComputeCommCPU(comm));
    if (r == 0 && oracle.verbose) CHECK(ncclTopoPrint(comm->topo));

    comm->config.collnetEnable = 0;   /* no CollNet plugin */
    comm->nvlsSupport = 0;            /* ncclNvlsInit: no NVLink SHARP on PCIe GPUs */
    comm->nvlsChannels = 0;

    RankState& s = rs[r];
    memset(s.ring, 0, sizeof *s.ring);
    s.ring->id = 0; s.ring->pattern = NCCL_TOPO_PATTERN_RING; s.ring->minChannels = 1; s.ring->maxChannels = MAXCHANNELS / 2;
    int before = oracle.searchFallbacks;
    CHECK(ncclTopoCompute(comm->topo, s.ring));
    if (r == 0) fallbackRing = oracle.searchFallbacks - before;
    CHECK(ncclTopoPrintGraph(comm->topo, s.ring));

    memset(s.tree, 0, sizeof *s.tree);
    s.tree->id = 1; s.tree->pattern = NCCL_TOPO_PATTERN_BALANCED_TREE;
    s.tree->minChannels = s.ring->nChannels; s.tree->maxChannels = s.ring->nChannels;
    before = oracle.searchFallbacks;
    CHECK(ncclTopoCompute(comm->topo, s.tree));
    if (r == 0) fallbackTree = oracle.searchFallbacks - before;
    CHECK(ncclTopoPrintGraph(comm->topo, s.tree));

    memset(s.collNetChain, 0, sizeof *s.collNetChain);
    s.collNetChain->id = 2; s.collNetChain->pattern = NCCL_TOPO_PATTERN_TREE; s.collNetChain->collNet = 1;
    s.collNetChain->minChannels = s.collNetChain->maxChannels = s.ring->nChannels;
    memset(s.collNetDirect, 0, sizeof *s.collNetDirect);
    s.collNetDirect->id = 4; s.collNetDirect->pattern = NCCL_TOPO_PATTERN_COLLNET_DIRECT; s.collNetDirect->collNet = 1;
    s.collNetDirect->minChannels = 1; s.collNetDirect->maxChannels = MAXCHANNELS;
    memset(s.nvls, 0, sizeof *s.nvls);
    s.nvls->id = 3; s.nvls->pattern = NCCL_TOPO_PATTERN_NVLS; s.nvls->minChannels = 1; s.nvls->maxChannels = MAXCHANNELS;
    struct ncclTopoGraph* g[NCCL_NUM_ALGORITHMS] = { s.tree, s.ring, s.collNetDirect, s.collNetChain, s.nvls, s.nvls, s.tree };
    memcpy(s.graphs, g, sizeof g);
  }

  if (oracle.nIbNics) reportNics(rs[0].comm, kv);
  if (nodes > 1) {
    reportInterNode(rs[0].comm, rs[0].ring, "ring", kv);
    reportInterNode(rs[0].comm, rs[0].tree, "tree", kv);
    return 0;
  }

  /* search result as NCCL's "Pattern 4, ... nChannels" INFO line reports it, rank 0 */
  struct ncclTopoGraph searchRing = *rs[0].ring, searchTree = *rs[0].tree;

  /* ---- all-gather 3 (init.cc), then Preset / Postset per rank */
  std::vector<std::vector<GraphInfo>> gi(n, std::vector<GraphInfo>(NCCL_NUM_ALGORITHMS));
  std::vector<int> cpuArch(n), cpuVendor(n);
  for (int r = 0; r < n; r++) {
    struct ncclComm* comm = rs[r].comm;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++) {
      struct ncclTopoGraph* gr = rs[r].graphs[a];
      gi[r][a] = { gr->pattern, gr->nChannels, gr->sameChannels, gr->bwIntra, gr->bwInter, gr->typeIntra, gr->typeInter, gr->crossNic };
    }
    cpuArch[r] = comm->cpuArch; cpuVendor[r] = comm->cpuVendor;
    comm->nChannels = std::min(rs[r].tree->nChannels, rs[r].ring->nChannels);
    CHECK(ncclTopoPreset(comm, rs[r].graphs, &rs[r].topoRanks));
  }
  for (int r = 0; r < n; r++) {
    struct ncclComm* comm = rs[r].comm;
    struct ncclTopoGraph** graphs = rs[r].graphs;
    int* nodesFirstRank = (int*)calloc(n, sizeof(int));
    int* nodesTreePatterns = (int*)calloc(n, sizeof(int));
    comm->rankToNode = (int*)calloc(n, sizeof(int));
    comm->nNodes = 0;
    for (int p = 0; p < n; p++) {
      int node;
      int firstRank = rs[p].topoRanks.ringRecv[0];
      for (node = 0; node < comm->nNodes && nodesFirstRank[node] != firstRank; node++);
      if (node == comm->nNodes) {
        comm->nNodes++;
        nodesFirstRank[node] = firstRank;
        nodesTreePatterns[node] = gi[p][NCCL_ALGO_TREE].pattern;
      }
      comm->rankToNode[p] = node;
      if (comm->cpuArch != cpuArch[p] && comm->cpuArch != NCCL_TOPO_CPU_ARCH_MIXED) comm->cpuArch = NCCL_TOPO_CPU_ARCH_MIXED;
      if (comm->cpuVendor != cpuVendor[p] && comm->cpuVendor != NCCL_TOPO_CPU_VENDOR_MIXED) comm->cpuVendor = NCCL_TOPO_CPU_VENDOR_MIXED;
    }
    comm->nodeRanks = (struct ncclNodeRanks*)calloc(comm->nNodes, sizeof(struct ncclNodeRanks));
    comm->rankToLocalRank = (int*)calloc(n, sizeof(int));
    for (int p = 0; p < n; p++) {
      int node = comm->rankToNode[p];
      comm->rankToLocalRank[p] = comm->nodeRanks[node].localRanks;
      comm->nodeRanks[node].localRanks++;
    }
    comm->minLocalRanks = INT_MAX;
    for (int nd = 0; nd < comm->nNodes; nd++) {
      comm->nodeRanks[nd].localRankToRank = (int*)calloc(comm->nodeRanks[nd].localRanks, sizeof(int));
      comm->maxLocalRanks = std::max(comm->maxLocalRanks, comm->nodeRanks[nd].localRanks);
      comm->minLocalRanks = std::min(comm->minLocalRanks, comm->nodeRanks[nd].localRanks);
      comm->nodeRanks[nd].localRanks = 0;
    }
    for (int p = 0; p < n; p++) {
      int node = comm->rankToNode[p];
      comm->nodeRanks[node].localRankToRank[comm->nodeRanks[node].localRanks++] = p;
    }
    comm->node = comm->rankToNode[r];
    comm->localRankToRank = comm->nodeRanks[comm->node].localRankToRank;
    comm->localRank = comm->rankToLocalRank[r];
    comm->localRanks = comm->nodeRanks[comm->node].localRanks;

    int nChannelsOrig = comm->nChannels;
    std::vector<struct ncclTopoRanks*> allTopoRanks(n);
    for (int p = 0; p < n; p++) {
      allTopoRanks[p] = &rs[p].topoRanks;
      for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++) {
        graphs[a]->nChannels = std::min(gi[p][a].nChannels, graphs[a]->nChannels);
        graphs[a]->sameChannels = std::min(gi[p][a].sameChannels, graphs[a]->sameChannels);
        graphs[a]->bwIntra = std::min(gi[p][a].bwIntra, graphs[a]->bwIntra);
        graphs[a]->bwInter = std::min(gi[p][a].bwInter, graphs[a]->bwInter);
        graphs[a]->typeIntra = std::max(gi[p][a].typeIntra, graphs[a]->typeIntra);
        graphs[a]->typeInter = std::max(gi[p][a].typeInter, graphs[a]->typeInter);
        graphs[a]->crossNic = std::max(gi[p][a].crossNic, graphs[a]->crossNic);
      }
      comm->maxTreePattern = std::max(comm->maxTreePattern, gi[p][NCCL_ALGO_TREE].pattern);
    }
    if (graphs[NCCL_ALGO_COLLNET_CHAIN]->nChannels == 0) comm->config.collnetEnable = 0;
    if (graphs[NCCL_ALGO_NVLS]->nChannels == 0) comm->nvlsSupport = comm->nvlsChannels = 0;
    comm->nChannels = rs[r].tree->nChannels = rs[r].ring->nChannels = std::min(rs[r].tree->nChannels, rs[r].ring->nChannels);
    if (comm->nChannels < nChannelsOrig) {
      for (int i = 0; i < comm->nChannels; i++) memcpy(comm->channels + comm->nChannels + i, comm->channels + nChannelsOrig + i, sizeof(struct ncclChannel));
    }
    CHECK(ncclTopoPathAllNVLink(comm->topo, &comm->isAllNvlink));
    comm->isOneRPN = (comm->maxLocalRanks == 1);
    CHECK(ncclTopoPostset(comm, nodesFirstRank, nodesTreePatterns, allTopoRanks.data(), rs[r].rings, graphs, NULL));

    /* ---- cost model */
#ifdef ORACLE_TUNING_SUBSYSTEM
    /* 2.31 (dev): init.cc copies the PAT graph (= the tree graph) into comm->graphs, then
     * ncclTuningInit: ncclTunerPluginLoad (stubs.cc: no plugin, or with --pci-latency-us a tuner
     * whose init writes those hwLatencies into the constants it is handed and whose getCollInfo
     * changes nothing), tuner->init(..., &comm->tuningContext.tuningConstants),
     * ncclTuningCostModelInit, ncclTuningSetThreadThresholds. */
    comm->graphs[NCCL_ALGO_PAT] = *graphs[NCCL_ALGO_PAT];
    oracle.pciLatency = pciLat;
    CHECK(ncclTuningInit(comm));
#else
    CHECK(ncclTopoInitTunerConstants(comm));
    if (pciLat >= 0) {
      /* what a tuner v5 init(..., ncclTunerConstants_v5_t* constants) may write */
      comm->tunerConstants.hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_LL] = pciLat;
      comm->tunerConstants.hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_SIMPLE] = pciLat;
      comm->tunerConstants.hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_LL] = pciLat;
      comm->tunerConstants.hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE] = pciLat;
    }
    CHECK(ncclTopoTuneModel(comm, comm->minCompCap, comm->maxCompCap, graphs));
#endif
    free(nodesFirstRank); free(nodesTreePatterns);
  }

  /* ---- report (rank 0) */
  struct ncclComm* comm0 = rs[0].comm;
  struct ncclTopoSystem* sys = comm0->topo;
  int ngpus = sys->nodes[GPU].count;
  std::vector<int> rankCpu(n, -1);
  for (int g = 0; g < ngpus; g++) {
    int c;
    CHECK(ncclGetLocalCpu(sys, g, &c));
    int64_t lid = c >= 0 ? (int64_t)NCCL_TOPO_ID_LOCAL_ID(sys->nodes[CPU].nodes[c].id) : -99;
    if (lid == (int64_t)NCCL_TOPO_ID_LOCAL_ID_MASK) lid = -1;   /* numaid="-1" */
    rankCpu[sys->nodes[GPU].nodes[g].gpu.rank] = (int)lid;
  }
  auto crossings = [&](const int* order, int len) {
    int x = 0;
    for (int i = 0; i < len; i++) if (rankCpu[order[i]] != rankCpu[order[(i + 1) % len]]) x++;
    return x;
  };
  auto orderStr = [&](const int* order, int len) {
    std::string s;
    for (int i = 0; i < len; i++) { if (i) s += " "; s += std::to_string(order[i]); }
    return s;
  };
  int cpuArchV, cpuVendorV, cpuModelV;
  CHECK(ncclTopoCpuType(sys, &cpuArchV, &cpuVendorV, &cpuModelV));
  int ccMin, ccMax;
  CHECK(ncclTopoGetCompCap(sys, &ccMin, &ccMax));
  /* the PCI link width*speed/80 of GPU 0, and the CPU-CPU link, as NCCL modelled them */
  float gpuPciBw = 0, cpuLinkBw = 0;
  if (ngpus) {  /* bandwidth of the path GPU 0 -> its CPU (2.30+ puts a DEV node in between) */
    int c0;
    CHECK(ncclGetLocalCpu(sys, 0, &c0));
    if (c0 >= 0) gpuPciBw = sys->nodes[GPU].nodes[0].paths[CPU][c0].bw;
  }
  if (sys->nodes[CPU].count > 1) for (int l = 0; l < sys->nodes[CPU].nodes[0].nlinks; l++)
    if (sys->nodes[CPU].nodes[0].links[l].type == LINK_SYS) cpuLinkBw = sys->nodes[CPU].nodes[0].links[l].bw;

  int ringFailed = fallbackRing > 0, treeFailed = fallbackTree > 0;
  int ring0Cross = crossings(searchRing.intra, ngpus);
  int maxCross = 0;
  std::string allRings;
  for (int c = 0; c < searchRing.nChannels; c++) {
    maxCross = std::max(maxCross, crossings(searchRing.intra + c * ngpus, ngpus));
    if (c) allRings += "|";
    allRings += orderStr(searchRing.intra + c * ngpus, ngpus);
  }

  char head[4096];
  snprintf(head, sizeof head,
    "nccl=%d.%d.%d ranks=%d sm=%d ccMinTopo=%d cpus=%d cpuVendor=%s gpuPciBw=%.1f cpuLinkBw=%.1f "
    "ring.search.nChannels=%d ring.bwIntra=%.1f ring.bwInter=%.1f ring.typeIntra=%s ring.typeInter=%s ring.sameChannels=%d ring.failed=%d "
    "tree.search.nChannels=%d tree.bwIntra=%.1f tree.typeIntra=%s tree.pattern=%d tree.failed=%d "
    "comm.nChannels=%d ring0=\"%s\" ring0.crossings=%d maxThreadsRingSimple=%d "
    "hwlat.pci.ring.ll=%.2f hwlat.pci.ring.simple=%.2f hwlat.pci.tree.ll=%.2f hwlat.pci.tree.simple=%.2f "
    "ring.maxCrossings=%d rings=\"%s\" ring.model.nChannels=%d ring.model.bwIntra=%.1f tree.model.nChannels=%d tree.model.bwIntra=%.1f",
    NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, n, sm, ccMin, sys->nodes[CPU].count,
    cpuVendorV == NCCL_TOPO_CPU_VENDOR_AMD ? "AMD" : cpuVendorV == NCCL_TOPO_CPU_VENDOR_INTEL ? "Intel" : "other",
    gpuPciBw, cpuLinkBw,
    searchRing.nChannels, searchRing.bwIntra, searchRing.bwInter, pathName(searchRing.typeIntra), pathName(searchRing.typeInter), searchRing.sameChannels, ringFailed,
    searchTree.nChannels, searchTree.bwIntra, pathName(searchTree.typeIntra), searchTree.pattern, treeFailed,
    comm0->nChannels, orderStr(searchRing.intra, ngpus).c_str(), ring0Cross, ORACLE_MAXTHREADS(comm0)[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE],
    ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_LL],
    ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_SIMPLE],
    ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_LL],
    ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE],
    maxCross, allRings.c_str(), rs[0].ring->nChannels, rs[0].ring->bwIntra, rs[0].tree->nChannels, rs[0].tree->bwIntra);
  if (kv) printf("%s\n", head);
  else {
    printf("NCCL %d.%d.%d oracle: %s, %d ranks, sm %d (search ccMin %d)\n", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, file, n, sm, ccMin);
    printf("  modelled: %d CPU node(s), vendor %s, CPU-CPU link %.1f GB/s, GPU PCIe link %.1f GB/s\n",
           sys->nodes[CPU].count, cpuVendorV == NCCL_TOPO_CPU_VENDOR_AMD ? "AMD" : cpuVendorV == NCCL_TOPO_CPU_VENDOR_INTEL ? "Intel" : "other",
           cpuLinkBw, gpuPciBw);
    printf("  rank -> CPU numa:");
    for (int r = 0; r < n; r++) printf(" %d:%d", r, rankCpu[r]);
    printf("\n");
    printf("  ring search: pattern %d, %d channel(s), bwIntra %.1f bwInter %.1f GB/s, typeIntra %s, sameChannels %d%s\n",
           searchRing.pattern, searchRing.nChannels, searchRing.bwIntra, searchRing.bwInter, pathName(searchRing.typeIntra),
           searchRing.sameChannels, ringFailed ? "  ** SEARCH FAILED: fell back to simple order **" : "");
    for (int c = 0; c < searchRing.nChannels; c++)
      printf("    ring %d: %s  (CPU crossings %d)\n", c, orderStr(searchRing.intra + c * ngpus, ngpus).c_str(), crossings(searchRing.intra + c * ngpus, ngpus));
    printf("  tree search: pattern %d, %d channel(s), bwIntra %.1f GB/s, typeIntra %s%s\n",
           searchTree.pattern, searchTree.nChannels, searchTree.bwIntra, pathName(searchTree.typeIntra),
           treeFailed ? "  ** SEARCH FAILED: fell back to simple order **" : "");
    printf("    tree 0 chain: %s\n", orderStr(searchTree.intra, ngpus).c_str());
    printf("  cost model reads: ring %d channel(s) x %.1f GB/s, tree %d channel(s) x %.1f GB/s (after the all-gather-3 alignment)\n",
           rs[0].ring->nChannels, rs[0].ring->bwIntra, rs[0].tree->nChannels, rs[0].tree->bwIntra);
    printf("  after Postset: %d coll channels (comm->nChannels), Ring/Simple max threads %d\n", comm0->nChannels,
           ORACLE_MAXTHREADS(comm0)[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE]);
    printf("  hwLatencies[PCI]: Tree LL %.2f Simple %.2f | Ring LL %.2f Simple %.2f us%s\n",
           ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_LL],
           ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE],
           ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_LL],
           ORACLE_CONSTANTS(comm0).hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_SIMPLE],
           pciLat >= 0 ? " (in effect; --pci-latency-us given)" : " (NCCL defaults)");
    printf("  %-13s %8s  %-6s %-6s %10s %4s %5s | %9s %9s %9s %9s\n", "collective", "bytes", "algo", "proto", "time_us", "nCh", "warps",
           "Tree/LL", "Tree/Smp", "Ring/LL", "Ring/Smp");
  }

  for (int f : colls) {
    for (size_t bytes : sizes) {
      struct ncclTaskColl task;
      memset(&task, 0, sizeof task);
      task.func = (ncclFunc_t)f;
      task.datatype = ncclUint8;
      task.opHost = ncclSum;
      task.opDev.op = ncclDevSum;
      task.root = 0;
      /* bytes = NCCL's nBytes (ncclFuncMaxSendRecvCount): the whole buffer for allgather and
       * reducescatter, i.e. nccl-tests' size column */
      size_t count = (f == ncclFuncAllGather || f == ncclFuncReduceScatter) ? std::max<size_t>(1, bytes / n) : bytes;
      task.count = count;
      float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
      float t = 0;
      CHECK(oracleGetAlgoInfo(comm0, &task, 0, 0, 1, table, &t));
      size_t nBytes = ncclTypeSize(task.datatype) * ncclFuncMaxSendRecvCount((ncclFunc_t)f, n, count);
      if (kv) {
        printf("choice coll=%s bytes=%zu algo=%s proto=%s time=%.2f nch=%d warps=%d"
               " t.tree.ll=%.2f t.tree.simple=%.2f t.ring.ll=%.2f t.ring.ll128=%.2f t.ring.simple=%.2f t.pat.simple=%.2f\n",
               funcName(f), nBytes, algoName(task.algorithm), protoName(task.protocol), t, task.nMaxChannels, task.nWarps,
               table[NCCL_ALGO_TREE][NCCL_PROTO_LL], table[NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE],
               table[NCCL_ALGO_RING][NCCL_PROTO_LL], table[NCCL_ALGO_RING][NCCL_PROTO_LL128], table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE],
               table[NCCL_ALGO_PAT][NCCL_PROTO_SIMPLE]);
      } else {
        auto cell = [](float v) { char b[16]; if (v < 0) snprintf(b, sizeof b, "-"); else snprintf(b, sizeof b, "%.1f", v); return std::string(b); };
        printf("  %-13s %8s  %-6s %-6s %10.2f %4d %5d | %9s %9s %9s %9s\n", funcName(f), sizeStr(nBytes).c_str(),
               algoName(task.algorithm), protoName(task.protocol), t, task.nMaxChannels, task.nWarps,
               cell(table[NCCL_ALGO_TREE][NCCL_PROTO_LL]).c_str(), cell(table[NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE]).c_str(),
               cell(table[NCCL_ALGO_RING][NCCL_PROTO_LL]).c_str(), cell(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE]).c_str());
      }
    }
  }
  return 0;
}
