/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_topo.c - `nccl-numa topo`: writes the NCCL topology XML the env plugin would
 * serve (same modules), or validates an existing one with --validate. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/atomicwrite.h"
#include "cli/common/cliconfig.h"
#include "cli/common/jsonw.h"
#include "cli/common/options.h"
#include "cli/commands.h"
#include "cli/predict/job.h"
#include "cli/predict/ncclver.h"
#include "cpuinfo.h"
#include "cli/topo/topo_validate.h"
#include "nn_config.h"
#include "printable.h"
#include "topo_xml.h"
#include "topology.h"

static void topo_usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa topo --config FILE [-o PATH] [--visible-devices LIST] [--sysfs-root DIR]\n"
    "                      [--cpuinfo FILE] [--nccl-version X.Y.Z | --nccl-lib PATH]\n"
    "                      [--file served|numa|flat]\n"
    "       nccl-numa topo --validate FILE [--config FILE]\n"
    "       (either with --json: one JSON document on stdout instead; keys: docs/user/cli.md)\n"
    "\n"
    "Writes the NCCL topology XML (NCCL_TOPO_FILE) generated from the mapping FILE for the\n"
    "GPUs the job sees, byte for byte what the env plugin serves that job, on stdout or\n"
    "atomically into PATH.\n"
    "The verdict of `topology mode=` (which file the plugin serves: NCCL's predicted ring\n"
    "and tree search on the file with NUMA nodes, on the flat file and on NCCL's own view,\n"
    "for the release) goes to stderr; the XML is written whatever the verdict (the file\n"
    "with NUMA nodes where none is served). NCCL older than 2.28.7\n"
    "has no env plugin: there, set\n"
    "NCCL_TOPO_FILE to the file written with -o.\n"
    "\n"
    "  --config FILE      the mapping (format 1)\n"
    "  -o PATH            write to PATH (temporary file + rename) instead of stdout\n"
    "  --visible-devices LIST  the job's GPUs, as CUDA_VISIBLE_DEVICES lists them (default:\n"
    "                     CUDA_VISIBLE_DEVICES): GPUs all on one NUMA node get the file of\n"
    "                     those GPUs alone, as the plugin serves it\n"
    "  --sysfs-root DIR   read /sys/devices/system/node/nodeN/cpulist under DIR\n"
    "                     for NUMA nodes without a `numa N cpus=` line (default /)\n"
    "  --cpuinfo FILE     read the CPU kind from FILE instead of /proc/cpuinfo\n"
    "                     when the mapping has no complete `cpu` line\n"
    "  --nccl-version X.Y.Z  predict NCCL's search for this release\n"
    "  --nccl-lib PATH    ... for the release of this libnccl.so.2 (read, never loaded);\n"
    "                     default: the Python environment's nvidia-nccl wheel, else the\n"
    "                     libnccl.so.2 on the library search path\n"
    "  --file KIND        which file to write: served (default), numa (the file with NUMA\n"
    "                     nodes) or flat (every GPU under one CPU node)\n"
    "  --validate FILE    check an existing topology XML against NCCL's parser rules\n"
    "                     and, with --config, against the mapping; prints each\n"
    "                     problem as FILE:LINE: problem\n"
    "  --help             this text\n"
    "\n"
    "Exit status: 0 ok (--validate: no errors; warnings allowed), 1 invalid input\n"
    "or a problem found, 2 usage.\n");
}

#define NN_TOPO_JSON_VERSION 1

struct topo_args {
  const char *config, *out, *sysfs_root, *cpuinfo, *validate, *nccl_version, *nccl_lib, *visible,
    *file;
  int json; /* --json: one JSON document on stdout instead of the XML or the ok line */
};

/* Stores an option's value; a second one for the same option (OPT as written, `--x` or
 * `--x=VALUE`) is a usage error. */
static int set_once(const char **slot, const char *opt, const char *value) {
  if (*slot) {
    fprintf(stderr, "nccl-numa topo: %.*s given twice\n", (int)strcspn(opt, "="), opt);
    return -1;
  }
  *slot = value;
  return 0;
}

