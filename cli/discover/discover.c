/* SPDX-License-Identifier: BSD-3-Clause */
/* discover.c - GPUs and NUMA nodes from hwloc; see discover.h.
 *
 * hwloc facts relied on (hwloc 2.x API, Debian 12 ships 2.9): I/O objects are
 * only kept when the I/O type filter asks for them; a PCI object's first
 * ancestor with a cpuset (hwloc_get_non_io_ancestor_obj) carries the device's
 * locality; inside a VM without NUMA-aware PCIe that ancestor is the Machine
 * and its nodeset covers every node, so the socket cannot be known there.
 * Built without hwloc (no NN_HAVE_HWLOC: the Makefile's HWLOC=0), loading is an
 * error saying so; the rest of the CLI does not need hwloc. */
#include "cli/discover/discover.h"

#include <fcntl.h>
#ifdef NN_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"

#define NN_DISCOVERY_XML_MAX_BYTES (64u << 20)

int nn_discovery_busid_compare(const struct nn_busid *a, const struct nn_busid *b) {
  if (a->domain != b->domain) return a->domain < b->domain ? -1 : 1;
  if (a->bus != b->bus) return a->bus < b->bus ? -1 : 1;
  if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
  if (a->func != b->func) return a->func < b->func ? -1 : 1;
  return 0;
}

#ifdef NN_HAVE_HWLOC
static int pci_cmp(const void *a, const void *b) {
  return nn_discovery_busid_compare(&((const struct nn_discovery_pci *)a)->bus,
                                    &((const struct nn_discovery_pci *)b)->bus);
}

static void copy_info(hwloc_obj_t obj, const char *name, char *dst, size_t size) {
  const char *v = obj ? hwloc_obj_get_info_by_name(obj, name) : NULL;
  snprintf(dst, size, "%s", v ? v : "");
}

static int info_int(hwloc_obj_t obj, const char *name) {
  const char *v = obj ? hwloc_obj_get_info_by_name(obj, name) : NULL;
  int n;
  /* Base 0: hwloc writes these in decimal, but a hand-made topology may use 0x. */
  return v && !nn_int_parse_base(v, 0, 0, 1000000, &n) ? n : -1;
}

/* DMI strings that QEMU/KVM, VMware, VirtualBox, Hyper-V and Xen report. */
static void detect_virtual(hwloc_obj_t root, struct nn_discovery *d) {
  static const char *const keys[] = {"DMIProductName", "DMISysVendor", "DMIBoardVendor"};
  static const char *const marks[] = {"QEMU",   "KVM",        "Standard PC",
                                      "VMware", "VirtualBox", "Virtual Machine",
                                      "Xen",    "Bochs",      "OpenStack"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const char *v = hwloc_obj_get_info_by_name(root, keys[k]);
    for (size_t m = 0; v && m < sizeof marks / sizeof marks[0]; m++)
      if (strcasestr(v, marks[m])) {
        d->is_virtual = 1;
        snprintf(d->virtual_why, sizeof d->virtual_why, "%s is \"%.100s\"", keys[k], v);
        return;
      }
  }
}

static void read_cpu(hwloc_topology_t topo, struct nn_discovery *d) {
  hwloc_obj_t pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, NULL);
  copy_info(pkg, "CPUVendor", d->cpu_vendor, sizeof d->cpu_vendor);
  d->cpu_family = info_int(pkg, "CPUFamilyNumber");
  d->cpu_model = info_int(pkg, "CPUModelNumber");
}

static int read_numas(hwloc_topology_t topo, struct nn_discovery *d) {
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  d->numas = calloc(n > 0 ? (size_t)n : 1, sizeof *d->numas);
  if (!d->numas) return -1;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o));) {
    struct nn_discovery_numa *m = &d->numas[d->n_numas];
    m->node = (int)o->os_index;
    if (hwloc_bitmap_list_asprintf(&m->cpus, o->cpuset) < 0) return -1;
    d->n_numas++;
  }
  return 0;
}

