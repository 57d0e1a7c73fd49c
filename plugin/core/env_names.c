/* SPDX-License-Identifier: BSD-3-Clause */
/* env_names.c - the NCCL variables a mapping may serve, and the values each takes (env_names.h). */
#include "env_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

/* How a value is read. The limits are what every NCCL release we load into handles without
 * harm; where NCCL's own parser has none, they are the range its code means. */
enum grammar {
  NUM,      /* decimal digits, lo..hi */
  WORD,     /* one of words, as NCCL compares them (nocase: strcasecmp) */
  LEVEL,    /* a path type word or NCCL's old level number 0..5 (ncclGetLevel) */
  FUNCS,    /* NCCL_ALGO / NCCL_PROTO: [func:][^]word,word;func:[^]word,... (parseList) */
  SUBSYS,   /* [^]word,word,... (NCCL_DEBUG_SUBSYS) */
  IFLIST    /* [^][=]name[:port],... (parseStringList) */
};

struct env_rule {
  const char *name;
  enum grammar kind;
  long long lo, hi;
  const char *const *words;
  int nocase;
};

#define KIB 1024LL
#define GIB (1024LL * 1024 * 1024)
/* MAXCHANNELS in NCCL 2.28.9 and 2.30.7 (src/include/device.h) */
#define NN_NCCL_MAXCHANNELS 64

