/* SPDX-License-Identifier: BSD-3-Clause */
/* env_names.c - the NCCL variables a mapping may serve, and the values each takes (env_names.h). */
#include "env_names.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "nccl_model.h"

/* How a value is read. The limits are what every NCCL release we load into handles without
 * harm; where NCCL's own parser has none, they are the range its code means. */
enum grammar {
  NUM,     /* decimal digits, lo..hi */
  WORD,    /* one of words, as NCCL compares them (nocase: strcasecmp) */
  LEVEL,   /* a path type word or NCCL's old level number 0..5 (ncclGetLevel) */
  FUNCS,   /* NCCL_ALGO / NCCL_PROTO: [func:][^]word,word;func:[^]word,... (parseList) */
  SUBSYS,  /* [^]word,word,... (NCCL_DEBUG_SUBSYS) */
  IFLIST,  /* [^][=]name[:port],... (parseStringList) */
  HCALIST, /* [^][=]hca[:port[:rail[:plane]]],... (parseStringList, 2.30.7's fields) */
  CTA,     /* 0..2, or NAME|NAME... (getEnvCtaPolicyOnce) */
  NETDEVS  /* AUTO, ALL or MAX:n (getNetDevsPolicyOnce) */
};

/* Whether the loaded release reads a name: the row fact at `fact` (offsetof in struct
 * nn_nccl_release) is 1 from the release on which NCCL reads it (SINCE) or no longer reads
 * it (GONE). */
enum release_kind { ALWAYS = 0, SINCE, GONE };

struct env_rule {
  const char *name;
  enum grammar kind;
  long long lo, hi;
  const char *const *words;
  int nocase;
  int pow2; /* NUM: a power of two (NCCL ignores any other) */
  enum release_kind release;
  size_t fact;
};

#define KIB 1024LL
#define GIB (1024LL * 1024 * 1024)
/* MAXCHANNELS in NCCL 2.28.9 and 2.30.7 (src/include/device.h) */
#define NN_NCCL_MAXCHANNELS 64
/* The buffer floors: 16 times the smallest buffer whose chunk is one grain of its protocol in
 * calcCollChunking (src/enqueue.cc, v2.28.9-1 .. dev; test_env_floors.c runs the formulas):
 * NCCL_STEPS 8 steps a buffer; Simple's grain 512 bytes, so 4096; LL's chunk half a step and
 * grain 16, so 256; LL128's chunk 15/16 of a step and grain 1920, so 16384. Below, the chunk
 * is 0 and the first collective divides by it. */
#define SIMPLE_BUFF_MIN (16 * 4096LL)
#define LL_BUFF_MIN (16 * 256LL)
#define LL128_BUFF_MIN (16 * 16384LL)
/* A P2P chunk (computeBuffSizes clamps it to BUFFSIZE / 8; ncclP2pDesc divides it by 8 for a
 * part) and NCCL_CHUNK_SIZE (which replaces it): BUFFSIZE's floor over NCCL_STEPS. */
#define P2P_CHUNK_MIN (SIMPLE_BUFF_MIN / 8)
/* NCCL_WORK_FIFO_BYTES (src/init.cc, a power of two; a plan's work takes up to half of it,
 * src/enqueue.cc, and waits for room that a smaller FIFO never has): 1/16 of the 1 MiB default. */
#define WORK_FIFO_MIN (64 * KIB)
/* ncclGetLevel clamps an old level number above 5 to SYS; strtol into an int: kept short. */
#define LEVEL_NUMBER_MAX 99
/* NCCL_NETDEVS_POLICY=MAX:n, n > 0 (getNetDevsPolicyOnce) */
#define NETDEVS_MAX 64

static const char *const levels[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                     "P2C", "PXN", "PHB", "SYS", NULL};
static const char *const algos[] = {"Tree", "Ring",     "CollNetDirect", "CollNetChain",
                                    "NVLS", "NVLSTree", "PAT",           NULL};