/* A GPU's node when hwloc pins it to exactly one, else -1 and why. */
static int gpu_numa(hwloc_topology_t topo, hwloc_obj_t pci, const struct nn_discovery *d, char *why,
                    size_t why_size) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, pci);
  if (!anc || !anc->nodeset || hwloc_bitmap_iszero(anc->nodeset)) {
    snprintf(why, why_size, "hwloc gives it no locality");
    return -1;
  }
  if (anc->type == HWLOC_OBJ_MACHINE && d->n_numas > 1) {
    snprintf(why, why_size, "its first non-I/O ancestor is the Machine");
    return -1;
  }
  if (hwloc_bitmap_weight(anc->nodeset) != 1) {
    char *list = NULL;
    hwloc_bitmap_list_asprintf(&list, anc->nodeset);
    snprintf(why, why_size, "its locality covers NUMA nodes %s", list ? list : "?");
    free(list);
    return -1;
  }
  /* Inside a VM with one NUMA node, one node says nothing about the host's sockets. With
   * several guest nodes and the GPU behind one of them (an expander bus with numa_node=,
   * as `proxmox-numa` sets up), the guest reads its locality from ACPI like bare metal. */
  if (d->is_virtual && d->n_numas < 2) {
    snprintf(why, why_size, "the topology is a virtual machine with one NUMA node (%s)",
             d->virtual_why);
    return -1;
  }
  return hwloc_bitmap_first(anc->nodeset);
}

/* A NIC: an OS device of class openfabrics (its name wins: what NCCL's IB plugin calls the
 * device) or network under the PCI function. */
static void read_nic(hwloc_obj_t pci, struct nn_discovery_pci *p) {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
    int rdma = c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
    if (!rdma && c->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK) continue;
    if (p->is_nic && (p->nic_rdma || !rdma)) continue;
    p->is_nic = 1;
    p->nic_rdma = rdma;
    snprintf(p->nic_name, sizeof p->nic_name, "%s", c->name);
  }
}

static int read_pcis(hwloc_topology_t topo, struct nn_discovery *d) {
  int cap = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) cap++;
  d->pcis = calloc(cap > 0 ? (size_t)cap : 1, sizeof *d->pcis);
  if (!d->pcis) return -1;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) {
    struct nn_discovery_pci *p = &d->pcis[d->n_pcis++];
    const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
    p->bus.domain = (uint16_t)a->domain;
    p->bus.bus = a->bus;
    p->bus.dev = a->dev;
    p->bus.func = a->func;
    p->vendor = a->vendor_id;
    p->device = a->device_id;
    p->class_id = a->class_id;
    p->is_gpu = a->vendor_id == NN_DISCOVERY_NVIDIA && (a->class_id >> 8) == 0x03;
    if (!p->is_gpu) read_nic(o, p);
    p->numa =
      p->is_gpu || p->is_nic ? gpu_numa(topo, o, d, p->unknown_why, sizeof p->unknown_why) : -1;
  }
  qsort(d->pcis, (size_t)d->n_pcis, sizeof *d->pcis, pci_cmp);
  return 0;
}

static void describe_source(hwloc_topology_t topo, const char *xml_path, int from_env,
                            struct nn_discovery *d) {
  d->thissystem = hwloc_topology_is_thissystem(topo);
  if (xml_path)
    snprintf(d->source, sizeof d->source, "hwloc XML %s%s", xml_path,
             from_env ? " (HWLOC_XMLFILE)" : "");
  else
    snprintf(d->source, sizeof d->source, "this machine (hwloc %u.%u)",
             hwloc_get_api_version() >> 16, (hwloc_get_api_version() >> 8) & 0xff);
  copy_info(hwloc_get_root_obj(topo), "HostName", d->hostname, sizeof d->hostname);
}

/* A saved topology is read by the one bounded reader (a FIFO or /dev/zero would hang
 * hwloc's loader) and handed to hwloc as a buffer. A missing or unreadable
 * HWLOC_XMLFILE is an error: hwloc itself would silently read the live machine. */
