/* SPDX-License-Identifier: BSD-3-Clause */
/* oracle_stubs.h - state shared between the oracle's driver and its stubs. */
#ifndef ORACLE_STUBS_H
#define ORACLE_STUBS_H
#include <stdint.h>

struct oracleState {
  int nGpus;                 /* GPUs (= ranks) in the input XML */
  int64_t gpuBusId[64];      /* in PCI bus order: NVML/CUDA index i */
  int sm;                    /* compute capability the NVML/CUDA stubs report */
  int p2pOk;                 /* 0: no peer access (the VM case) */
  int currentRank;
  int verbose;
  int searchFallbacks;       /* "falling back to simple order" messages seen */
  int fallbackByPattern[8];
  unsigned nvmlLinkGen;      /* 2.30+: nvmlDeviceGetCurrPcieLinkGeneration (default 5) */
  unsigned nvmlLinkWidth;    /* 2.30+: nvmlDeviceGetCurrPcieLinkWidth (default 16) */
  unsigned pciDeviceId;      /* NVML pciDeviceId >> 16 (default 0x2bb1) */
  int nNics;                 /* socket-plugin NICs (virtual, on the first CPU); default 1 */
  double pciLatency;         /* 2.31+: >= 0: the stub tuner's init writes it into hwLatencies[PCI] */
  /* --nic: IB-class NICs (RDMA, GPUDirect-capable) that are PCI functions; when any is given
   * they replace the virtual socket NIC */
  int nIbNics;
  char ibName[16][32];
  char ibPciPath[16][512];   /* a made-up sysfs directory named by the bus id: subsystem -> pci */
  int ibSpeedMbps;           /* --nic-speed, default 400000 (NDR) */
  int gdr;                   /* --gdr: each GPU reports GPUDirect RDMA support (peerInfo gdrSupport) */
};
extern struct oracleState oracle;
void oracleBarrierInit(int n);
void oracleRunLock();
void oracleRunUnlock();
#endif