static const char *const protos[] = {"LL", "LL128", "Simple", NULL};
static const char *const debug_levels[] = {"VERSION", "WARN", "INFO", "ABORT", "TRACE", NULL};
static const char *const subsystems[] = {"INIT",    "COLL",   "P2P",     "SHM",       "NET",
                                         "GRAPH",   "TUNING", "ENV",     "ALLOC",     "ALLOC_HOST",
                                         "CALL",    "PROXY",  "NVLS",    "BOOTSTRAP", "REG",
                                         "PROFILE", "RAS",    "DESTROY", "ALL",       NULL};
static const char *const launch_modes[] = {"PARALLEL", "GROUP", NULL};
static const char *const families[] = {"AF_INET", "AF_INET6", NULL};
static const char *const merge_policies[] = {"ALL", "RAIL", NULL};
static const char *const cta_policies[] = {"DEFAULT", "EFFICIENCY", "ZERO", NULL};
/* The algorithms a machine without NVLink SHARP or CollNet runs: a value leaving a function none
 * of them has no algorithm, and every collective fails (ncclInvalidUsage). */
static const char *const pcie_algos[] = {"Tree", "Ring", "PAT", NULL};
/* ncclFuncStr, the prefixes parseList accepts before ':' */
static const char *const funcs[] = {"Broadcast",     "Reduce",    "AllGather",
                                    "ReduceScatter", "AllReduce", NULL};

#define SWITCH(n) \
  { n, NUM, 0, 1, NULL, 0, 0, ALWAYS, 0 }
#define RANGE(n, lo, hi) \
  { n, NUM, lo, hi, NULL, 0, 0, ALWAYS, 0 }
#define CHANNELS(n) RANGE(n, 1, NN_NCCL_MAXCHANNELS)
#define FACT(f) offsetof(struct nn_nccl_release, f)

/* Names as NCCL 2.28.9 reads them (its NCCL_PARAM names in libnccl.so.2.28.9), and the two
 * later releases add, sorted for bsearch. Each only tunes what NCCL does with the devices and
 * links it finds. */
