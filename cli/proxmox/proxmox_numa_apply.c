/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa_apply.c - reading, rewriting and writing a real VM config; see
 * proxmox_numa_apply.h. */
#include "cli/proxmox/proxmox_numa_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/common/atomicwrite.h"
#include "cli/discover/discover.h"
#include "cli/common/proxmox.h"
#include "cli/proxmox/proxmox_numa.h"
#include "fileread.h"

/* qemu-server serialises config changes with an flock on this file per VM. */
#define PVE_LOCK_DIR "/var/lock/qemu-server"

extern char **environ;

/* Reads the whole config (a regular file within Proxmox's size limit); st gets its owner,
 * group and mode, which --write keeps. */
static char *read_config(struct nn_diag *msgs, const char *path, size_t *len, struct stat *st) {
  char err[PATH_MAX + 128], *buf = NULL;
  int fd = nn_file_open(AT_FDCWD, path, 0, NN_PVE_MAX_FILE, err, sizeof err);
  if (fd >= 0 && fstat(fd, st))
    snprintf(err, sizeof err, "%s: cannot stat: %s", path, strerror(errno));
  else if (fd >= 0 && !nn_file_read_fd(fd, path, NN_PVE_MAX_FILE, &buf, len, err, sizeof err))
    err[0] = 0;
  if (fd >= 0) close(fd);
  if (!buf) nn_diag_add(msgs, "%s", err);
  return buf;
}

/* Replaces dst with `text`, with the owner, group and mode of `like` (nn_atomicwrite_file). */
static int replace_file(struct nn_diag *msgs, const char *dst, const char *text, size_t len,
                        const struct stat *like) {
  char err[PATH_MAX + 256];
  if (!nn_atomicwrite_file(dst, text, len, like, err, sizeof err)) return 0;
  nn_diag_add(msgs, "%s", err);
  return -1;
}

/* Takes qemu-server's per-VM config lock when this is a Proxmox host; -1 when
 * another holder keeps it for 10 s. *fd stays -1 where there is no such lock. */
static int take_lock(struct nn_diag *msgs, const char *vmid, int *fd) {
  char path[256];
  struct stat st;
  *fd = -1;
  if (!vmid || stat(PVE_LOCK_DIR, &st) || !S_ISDIR(st.st_mode)) return 0;
  snprintf(path, sizeof path, PVE_LOCK_DIR "/lock-%s.conf", vmid);
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (*fd < 0) {
    nn_diag_add(msgs, "%s: cannot open the VM's config lock: %s", path, strerror(errno));
    return -1;
  }
  for (int i = 0; i < 100; i++) {
    if (!flock(*fd, LOCK_EX | LOCK_NB)) return 0;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  nn_diag_add(msgs,
              "%s: the VM's config is locked by another process (a backup, migration or qm "
              "command); try again later",
              path);
  close(*fd);
  *fd = -1;
  return -1;
}

/* Whether the current config carries a Proxmox `lock:` (backup, migrate, ...). */
static int vm_locked(const char *text, char *why, size_t size) {
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (*p == '[') break;
    if (!strncmp(p, "lock:", 5)) {
      size_t n = strcspn(p + 5, "\n");
      snprintf(why, size, "%.*s", (int)(n > 60 ? 60 : n), p + 5);
      return 1;
    }
  }
  return 0;
}

/* Whether the file at path holds exactly `text` (a missing file does not). */
static int same_content(const char *path, const char *text, size_t len) {
  char *buf = NULL;
  size_t got = 0;
  int same = !nn_file_read(AT_FDCWD, path, 0, len, &buf, &got, NULL, 0) && got == len &&
             !memcmp(buf, text, len);
  free(buf);
  return same;
}

static int write_config(struct nn_diag *msgs, const struct nn_proxmox_numa_apply_opts *o,
                        const char *orig, size_t orig_len, const char *text,
                        const struct stat *like) {
  char bak[4200], why[64];
  struct stat st;
  if (lstat(o->vm, &st) || S_ISLNK(st.st_mode)) {
    nn_diag_add(msgs, "%s: --write needs the config file itself, not a symbolic link to it", o->vm);
    return -1;
  }
  if (vm_locked(orig, why, sizeof why)) {
    nn_diag_add(msgs,
                "%s: the VM is locked (lock:%s); wait for the operation or clear it, then retry",
                o->vm, why);
    return -1;
  }
  if (!same_content(o->vm, orig, orig_len)) {
    nn_diag_add(msgs, "%s: changed while it was being read; nothing written, run again", o->vm);
    return -1;
  }
  snprintf(bak, sizeof bak, "%s.bak", o->vm);
  if (!access(bak, F_OK) && !same_content(bak, orig, orig_len)) {
    nn_diag_add(msgs,
                "%s exists and differs from the current config; move it away first (it may be "
                "the only copy of an earlier config)",
                bak);
    return -1;
  }
  if (replace_file(msgs, bak, orig, orig_len, like) ||
      replace_file(msgs, o->vm, text, strlen(text), like))
    return -1;
  nn_diag_add(msgs, "wrote %s (the previous config is %s)", o->vm, bak);
  return 0;
}

