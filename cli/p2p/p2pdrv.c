/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pdrv.c - the CUDA driver and NVML, dlopen'd; see p2pdrv.h. */
#include "cli/p2p/p2pdrv.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/dlfn.h"
#include "printable.h"
#include "trust.h"

/* The library named by env (judged by trust.h before it is opened, loaded through that
 * descriptor), or
 * the system's `soname`. */
static void *load(const char *env, const char *soname, char *why, size_t why_size) {
  const char *path = getenv(env);
  if (!path || !*path) {
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) snprintf(why, why_size, "%s not loadable (%s)", soname, dlerror());
    return lib;
  }
  char err[1024];
  int fd;
  int trust = nn_trust_open(NULL, path, &fd, err, sizeof err);
  if (trust != NN_TRUST_OK && trust != NN_TRUST_OPTED_OUT) {
    snprintf(why, why_size, "%s=%s", env, err);
    return NULL;
  }
  if (trust == NN_TRUST_OPTED_OUT) fprintf(stderr, "nccl-numa p2p: %s\n", err);
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  void *lib = dlopen(self, RTLD_NOW | RTLD_LOCAL);
  if (!lib) snprintf(why, why_size, "%s=%s not loadable (%s)", env, path, dlerror());
  close(fd);
  return lib;
}

int nn_p2pdrv_cuda_open(struct nn_cuda *cu, char *why, size_t why_size) {
  memset(cu, 0, sizeof *cu);
  cu->lib = load(NN_P2P_CUDA_LIB_ENV, "libcuda.so.1", why, why_size);
  if (!cu->lib) return -1;
  const struct {
    const char *name;
    void *fn;
    size_t size;
  } syms[] = {
#define NN_SYM(field, name) {name, &cu->field, sizeof cu->field}
    NN_SYM(init, "cuInit"),
    NN_SYM(driver_version, "cuDriverGetVersion"),
    NN_SYM(device_count, "cuDeviceGetCount"),
    NN_SYM(device_get, "cuDeviceGet"),
    NN_SYM(device_name, "cuDeviceGetName"),
    NN_SYM(device_bus, "cuDeviceGetPCIBusId"),
    NN_SYM(can_access_peer, "cuDeviceCanAccessPeer"),
    NN_SYM(p2p_attribute, "cuDeviceGetP2PAttribute"),
    NN_SYM(ctx_retain, "cuDevicePrimaryCtxRetain"),
    NN_SYM(ctx_release, "cuDevicePrimaryCtxRelease_v2"),
    NN_SYM(ctx_set_current, "cuCtxSetCurrent"),
    NN_SYM(ctx_enable_peer, "cuCtxEnablePeerAccess"),
    NN_SYM(ctx_synchronize, "cuCtxSynchronize"),
    NN_SYM(mem_alloc, "cuMemAlloc_v2"),
    NN_SYM(mem_free, "cuMemFree_v2"),
    NN_SYM(memcpy_dtoh, "cuMemcpyDtoH_v2"),
    NN_SYM(memset_d32, "cuMemsetD32_v2"),
    NN_SYM(memcpy_peer, "cuMemcpyPeer"),
    NN_SYM(module_load_data, "cuModuleLoadData"),
    NN_SYM(module_function, "cuModuleGetFunction"),
    NN_SYM(launch, "cuLaunchKernel"),
    NN_SYM(stream_create, "cuStreamCreate"),
    NN_SYM(stream_synchronize, "cuStreamSynchronize"),
    NN_SYM(error_name, "cuGetErrorName"),
    NN_SYM(mem_granularity, "cuMemGetAllocationGranularity"),
    NN_SYM(mem_create, "cuMemCreate"),
    NN_SYM(mem_export, "cuMemExportToShareableHandle"),
    NN_SYM(mem_import, "cuMemImportFromShareableHandle"),
    NN_SYM(mem_reserve, "cuMemAddressReserve"),
    NN_SYM(mem_map, "cuMemMap"),
    NN_SYM(mem_set_access, "cuMemSetAccess"),
    NN_SYM(mem_unmap, "cuMemUnmap"),
    NN_SYM(mem_release, "cuMemRelease"),
    NN_SYM(mem_address_free, "cuMemAddressFree"),
    NN_SYM(ipc_get, "cuIpcGetMemHandle"),
    NN_SYM(ipc_open, "cuIpcOpenMemHandle_v2"),
    NN_SYM(ipc_close, "cuIpcCloseMemHandle"),
#undef NN_SYM
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    if (nn_dlfn(cu->lib, syms[i].name, syms[i].fn, syms[i].size)) {
      snprintf(why, why_size, "the CUDA driver lacks %s", syms[i].name);
      dlclose(cu->lib);
      cu->lib = NULL;
      return -1;
    }
  }
  return 0;
}

int nn_p2pdrv_nvml_open(struct nn_nvml *nv, char *why, size_t why_size) {
  memset(nv, 0, sizeof *nv);
  nv->lib = load(NN_P2P_NVML_LIB_ENV, "libnvidia-ml.so.1", why, why_size);
  if (!nv->lib) return -1;
  if (nn_dlfn(nv->lib, "nvmlInit_v2", &nv->init, sizeof nv->init) ||
      nn_dlfn(nv->lib, "nvmlShutdown", &nv->shutdown, sizeof nv->shutdown) ||
      nn_dlfn(nv->lib, "nvmlSystemGetDriverVersion", &nv->driver_version,
              sizeof nv->driver_version) ||
      nn_dlfn(nv->lib, "nvmlDeviceGetHandleByPciBusId_v2", &nv->by_bus, sizeof nv->by_bus) ||
      nn_dlfn(nv->lib, "nvmlDeviceGetP2PStatus", &nv->p2p_status, sizeof nv->p2p_status)) {
    snprintf(why, why_size, "NVML lacks the P2P status functions");
    dlclose(nv->lib);
    nv->lib = NULL;
    return -1;
  }
  return 0;
}

const char *nn_p2pdrv_error(const struct nn_cuda *cu, nn_cu_result rc, char *buf, size_t size) {
  const char *name = NULL;
  char safe[96];
  if (!cu->error_name || cu->error_name(rc, &name) || !name) name = "CUresult";
  /* the driver's text goes into the report's lines and onto terminals: one printable line */
  snprintf(buf, size, "%s (%d)", nn_printable(safe, sizeof safe, name, NN_PRINTABLE_CSTR, " "), rc);
  return buf;
}