static const struct env_rule rules[] = {
  {"NCCL_ALGO", FUNCS, 0, 0, algos, 1, 0, ALWAYS, 0},
  RANGE("NCCL_BUFFSIZE", SIMPLE_BUFF_MIN, GIB),
  RANGE("NCCL_CGA_CLUSTER_SIZE", 0, 8),
  RANGE("NCCL_CHUNK_SIZE", P2P_CHUNK_MIN, GIB),
  SWITCH("NCCL_COLLNET_ENABLE"),
  RANGE("NCCL_CROSS_NIC", 0, 2),
  {"NCCL_CTA_POLICY", CTA, 0, 2, cta_policies, 1, 0, ALWAYS, 0},
  SWITCH("NCCL_CUMEM_ENABLE"),
  {"NCCL_DEBUG", WORD, 0, 0, debug_levels, 1, 0, ALWAYS, 0},
  {"NCCL_DEBUG_SUBSYS", SUBSYS, 0, 0, subsystems, 1, 0, ALWAYS, 0},
  SWITCH("NCCL_DMABUF_ENABLE"),
  SWITCH("NCCL_GRAPH_REGISTER"),
  SWITCH("NCCL_IB_ADAPTIVE_ROUTING"),
  SWITCH("NCCL_IB_DISABLE"),
  RANGE("NCCL_IB_GID_INDEX", 0, 1023),
  {"NCCL_IB_HCA", HCALIST, 0, 0, NULL, 0, 0, ALWAYS, 0},
  RANGE("NCCL_IB_PCI_RELAXED_ORDERING", 0, 2),
  RANGE("NCCL_IB_QPS_PER_CONNECTION", 1, 128),
  RANGE("NCCL_IB_RETRY_CNT", 0, 7),
  RANGE("NCCL_IB_ROCE_VERSION_NUM", 1, 2),
  RANGE("NCCL_IB_SL", 0, 15),
  SWITCH("NCCL_IB_SPLIT_DATA_ON_QPS"),
  RANGE("NCCL_IB_TC", 0, 255),
  RANGE("NCCL_IB_TIMEOUT", 1, 31),
  SWITCH("NCCL_IGNORE_CPU_AFFINITY"),
  SWITCH("NCCL_IGNORE_DISABLED_P2P"),
  {"NCCL_LAUNCH_MODE", WORD, 0, 0, launch_modes, 1, 0, ALWAYS, 0},
  RANGE("NCCL_LL128_BUFFSIZE", LL128_BUFF_MIN, GIB),
  RANGE("NCCL_LL128_NTHREADS", 32, 1024),
  RANGE("NCCL_LL_BUFFSIZE", LL_BUFF_MIN, GIB),
  SWITCH("NCCL_LOCAL_REGISTER"),
  CHANNELS("NCCL_MAX_CTAS"),
  CHANNELS("NCCL_MAX_NCHANNELS"),
  CHANNELS("NCCL_MAX_NRINGS"),
  CHANNELS("NCCL_MAX_P2P_NCHANNELS"),
  CHANNELS("NCCL_MIN_CTAS"),
  CHANNELS("NCCL_MIN_NCHANNELS"),
  CHANNELS("NCCL_MIN_NRINGS"),
  CHANNELS("NCCL_MIN_P2P_NCHANNELS"),
  CHANNELS("NCCL_NCHANNELS_PER_NET_PEER"),
  {"NCCL_NETDEVS_POLICY", NETDEVS, 1, NETDEVS_MAX, NULL, 1, 0, SINCE, FACT(env_netdevs_policy)},
  {"NCCL_NET_GDR_LEVEL", LEVEL, 0, LEVEL_NUMBER_MAX, levels, 0, 0, ALWAYS, 0},
  SWITCH("NCCL_NET_GDR_READ"),
  {"NCCL_NET_MERGE_POLICY", WORD, 0, 0, merge_policies, 1, 0, SINCE, FACT(env_net_merge_policy)},
  SWITCH("NCCL_NET_SHARED_BUFFERS"),
  SWITCH("NCCL_NET_SHARED_COMMS"),
  RANGE("NCCL_NSOCKS_PERTHREAD", 1, 64),
  RANGE("NCCL_NTHREADS", 32, 1024),
  SWITCH("NCCL_NVB_DISABLE"),
  RANGE("NCCL_NVLS_ENABLE", 0, 2),
  SWITCH("NCCL_P2P_DIRECT_DISABLE"),
  SWITCH("NCCL_P2P_DISABLE"),
  {"NCCL_P2P_LEVEL", LEVEL, 0, LEVEL_NUMBER_MAX, levels, 0, 0, ALWAYS, 0},
  RANGE("NCCL_P2P_LL_THRESHOLD", 0, GIB),
  RANGE("NCCL_P2P_NET_CHUNKSIZE", P2P_CHUNK_MIN, GIB),
  RANGE("NCCL_P2P_NVL_CHUNKSIZE", P2P_CHUNK_MIN, GIB),
  RANGE("NCCL_P2P_PCI_CHUNKSIZE", P2P_CHUNK_MIN, GIB),
  RANGE("NCCL_P2P_PXN_LEVEL", 0, 2),
  SWITCH("NCCL_P2P_READ_ENABLE"),
  SWITCH("NCCL_P2P_USE_CUDA_MEMCPY"),
  RANGE("NCCL_PAT_ENABLE", 0, 2),
  {"NCCL_PROTO", FUNCS, 0, 0, protos, 1, 0, ALWAYS, 0},
  SWITCH("NCCL_PXN_DISABLE"),
  SWITCH("NCCL_RUNTIME_CONNECT"),
  SWITCH("NCCL_SHM_DISABLE"),
  RANGE("NCCL_SHM_LOCALITY", 1, 2),
  {"NCCL_SHM_MEMCPY_MODE", NUM, 1, 3, NULL, 0, 0, GONE, FACT(env_shm_memcpy_gone)},
  {"NCCL_SHM_USE_CUDA_MEMCPY", NUM, 0, 1, NULL, 0, 0, GONE, FACT(env_shm_memcpy_gone)},
  {"NCCL_SOCKET_FAMILY", WORD, 0, 0, families, 0, 0, ALWAYS, 0},
  {"NCCL_SOCKET_IFNAME", IFLIST, 0, 0, NULL, 0, 0, ALWAYS, 0},
  RANGE("NCCL_SOCKET_NTHREADS", 1, 16),
  RANGE("NCCL_THREAD_THRESHOLDS", 0, GIB),
  {"NCCL_WORK_FIFO_BYTES", NUM, WORK_FIFO_MIN, GIB, NULL, 0, 1, ALWAYS, 0},
};

