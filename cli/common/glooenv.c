/* SPDX-License-Identifier: BSD-3-Clause */
/* glooenv.c - GLOO_SOCKET_IFNAME from NCCL_SOCKET_IFNAME; see glooenv.h. */
#include "cli/common/glooenv.h"

#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"

#define NN_GLOO_MAX_IFS 64

/* This host's interface names (at most NN_GLOO_MAX_IFS) into names, strings owned by *idx. */
static int host_ifnames(struct if_nameindex **idx, const char **names) {
  int n = 0;
  *idx = if_nameindex();
  for (struct if_nameindex *i = *idx; i && i->if_index && n < NN_GLOO_MAX_IFS; i++)
    names[n++] = i->if_name;
  return n;
}

/* Adds name to the comma-separated list in out, once. */
static void append(char *out, size_t size, const char *name) {
  size_t len = strlen(out), n = strlen(name);
  for (const char *s = out; (s = strstr(s, name)); s++)
    if ((s == out || s[-1] == ',') && (s[n] == 0 || s[n] == ',')) return;
  snprintf(out + len, size - len, "%s%s", len ? "," : "", name);
}

/* NCCL's list (prefixes, or exact names after '=') as exact names of `ifs`. */
static void expand(const char *list, const char *const *ifs, int n_ifs, char *out, size_t size) {
  int exact = list[0] == '=';
  char copy[512];
  snprintf(copy, sizeof copy, "%s", list + exact);
  out[0] = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    size_t len = strcspn(tok, ":"); /* NCCL allows NAME:PORT */
    tok[len] = 0;
    for (int i = 0; i < n_ifs; i++)
      if (exact ? !strcmp(ifs[i], tok) : !strncmp(ifs[i], tok, len)) append(out, size, ifs[i]);
  }
}

int nn_glooenv_ifname(const struct nn_config *cfg, const char *const *ifnames, char *out,
                      size_t size, char *why, size_t whysz) {
  out[0] = 0;
  nn_errbuf_set(why, whysz, "%s", "");
  if (getenv("GLOO_SOCKET_IFNAME")) return 0;
  const char *from = "NCCL_SOCKET_IFNAME", *v = getenv("NCCL_SOCKET_IFNAME");
  if (!v && cfg && (v = nn_config_env(cfg, "NCCL_SOCKET_IFNAME")))
    from = "the mapping's NCCL_SOCKET_IFNAME";
  if (!v || !v[0]) return 0;
  if (v[0] == '^') {
    nn_errbuf_set(why, whysz, "GLOO_SOCKET_IFNAME not set: %s=%.64s only excludes interfaces", from,
                  v);
    return 0;
  }
  struct if_nameindex *idx = NULL;
  const char *host[NN_GLOO_MAX_IFS];
  int n = 0;
  if (ifnames)
    while (n < NN_GLOO_MAX_IFS && ifnames[n]) n++;
  else n = host_ifnames(&idx, host);
  expand(v, ifnames ? ifnames : host, n, out, size);
  if (idx) if_freenameindex(idx);
  if (!out[0]) {
    nn_errbuf_set(why, whysz,
                  "GLOO_SOCKET_IFNAME not set: no interface of this host matches %s=%.64s", from,
                  v);
    return 0;
  }
  nn_errbuf_set(why, whysz, "GLOO_SOCKET_IFNAME=%s (from %s=%.64s)", out, from, v);
  return 1;
}
