/* SPDX-License-Identifier: BSD-3-Clause */
/* pyenv.c - the Python environment's NCCL; see pyenv.h. */
#include "cli/predict/pyenv.h"

#include <ctype.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common/text.h"
#include "errbuf.h"
#include "fileread.h"
#include "nccl_model.h"

#define NN_PYENV_NCCL "/nvidia/nccl/lib/libnccl.so.2"
/* Where the wheel puts torch: torch/lib's libraries find NCCL through their RPATH
 * $ORIGIN/../../nvidia/nccl/lib, i.e. beside torch (PyTorch 2.x Linux CUDA wheels). */
#define NN_PYENV_TORCH "/torch/__init__.py"

const char *nn_pyenv_python(char *buf, size_t size) {
  const char *chosen = getenv("NCCL_NUMA_PYTHON");
  if (chosen) return chosen[0] ? chosen : NULL;
  const char *venv = getenv("VIRTUAL_ENV");
  if (venv && venv[0] == '/' && (size_t)snprintf(buf, size, "%s/bin/python3", venv) < size)
    return buf;
  snprintf(buf, size, "python3");
  return buf;
}

/* Appends dir to the list in buf (one a line) when it is a directory. */
static void add_dir(char *buf, size_t size, const char *dir) {
  struct stat st;
  size_t used = strlen(buf);
  if (stat(dir, &st) || !S_ISDIR(st.st_mode) || used + strlen(dir) + 2 > size) return;
  snprintf(buf + used, size - used, "%s\n", dir);
}

/* Appends every directory matching `pattern` (glob, sorted). */
static void add_glob(char *buf, size_t size, const char *pattern) {
  glob_t g;
  if (glob(pattern, 0, NULL, &g)) return;
  for (size_t i = 0; i < g.gl_pathc; i++) add_dir(buf, size, g.gl_pathv[i]);
  globfree(&g);
}

/* The interpreter's path: `python` itself when it has a '/', else the first executable of
 * that name on PATH. */
static int locate(const char *python, char *out, size_t size) {
  if (strchr(python, '/'))
    return (size_t)snprintf(out, size, "%s", python) < size && !access(out, X_OK) ? 0 : -1;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t len = strcspn(p, ":");
    if (len && (size_t)snprintf(out, size, "%.*s/%s", (int)len, p, python) < size &&
        !access(out, X_OK))
      return 0;
    p += len + (p[len] != 0);
  }
  return -1;
}

/* Whether PREFIX/pyvenv.cfg makes PREFIX a venv; *system gets include-system-site-packages,
 * base (the `home` key's parent: the installation it was made from) its prefix. */
static int read_pyvenv(const char *prefix, int *system, char *base, size_t size) {
  char cfg[PATH_MAX], err[64], *text = NULL;
  size_t len;
  *system = 0;
  base[0] = 0;
  if ((size_t)snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", prefix) >= sizeof cfg ||
      nn_file_read(AT_FDCWD, cfg, 0, 1u << 16, &text, &len, err, sizeof err))
    return 0;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    char *eq = strchr(line, '=');
    if (!eq) continue;
    *eq = 0;
    char *key = nn_text_trim(line), *value = nn_text_trim(eq + 1);
    if (!strcmp(key, "include-system-site-packages")) *system = !strcasecmp(value, "true");
    if (!strcmp(key, "home") && value[0] == '/') snprintf(base, size, "%s", value);
  }
  free(text);
  char *slash = strrchr(base, '/'); /* home is the base's bin directory */
  if (slash) *slash = 0;
  return 1;
}

/* The site directories of a non-venv installation at prefix (the user's first, as site does). */
static void add_installation(char *buf, size_t size, const char *prefix) {
  char pattern[PATH_MAX + 64];
  const char *home = getenv("HOME");
  if (home && home[0] == '/') {
    snprintf(pattern, sizeof pattern, "%s/.local/lib/python3.*/site-packages", home);
    add_glob(buf, size, pattern);
  }
  static const char *const layouts[] = {
    "/local/lib/python3.*/dist-packages", "/lib/python3/dist-packages",
    "/lib/python3.*/dist-packages", "/lib/python3.*/site-packages"};
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    snprintf(pattern, sizeof pattern, "%s%s", prefix, layouts[i]);
    add_glob(buf, size, pattern);
  }
}

