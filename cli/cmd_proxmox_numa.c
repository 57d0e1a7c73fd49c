/* cmd_proxmox_numa.c - `nccl-numa proxmox-numa`: rewrites a Proxmox VM config so
 * the guest sees each passed-through GPU on its NUMA node (proxmox_numa.h has
 * the rules). Prints the new config, a unified diff (--diff), or replaces the
 * file atomically after saving <file>.bak (--write). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "cli/commands.h"
#include "cli/discover.h"
#include "cli/proxmox.h"
#include "cli/proxmox_numa.h"
#include "fdio.h"
#include "fileread.h"

#define PROG "nccl-numa proxmox-numa"
/* qemu-server serialises config changes with an flock on this file per VM. */
#define PVE_LOCK_DIR "/var/lock/qemu-server"

extern char **environ;

struct opts {
  const char *vm, *pci_mapping, *node, *xml;
  int write, diff;
};

static void usage(FILE *out) {
  fprintf(out,
    "usage: nccl-numa proxmox-numa --vm-config /etc/pve/qemu-server/<vmid>.conf\n"
    "                              [--pci-mapping /etc/pve/mapping/pci.cfg] [--node NAME]\n"
    "                              [--xml FILE] [--write] [--diff]\n"
    "\n"
    "On the Proxmox host: rewrites the VM config so the guest sees every passed-through NVIDIA GPU\n"
    "on its NUMA node: one guest NUMA node per host node holding the VM's GPUs (memory bound there),\n"
    "and the GPUs moved from hostpci entries to args: behind one PCIe expander bus per node.\n"
    "\n"
    "  --vm-config FILE   the VM's config\n"
    "  --pci-mapping FILE cluster PCI mapping for mapping= entries (default /etc/pve/mapping/pci.cfg)\n"
    "  --node NAME        Proxmox node name for mapping= entries (default: this host's short name)\n"
    "  --xml FILE         host topology from an hwloc XML export instead of this machine\n"
    "                     (HWLOC_XMLFILE works too)\n"
    "  (default)          print the new config on stdout\n"
    "  --diff             print a unified diff against the current file\n"
    "  --write            save FILE.bak, then replace FILE atomically\n"
    "\n"
    "Exit: 0 done, 1 the VM cannot be rewritten (the message says why), 2 usage.\n");
}

