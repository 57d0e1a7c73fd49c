/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stubs.cc - the pieces of NCCL's runtime that the oracle replaces: logging, the env
 * plugin, NVML, the CUDA runtime calls the P2P transport makes, the bootstrap
 * all-gather, the net plugins and the transport table.  Compiled against the NCCL
 * tree's own headers so every signature is NCCL's.  Nothing here decides topology,
 * search or tuning: that is NCCL's unmodified code (graph/, transport/p2p.cc,
 * transport/shm.cc, enqueue.cc).
 *
 * Behaviour of each stub is the one of "a KVM/Proxmox guest with passed-through PCIe
 * GPUs and no peer access":
 *  - NVML: one device per <pci> GPU of the input XML, NVML index = PCI bus order,
 *    compute capability = --sm, no NVLink, no C2C, P2P status NOT_SUPPORTED for every
 *    pair (what `nvidia-smi topo -p2p r` shows as NS in such a VM).
 *  - CUDA: cudaDeviceCanAccessPeer -> 0 (peer access not supported).
 *  - net plugins: zero devices (NICs are not modelled).
 */
#include "comm.h"
#include "nvmlwrap.h"
#include "bootstrap.h"
#include "transport.h"
#include "net.h"
#include "env.h"
#include "debug.h"
#include "cudawrap.h"
#include "oracle_stubs.h"
#ifdef ORACLE_TUNING_SUBSYSTEM
#include "tuner.h"
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <mutex>
#include <vector>
#include <string>

/* ---------------------------------------------------------------- oracle state */
struct oracleState oracle = { 0, {0}, 0, 0, 0, 0, 0, {0}, 5, 16, 0x2bb1, 1, -1.0 };

/* ---------------------------------------------------------------- logging */
int ncclDebugLevel = NCCL_LOG_INFO;      /* every INFO reaches ncclDebugLog: the oracle */
uint64_t ncclDebugMask = ~0ULL;          /* reads NCCL's own search messages from it    */
FILE* ncclDebugFile = NULL;
thread_local int ncclDebugNoWarn = 0;
char ncclLastError[1024] = "";

static std::mutex logMutex;

static void oracleLog(ncclDebugLogLevel level, unsigned long flags, const char* where, int line, const char* fmt, va_list ap) {
  char buf[2048];
  vsnprintf(buf, sizeof buf, fmt, ap);
  std::lock_guard<std::mutex> lock(logMutex);
  if (strstr(buf, "falling back to simple order")) {
    /* search.cc: ncclTopoCompute found no graph (nChannels == 0) */
    int pattern = -1;
    const char* p = strstr(buf, "pattern ");
    if (p) pattern = atoi(p + 8);
    oracle.searchFallbacks++;
    if (pattern >= 0 && pattern < 8) oracle.fallbackByPattern[pattern]++;
  }
  if (level == NCCL_LOG_WARN) {
    if (ncclDebugNoWarn == 0) {
      fprintf(stderr, "NCCL WARN %s\n", buf);
      snprintf(ncclLastError, sizeof ncclLastError, "%s", buf);
    }
    if (oracle.verbose) fprintf(stderr, "  (%s:%d)\n", where ? where : "", line);
    return;
  }
  if (oracle.verbose >= 2 || (oracle.verbose && level == NCCL_LOG_INFO &&
      (flags & (NCCL_GRAPH | NCCL_TUNING | NCCL_ENV)))) {
    fprintf(stderr, "NCCL INFO %s\n", buf);
  }
}

void ncclDebugLog(ncclDebugLogLevel level, unsigned long flags, const char* filefunc, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  oracleLog(level, flags, filefunc, line, fmt, ap);
  va_end(ap);
}
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 29, 0)
/* 2.29+: WARN/INFO go through ncclDebugLogInternal(level, flags, file, func, line, fmt, ...) */
void ncclDebugLogInternal(ncclDebugLogLevel level, unsigned long flags, const char* file, const char* func, int line,
                          const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  oracleLog(level, flags, func ? func : file, line, fmt, ap);
  va_end(ap);
}
#endif

/* ---------------------------------------------------------------- env plugin */
/* The internal env plugin is getenv(); NCCL also applies NCCL_CONF_FILE / ~/.nccl.conf /
 * /etc/nccl.conf first: the oracle does not, so only the real environment counts. */
ncclResult_t ncclInitEnv(void) { return ncclSuccess; }
const char* ncclEnvPluginGetEnv(const char* name) { return getenv(name); }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 29, 0)
bool ncclEnvPluginInitialized(void) { return false; }   /* param.cc then reads getenv() */
#endif