#define N_RULES (sizeof rules / sizeof rules[0])

static int by_name(const void *key, const void *elem) {
  return strcmp(key, ((const struct env_rule *)elem)->name);
}

static const struct env_rule *rule_of(const char *name) {
  return bsearch(name, rules, N_RULES, sizeof rules[0], by_name);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

const char *nn_env_refusal(const char *name) {
  if (!strncmp(name, "NCCL_NUMA_", 10))
    return "nccl-numa's own settings come only from the real environment";
  if (ends_with(name, "_PLUGIN")) return "it names a library for NCCL to load";
  if (ends_with(name, "_FILE")) return "it names a file for NCCL to read or write";
  if (!strcmp(name, "NCCL_COMM_ID")) return "it names the peer NCCL's bootstrap connects to";
  if (rule_of(name)) return NULL;
  return "not one of the tuning variables a mapping may serve (docs/user/mapping.md lists them)";
}

const char *nn_env_allowed_name(int i) {
  return i >= 0 && (size_t)i < N_RULES ? rules[i].name : NULL;
}

/* ------------------------------------------------------------------ values */

/* Why a value is refused beyond its grammar; GRAMMAR: it does not match the grammar. */
static const char GRAMMAR[] = "";
static const char LL128_FORCED[] =
  "LL128 may not be forced on: NCCL's documentation warns that it can corrupt "
  "data where the platform does not support it (GPUs behind PCIe); "
  "'^LL128' to keep it off is accepted";
static const char NO_PCIE_ALGO[] =
  "it leaves a function only algorithms a machine without NVLink SHARP or CollNet "
  "lacks (NVLS, NVLSTree, CollNetDirect, CollNetChain), so every collective would "
  "fail; keep Tree, Ring or PAT enabled";

/* Decimal digits without a leading zero (NCCL's strtoll reads base 0: "010" is 8, "08" is 0),
 * no sign, no 0x, no spaces, lo..hi. */
static int number_ok(const char *s, size_t n, long long lo, long long hi) {
  if (!n || n > 12 || (n > 1 && s[0] == '0')) return 0;
  long long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  return v >= lo && v <= hi;
}

static int pow2_ok(const char *s, size_t n) {
  long long v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v > 0 && (v & (v - 1)) == 0;
}

/* The index of the n bytes at s in words, or -1. */
static int word_index(const char *s, size_t n, const char *const *words, int nocase) {
  for (int i = 0; words[i]; i++)
    if (strlen(words[i]) == n &&
        (nocase ? nn_ascii_caseeq_n(s, words[i], n) : !strncmp(s, words[i], n)))
      return i;
  return -1;
}

static int word_ok(const char *s, size_t n, const char *const *words, int nocase) {
  return word_index(s, n, words, nocase) >= 0;
}

/* word<sep>word... each from words, no empty item; *mask gets a bit per word named. */
static int word_list_mask(const char *s, size_t n, const char *const *words, char sep,
                          unsigned *mask) {
  *mask = 0;
  if (!n) return 0;
  for (size_t at = 0; at <= n;) {
    const char *end = memchr(s + at, sep, n - at);
    size_t len = end ? (size_t)(end - (s + at)) : n - at;
    int i = word_index(s + at, len, words, 1);
    if (i < 0) return 0;
    *mask |= 1u << i;
    at += len + 1;
  }
  return 1;
}

static int word_list_ok(const char *s, size_t n, const char *const *words) {
  unsigned mask;
  return word_list_mask(s, n, words, ',', &mask);
}

static unsigned mask_of(const char *const *words, const char *const *names) {
  unsigned m = 0;
  for (int i = 0; names[i]; i++) m |= 1u << word_index(names[i], strlen(names[i]), words, 0);
  return m;
}

/* What one section of NCCL_ALGO / NCCL_PROTO leaves NCCL: GRAMMAR, a refusal, or NULL. */
static const char *funcs_meaning(const char *const *words, int negated, unsigned named) {
  if (words == protos && !negated && (named & (1u << word_index("LL128", 5, protos, 0))))
    return LL128_FORCED;
  if (words != algos) return NULL;
  unsigned enabled = negated ? mask_of(algos, algos) & ~named : named;
  return enabled & mask_of(algos, pcie_algos) ? NULL : NO_PCIE_ALGO;
}

/* One ';'-separated section of NCCL_ALGO / NCCL_PROTO: [func:][^]list; only the first may
 * leave out func (parseList returns ncclInvalidUsage otherwise, failing the init). */
static const char *funcs_section(const char *s, size_t n, int first, const char *const *words) {
  const char *colon = memchr(s, ':', n);
  if (colon) {
    size_t fn = (size_t)(colon - s);
    if (!word_ok(s, fn, funcs, 1)) return GRAMMAR;
    s += fn + 1;
    n -= fn + 1;
  } else if (!first) {
    return GRAMMAR;
  }
  int negated = n && s[0] == '^';
  unsigned named;
  if (!word_list_mask(s + negated, n - (size_t)negated, words, ',', &named)) return GRAMMAR;
  return funcs_meaning(words, negated, named);
}

static const char *funcs_problem(const char *s, size_t n, const char *const *words) {
  const char *meaning = NULL;
  for (size_t at = 0, i = 0; at <= n; i++) {
    const char *semi = memchr(s + at, ';', n - at);
    size_t len = semi ? (size_t)(semi - (s + at)) : n - at;
    const char *why = funcs_section(s + at, len, i == 0, words);
    if (why == GRAMMAR) return GRAMMAR;
    if (why && !meaning) meaning = why;
    at += len + 1;
  }
  return meaning;
}

static int ifname_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

static int ifname_ok(const char *s, size_t n) {
  if (!n || n > NN_ENV_IFNAME_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!ifname_char(s[i])) return 0;
  return 1;
}

/* name[:port]: NCCL 2.28.7-2.30.4 copy name into a 64-byte buffer unbounded. */
static int ifentry_ok(const char *s, size_t n) {
  const char *colon = memchr(s, ':', n);
  size_t name = colon ? (size_t)(colon - s) : n;
  return ifname_ok(s, name) && (!colon || number_ok(colon + 1, n - name - 1, 0, 65535));
}

/* hca[:port[:rail[:plane]]], each field empty or a number (port up to 65535, rail and plane
 * int16_t in parseStringList); *empty_port set when a ':' leads to an empty port. */
static int hcaentry_ok(const char *s, size_t n, int *empty_port) {
  static const long long field_max[] = {65535, 32767, 32767};
  const char *colon = memchr(s, ':', n);
  size_t at = colon ? (size_t)(colon - s) : n;
  if (!ifname_ok(s, at)) return 0;
  for (int f = 0; at < n; f++) {
    if (f == 3) return 0;
    const char *next = memchr(s + at + 1, ':', n - at - 1);
    size_t len = next ? (size_t)(next - (s + at + 1)) : n - at - 1;
    if (len ? !number_ok(s + at + 1, len, 0, field_max[f]) : (f == 0 && (*empty_port = 1, 0)))
      return 0;
    at += len + 1;
  }
  return 1;
}

/* [^][=]entry,... at most `max` entries; hca: entries as hcaentry_ok. */
static int list_ok(const char *s, size_t n, int max, int hca, int *empty_port) {
  if (n && s[0] == '^') s++, n--;
  if (n && s[0] == '=') s++, n--;
  int count = 0;
  for (size_t at = 0; at <= n;) {
    const char *comma = memchr(s + at, ',', n - at);
    size_t len = comma ? (size_t)(comma - (s + at)) : n - at;
    if (++count > max || !(hca ? hcaentry_ok(s + at, len, empty_port) : ifentry_ok(s + at, len)))
      return 0;
    at += len + 1;
  }
  return 1;
}

static int cta_names(const char *s, size_t n) { return n && (s[0] < '0' || s[0] > '9'); }

static int netdevs_ok(const struct env_rule *r, const char *s, size_t n) {
  if ((n == 4 && nn_ascii_caseeq_n(s, "AUTO", 4)) || (n == 3 && nn_ascii_caseeq_n(s, "ALL", 3)))
    return 1;
  return n > 4 && nn_ascii_caseeq_n(s, "MAX:", 4) && number_ok(s + 4, n - 4, r->lo, r->hi);
}

static const char *value_problem(const struct env_rule *r, const char *v, size_t n) {
  unsigned mask;
  int empty_port = 0, ok = 0;
  switch (r->kind) {
  case NUM:
    ok = number_ok(v, n, r->lo, r->hi) && (!r->pow2 || pow2_ok(v, n));
    break;
  case WORD:
    ok = word_ok(v, n, r->words, r->nocase);
    break;
  case LEVEL:
    ok = word_ok(v, n, r->words, 0) || number_ok(v, n, r->lo, r->hi);
    break;
  case FUNCS:
    return funcs_problem(v, n, r->words);
  case SUBSYS:
    ok = v[0] == '^' ? word_list_ok(v + 1, n - 1, r->words) : word_list_ok(v, n, r->words);
    break;
  case IFLIST:
    ok = list_ok(v, n, NN_ENV_IFLIST_MAX, 0, &empty_port);
    break;
  case HCALIST:
    ok = list_ok(v, n, NN_ENV_HCALIST_MAX, 1, &empty_port);
    break;
  case CTA:
    ok =
      cta_names(v, n) ? word_list_mask(v, n, r->words, '|', &mask) : number_ok(v, n, r->lo, r->hi);
    break;
  case NETDEVS:
    ok = netdevs_ok(r, v, n);
    break;
  }
  return ok ? NULL : GRAMMAR;
}

static const char *value_check(const struct env_rule *r, const char *v) {
  size_t n = strnlen(v, NN_ENV_VALUE_MAX + 1);
  if (n > NN_ENV_VALUE_MAX) return GRAMMAR;
  return n ? value_problem(r, v, n) : NULL; /* "": NCCL's default, as if unset */
}

static void join_words(char *buf, size_t size, const char *const *words, const char *sep) {
  size_t len = strlen(buf);
  for (int i = 0; words[i] && len < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%s", i ? sep : "", words[i]);
    if (w < 0) return;
    len += (size_t)w;
  }
}

static void append(char *buf, size_t size, const char *text) {
  strncat(buf, text, size - strlen(buf) - 1);
}

static void funcs_rule(const struct env_rule *r, char *buf, size_t size) {
  snprintf(
    buf, size,
    "[FUNC:][^]NAME,... sections separated by ';' (all but the first with FUNC:), NAME one of ");
  join_words(buf, size, r->words, ", ");
  append(buf, size, ", FUNC one of ");
  join_words(buf, size, funcs, ", ");
  append(buf, size, " (any case)");
  if (r->words == protos) append(buf, size, "; LL128 only as ^LL128");
  else append(buf, size, "; each section leaves Tree, Ring or PAT enabled");
}

static void list_rule(const struct env_rule *r, char *buf, size_t size) {
  char since[16];
  if (r->kind == IFLIST) {
    snprintf(
      buf, size,
      "[^][=]NAME[:PORT],... with at most %d entries, each NAME 1 to %d of A-Z a-z 0-9 _ - . and "
      "PORT decimal digits 0 to 65535",
      NN_ENV_IFLIST_MAX, NN_ENV_IFNAME_MAX);
    return;
  }
  nn_nccl_release_since_text(FACT(env_ib_hca_rail), since, sizeof since);
  snprintf(buf, size,
           "[^][=]NAME[:PORT[:RAIL[:PLANE]]],... with at most %d entries, each NAME 1 to %d of "
           "A-Z a-z 0-9 _ - ., PORT 0 to 65535, RAIL and PLANE 0 to 32767, each number decimal "
           "digits or empty "
           "(an empty PORT, any port, is served to NCCL %s and later)",
           NN_ENV_HCALIST_MAX, NN_ENV_IFNAME_MAX, since);
}

const char *nn_env_value_rule(const char *name, char *buf, size_t size) {
  const struct env_rule *r = rule_of(name);
  char since[16];
  if (!size) return buf;
  buf[0] = 0;
  if (!r) return buf;
  switch (r->kind) {
  case NUM:
    snprintf(buf, size, "%sdecimal digits, %lld to %lld", r->pow2 ? "a power of two in " : "",
             r->lo, r->hi);
    break;
  case WORD:
    snprintf(buf, size, "one of ");
    join_words(buf, size, r->words, ", ");
    if (r->nocase) append(buf, size, " (any case)");
    break;
  case LEVEL:
    snprintf(buf, size, "one of ");
    join_words(buf, size, r->words, ", ");
    snprintf(buf + strlen(buf), size - strlen(buf), " or a number %lld to %lld (above 5: SYS)",
             r->lo, r->hi);
    break;
  case FUNCS:
    funcs_rule(r, buf, size);
    break;
  case SUBSYS:
    snprintf(buf, size, "[^]NAME,... with NAME one of ");
    join_words(buf, size, r->words, ", ");
    append(buf, size, " (any case)");
    break;
  case IFLIST:
  case HCALIST:
    list_rule(r, buf, size);
    break;
  case CTA:
    nn_nccl_release_since_text(FACT(env_cta_policy_names), since, sizeof since);
    snprintf(buf, size, "%lld to %lld, or NAME|NAME... with NAME one of ", r->lo, r->hi);
    join_words(buf, size, r->words, ", ");
    snprintf(buf + strlen(buf), size - strlen(buf),
             " (any case; names are served to NCCL %s and later)", since);
    break;
  case NETDEVS:
    snprintf(buf, size, "AUTO, ALL or MAX:N with N %lld to %lld (any case)", r->lo, r->hi);
    break;
  }
  return buf;
}

const char *nn_env_value_refusal(const char *name, const char *value, char *buf, size_t size) {
  const struct env_rule *r = rule_of(name);
  const char *why = r ? value_check(r, value) : NULL;
  if (!why) return NULL;
  char rule[640];
  nn_env_value_rule(name, rule, sizeof rule);
  size_t n = strnlen(value, NN_ENV_VALUE_MAX + 1);
  if (n > NN_ENV_VALUE_MAX)
    snprintf(buf, size, "the value is longer than %d bytes; %s takes %s", NN_ENV_VALUE_MAX, name,
             rule);
  else if (why != GRAMMAR) snprintf(buf, size, "%s: %s", name, why);
  else snprintf(buf, size, "%s takes %s", name, rule);
  return buf;
}

int nn_env_number_range(const char *name, long long *lo, long long *hi) {
  const struct env_rule *r = rule_of(name);
  if (!r || r->kind != NUM) return -1;
  *lo = r->lo;
  *hi = r->hi;
  return 0;
}

/* ------------------------------------------------------------------ releases */

static int release_fact(const struct nn_nccl_release *rel, size_t fact) {
  return *(const int *)(const void *)((const char *)rel + fact);
}

size_t nn_env_release_fact(int i, int *gone) {
  if (i < 0 || (size_t)i >= N_RULES || rules[i].release == ALWAYS) return 0;
  *gone = rules[i].release == GONE;
  return rules[i].fact;
}

static int hca_needs_rail(const char *v) {
  int empty_port = 0;
  size_t n = strnlen(v, NN_ENV_VALUE_MAX + 1);
  return n && n <= NN_ENV_VALUE_MAX && list_ok(v, n, NN_ENV_HCALIST_MAX, 1, &empty_port) &&
         empty_port;
}

const char *nn_env_release_note(const char *name, const char *value,
                                const struct nn_nccl_release *rel, const char *release, int *serve,
                                char *buf, size_t size) {
  const struct env_rule *r = rule_of(name);
  *serve = 1;
  if (!r || !rel || !value) return NULL;
  int has = r->release != ALWAYS && release_fact(rel, r->fact);
  if (r->release == SINCE && !has)
    snprintf(buf, size, "NCCL %s does not read %s (a later release does): served, and ignored",
             release, name);
  else if (r->release == GONE && has)
    snprintf(buf, size, "NCCL %s no longer reads %s: served, and ignored", release, name);
  else if (r->kind == HCALIST && !rel->env_ib_hca_rail && hca_needs_rail(value))
    snprintf(buf, size, "NCCL %s reads an empty port in %s=%s as port 0, not any port: not served",
             release, name, value);
  else if (r->kind == CTA && !rel->env_cta_policy_names && cta_names(value, strlen(value)))
    snprintf(buf, size, "NCCL %s reads %s only as a number 0 to 2: '%s' not served", release, name,
             value);
  else return NULL;
  *serve = r->release != ALWAYS;
  return buf;
}
