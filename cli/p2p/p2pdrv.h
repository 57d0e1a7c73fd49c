/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pdrv.h - the CUDA driver API and NVML entry points `nccl-numa p2p` calls, dlopen'd at
 * run time (never linked): libcuda.so.1 and libnvidia-ml.so.1, or the files named by
 * NCCL_NUMA_CUDA_LIB and NCCL_NUMA_NVML_LIB (tests point them at a stand-in). A named file
 * is loaded only when trust.h trusts it. Declared by hand with the driver API's documented
 * types (CUresult, CUdevice and nvmlReturn_t are ints; handles are pointers).
 */
#ifndef NCCL_NUMA_CLI_P2PDRV_H
#define NCCL_NUMA_CLI_P2PDRV_H

#include <stddef.h>
#include <stdint.h>

#define NN_P2P_CUDA_LIB_ENV "NCCL_NUMA_CUDA_LIB"
#define NN_P2P_NVML_LIB_ENV "NCCL_NUMA_NVML_LIB"

/* CUdevice_P2PAttribute (cuda.h) */
enum {
  NN_CU_P2P_PERFORMANCE_RANK = 1,
  NN_CU_P2P_ACCESS_SUPPORTED = 2,
  NN_CU_P2P_NATIVE_ATOMIC_SUPPORTED = 3,
  NN_CU_P2P_CUDA_ARRAY_ACCESS_SUPPORTED = 4
};
/* CUresult values the command tells apart */
enum { NN_CU_PEER_ACCESS_ALREADY_ENABLED = 704 };
/* nvmlGpuP2PCapsIndex_t and nvmlGpuP2PStatus_t (nvml.h) */
enum { NN_NVML_P2P_CAPS_READ = 0, NN_NVML_P2P_CAPS_WRITE = 1, NN_NVML_P2P_STATUS_OK = 0 };

/* cuMem's types (cuda.h): CUmemAllocationProp, CUmemLocation, CUmemAccessDesc */
enum {
  NN_CU_MEM_ALLOCATION_TYPE_PINNED = 1,
  NN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
  NN_CU_MEM_LOCATION_TYPE_DEVICE = 1,
  NN_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
  NN_CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
  NN_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1
};
struct nn_cu_mem_location {
  int type;
  int id;
};
struct nn_cu_mem_prop {
  int type;
  int requested_handle_types;
  struct nn_cu_mem_location location;
  void *win32_metadata;
  unsigned char compression, gpu_direct_rdma;
  unsigned short usage;
  unsigned char reserved[4];
};
struct nn_cu_mem_access {
  struct nn_cu_mem_location location;
  int flags;
};
/* CUipcMemHandle: 64 opaque bytes, passed by value */
typedef struct {
  char reserved[64];
} nn_cu_ipc_handle;

typedef int nn_cu_result;
typedef void *nn_cu_ctx;
typedef void *nn_cu_module;
typedef void *nn_cu_function;
typedef void *nn_cu_stream;
typedef uint64_t nn_cu_ptr;

struct nn_cuda {
  void *lib;
  nn_cu_result (*init)(unsigned flags);
  nn_cu_result (*driver_version)(int *version);
  nn_cu_result (*device_count)(int *count);
  nn_cu_result (*device_get)(int *dev, int ordinal);
  nn_cu_result (*device_name)(char *name, int len, int dev);
  nn_cu_result (*device_bus)(char *bus, int len, int dev);
  nn_cu_result (*can_access_peer)(int *can, int dev, int peer);
  nn_cu_result (*p2p_attribute)(int *value, int attr, int src, int dst);
  nn_cu_result (*ctx_retain)(nn_cu_ctx *ctx, int dev);
  nn_cu_result (*ctx_release)(int dev);
  nn_cu_result (*ctx_set_current)(nn_cu_ctx ctx);
  nn_cu_result (*ctx_enable_peer)(nn_cu_ctx peer, unsigned flags);
  nn_cu_result (*ctx_synchronize)(void);
  nn_cu_result (*mem_alloc)(nn_cu_ptr *ptr, size_t bytes);
  nn_cu_result (*mem_free)(nn_cu_ptr ptr);
  nn_cu_result (*memcpy_dtoh)(void *dst, nn_cu_ptr src, size_t bytes);
  nn_cu_result (*memset_d32)(nn_cu_ptr dst, unsigned value, size_t count);
  nn_cu_result (*memcpy_peer)(nn_cu_ptr dst, nn_cu_ctx dst_ctx, nn_cu_ptr src, nn_cu_ctx src_ctx,
                              size_t bytes);
  nn_cu_result (*module_load_data)(nn_cu_module *mod, const void *image);
  nn_cu_result (*module_function)(nn_cu_function *fn, nn_cu_module mod, const char *name);
  nn_cu_result (*launch)(nn_cu_function fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shared, nn_cu_stream stream,
                         void **params, void **extra);
  nn_cu_result (*stream_create)(nn_cu_stream *stream, unsigned flags);
  nn_cu_result (*stream_synchronize)(nn_cu_stream stream);
  nn_cu_result (*error_name)(nn_cu_result rc, const char **name);
  /* across processes: cuMem shareable handles and legacy CUDA IPC */
  nn_cu_result (*mem_granularity)(size_t *gran, const struct nn_cu_mem_prop *prop, int option);
  nn_cu_result (*mem_create)(unsigned long long *handle, size_t size,
                             const struct nn_cu_mem_prop *prop, unsigned long long flags);
  nn_cu_result (*mem_export)(void *shareable, unsigned long long handle, int type,
                             unsigned long long flags);
  nn_cu_result (*mem_import)(unsigned long long *handle, void *os_handle, int type);
  nn_cu_result (*mem_reserve)(nn_cu_ptr *ptr, size_t size, size_t align, nn_cu_ptr addr,
                              unsigned long long flags);
  nn_cu_result (*mem_map)(nn_cu_ptr ptr, size_t size, size_t offset, unsigned long long handle,
                          unsigned long long flags);
  nn_cu_result (*mem_set_access)(nn_cu_ptr ptr, size_t size, const struct nn_cu_mem_access *desc,
                                 size_t count);
  nn_cu_result (*mem_unmap)(nn_cu_ptr ptr, size_t size);
  nn_cu_result (*mem_release)(unsigned long long handle);
  nn_cu_result (*mem_address_free)(nn_cu_ptr ptr, size_t size);
  nn_cu_result (*ipc_get)(nn_cu_ipc_handle *handle, nn_cu_ptr ptr);
  nn_cu_result (*ipc_open)(nn_cu_ptr *ptr, nn_cu_ipc_handle handle, unsigned flags);
  nn_cu_result (*ipc_close)(nn_cu_ptr ptr);
};

struct nn_nvml {
  void *lib;
  int (*init)(void);
  int (*shutdown)(void);
  int (*driver_version)(char *version, unsigned len);
  int (*by_bus)(const char *bus, void **device);
  int (*p2p_status)(void *a, void *b, int index, int *status);
};

/* Loads the CUDA driver API. Returns 0, or -1 with what is missing in why. */
int nn_p2pdrv_cuda_open(struct nn_cuda *cu, char *why, size_t why_size);

/* Loads NVML. Returns 0, or -1 with the reason in why. */
int nn_p2pdrv_nvml_open(struct nn_nvml *nv, char *why, size_t why_size);

/* "NAME (N)" for a CUresult, into buf; the driver's NAME made printable (no control bytes, no
 * newline that would forge a line of the child's report). */
const char *nn_p2pdrv_error(const struct nn_cuda *cu, nn_cu_result rc, char *buf, size_t size);

#endif