/* Returns -1 to continue, else the exit code. */
static int parse_args(int argc, char **argv, struct topo_args *a) {
  static const struct option opts[] = {{"config", required_argument, 0, 'c'},
                                       {"sysfs-root", required_argument, 0, 's'},
                                       {"cpuinfo", required_argument, 0, 'i'},
                                       {"validate", required_argument, 0, 'v'},
                                       {"nccl-version", required_argument, 0, 'V'},
                                       {"nccl-lib", required_argument, 0, 'L'},
                                       {"json", no_argument, 0, 'J'},
                                       {"help", no_argument, 0, 'h'},
                                       {"visible-devices", required_argument, 0, 'D'},
                                       {"file", required_argument, 0, 'F'},
                                       {0, 0, 0, 0}};
  int c;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
    const char **slot = c == 'c'   ? &a->config
                        : c == 'o' ? &a->out
                        : c == 's' ? &a->sysfs_root
                        : c == 'i' ? &a->cpuinfo
                        : c == 'v' ? &a->validate
                        : c == 'V' ? &a->nccl_version
                        : c == 'L' ? &a->nccl_lib
                        : c == 'D' ? &a->visible
                        : c == 'F' ? &a->file
                                   : NULL;
    if (c == 'h') {
      topo_usage(stdout);
      return NN_EXIT_OK;
    }
    if (c == 'J') {
      a->json = 1;
      continue;
    }
    if (!slot) {
      nn_options_error("topo", c, argc, argv);
      topo_usage(stderr);
      return NN_EXIT_USAGE;
    }
    if (set_once(slot, argv[optind - 1], optarg)) return NN_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa topo: unexpected argument '%s'\n", argv[optind]);
    topo_usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (!a->config && !a->validate) {
    fprintf(stderr, "nccl-numa topo: --config FILE or --validate FILE is required\n");
    topo_usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (a->validate && (a->out || a->sysfs_root || a->visible || a->file)) {
    fprintf(stderr, "nccl-numa topo: -o, --sysfs-root, --visible-devices and --file do not apply "
                    "to --validate\n");
    return NN_EXIT_USAGE;
  }
  if (a->file && strcmp(a->file, "served") && strcmp(a->file, "numa") && strcmp(a->file, "flat")) {
    fprintf(stderr, "nccl-numa topo: --file %s: expected served, numa or flat\n", a->file);
    return NN_EXIT_USAGE;
  }
  return -1;
}

static struct nn_config *load_mapping(const struct topo_args *a) {
  struct nn_parse_opts opts = {.cpuinfo_path = a->cpuinfo};
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  if (nn_config_load(a->config, &opts, &cfg, &diag) != 0) {
    for (int i = 0; i < diag.n; i++) fprintf(stderr, "%s\n", diag.msgs[i]);
    if (diag.dropped)
      fprintf(stderr, "%s: ... and %d more problems not shown\n", a->config, diag.dropped);
    cfg = NULL;
  }
  nn_cli_print_notes(cfg);
  nn_diag_clear(&diag);
  return cfg;
}

static void print_verdict(const struct topo_args *a, const struct nn_config *cfg,
                          const struct nn_cpu_kind *cpu, const struct nn_ncclver *ver,
                          struct nn_topo_verdict *out) {
  struct nn_topo_verdict v = {.kind = NN_VERDICT_NO_GPUS};
  nn_ncclver_verdict(cfg, cpu, ver, a->sysfs_root, a->cpuinfo, 0, &v);
  *out = v;
  nn_ncclver_print(stderr, "nccl-numa topo: ", ver, &v, NULL);
  char link[64] = "one CPU node: no socket link", vendor[64];
  if (v.link_gbps > 0) snprintf(link, sizeof link, "modelled CPU link %.0f GB/s", v.link_gbps);
  fprintf(stderr, "nccl-numa topo: mode=%s, NUMA nodes with GPUs %d, CPU %s%s%s%s, %s\n",
          nn_topo_mode_name(v.mode), v.numa_nodes,
          nn_printable(vendor, sizeof vendor, cpu->vendor, NN_PRINTABLE_CSTR, NULL),
          cpu->from_cpuinfo ? " (from " : "",
          cpu->from_cpuinfo ? (a->cpuinfo ? a->cpuinfo : nn_cpuinfo_default()) : "",
          cpu->from_cpuinfo ? ")" : "", link);
}

/* -o PATH: replaced atomically (nn_atomicwrite_file), as a new file would be made. */
static int write_out(const char *path, const char *xml, size_t len) {
  char err[PATH_MAX + 256];
  if (!nn_atomicwrite_file(path, xml, len, NULL, err, sizeof err)) return NN_EXIT_OK;
  fprintf(stderr, "nccl-numa topo: %s\n", err);
  return NN_EXIT_INVALID;
}

/* topo --json: the verdict and the XML (or where it was written); keys in docs/user/cli.md. */
static void print_json(const struct topo_args *a, const struct nn_ncclver *ver,
                       const struct nn_cpu_kind *cpu, const struct nn_topo_verdict *v,
                       const char *xml, size_t len) {
  struct nn_jsonw w;
  char release[16] = "";
  if (ver->code) nn_nccl_version_format(ver->code, release, sizeof release);
  nn_jsonw_begin(&w, stdout);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_TOPO_JSON_VERSION);
  nn_jsonw_str(&w, "command", "topo");
  nn_jsonw_str(&w, "config", a->config);
  nn_jsonw_object(&w, "nccl");
  nn_jsonw_str(&w, "release", release[0] ? release : NULL);
  nn_jsonw_str(&w, "source", ver->source);
  nn_jsonw_end(&w);
  char reason[1024], warning[512];
  nn_topology_verdict_text(v, reason, sizeof reason);
  nn_topology_verdict_warning(v, warning, sizeof warning);
  nn_jsonw_bool(&w, "served", v->serve);
  nn_jsonw_str(&w, "file", nn_topology_file_key(v->file));
  nn_jsonw_str(&w, "mode", nn_topo_mode_name(v->mode));
  nn_jsonw_str(&w, "reason", reason);
  nn_jsonw_str(&w, "warning", warning[0] ? warning : NULL);
  nn_jsonw_int(&w, "numa_nodes", v->numa_nodes);
  nn_jsonw_object(&w, "cpu");
  nn_jsonw_str(&w, "vendor", cpu->vendor);
  nn_jsonw_int(&w, "family", cpu->family);
  nn_jsonw_int(&w, "model", cpu->model);
  nn_jsonw_end(&w);
  nn_jsonw_num(&w, "link_gbps", v->link_gbps);
  nn_jsonw_str(&w, "output", a->out);
  nn_jsonw_int(&w, "bytes", (long long)len);
  nn_jsonw_str(&w, "xml", a->out ? NULL : xml);
  nn_jsonw_finish(&w);
}