/* ---------------------------------------------------------------- NVML */
int ncclNvmlDeviceCount = 0;
ncclNvmlDeviceInfo ncclNvmlDevices[ncclNvmlMaxDevices];
ncclNvmlDevicePairInfo ncclNvmlDevicePairs[ncclNvmlMaxDevices][ncclNvmlMaxDevices];

static std::once_flag nvmlOnce;
static void nvmlInitOnce() {
  ncclNvmlDeviceCount = oracle.nGpus;
  for (int a = 0; a < ncclNvmlMaxDevices; a++) {
    ncclNvmlDevices[a].handle = (nvmlDevice_t)(intptr_t)(a + 1);
    ncclNvmlDevices[a].computeCapabilityMajor = oracle.sm / 10;
    ncclNvmlDevices[a].computeCapabilityMinor = oracle.sm % 10;
    for (int b = 0; b < ncclNvmlMaxDevices; b++) {
      /* no peer-to-peer in the VM: nvmlDeviceGetP2PStatus says NOT_SUPPORTED */
      ncclNvmlDevicePairs[a][b].p2pStatusRead = oracle.p2pOk ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
      ncclNvmlDevicePairs[a][b].p2pStatusWrite = oracle.p2pOk ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
    }
  }
}
ncclResult_t ncclNvmlEnsureInitialized() { std::call_once(nvmlOnce, nvmlInitOnce); return ncclSuccess; }

static int busIndex(const char* busId) {
  int64_t id;
  if (busIdToInt64(busId, &id) != ncclSuccess) return -1;
  for (int i = 0; i < oracle.nGpus; i++) if (oracle.gpuBusId[i] == id) return i;
  return -1;
}
ncclResult_t ncclNvmlDeviceGetHandleByPciBusId(const char* pciBusId, nvmlDevice_t* device) {
  ncclNvmlEnsureInitialized();
  int i = busIndex(pciBusId);
  if (i < 0) { WARN("NVML stub: no GPU with bus id %s", pciBusId); return ncclSystemError; }
  *device = ncclNvmlDevices[i].handle;
  return ncclSuccess;
}
ncclResult_t ncclNvmlDeviceGetIndex(nvmlDevice_t device, unsigned* index) {
  *index = (unsigned)((intptr_t)device - 1);
  return ncclSuccess;
}
ncclResult_t ncclNvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
  ncclNvmlEnsureInitialized();
  *device = ncclNvmlDevices[index].handle;
  return ncclSuccess;
}
ncclResult_t ncclNvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int* major, int* minor) {
  *major = oracle.sm / 10; *minor = oracle.sm % 10;
  return ncclSuccess;
}
/* PCIe-only GPUs: no NVLink, no C2C */
ncclResult_t ncclNvmlDeviceGetNvLinkCapability(nvmlDevice_t, unsigned, nvmlNvLinkCapability_t, unsigned* capResult) {
  *capResult = 0; return ncclSystemError;
}
ncclResult_t ncclNvmlDeviceGetNvLinkState(nvmlDevice_t, unsigned, nvmlEnableState_t* isActive) {
  *isActive = NVML_FEATURE_DISABLED; return ncclSystemError;
}
ncclResult_t ncclNvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t, unsigned, nvmlPciInfo_t*) { return ncclSystemError; }
ncclResult_t ncclNvmlDeviceGetFieldValues(nvmlDevice_t, int valuesCount, nvmlFieldValue_t* values) {
  for (int i = 0; i < valuesCount; i++) values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  return ncclSuccess;
}
ncclResult_t ncclNvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t* p2pStatus) {
  ncclNvmlEnsureInitialized();
  *p2pStatus = oracle.p2pOk ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
  return ncclSuccess;
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 30, 0)
/* 2.30+: ncclTopoGetXmlFromSys fills a GPU's vendor/device ids and, when the file has no
 * link_speed/link_width, its PCIe link from NVML's *current* link generation and width. */
ncclResult_t ncclNvmlDeviceGetPciInfo(nvmlDevice_t, nvmlPciInfo_t* pciInfo) {
  memset(pciInfo, 0, sizeof *pciInfo);
  pciInfo->pciDeviceId = (oracle.pciDeviceId << 16) | 0x10de;
  pciInfo->pciSubSystemId = (oracle.pciDeviceId << 16) | 0x10de;
  return ncclSuccess;
}
ncclResult_t ncclNvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t, unsigned int* currLinkGen) {
  *currLinkGen = oracle.nvmlLinkGen;
  return oracle.nvmlLinkGen > 0 ? ncclSuccess : ncclSystemError;
}
ncclResult_t ncclNvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t, unsigned int* currLinkWidth) {
  *currLinkWidth = oracle.nvmlLinkWidth;
  return oracle.nvmlLinkWidth > 0 ? ncclSuccess : ncclSystemError;
}
#endif

