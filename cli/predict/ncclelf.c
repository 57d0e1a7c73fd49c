/* SPDX-License-Identifier: BSD-3-Clause */
/* ncclelf.c - NCCL's version banner read from the library file; see ncclelf.h. */
#include "cli/predict/ncclelf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"
#include "nccl_model.h"

#define BANNER "NCCL version "
#define LDSO_CONF "/etc/ld.so.conf"
#define MAX_SECTIONS 4096

static int read_at(int fd, void *buf, size_t len, off_t off) {
  return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* The .rodata section header of the ELF64 file open as fd: 0, or -1 with the reason in why. */
static int find_rodata(int fd, Elf64_Shdr *out, const char **why) {
  Elf64_Ehdr eh;
  Elf64_Shdr names;
  if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64) {
    *why = "not an ELF64 file";
    return -1;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > MAX_SECTIONS ||
      eh.e_shstrndx >= eh.e_shnum ||
      read_at(fd, &names, sizeof names,
              (off_t)(eh.e_shoff + (Elf64_Off)eh.e_shstrndx * sizeof names))) {
    *why = "no readable section headers";
    return -1;
  }
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    char name[sizeof ".rodata"];
    if (read_at(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (Elf64_Off)i * sizeof sh))) break;
    if (sh.sh_name >= names.sh_size ||
        read_at(fd, name, sizeof name, (off_t)(names.sh_offset + sh.sh_name)))
      continue;
    if (!memcmp(name, ".rodata", sizeof name) && sh.sh_type == SHT_PROGBITS) {
      *out = sh;
      return 0;
    }
  }
  *why = "no .rodata section";
  return -1;
}

/* The release of the first banner in data[0..len) that parses, or -1. */
static int banner_version(const char *data, size_t len) {
  const char *end = data + len;
  for (const char *p = data; (p = memmem(p, (size_t)(end - p), BANNER, sizeof BANNER - 1)); p++) {
    char v[16];
    size_t n = 0;
    for (const char *q = p + sizeof BANNER - 1;
         q < end && n + 1 < sizeof v && (*q == '.' || (*q >= '0' && *q <= '9'));)
      v[n++] = *q++;
    v[n] = 0;
    int code = nn_nccl_version_parse(v);
    if (code > 0) return code;
  }
  return -1;
}

int nn_ncclelf_version(const char *path, char *err, size_t errsz) {
  int fd = nn_file_open(AT_FDCWD, path, 0, NN_FILE_ANY_SIZE, err, errsz);
  if (fd < 0) return -1;
  Elf64_Shdr ro;
  const char *why = NULL;
  char *data = NULL;
  int code = -1;
  if (!find_rodata(fd, &ro, &why)) {
    if (ro.sh_size > NN_NCCLELF_MAX_RODATA) why = ".rodata larger than 64 MiB";
    else if (!(data = malloc(ro.sh_size ? ro.sh_size : 1))) why = "out of memory";
    else if (read_at(fd, data, ro.sh_size, (off_t)ro.sh_offset)) why = "cannot read .rodata";
    else if ((code = banner_version(data, ro.sh_size)) < 0)
      why = "no \"" BANNER "X.Y.Z\" string in .rodata";
  }
  free(data);
  close(fd);
  if (code < 0) nn_errbuf_set(err, errsz, "%s: %s", path, why ? why : "cannot read");
  return code;
}

/* dir/libnccl.so.2 into out when it is a file. */
static int in_dir(const char *dir, size_t len, char *out, size_t size) {
  struct stat st;
  if (!len || dir[0] != '/' ||
      (size_t)snprintf(out, size, "%.*s/libnccl.so.2", (int)len, dir) >= size)
    return 0;
  return !stat(out, &st) && S_ISREG(st.st_mode);
}

/* The directories of one ld.so.conf file (depth: include nesting left), searched in order. */
static int in_conf(const char *conf, int depth, char *out, size_t size) {
  char *text = NULL, err[64];
  size_t len;
  if (depth < 0 || nn_file_read(AT_FDCWD, conf, 0, 1u << 20, &text, &len, err, sizeof err))
    return 0;
  int found = 0;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && !found;
       line = strtok_r(NULL, "\n", &save)) {
    line[strcspn(line, "#")] = 0;
    line += strspn(line, " \t");
    size_t word = strcspn(line, " \t");
    char *pattern = line + word + (line[word] != 0);
    line[word] = 0;
    if (!strcmp(line, "include")) {
      pattern += strspn(pattern, " \t");
      pattern[strcspn(pattern, " \t")] = 0;
      glob_t g;
      if (pattern[0] == '/' && !glob(pattern, 0, NULL, &g)) {
        for (size_t i = 0; i < g.gl_pathc && !found; i++)
          found = in_conf(g.gl_pathv[i], depth - 1, out, size);
        globfree(&g);
      }
    } else {
      found = in_dir(line, strlen(line), out, size);
    }
  }
  free(text);
  return found;
}

int nn_ncclelf_find(char *out, size_t size) {
  const char *lp = getenv("LD_LIBRARY_PATH");
  for (const char *p = lp ? lp : ""; *p;) {
    size_t len = strcspn(p, ":;");
    if (in_dir(p, len, out, size)) return 1;
    p += len + (p[len] != 0);
  }
  if (in_conf(LDSO_CONF, 4, out, size)) return 1;
  static const char *const defaults[] = {"/lib", "/usr/lib"};
  for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
    if (in_dir(defaults[i], strlen(defaults[i]), out, size)) return 1;
  out[0] = 0;
  return 0;
}