/* Writes text into dir/name; returns 0 or -1. */
static int temp_text(const char *dir, const char *name, const char *text, size_t len, char *path,
                     size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int bad = fwrite(text, 1, len, f) != len;
  return (fclose(f) || bad) ? -1 : 0;
}

/* `diff -u` of the two texts, labelled with the config's name. */
static int print_diff(struct nn_diag *msgs, const char *name, const char *orig, size_t orig_len,
                      const char *text) {
  const char *tmpdir = getenv("TMPDIR");
  char dir[4096], a[4200], b[4200], label_b[4200];
  int rc = -1, status;
  pid_t pid;
  snprintf(dir, sizeof dir, "%s/nccl-numa-diff-XXXXXX", tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    nn_diag_add(msgs, "cannot create a temporary directory: %s", strerror(errno));
    return -1;
  }
  snprintf(label_b, sizeof label_b, "%s (nccl-numa proxmox-numa)", name);
  if (!temp_text(dir, "a", orig, orig_len, a, sizeof a) &&
      !temp_text(dir, "b", text, strlen(text), b, sizeof b)) {
    char *argv[] = {"diff", "-u", "--label", (char *)name, "--label", label_b, a, b, NULL};
    fflush(stdout); /* diff writes to the same standard output */
    if (posix_spawnp(&pid, "diff", NULL, NULL, argv, environ))
      nn_diag_add(msgs, "cannot run diff (diffutils)");
    else if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1)
      rc = 0;
    else nn_diag_add(msgs, "diff failed");
  } else {
    nn_diag_add(msgs, "cannot write temporary files under %s", dir);
  }
  unlink(a);
  unlink(b);
  rmdir(dir);
  return rc;
}

static void print_notes(struct nn_diag *msgs, const char *notes) {
  for (const char *p = notes; *p;) {
    size_t n = strcspn(p, "\n");
    nn_diag_add(msgs, "note: %.*s", (int)n, p);
    p += n + (p[n] == '\n');
  }
}

/* Everything after the options: load, rewrite, output. */
static int run(struct nn_diag *msgs, FILE *out, const struct nn_proxmox_numa_apply_opts *o,
               const char *vmid) {
  struct nn_proxmox_vm vm;
  struct nn_proxmox_mappings ms = {0};
  struct nn_discovery d;
  struct nn_proxmox_numa_output res;
  struct stat st;
  char err[2048], node[256];
  size_t len;
  int have_maps = 0, rc = -1;
  if (o->node) snprintf(node, sizeof node, "%s", o->node);
  else nn_proxmox_node_name(node, sizeof node);
  char *text = read_config(msgs, o->vm, &len, &st);
  if (!text) return -1;
  if (memchr(text, 0, len)) {
    nn_diag_add(msgs, "%s: contains a NUL byte; not a Proxmox config", o->vm);
    free(text);
    return -1;
  }
  if (nn_proxmox_vm_parse(o->vm, text, len, &vm, err, sizeof err)) {
    nn_diag_add(msgs, "%s", err);
    free(text);
    return -1;
  }
  if (nn_proxmox_mappings_for_vm(&vm, o->pci_mapping, &ms, &have_maps, err, sizeof err)) {
    nn_diag_add(msgs, "%s", err);
    goto out_vm;
  }
  if (nn_proxmox_assign(&vm, have_maps ? &ms : NULL, node, err, sizeof err)) {
    nn_diag_add(msgs, "%s", err);
    goto out_maps;
  }
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    nn_diag_add(msgs, "%s", err);
    goto out_maps;
  }
  struct nn_proxmox_numa_input in = {o->vm, vmid, text,         len, &vm, have_maps ? &ms : NULL,
                                     node,  &d,   o->p2p_clique};
  if (nn_proxmox_numa_rewrite(&in, &res, err, sizeof err)) {
    nn_diag_add(msgs, "%s", err);
  } else {
    print_notes(msgs, res.notes);
    rc = 0;
    if (o->diff && print_diff(msgs, o->vm, text, len, res.text)) rc = -1;
    if (rc == 0 && o->write && write_config(msgs, o, text, len, res.text, &st)) rc = -1;
    if (!o->diff && !o->write) fputs(res.text, out);
    nn_proxmox_numa_output_free(&res);
  }
  nn_discovery_free(&d);
out_maps:
  if (have_maps) nn_proxmox_mappings_free(&ms);
out_vm:
  nn_proxmox_vm_free(&vm);
  free(text);
  return rc;
}

int nn_proxmox_numa_apply(const struct nn_proxmox_numa_apply_opts *o, FILE *out,
                          struct nn_diag *msgs) {
  char vmid[16];
  int lock_fd, have_vmid = !nn_proxmox_numa_vmid_from_path(o->vm, vmid, sizeof vmid);
  if (o->write && take_lock(msgs, have_vmid ? vmid : NULL, &lock_fd)) return -1;
  int rc = run(msgs, out, o, have_vmid ? vmid : NULL);
  if (o->write && lock_fd >= 0) close(lock_fd);
  return rc;
}