static int parse_opts(int argc, char **argv, struct opts *o) {
  static const struct option longs[] = {
    {"vm-config", required_argument, 0, 'v'}, {"pci-mapping", required_argument, 0, 'm'},
    {"node", required_argument, 0, 'n'},      {"xml", required_argument, 0, 'x'},
    {"write", no_argument, 0, 'w'},           {"diff", no_argument, 0, 'd'},
    {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
  int ch;
  memset(o, 0, sizeof *o);
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (ch) {
      case 'v': o->vm = optarg; break;
      case 'm': o->pci_mapping = optarg; break;
      case 'n': o->node = optarg; break;
      case 'x': o->xml = optarg; break;
      case 'w': o->write = 1; break;
      case 'd': o->diff = 1; break;
      case 'h': usage(stdout); return NN_EXIT_OK;
      default:
        fprintf(stderr, PROG ": unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return NN_EXIT_USAGE;
    }
  }
  if (optind < argc || !o->vm) {
    fprintf(stderr, PROG ": %s\n", optind < argc ? "unexpected argument" : "--vm-config is required");
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  return -1;
}

/* Reads the whole config (a regular file within Proxmox's size limit); st gets its mode. */
static char *read_config(const char *path, size_t *len, struct stat *st) {
  char err[PATH_MAX + 128], *buf = NULL;
  int fd = nn_file_open(AT_FDCWD, path, 0, NN_PVE_MAX_FILE, err, sizeof err);
  if (fd >= 0 && fstat(fd, st)) snprintf(err, sizeof err, "%s: cannot stat: %s", path, strerror(errno));
  else if (fd >= 0 && !nn_file_read_fd(fd, path, NN_PVE_MAX_FILE, &buf, len, err, sizeof err)) err[0] = 0;
  if (fd >= 0) close(fd);
  if (!buf) fprintf(stderr, PROG ": %s\n", err);
  return buf;
}

static void default_node(char *buf, size_t size) {
  if (gethostname(buf, size)) snprintf(buf, size, "localhost");
  buf[size - 1] = 0;
  buf[strcspn(buf, ".")] = 0;
}

/* Writes `text` to a new file next to `path` and renames it over `dst`. */
static int replace_file(const char *dst, const char *text, size_t len, mode_t mode) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dst, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
  if (fd < 0) {
    fprintf(stderr, PROG ": %s: cannot create: %s\n", tmp, strerror(errno));
    return -1;
  }
  int bad = nn_fd_write_all(fd, text, len) != 0 || fsync(fd) != 0;
  if (close(fd)) bad = 1;
  if (bad || rename(tmp, dst)) {
    fprintf(stderr, PROG ": %s: cannot write: %s\n", dst, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

/* Takes qemu-server's per-VM config lock when this is a Proxmox host; -1 when
 * another holder keeps it for 10 s. *fd stays -1 where there is no such lock. */
static int take_lock(const char *vmid, int *fd) {
  char path[256];
  struct stat st;
  *fd = -1;
  if (!vmid || stat(PVE_LOCK_DIR, &st) || !S_ISDIR(st.st_mode)) return 0;
  snprintf(path, sizeof path, PVE_LOCK_DIR "/lock-%s.conf", vmid);
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (*fd < 0) {
    fprintf(stderr, PROG ": %s: cannot open the VM's config lock: %s\n", path, strerror(errno));
    return -1;
  }
  for (int i = 0; i < 100; i++) {
    if (!flock(*fd, LOCK_EX | LOCK_NB)) return 0;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fprintf(stderr, PROG ": %s: the VM's config is locked by another process (a backup, migration or qm "
          "command); try again later\n", path);
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
  int same = !nn_file_read(AT_FDCWD, path, 0, len, &buf, &got, NULL, 0) && got == len && !memcmp(buf, text, len);
  free(buf);
  return same;
}

static int write_config(const struct opts *o, const char *orig, size_t orig_len, const char *text,
                        mode_t mode) {
  char bak[4200], why[64];
  struct stat st;
  if (lstat(o->vm, &st) || S_ISLNK(st.st_mode)) {
    fprintf(stderr, PROG ": %s: --write needs the config file itself, not a symbolic link to it\n", o->vm);
    return -1;
  }
  if (vm_locked(orig, why, sizeof why)) {
    fprintf(stderr, PROG ": %s: the VM is locked (lock:%s); wait for the operation or clear it, then retry\n",
            o->vm, why);
    return -1;
  }
  if (!same_content(o->vm, orig, orig_len)) {
    fprintf(stderr, PROG ": %s: changed while it was being read; nothing written, run again\n", o->vm);
    return -1;
  }
  snprintf(bak, sizeof bak, "%s.bak", o->vm);
  if (!access(bak, F_OK) && !same_content(bak, orig, orig_len)) {
    fprintf(stderr, PROG ": %s exists and differs from the current config; move it away first (it may be "
            "the only copy of an earlier config)\n", bak);
    return -1;
  }
  if (replace_file(bak, orig, orig_len, mode) || replace_file(o->vm, text, strlen(text), mode)) return -1;
  fprintf(stderr, PROG ": wrote %s (the previous config is %s)\n", o->vm, bak);
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
static int print_diff(const char *name, const char *orig, size_t orig_len, const char *text) {
  const char *tmpdir = getenv("TMPDIR");
  char dir[4096], a[4200], b[4200], label_b[4200];
  int rc = -1, status;
  pid_t pid;
  snprintf(dir, sizeof dir, "%s/nccl-numa-diff-XXXXXX", tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, PROG ": cannot create a temporary directory: %s\n", strerror(errno));
    return -1;
  }
  snprintf(label_b, sizeof label_b, "%s (nccl-numa proxmox-numa)", name);
  if (!temp_text(dir, "a", orig, orig_len, a, sizeof a) && !temp_text(dir, "b", text, strlen(text), b, sizeof b)) {
    char *argv[] = {"diff", "-u", "--label", (char *)name, "--label", label_b, a, b, NULL};
    fflush(stdout);
    if (posix_spawnp(&pid, "diff", NULL, NULL, argv, environ))
      fprintf(stderr, PROG ": cannot run diff (diffutils)\n");
    else if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1)
      rc = 0;
    else
      fprintf(stderr, PROG ": diff failed\n");
  } else {
    fprintf(stderr, PROG ": cannot write temporary files under %s\n", dir);
  }
  unlink(a);
  unlink(b);
  rmdir(dir);
  return rc;
}

static int load_mappings(const struct opts *o, const struct nn_pve_vm *vm, struct nn_pve_mappings *ms,
                         int *have) {
  char err[1024];
  const char *path = o->pci_mapping ? o->pci_mapping : "/etc/pve/mapping/pci.cfg";
  *have = 0;
  for (int i = 0; i < vm->n_hostpci; i++)
    if (vm->hostpci[i].mapping) *have = 1;
  if (!*have && !o->pci_mapping) return 0;
  if (nn_pve_mappings_load(path, ms, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    *have = 0;
    return -1;
  }
  *have = 1;
  return 0;
}

static void print_notes(const char *notes) {
  for (const char *p = notes; *p;) {
    size_t n = strcspn(p, "\n");
    fprintf(stderr, PROG ": note: %.*s\n", (int)n, p);
    p += n + (p[n] == '\n');
  }
}

/* Everything after the options: load, rewrite, output. */
static int run(const struct opts *o, const char *vmid) {
  struct nn_pve_vm vm;
  struct nn_pve_mappings ms = {0};
  struct nn_discovery d;
  struct nn_pxn_output res;
  struct stat st;
  char err[2048], node[256];
  size_t len;
  int have_maps = 0, rc = NN_EXIT_INVALID;
  if (o->node) snprintf(node, sizeof node, "%s", o->node);
  else default_node(node, sizeof node);
  char *text = read_config(o->vm, &len, &st);
  if (!text) return NN_EXIT_INVALID;
  if (memchr(text, 0, len)) {
    fprintf(stderr, PROG ": %s: contains a NUL byte; not a Proxmox config\n", o->vm);
    free(text);
    return NN_EXIT_INVALID;
  }
  if (nn_pve_vm_parse(o->vm, text, len, &vm, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    free(text);
    return NN_EXIT_INVALID;
  }
  if (load_mappings(o, &vm, &ms, &have_maps)) goto out_vm;
  if (nn_pve_assign(&vm, have_maps ? &ms : NULL, node, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    goto out_maps;
  }
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    goto out_maps;
  }
  struct nn_pxn_input in = {o->vm, vmid, text, len, &vm, have_maps ? &ms : NULL, node, &d};
  if (nn_pxn_rewrite(&in, &res, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
  } else {
    print_notes(res.notes);
    rc = NN_EXIT_OK;
    if (o->diff && print_diff(o->vm, text, len, res.text)) rc = NN_EXIT_INVALID;
    if (rc == NN_EXIT_OK && o->write && write_config(o, text, len, res.text, st.st_mode)) rc = NN_EXIT_INVALID;
    if (!o->diff && !o->write) fputs(res.text, stdout);
    nn_pxn_output_free(&res);
  }
  nn_discovery_free(&d);
out_maps:
  if (have_maps) nn_pve_mappings_free(&ms);
out_vm:
  nn_pve_vm_free(&vm);
  free(text);
  return rc;
}

int nn_cmd_proxmox_numa(int argc, char **argv) {
  struct opts o;
  char vmid[16];
  int lock_fd, rc = parse_opts(argc, argv, &o);
  if (rc >= 0) return rc;
  int have_vmid = !nn_pxn_vmid_from_path(o.vm, vmid, sizeof vmid);
  if (o.write && take_lock(have_vmid ? vmid : NULL, &lock_fd)) return NN_EXIT_INVALID;
  rc = run(&o, have_vmid ? vmid : NULL);
  if (o.write && lock_fd >= 0) close(lock_fd);
  return rc;
}