int nn_pyenv_site_dirs(const char *python, char *buf, size_t size, char *why, size_t whysz) {
  char exe[PATH_MAX], prefix[PATH_MAX], base[PATH_MAX], pattern[PATH_MAX + 64];
  if (size) buf[0] = 0;
  if (!size || locate(python, exe, sizeof exe)) {
    nn_errbuf_set(why, whysz, "no interpreter %s%s", python, strchr(python, '/') ? "" : " on PATH");
    return -1;
  }
  snprintf(prefix, sizeof prefix, "%s", exe); /* PREFIX/bin/python3 -> PREFIX */
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(prefix, '/');
    if (slash) *slash = 0;
  }
  int system;
  if (!read_pyvenv(prefix[0] ? prefix : "/", &system, base, sizeof base)) {
    add_installation(buf, size, prefix);
    return 0;
  }
  snprintf(pattern, sizeof pattern, "%s/lib/python3.*/site-packages", prefix);
  add_glob(buf, size, pattern);
  if (system && base[0]) add_installation(buf, size, base);
  return 0;
}

/* The "X.Y.Z" that starts s, into v; the wheel may add more (2.27.3.post1). */
static void three_numbers(const char *s, char *v, size_t size) {
  size_t n = 0;
  for (int dots = 0; n + 1 < size && (isdigit((unsigned char)*s) || (*s == '.' && ++dots < 3)); s++)
    v[n++] = *s;
  v[n] = 0;
}

int nn_pyenv_dist_version(const char *site, const char *dist, char *version, size_t vsz,
                          char *metadata, size_t msz) {
  char pattern[PATH_MAX + 128], err[PATH_MAX + 64], *text = NULL;
  size_t len;
  glob_t g;
  if (vsz) version[0] = 0;
  if (msz) metadata[0] = 0;
  snprintf(pattern, sizeof pattern, "%s/%s-[0-9]*.dist-info/METADATA", site, dist);
  if (glob(pattern, 0, NULL, &g)) return 0;
  if (g.gl_pathc &&
      !nn_file_read(AT_FDCWD, g.gl_pathv[0], 0, 1u << 20, &text, &len, err, sizeof err)) {
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && !version[0];
         line = strtok_r(NULL, "\n", &save)) {
      if (strncmp(line, "Version:", 8)) continue;
      const char *v = line + 8 + strspn(line + 8, " \t");
      snprintf(version, vsz, "%.*s", (int)strcspn(v, " \t\r"), v);
    }
    if (version[0]) snprintf(metadata, msz, "%s", g.gl_pathv[0]);
  }
  free(text);
  globfree(&g);
  return version[0] != 0;
}

int nn_pyenv_wheel_version(const char *site, char *metadata, size_t size) {
  char text[64], v[16];
  if (!nn_pyenv_dist_version(site, "nvidia_nccl_cu*", text, sizeof text, metadata, size)) return 0;
  three_numbers(text, v, sizeof v);
  int code = nn_nccl_version_parse(v);
  if (code > 0) return code;
  if (size) metadata[0] = 0;
  return 0;
}

static int is_file_in(const char *dir, size_t len, const char *tail, char *path, size_t size) {
  struct stat st;
  if ((size_t)snprintf(path, size, "%.*s%s", (int)len, dir, tail) >= size) return 0;
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The first absolute entry of syspath holding torch (want_torch: 1 only when NCCL is beside it,
 * as torch is imported from the first only) or, without want_torch, holding NCCL. */
static int first_entry(const char *syspath, int want_torch, struct nn_pyenv_nccl *out) {
  char torch[PATH_MAX];
  for (const char *p = syspath; *p;) {
    size_t len = strcspn(p, "\n");
    if (p[0] == '/') {
      snprintf(out->site, sizeof out->site, "%.*s", (int)len, p);
      if (want_torch && is_file_in(p, len, NN_PYENV_TORCH, torch, sizeof torch)) {
        out->torch = 1;
        return is_file_in(p, len, NN_PYENV_NCCL, out->lib, sizeof out->lib);
      }
      if (!want_torch && is_file_in(p, len, NN_PYENV_NCCL, out->lib, sizeof out->lib)) return 1;
    }
    p += len + (p[len] == '\n');
  }
  return 0;
}

int nn_pyenv_find_nccl(const char *syspath, struct nn_pyenv_nccl *out) {
  memset(out, 0, sizeof *out);
  if (first_entry(syspath, 1, out)) return 1;
  out->torch = 0;
  if (first_entry(syspath, 0, out)) return 1;
  out->lib[0] = 0;
  out->site[0] = 0;
  return 0;
}
