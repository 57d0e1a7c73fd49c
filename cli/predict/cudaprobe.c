/* SPDX-License-Identifier: BSD-3-Clause */
/* cudaprobe.c - CUDA driver queries through dlopen; see cudaprobe.h.
 *
 * Only the driver API's C entry points are used, declared here by hand with
 * the types the driver API documents (CUresult and CUdevice are ints). */
#include "cli/predict/cudaprobe.h"

#include "cli/common/dlfn.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attribute numbers of CUdevice_attribute (cuda.h). */
#define NN_CU_ATTR_CC_MAJOR 75
#define NN_CU_ATTR_CC_MINOR 76

struct nn_cudaprobe {
  void *lib;
  int (*init)(unsigned);
  int (*by_busid)(int *, const char *);
  int (*attribute)(int *, int, int);
  int (*can_peer)(int *, int, int);
};

struct nn_cudaprobe *nn_cudaprobe_open(char *why, size_t why_size) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(why, why_size, "no driver (libcuda.so.1 not loadable)");
    return NULL;
  }
  struct nn_cudaprobe *p = calloc(1, sizeof *p);
  if (!p) {
    dlclose(lib);
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  p->lib = lib;
  nn_dlfn(lib, "cuInit", &p->init, sizeof p->init);
  nn_dlfn(lib, "cuDeviceGetByPCIBusId", &p->by_busid, sizeof p->by_busid);
  nn_dlfn(lib, "cuDeviceGetAttribute", &p->attribute, sizeof p->attribute);
  nn_dlfn(lib, "cuDeviceCanAccessPeer", &p->can_peer, sizeof p->can_peer);
  if (!p->init || !p->by_busid || !p->attribute || !p->can_peer) {
    snprintf(why, why_size, "driver present but lacks the device query functions");
    nn_cudaprobe_close(p);
    return NULL;
  }
  int rc = p->init(0);
  if (rc != 0) {
    snprintf(why, why_size, "driver present but cuInit failed (CUresult %d)", rc);
    nn_cudaprobe_close(p);
    return NULL;
  }
  return p;
}

static int device_of(struct nn_cudaprobe *p, const struct nn_busid *bus, int *dev) {
  char id[32];
  nn_busid_format(bus, id, sizeof id);
  return p->by_busid(dev, id) == 0 ? 0 : -1;
}

int nn_cudaprobe_sm(struct nn_cudaprobe *p, const struct nn_busid *bus) {
  int dev, major, minor;
  if (!p || device_of(p, bus, &dev)) return 0;
  if (p->attribute(&major, NN_CU_ATTR_CC_MAJOR, dev) ||
      p->attribute(&minor, NN_CU_ATTR_CC_MINOR, dev))
    return 0;
  if (major < 0 || major > 99 || minor < 0 || minor > 9) return 0;
  return major * 10 + minor;
}

int nn_cudaprobe_can_peer(struct nn_cudaprobe *p, const struct nn_busid *a,
                          const struct nn_busid *b) {
  int da, db, can = 0;
  if (!p || device_of(p, a, &da) || device_of(p, b, &db)) return -1;
  if (p->can_peer(&can, da, db)) return -1;
  return can ? 1 : 0;
}

void nn_cudaprobe_close(struct nn_cudaprobe *p) {
  if (!p) return;
  if (p->lib) dlclose(p->lib);
  free(p);
}