static const char *const levels[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", NULL};
static const char *const algos[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT", NULL};
static const char *const protos[] = {"LL", "LL128", "Simple", NULL};
static const char *const debug_levels[] = {"VERSION", "WARN", "INFO", "ABORT", "TRACE", NULL};
static const char *const subsystems[] = {"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV",
                                         "ALLOC", "ALLOC_HOST", "CALL", "PROXY", "NVLS", "BOOTSTRAP",
                                         "REG", "PROFILE", "RAS", "DESTROY", "ALL", NULL};
static const char *const launch_modes[] = {"PARALLEL", "GROUP", NULL};
static const char *const families[] = {"AF_INET", "AF_INET6", NULL};
/* ncclFuncStr, the prefixes parseList accepts before ':' */
static const char *const funcs[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", NULL};

#define SWITCH(n) {n, NUM, 0, 1, NULL, 0}
#define RANGE(n, lo, hi) {n, NUM, lo, hi, NULL, 0}
#define CHANNELS(n) RANGE(n, 1, NN_NCCL_MAXCHANNELS)
#define BYTES(n) RANGE(n, 1, GIB)

/* Names as NCCL 2.28.9 reads them (its NCCL_PARAM names in libnccl.so.2.28.9), sorted for
 * bsearch. Each only tunes what NCCL does with the devices and links it finds. */
static const struct env_rule rules[] = {
  {"NCCL_ALGO", FUNCS, 0, 0, algos, 1},
  BYTES("NCCL_BUFFSIZE"),
  RANGE("NCCL_CGA_CLUSTER_SIZE", 0, 8),
  RANGE("NCCL_CHUNK_SIZE", 0, GIB),
  SWITCH("NCCL_COLLNET_ENABLE"),
  RANGE("NCCL_CROSS_NIC", 0, 2),
  RANGE("NCCL_CTA_POLICY", 0, 2),
  SWITCH("NCCL_CUMEM_ENABLE"),
  {"NCCL_DEBUG", WORD, 0, 0, debug_levels, 1},
  {"NCCL_DEBUG_SUBSYS", SUBSYS, 0, 0, subsystems, 1},
  SWITCH("NCCL_DMABUF_ENABLE"),
  SWITCH("NCCL_GRAPH_REGISTER"),
  SWITCH("NCCL_IB_ADAPTIVE_ROUTING"),
  SWITCH("NCCL_IB_DISABLE"),
  RANGE("NCCL_IB_GID_INDEX", 0, 1023),
  {"NCCL_IB_HCA", IFLIST, 0, 0, NULL, 0},
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
  {"NCCL_LAUNCH_MODE", WORD, 0, 0, launch_modes, 1},
  BYTES("NCCL_LL128_BUFFSIZE"),
  RANGE("NCCL_LL128_NTHREADS", 32, 1024),
  BYTES("NCCL_LL_BUFFSIZE"),
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
  {"NCCL_NET_GDR_LEVEL", LEVEL, 0, 5, levels, 0},
  SWITCH("NCCL_NET_GDR_READ"),
  SWITCH("NCCL_NET_SHARED_BUFFERS"),
  SWITCH("NCCL_NET_SHARED_COMMS"),
  RANGE("NCCL_NSOCKS_PERTHREAD", 1, 64),
  RANGE("NCCL_NTHREADS", 32, 1024),
  SWITCH("NCCL_NVB_DISABLE"),
  RANGE("NCCL_NVLS_ENABLE", 0, 2),
  SWITCH("NCCL_P2P_DIRECT_DISABLE"),
  SWITCH("NCCL_P2P_DISABLE"),
  {"NCCL_P2P_LEVEL", LEVEL, 0, 5, levels, 0},
  RANGE("NCCL_P2P_LL_THRESHOLD", 0, GIB),
  BYTES("NCCL_P2P_NET_CHUNKSIZE"),
  BYTES("NCCL_P2P_NVL_CHUNKSIZE"),
  BYTES("NCCL_P2P_PCI_CHUNKSIZE"),
  RANGE("NCCL_P2P_PXN_LEVEL", 0, 2),
  SWITCH("NCCL_P2P_READ_ENABLE"),
  SWITCH("NCCL_P2P_USE_CUDA_MEMCPY"),
  RANGE("NCCL_PAT_ENABLE", 0, 2),
  {"NCCL_PROTO", FUNCS, 0, 0, protos, 1},
  SWITCH("NCCL_PXN_DISABLE"),
  SWITCH("NCCL_RUNTIME_CONNECT"),
  SWITCH("NCCL_SHM_DISABLE"),
  RANGE("NCCL_SHM_LOCALITY", 1, 2),
  RANGE("NCCL_SHM_MEMCPY_MODE", 1, 3),
  SWITCH("NCCL_SHM_USE_CUDA_MEMCPY"),
  {"NCCL_SOCKET_FAMILY", WORD, 0, 0, families, 0},
  {"NCCL_SOCKET_IFNAME", IFLIST, 0, 0, NULL, 0},
  RANGE("NCCL_SOCKET_NTHREADS", 1, 16),
  RANGE("NCCL_THREAD_THRESHOLDS", 0, GIB),
  RANGE("NCCL_WORK_FIFO_BYTES", 1, GIB),
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
  if (!strncmp(name, "NCCL_NUMA_", 10)) return "nccl-numa's own settings come only from the real environment";
  if (ends_with(name, "_PLUGIN")) return "it names a library for NCCL to load";
  if (ends_with(name, "_FILE")) return "it names a file for NCCL to read or write";
  if (!strcmp(name, "NCCL_COMM_ID")) return "it names the peer NCCL's bootstrap connects to";
  if (rule_of(name)) return NULL;
  return "not one of the tuning variables a mapping may serve (docs/user/mapping.md lists them)";
}

const char *nn_env_allowed_name(int i) { return i >= 0 && (size_t)i < N_RULES ? rules[i].name : NULL; }

/* ------------------------------------------------------------------ values */

/* Digits only (no sign, no 0x, no spaces: strtoll would take them, and wrap), lo..hi. */
static int number_ok(const char *s, size_t n, long long lo, long long hi) {
  if (!n || n > 12) return 0;
  long long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  return v >= lo && v <= hi;
}

static int word_ok(const char *s, size_t n, const char *const *words, int nocase) {
  for (int i = 0; words[i]; i++)
    if (strlen(words[i]) == n && (nocase ? nn_ascii_caseeq_n(s, words[i], n) : !strncmp(s, words[i], n)))
      return 1;
  return 0;
}

/* word,word,... each from words; no empty item. */
static int word_list_ok(const char *s, size_t n, const char *const *words) {
  if (!n) return 0;
  for (size_t at = 0; at <= n;) {
    const char *comma = memchr(s + at, ',', n - at);
    size_t len = comma ? (size_t)(comma - (s + at)) : n - at;
    if (!word_ok(s + at, len, words, 1)) return 0;
    at += len + 1;
  }
  return 1;
}

/* One ';'-separated section of NCCL_ALGO / NCCL_PROTO: [func:][^]list; only the first may
 * leave out func (parseList returns ncclInvalidUsage otherwise, failing the init). */
static int funcs_section_ok(const char *s, size_t n, int first, const char *const *words) {
  const char *colon = memchr(s, ':', n);
  if (colon) {
    size_t fn = (size_t)(colon - s);
    if (!word_ok(s, fn, funcs, 1)) return 0;
    s += fn + 1;
    n -= fn + 1;
  } else if (!first) {
    return 0;
  }
  if (n && s[0] == '^') s++, n--;
  return word_list_ok(s, n, words);
}

static int funcs_ok(const char *s, size_t n, const char *const *words) {
  for (size_t at = 0, i = 0; at <= n; i++) {
    const char *semi = memchr(s + at, ';', n - at);
    size_t len = semi ? (size_t)(semi - (s + at)) : n - at;
    if (!funcs_section_ok(s + at, len, i == 0, words)) return 0;
    at += len + 1;
  }
  return 1;
}

static int ifname_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

/* name[:port]: NCCL 2.28.7-2.30.4 copy name into a 64-byte buffer unbounded. */
static int ifentry_ok(const char *s, size_t n) {
  const char *colon = memchr(s, ':', n);
  size_t name = colon ? (size_t)(colon - s) : n;
  if (!name || name > NN_ENV_IFNAME_MAX) return 0;
  for (size_t i = 0; i < name; i++)
    if (!ifname_char(s[i])) return 0;
  return !colon || number_ok(colon + 1, n - name - 1, 0, 65535);
}

static int iflist_ok(const char *s, size_t n) {
  if (n && s[0] == '^') s++, n--;
  if (n && s[0] == '=') s++, n--;
  int count = 0;
  for (size_t at = 0; at <= n;) {
    const char *comma = memchr(s + at, ',', n - at);
    size_t len = comma ? (size_t)(comma - (s + at)) : n - at;
    if (++count > NN_ENV_IFLIST_MAX || !ifentry_ok(s + at, len)) return 0;
    at += len + 1;
  }
  return 1;
}

static int value_ok(const struct env_rule *r, const char *v) {
  size_t n = strnlen(v, NN_ENV_VALUE_MAX + 1);
  if (n > NN_ENV_VALUE_MAX) return 0;
  if (!n) return 1;   /* "": NCCL's default, as if unset */
  switch (r->kind) {
  case NUM: return number_ok(v, n, r->lo, r->hi);
  case WORD: return word_ok(v, n, r->words, r->nocase);
  case LEVEL: return word_ok(v, n, r->words, 0) || number_ok(v, n, r->lo, r->hi);
  case FUNCS: return funcs_ok(v, n, r->words);
  case SUBSYS: return v[0] == '^' ? word_list_ok(v + 1, n - 1, r->words) : word_list_ok(v, n, r->words);
  case IFLIST: return iflist_ok(v, n);
  }
  return 0;
}

static void join_words(char *buf, size_t size, const char *const *words, const char *sep) {
  size_t len = strlen(buf);
  for (int i = 0; words[i] && len < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%s", i ? sep : "", words[i]);
    if (w < 0) return;
    len += (size_t)w;
  }
}

const char *nn_env_value_rule(const char *name, char *buf, size_t size) {
  const struct env_rule *r = rule_of(name);
  if (!size) return buf;
  buf[0] = 0;
  if (!r) return buf;
  switch (r->kind) {
  case NUM: snprintf(buf, size, "decimal digits, %lld to %lld", r->lo, r->hi); break;
  case WORD:
    snprintf(buf, size, "one of ");
    join_words(buf, size, r->words, ", ");
    if (r->nocase) strncat(buf, " (any case)", size - strlen(buf) - 1);
    break;
  case LEVEL:
    snprintf(buf, size, "one of ");
    join_words(buf, size, r->words, ", ");
    snprintf(buf + strlen(buf), size - strlen(buf), " or a number %lld to %lld", r->lo, r->hi);
    break;
  case FUNCS:
    snprintf(buf, size, "[FUNC:][^]NAME,... sections separated by ';' (all but the first with FUNC:), NAME one "
             "of ");
    join_words(buf, size, r->words, ", ");
    strncat(buf, ", FUNC one of ", size - strlen(buf) - 1);
    join_words(buf, size, funcs, ", ");
    strncat(buf, " (any case)", size - strlen(buf) - 1);
    break;
  case SUBSYS:
    snprintf(buf, size, "[^]NAME,... with NAME one of ");
    join_words(buf, size, r->words, ", ");
    strncat(buf, " (any case)", size - strlen(buf) - 1);
    break;
  case IFLIST:
    snprintf(buf, size, "[^][=]NAME[:PORT],... with at most %d entries, each NAME 1 to %d of A-Z a-z 0-9 _ - . and "
             "PORT decimal digits 0 to 65535", NN_ENV_IFLIST_MAX, NN_ENV_IFNAME_MAX);
    break;
  }
  return buf;
}

const char *nn_env_value_refusal(const char *name, const char *value, char *buf, size_t size) {
  const struct env_rule *r = rule_of(name);
  if (!r || value_ok(r, value)) return NULL;
  char rule[512];
  nn_env_value_rule(name, rule, sizeof rule);
  size_t n = strnlen(value, NN_ENV_VALUE_MAX + 1);
  if (n > NN_ENV_VALUE_MAX)
    snprintf(buf, size, "the value is longer than %d bytes; %s takes %s", NN_ENV_VALUE_MAX, name, rule);
  else
    snprintf(buf, size, "%s takes %s", name, rule);
  return buf;
}
