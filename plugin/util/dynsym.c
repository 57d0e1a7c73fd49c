/* SPDX-License-Identifier: BSD-3-Clause */
/* dynsym.c - loaded objects and their exported symbols; see dynsym.h. */
#include "dynsym.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The native ELF class's types (link.h's ElfW, spelled out) */
#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Phdr nn_phdr;
typedef Elf64_Dyn nn_dyn;
typedef Elf64_Sym nn_sym;
typedef Elf64_Addr nn_addr;
#define NN_ST_TYPE ELF64_ST_TYPE
#else
typedef Elf32_Phdr nn_phdr;
typedef Elf32_Dyn nn_dyn;
typedef Elf32_Sym nn_sym;
typedef Elf32_Addr nn_addr;
#define NN_ST_TYPE ELF32_ST_TYPE
#endif

struct each_arg {
  int (*visit)(const struct nn_dynsym_object *o, void *arg);
  void *arg;
  const void *addr; /* nn_dynsym_owner: the address looked for */
  struct nn_dynsym_object *found;
};

static void describe(const struct dl_phdr_info *info, struct nn_dynsym_object *o) {
  o->base = info->dlpi_addr;
  o->dynamic = NULL;
  snprintf(o->name, sizeof o->name, "%s", info->dlpi_name ? info->dlpi_name : "");
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      o->dynamic = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
}

static int each_cb(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct each_arg *a = data;
  struct nn_dynsym_object o;
  if (a->addr) {
    uintptr_t at = (uintptr_t)a->addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
      const nn_phdr *p = &info->dlpi_phdr[i];
      uintptr_t lo = info->dlpi_addr + p->p_vaddr;
      if (p->p_type == PT_LOAD && at >= lo && at - lo < p->p_memsz) {
        describe(info, a->found);
        return 1;
      }
    }
    return 0;
  }
  describe(info, &o);
  return a->visit(&o, a->arg);
}

int nn_dynsym_each(int (*visit)(const struct nn_dynsym_object *o, void *arg), void *arg) {
  struct each_arg a = {visit, arg, NULL, NULL};
  return dl_iterate_phdr(each_cb, &a);
}

int nn_dynsym_owner(const void *addr, struct nn_dynsym_object *out) {
  struct each_arg a = {NULL, NULL, addr, out};
  return addr && dl_iterate_phdr(each_cb, &a) == 1;
}

/* A d_ptr of the dynamic section as an address: glibc relocates them in place at load
 * time, other loaders leave them relative to the base. */
static uintptr_t dyn_address(const struct nn_dynsym_object *o, nn_addr ptr) {
  return o->base && ptr < o->base ? o->base + ptr : ptr;
}

struct tables {
  const nn_sym *sym;
  const char *str;
  const uint32_t *gnu, *sysv;
};

static int read_tables(const struct nn_dynsym_object *o, struct tables *t) {
  memset(t, 0, sizeof *t);
  for (const nn_dyn *d = o->dynamic; d && d->d_tag != DT_NULL; d++) {
    uintptr_t at = dyn_address(o, d->d_un.d_ptr);
    if (d->d_tag == DT_SYMTAB) t->sym = (const nn_sym *)at;
    else if (d->d_tag == DT_STRTAB) t->str = (const char *)at;
    else if (d->d_tag == DT_GNU_HASH) t->gnu = (const uint32_t *)at;
    else if (d->d_tag == DT_HASH) t->sysv = (const uint32_t *)at;
  }
  return t->sym && t->str && (t->gnu || t->sysv) ? 0 : -1;
}

static void *defined(const struct nn_dynsym_object *o, const struct tables *t, uint32_t i,
                     const char *name) {
  const nn_sym *s = &t->sym[i];
  if (s->st_shndx == SHN_UNDEF || NN_ST_TYPE(s->st_info) != STT_FUNC ||
      strcmp(t->str + s->st_name, name))
    return NULL;
  return (void *)(o->base + s->st_value);
}

static void *lookup_gnu(const struct nn_dynsym_object *o, const struct tables *t,
                        const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = h * 33 + *c;
  uint32_t nbuckets = t->gnu[0], symoffset = t->gnu[1], bloom_size = t->gnu[2];
  if (!nbuckets) return NULL;
  const uint32_t *buckets = (const uint32_t *)((const nn_addr *)(t->gnu + 4) + bloom_size);
  const uint32_t *chain = buckets + nbuckets;
  uint32_t i = buckets[h % nbuckets];
  if (i < symoffset) return NULL;
  for (;; i++) {
    uint32_t h2 = chain[i - symoffset];
    void *fn = (h | 1) == (h2 | 1) ? defined(o, t, i, name) : NULL;
    if (fn) return fn;
    if (h2 & 1) return NULL;
  }
}

static void *lookup_sysv(const struct nn_dynsym_object *o, const struct tables *t,
                         const char *name) {
  uint32_t h = 0;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
    h = (h << 4) + *c;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  uint32_t nbucket = t->sysv[0], nchain = t->sysv[1];
  if (!nbucket) return NULL;
  const uint32_t *bucket = t->sysv + 2, *chain = bucket + nbucket;
  for (uint32_t i = bucket[h % nbucket], steps = 0; i && i < nchain && steps < nchain;
       i = chain[i], steps++) {
    void *fn = defined(o, t, i, name);
    if (fn) return fn;
  }
  return NULL;
}

void *nn_dynsym_lookup(const struct nn_dynsym_object *o, const char *name) {
  struct tables t;
  if (!o || !o->dynamic || read_tables(o, &t)) return NULL;
  return t.gnu ? lookup_gnu(o, &t, name) : lookup_sysv(o, &t, name);
}
