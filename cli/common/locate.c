/* SPDX-License-Identifier: BSD-3-Clause */
/* locate.c - where the command finds the plugin library and the mapping, for exec, env,
 * ab and calibrate alike. */
#include "cli/common/locate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_source.h"
#include "errbuf.h"

static int is_regular(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int absolute(const char *path, char *buf, size_t size, char *err, size_t errsz,
                    const char *what) {
  char tmp[PATH_MAX];
  if (!realpath(path, tmp)) {
    nn_errbuf_set(err, errsz, "%s %s: %s", what, path, strerror(errno));
    return -1;
  }
  if (!is_regular(tmp)) {
    nn_errbuf_set(err, errsz, "%s %s: not a regular file", what, path);
    return -1;
  }
  if (strlen(tmp) >= size) {
    nn_errbuf_set(err, errsz, "%s %s: path too long", what, path);
    return -1;
  }
  strcpy(buf, tmp);
  return 0;
}

int nn_locate_plugin(const char *override, char *buf, size_t size, char *err, size_t errsz) {
  if (override) return absolute(override, buf, size, err, errsz, "plugin");
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    nn_errbuf_set(err, errsz, "cannot find this executable (/proc/self/exe): %s; use --plugin PATH",
                  strerror(errno));
    return -1;
  }
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  /* PREFIX/lib (make install), PREFIX/lib/<multiarch> (the Debian package), the build dir */
  static const char *const tails[] = {"/../lib/" NN_PLUGIN_FILE,
#ifdef NN_MULTIARCH
                                      "/../lib/" NN_MULTIARCH "/" NN_PLUGIN_FILE,
#endif
                                      "/" NN_PLUGIN_FILE};
  for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
    char cand[PATH_MAX + 64];
    snprintf(cand, sizeof cand, "%s%s", exe, tails[i]);
    if (is_regular(cand)) return absolute(cand, buf, size, err, errsz, "plugin");
  }
  nn_errbuf_set(err, errsz, "%s not found in %s/../lib or %s; use --plugin PATH", NN_PLUGIN_FILE,
                exe, exe);
  return -1;
}

int nn_locate_config(const char *given, char *buf, size_t size, char *err, size_t errsz) {
  struct nn_config_source src;
  nn_config_source_find(given, &src);
  if (!src.named && access(src.path, F_OK)) {
    nn_errbuf_set(err, errsz, "no mapping: give --config FILE, set NCCL_NUMA_CONFIG, or create %s",
                  NN_DEFAULT_CONFIG_PATH);
    return -1;
  }
  return absolute(src.path, buf, size, err, errsz, "config");
}