/* ---------------------------------------------------------------- CUDA runtime (C symbols) */
extern "C" {
cudaError_t cudaGetDeviceCount(int* count) { *count = oracle.nGpus; return cudaSuccess; }
cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  if (device < 0 || device >= oracle.nGpus) return cudaErrorInvalidDevice;
  char tmp[32];
  int64ToBusId(oracle.gpuBusId[device], tmp);
  snprintf(pciBusId, len, "%s", tmp);
  return cudaSuccess;
}
/* The VM's answer: the GPUs cannot access each other's memory. */
cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int, int) { *canAccessPeer = oracle.p2pOk ? 1 : 0; return cudaSuccess; }
cudaError_t cudaGetDevice(int* device) { *device = oracle.currentRank; return cudaSuccess; }
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int* v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "cuda stub"; }
}

/* cuMem: enabled as on any recent driver (only consulted after a P2P "yes") */
int ncclCuMemEnable() { return 1; }
int ncclCuMemHostEnable() { return 1; }

/* ---------------------------------------------------------------- bootstrap */
/* In-process all-gather between the simulated ranks (one thread each while
 * ncclTopoGetSystem fuses the per-rank XML trees).  The threads run NCCL code one at a
 * time (runMutex), handing over only inside this all-gather, so the replay is
 * deterministic and NCCL's process-wide state is never touched concurrently. */
static pthread_barrier_t agBarrier;
static void* agBuffers[ncclNvmlMaxDevices];
static std::mutex runMutex;
void oracleBarrierInit(int n) { pthread_barrier_init(&agBarrier, NULL, n); }
void oracleRunLock() { runMutex.lock(); }
void oracleRunUnlock() { runMutex.unlock(); }

ncclResult_t bootstrapIntraNodeAllGather(void* commState, int* ranks, int rank, int nranks, void* allData, int size) {
  agBuffers[rank] = allData;
  runMutex.unlock();
  pthread_barrier_wait(&agBarrier);
  runMutex.lock();
  for (int i = 0; i < nranks; i++) {
    if (i == rank) continue;
    memcpy((char*)allData + (size_t)i * size, (char*)agBuffers[i] + (size_t)i * size, size);
  }
  runMutex.unlock();
  pthread_barrier_wait(&agBarrier);
  runMutex.lock();
  return ncclSuccess;
}

/* ---------------------------------------------------------------- net plugins */
/* As in a VM whose only network is a virtio NIC: the socket plugin reports one device whose
 * sysfs path is not a PCI device, so ncclTopoFillNet attaches it to the first <cpu> ("virtual
 * NIC").  --no-nic: none at all.  No CollNet. */
static char nicName[] = "eth0";
ncclResult_t ncclNetGetDevCount(int, int* nPhysDev, int* nVirtDev) { *nPhysDev = oracle.nNics; *nVirtDev = 0; return ncclSuccess; }
ncclResult_t ncclNetSetVirtDevCount(int, int) { return ncclSuccess; }
ncclResult_t ncclCollNetGetDevCount(int, int* nPhysDev, int* nVirtDev) { *nPhysDev = 0; *nVirtDev = 0; return ncclSuccess; }
ncclResult_t ncclCollNetSetVirtDevCount(int, int) { return ncclSuccess; }
static ncclResult_t netDevices(int* n) { *n = oracle.nNics; return ncclSuccess; }
/* 2.30.7+: no rail or plane, as the IB plugin reports without NCCL_IB_HCA's rail form and the
 * socket plugin always (transport/net_ib/init.cc, net_socket.cc); 0 would put every NIC on
 * rail 0 and let a ring leave by another NIC than it entered (search.cc
 * ncclTopoSearchCheckNet). */
static void noRailNoPlane(ncclNetProperties_t* props) {
#ifdef NCCL_NET_ID_UNDEF
  props->railId = NCCL_NET_ID_UNDEF;
  props->planeId = NCCL_NET_ID_UNDEF;
#else
  (void)props;
#endif
}
/* --nic: what the IB plugin reports for a ConnectX port: a PCI device (NCCL takes the bus id from
 * the last component of pciPath), host and CUDA pointers (GPUDirect RDMA), the given speed. */
