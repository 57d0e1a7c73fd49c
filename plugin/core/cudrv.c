/* SPDX-License-Identifier: BSD-3-Clause */
/* cudrv.c - compute capability of the current device, without linking CUDA. */
#include "cudrv.h"

#include <dlfcn.h>

/* Driver API values (CUDA driver API reference):
 * CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR. */
enum { NN_CU_ATTR_CC_MAJOR = 75, NN_CU_ATTR_CC_MINOR = 76 };
typedef int (*nn_cu_ctx_get_device_fn)(int *device);
typedef int (*nn_cu_device_get_attribute_fn)(int *value, int attribute, int device);

int nn_cudrv_current_sm(void) {
  /* RTLD_NOLOAD: only a driver NCCL already loaded; loading one here could change the process. */
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return 0;
  int sm = 0, dev = -1, major = 0, minor = 0;
  nn_cu_ctx_get_device_fn get_device = (nn_cu_ctx_get_device_fn)dlsym(h, "cuCtxGetDevice");
  nn_cu_device_get_attribute_fn get_attr =
    (nn_cu_device_get_attribute_fn)dlsym(h, "cuDeviceGetAttribute");
  if (get_device && get_attr && get_device(&dev) == 0 &&
      get_attr(&major, NN_CU_ATTR_CC_MAJOR, dev) == 0 &&
      get_attr(&minor, NN_CU_ATTR_CC_MINOR, dev) == 0)
    sm = major * 10 + minor;
  dlclose(h);
  return sm;
}

typedef int (*nn_cu_device_get_count_fn)(int *count);
typedef int (*nn_cu_device_get_fn)(int *device, int ordinal);
typedef int (*nn_cu_device_get_pci_bus_id_fn)(char *bus, int len, int device);

int nn_cudrv_visible_busids(struct nn_busid *out, int max) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return -1;
  nn_cu_device_get_count_fn get_count = (nn_cu_device_get_count_fn)dlsym(h, "cuDeviceGetCount");
  nn_cu_device_get_fn get = (nn_cu_device_get_fn)dlsym(h, "cuDeviceGet");
  nn_cu_device_get_pci_bus_id_fn get_bus =
    (nn_cu_device_get_pci_bus_id_fn)dlsym(h, "cuDeviceGetPCIBusId");
  int count = 0, n = -1;
  /* not initialized yet (cuInit not called): CUDA_ERROR_NOT_INITIALIZED, and unknown here */
  if (get_count && get && get_bus && get_count(&count) == 0) {
    for (n = 0; n < count && n < max; n++) {
      char bus[32];
      int dev;
      if (get(&dev, n) || get_bus(bus, (int)sizeof bus, dev) || nn_busid_parse(bus, &out[n])) {
        n = -1;
        break;
      }
    }
  }
  dlclose(h);
  return n;
}
