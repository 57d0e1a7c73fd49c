/* SPDX-License-Identifier: BSD-3-Clause */
/* gcov_exit.c - linked into the coverage build alone (make coverage, with -Wl,--wrap=_exit): a
 * child that ends with _exit (nccl-numa p2p's worker, a failed exec) skips the exit handlers,
 * among them gcov's, which write the process's counts; this writes them first. */
void __gcov_dump(void);
void __real__exit(int status) __attribute__((noreturn));
void __wrap__exit(int status) __attribute__((noreturn));

void __wrap__exit(int status) {
  __gcov_dump();
  __real__exit(status);
}