static void ibProperties(int dev, ncclNetProperties_t* props) {
  props->name = oracle.ibName[dev];
  props->pciPath = oracle.ibPciPath[dev];
  props->guid = 0x1000 + dev;
  props->ptrSupport = NCCL_PTR_HOST | NCCL_PTR_CUDA;
  props->speed = oracle.ibSpeedMbps;
  props->port = 1;
  props->latency = 0;
  props->maxComms = 65536;
  props->maxRecvs = 8;
  props->netDeviceType = NCCL_NET_DEVICE_HOST;
  props->netDeviceVersion = NCCL_NET_DEVICE_INVALID_VERSION;
  props->maxP2pBytes = NCCL_MAX_NET_SIZE_BYTES;
  props->maxCollBytes = NCCL_MAX_NET_SIZE_BYTES;
  noRailNoPlane(props);
}
static ncclResult_t netGetProperties(int dev, ncclNetProperties_t* props) {
  if (dev < 0 || dev >= oracle.nNics) return ncclInternalError;
  memset(props, 0, sizeof *props);
  if (oracle.nIbNics) {
    ibProperties(dev, props);
    return ncclSuccess;
  }
  props->name = nicName;
  props->pciPath = NULL;              /* virtio: not a PCI device -> first CPU */
  props->guid = dev;
  props->ptrSupport = NCCL_PTR_HOST;  /* sockets: no GPUDirect RDMA */
  props->speed = 10000;               /* what net_socket reports when /sys/.../speed is unknown */
  props->port = 0;
  props->latency = 0;
  props->maxComms = 65536;
  props->maxRecvs = 1;
  props->netDeviceType = NCCL_NET_DEVICE_HOST;
  props->netDeviceVersion = NCCL_NET_DEVICE_INVALID_VERSION;
  props->maxP2pBytes = NCCL_MAX_NET_SIZE_BYTES;
  props->maxCollBytes = NCCL_MAX_NET_SIZE_BYTES;
  noRailNoPlane(props);
  return ncclSuccess;
}
ncclNet_t oracleNet = []() { ncclNet_t n; memset(&n, 0, sizeof n); n.name = "Socket"; n.devices = netDevices; n.getProperties = netGetProperties; return n; }();
void oracleNetUseIb() { oracleNet.name = "IB"; }

/* ---------------------------------------------------------------- transports */
/* P2P and SHM are NCCL's own (transport/p2p.cc, transport/shm.cc): their canConnect
 * is what ncclTopoComputePaths asks.  NET/CollNet are never reached on one node. */
static ncclResult_t netCanConnect(int* ret, struct ncclComm*, struct ncclTopoGraph*, struct ncclPeerInfo*, struct ncclPeerInfo*) { *ret = 1; return ncclSuccess; }
static ncclResult_t noCanConnect(int* ret, struct ncclComm*, struct ncclTopoGraph*, struct ncclPeerInfo*, struct ncclPeerInfo*) { *ret = 0; return ncclSuccess; }
struct ncclTransport netTransport = { "NET", netCanConnect, {}, {} };
struct ncclTransport collNetTransport = { "COL", noCanConnect, {}, {} };
struct ncclTransport profilerTransport = { "PRF", noCanConnect, {}, {} };
struct ncclTransport* ncclTransports[NTRANSPORTS + 1] = { &p2pTransport, &shmTransport, &netTransport, &collNetTransport, &profilerTransport };

#ifdef ORACLE_TUNING_SUBSYSTEM
/* ---------------------------------------------------------------- tuner plugin (2.31+) */
/* ncclTuningInit loads the tuner plugin itself.  No plugin (comm->tuner = NULL), unless
 * --pci-latency-us was given: then a tuner whose init writes that latency into
 * hwLatencies[PCI][Tree,Ring][LL,Simple] of the constants NCCL hands it (what a tuner does with
 * a pci-latency override) and whose getCollInfo leaves NCCL's table as it is. */
static ncclResult_t oracleTunerInit(void** ctx, uint64_t, size_t, size_t, ncclDebugLogger_t, ncclNvlDomainInfo_t*,
                                    ncclTunerConstants_t* constants) {
  *ctx = NULL;
  double x = oracle.pciLatency;
  constants->hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_LL] = x;
  constants->hwLatencies[NCCL_HW_PCI][NCCL_ALGO_RING][NCCL_PROTO_SIMPLE] = x;
  constants->hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_LL] = x;
  constants->hwLatencies[NCCL_HW_PCI][NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE] = x;
  return ncclSuccess;
}
static ncclResult_t oracleTunerGetCollInfo(void*, ncclFunc_t, size_t, int, float**, int, int, int, int* nChannels) {
  *nChannels = 0;
  return ncclSuccess;
}
static ncclResult_t oracleTunerFinalize(void*) { return ncclSuccess; }
static ncclTuner_t oracleTuner = { "oracle-pci-latency", oracleTunerInit, oracleTunerGetCollInfo, oracleTunerFinalize, NULL };
ncclResult_t ncclTunerPluginLoad(struct ncclComm* comm) {
  comm->tuner = oracle.pciLatency >= 0 ? &oracleTuner : NULL;
  return ncclSuccess;
}
ncclResult_t ncclTunerPluginUnload(struct ncclComm* comm) { comm->tuner = NULL; return ncclSuccess; }
#endif
