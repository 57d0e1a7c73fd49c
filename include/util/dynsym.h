/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dynsym.h - the loaded objects of this process (dl_iterate_phdr): which one holds an
 * address, and the address of a symbol an object exports, read from its dynamic symbol table
 * in memory (DT_GNU_HASH or DT_HASH). Nothing is opened or loaded: no dlopen, whose handle
 * is the only way dlsym could ask a library another object loaded RTLD_LOCAL.
 */
#ifndef NCCL_NUMA_DYNSYM_H
#define NCCL_NUMA_DYNSYM_H

#include <stddef.h>

/* One loaded object: its load base and its name as the loader has it ("" for the program). */
struct nn_dynsym_object {
  unsigned long base;
  const void *dynamic; /* its PT_DYNAMIC in memory; NULL when it has none */
  char name[4096];
};

/* Calls visit for every loaded object, in the loader's order, until it returns nonzero;
 * returns that value (0 when every object was visited). */
int nn_dynsym_each(int (*visit)(const struct nn_dynsym_object *o, void *arg), void *arg);

/* Whether addr lies in one of the object's loaded segments: 1 and its object into *out, else 0. */
int nn_dynsym_owner(const void *addr, struct nn_dynsym_object *out);

/* The address of the function `name` the object exports (defined, not imported), or NULL. */
void *nn_dynsym_lookup(const struct nn_dynsym_object *o, const char *name);

#endif