static int give_xml(hwloc_topology_t topo, const char *path, int from_env, char *err,
                    size_t errsz) {
  char *xml = NULL, why[768];
  size_t len = 0;
  if (nn_file_read(AT_FDCWD, path, 0, NN_DISCOVERY_XML_MAX_BYTES, &xml, &len, why, sizeof why)) {
    nn_errbuf_set(err, errsz, "%s%s", from_env ? "HWLOC_XMLFILE: " : "", why);
    return -1;
  }
  /* The length counts the final NUL, as hwloc_topology_export_xmlbuffer gives it. */
  int rc = len < INT_MAX ? hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) : -1;
  free(xml); /* hwloc copied it */
  if (rc)
    nn_errbuf_set(err, errsz, "%s%s: hwloc cannot use this XML file",
                  from_env ? "HWLOC_XMLFILE: " : "", path);
  return rc ? -1 : 0;
}

int nn_discovery_load(const char *xml_path, struct nn_discovery *out, char *err, size_t errsz) {
  hwloc_topology_t topo;
  memset(out, 0, sizeof *out);
  const char *env = getenv("HWLOC_XMLFILE");
  int from_env = !xml_path && env && *env;
  if (from_env) xml_path = env;
  if (hwloc_topology_init(&topo)) {
    nn_errbuf_set(err, errsz, "hwloc: cannot initialise a topology");
    return -1;
  }
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (xml_path && give_xml(topo, xml_path, from_env, err, errsz)) {
    hwloc_topology_destroy(topo);
    return -1;
  }
  if (hwloc_topology_load(topo)) {
    nn_errbuf_set(err, errsz, "hwloc: cannot load the topology%s%s", xml_path ? " from " : "",
                  xml_path ? xml_path : "");
    hwloc_topology_destroy(topo);
    return -1;
  }
  describe_source(topo, xml_path, from_env, out);
  detect_virtual(hwloc_get_root_obj(topo), out);
  read_cpu(topo, out);
  int rc = (read_numas(topo, out) || read_pcis(topo, out)) ? -1 : 0;
  hwloc_topology_destroy(topo);
  if (rc) {
    nn_errbuf_set(err, errsz, "out of memory reading the topology");
    nn_discovery_free(out);
  }
  return rc;
}
#else
int nn_discovery_load(const char *xml_path, struct nn_discovery *out, char *err, size_t errsz) {
  (void)xml_path;
  memset(out, 0, sizeof *out);
  nn_errbuf_set(err, errsz,
                "nccl-numa was built without hwloc, which reading a topology needs "
                "(rebuild with hwloc's -dev package installed)");
  return -1;
}
#endif

void nn_discovery_free(struct nn_discovery *d) {
  for (int i = 0; d->numas && i < d->n_numas; i++) free(d->numas[i].cpus);
  free(d->numas);
  free(d->pcis);
  d->numas = NULL;
  d->pcis = NULL;
  d->n_numas = d->n_pcis = 0;
}

const struct nn_discovery_pci *nn_discovery_find(const struct nn_discovery *d,
                                                 const struct nn_busid *bus) {
  for (int i = 0; i < d->n_pcis; i++)
    if (!nn_discovery_busid_compare(&d->pcis[i].bus, bus)) return &d->pcis[i];
  return NULL;
}

static int same_device(const struct nn_busid *a, const struct nn_busid *b) {
  return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

const struct nn_discovery_pci *nn_discovery_find_gpu_in_device(const struct nn_discovery *d,
                                                               const struct nn_busid *bus) {
  for (int i = 0; i < d->n_pcis; i++)
    if (d->pcis[i].is_gpu && same_device(&d->pcis[i].bus, bus)) return &d->pcis[i];
  return NULL;
}

int nn_discovery_has_device(const struct nn_discovery *d, const struct nn_busid *bus) {
  for (int i = 0; i < d->n_pcis; i++)
    if (same_device(&d->pcis[i].bus, bus)) return 1;
  return 0;
}

const struct nn_discovery_numa *nn_discovery_find_numa(const struct nn_discovery *d, int node) {
  for (int i = 0; i < d->n_numas; i++)
    if (d->numas[i].node == node) return &d->numas[i];
  return NULL;
}

int nn_discovery_gpu_count(const struct nn_discovery *d) {
  int n = 0;
  for (int i = 0; i < d->n_pcis; i++) n += d->pcis[i].is_gpu;
  return n;
}
