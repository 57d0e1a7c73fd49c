/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_loader.c - loads one given libnccl.so.2 and calls ncclGetUniqueId, no GPU needed.
 *
 * Usage: nccl_loader PATH/libnccl.so.2
 * Prints "version N" and "getUniqueId rc R"; NCCL's own log (NCCL_DEBUG, set by the caller)
 * shows whether it loaded the env plugin named by NCCL_ENV_PLUGIN. Exit 0 when the call
 * returned ncclSuccess, 1 when it returned an error, 2 when the library cannot be used.
 * Written for test/compat/run.sh; it links no NCCL and no CUDA, so any release can be tried.
 */
#include <dlfcn.h>
#include <stdio.h>

/* NCCL's unique id is an opaque 128-byte block. */
struct nn_unique_id {
  char bytes[128];
};

typedef int (*get_version_fn)(int *version);
typedef int (*get_unique_id_fn)(struct nn_unique_id *id);

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH/libnccl.so.2\n", argv[0]);
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "nccl_loader: dlopen %s: %s\n", argv[1], dlerror());
    return 2;
  }
  get_version_fn get_version = (get_version_fn)dlsym(h, "ncclGetVersion");
  get_unique_id_fn get_unique_id = (get_unique_id_fn)dlsym(h, "ncclGetUniqueId");
  if (!get_version || !get_unique_id) {
    fprintf(stderr, "nccl_loader: %s lacks ncclGetVersion or ncclGetUniqueId\n", argv[1]);
    return 2;
  }
  int version = 0;
  get_version(&version);
  printf("nccl_loader: version %d\n", version);
  struct nn_unique_id id;
  int rc = get_unique_id(&id);
  printf("nccl_loader: getUniqueId rc %d\n", rc);
  fflush(stdout);
  return rc == 0 ? 0 : 1;
}
