/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox_numa_apply.c - the rewrite on a VM config file (cli/proxmox/proxmox_numa_apply.c):
 * the new config printed, FILE.bak then FILE written, a locked VM left alone, every message. */
#include "nn_test.h"

#include <sys/stat.h>

#include "cli/proxmox/proxmox_numa_apply.h"

#define FIX "test/fixtures/proxmox-numa/"

static char dir[64], vm[128];

/* A private copy of VM 101's config: --write replaces the file it is given. */
static void copy_vm(const char *fixture) {
  strcpy(dir, "/tmp/nn-pxa-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(vm, sizeof vm, "%s/101.conf", dir);
  size_t len;
  char *text = nn_test_slurp(fixture, &len);
  FILE *f = fopen(vm, "w");
  assert_non_null(f);
  fwrite(text, 1, len, f);
  fclose(f);
  free(text);
}

static void remove_copy(void) {
  char bak[160];
  snprintf(bak, sizeof bak, "%s.bak", vm);
  unlink(bak);
  unlink(vm);
  assert_int_equal(rmdir(dir), 0); /* nothing else was left there */
}

static int has_msg(const struct nn_diag *d, const char *sub) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->msgs[i], sub)) return 1;
  return 0;
}

static struct nn_proxmox_numa_apply_opts opts_for(const char *path, int write) {
  return (struct nn_proxmox_numa_apply_opts){.vm = path,
                                             .pci_mapping = FIX "pci.cfg",
                                             .node = "pve1",
                                             .xml = FIX "pve-host.xml",
                                             .write = write};
}

/* Printed, the new config is the reference rewrite of VM 101, and the file is unchanged. */
static void test_print(void **state) {
  (void)state;
  copy_vm(FIX "101.conf");
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  struct nn_diag d = {0};
  struct nn_proxmox_numa_apply_opts o = opts_for(vm, 0);
  assert_int_equal(nn_proxmox_numa_apply(&o, out, &d), 0);
  fclose(out);
  size_t wlen;
  char *want = nn_test_slurp(FIX "expected/101.out", &wlen);
  assert_string_equal(buf, want);
  size_t olen, clen;
  char *orig = nn_test_slurp(FIX "101.conf", &olen), *now = nn_test_slurp(vm, &clen);
  assert_string_equal(now, orig);
  free(orig);
  free(now);
  free(want);
  free(buf);
  nn_diag_clear(&d);
  remove_copy();
}

/* --write: the old config goes to FILE.bak, the new one replaces FILE, and it says so. */
static void test_write(void **state) {
  (void)state;
  copy_vm(FIX "101.conf");
  struct nn_diag d = {0};
  struct nn_proxmox_numa_apply_opts o = opts_for(vm, 1);
  assert_int_equal(nn_proxmox_numa_apply(&o, stdout, &d), 0);
  assert_true(has_msg(&d, "wrote"));
  char bak[160];
  snprintf(bak, sizeof bak, "%s.bak", vm);
  size_t len;
  char *orig = nn_test_slurp(FIX "101.conf", &len), *saved = nn_test_slurp(bak, &len);
  char *want = nn_test_slurp(FIX "expected/101.out", &len), *now = nn_test_slurp(vm, &len);
  assert_string_equal(saved, orig);
  assert_string_equal(now, want);
  struct stat st;
  assert_int_equal(stat(vm, &st), 0);
  assert_int_equal(st.st_uid, getuid());
  free(orig);
  free(saved);
  free(want);
  free(now);
  nn_diag_clear(&d);
  remove_copy();
}

/* A VM Proxmox has locked (a backup, a migration) is left alone, and the message says why. */
static void test_locked(void **state) {
  (void)state;
  copy_vm(FIX "101.conf");
  size_t len;
  char *orig = nn_test_slurp(vm, &len);
  FILE *f = fopen(vm, "w"); /* in the main section, where Proxmox writes it */
  assert_non_null(f);
  fprintf(f, "lock: backup\n%s", orig);
  fclose(f);
  free(orig);
  char *before = nn_test_slurp(vm, &len);
  struct nn_diag d = {0};
  struct nn_proxmox_numa_apply_opts o = opts_for(vm, 1);
  assert_int_equal(nn_proxmox_numa_apply(&o, stdout, &d), -1);
  assert_true(has_msg(&d, "lock"));
  char *after = nn_test_slurp(vm, &len);
  assert_string_equal(after, before);
  char bak[160];
  snprintf(bak, sizeof bak, "%s.bak", vm);
  assert_int_equal(access(bak, F_OK), -1);
  free(before);
  free(after);
  nn_diag_clear(&d);
  remove_copy();
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_print), cmocka_unit_test(test_write),
                                     cmocka_unit_test(test_locked)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