static void print_validate_json(const struct topo_args *a, const struct nn_topo_report *rep,
                                int with_mapping) {
  struct nn_jsonw w;
  nn_jsonw_begin(&w, stdout);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_TOPO_JSON_VERSION);
  nn_jsonw_str(&w, "command", "topo --validate");
  nn_jsonw_str(&w, "file", a->validate);
  nn_jsonw_str(&w, "config", with_mapping ? a->config : NULL);
  nn_jsonw_bool(&w, "ok", rep->errors == 0);
  nn_jsonw_int(&w, "errors", rep->errors);
  nn_jsonw_int(&w, "warnings", rep->warnings);
  nn_jsonw_int(&w, "dropped", rep->dropped);
  nn_jsonw_array(&w, "findings");
  for (int i = 0; i < rep->n; i++) {
    nn_jsonw_object(&w, NULL);
    nn_jsonw_int(&w, "line", rep->items[i].line);
    nn_jsonw_bool(&w, "warning", rep->items[i].warning);
    nn_jsonw_str(&w, "message", rep->items[i].msg);
    nn_jsonw_end(&w);
  }
  nn_jsonw_finish(&w);
}

static int generate(const struct topo_args *a) {
  struct nn_ncclver ver;
  char verr[512];
  if (nn_ncclver_resolve(a->nccl_version, a->nccl_lib, &ver, verr, sizeof verr)) {
    fprintf(stderr, "nccl-numa topo: %s\n", verr);
    return NN_EXIT_USAGE;
  }
  struct nn_config *whole = load_mapping(a);
  if (!whole) return NN_EXIT_INVALID;
  static struct nn_job
    job; /* NCCL keeps only the job's GPUs of the file (visible.h), as the plugin serves */
  nn_job_resolve(whole, a->visible, 1, &job);
  if (job.vis.why[0]) fprintf(stderr, "nccl-numa topo: devices: %s\n", job.vis.why);
  const struct nn_config *cfg = &job.view;
  struct nn_cpu_kind cpu;
  char err[512] = "";
  int rc = NN_EXIT_INVALID;
  char *xml = NULL;
  size_t len = 0;
  static struct nn_flat_view flat;
  struct nn_topo_verdict v = {.kind = NN_VERDICT_NO_GPUS};
  const struct nn_config *file = NULL;
  if (nn_topology_cpu_kind(cfg, a->cpuinfo, &cpu, err, sizeof err) == 0) {
    print_verdict(a, cfg, &cpu, &ver, &v);
    struct nn_topo_verdict pick = v;
    if (a->file && strcmp(a->file, "served"))
      pick.file = !strcmp(a->file, "flat") ? NN_FILE_FLAT : NN_FILE_NUMA;
    file = nn_topology_served_view(cfg, &pick, a->sysfs_root, &flat, err, sizeof err);
  }
  if (!file || nn_topo_xml_generate(file, &cpu, a->sysfs_root, &xml, &len, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", a->config, err);
  } else {
    if (err[0]) fprintf(stderr, "nccl-numa topo: note: %s\n", err);
    if (file == &flat.cfg)
      fprintf(stderr, "nccl-numa topo: the flat file (every GPU under one CPU node)%s\n",
              v.file == NN_FILE_FLAT ? ", as the plugin serves it"
                                     : ", which the plugin does not serve this job");
    if (a->out) rc = write_out(a->out, xml, len);
    else if (!a->json) rc = fwrite(xml, 1, len, stdout) == len ? NN_EXIT_OK : NN_EXIT_INVALID;
    else rc = NN_EXIT_OK;
    if (!rc && a->json) print_json(a, &ver, &cpu, &v, xml, len);
    if (!rc && fflush(stdout) != 0) rc = NN_EXIT_INVALID;
    if (!rc && a->out) fprintf(stderr, "nccl-numa topo: wrote %s (%zu bytes)\n", a->out, len);
  }
  free(xml);
  nn_config_free(whole);
  return rc;
}

static int validate(const struct topo_args *a) {
  struct nn_config *cfg = NULL;
  if (a->config && !(cfg = load_mapping(a))) return NN_EXIT_INVALID;
  struct nn_topo_report rep = {0};
  nn_topo_validate_file(a->validate, cfg, &rep);
  nn_topo_report_print(&rep, a->validate, stderr);
  int rc = rep.errors ? NN_EXIT_INVALID : NN_EXIT_OK;
  if (a->json) print_validate_json(a, &rep, cfg != NULL);
  else if (rc == NN_EXIT_OK)
    printf("%s: ok%s (%d warning%s)\n", a->validate, cfg ? ", agrees with the mapping" : "",
           rep.warnings, rep.warnings == 1 ? "" : "s");
  else
    fprintf(stderr, "%s: invalid (%d error%s, %d warning%s)\n", a->validate, rep.errors,
            rep.errors == 1 ? "" : "s", rep.warnings, rep.warnings == 1 ? "" : "s");
  nn_topo_report_free(&rep);
  nn_config_free(cfg);
  return rc;
}

int nn_cmd_topo(int argc, char **argv) {
  struct topo_args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  return a.validate ? validate(&a) : generate(&a);
}
