/* SPDX-License-Identifier: BSD-3-Clause */
/* abi_env.c - abi_conformance's env plugin part: ncclEnvPlugin_v1/v2 serve the mapping's env
 * defaults and its topology as NCCL reads them, the real environment wins, a bad config serves
 * nothing; and (--no-libxml2) the topology is served without libxml2 ever mapped. */
#include <stdarg.h>
#include <sys/stat.h>

#include "abi_conformance.h"

void nn_abi_env_test(void *h, const char *dir, const char *cfg_amd) {
  const nn_ncclEnv_v1_t *e1 = nn_abi_symbol(h, "ncclEnvPlugin_v1");
  const nn_ncclEnv_v2_t *e2 = nn_abi_symbol(h, "ncclEnvPlugin_v2");
  char path[512];
  setenv("NCCL_NUMA_CONFIG", cfg_amd, 1);
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_TOPO_FILE");
  CHECK(e1->init(2, 28, 9, "") == nn_ncclSuccess, "env v1 init");
  const char *v = e1->getEnv("NCCL_SOCKET_IFNAME");
  CHECK(v && !strcmp(v, "lo"), "env default served (%s)", v ? v : "NULL");
  CHECK(e1->getEnv("NCCL_SOCKET_IFNAME") == v, "same string on the next lookup");
  setenv("NCCL_P2P_LEVEL", "NVL", 1);
  v = e1->getEnv("NCCL_P2P_LEVEL");
  CHECK(v && !strcmp(v, "NVL"), "real environment wins over an env line");
  setenv("NN_PLAIN", "x", 1);
  v = e1->getEnv("NN_PLAIN");
  CHECK(v && !strcmp(v, "x"), "other names forwarded to getenv");
  CHECK(e1->getEnv("NCCL_NOT_SET_ANYWHERE") == NULL, "unset stays unset");
  CHECK(e1->getEnv(NULL) == NULL, "NULL name");
  /* AMD two-socket mapping in auto mode with unknown GPU: NCCL's search would fail: not served. */
  CHECK(e1->getEnv("NCCL_TOPO_FILE") == NULL, "AMD hazard: no topology in auto mode");
  CHECK(e1->finalize() == nn_ncclSuccess, "env finalize");

  /* mode=numa: served, private, and the real environment still wins. */
  char text[4096];
  snprintf(text, sizeof text, "%stopology mode=numa\n", REFERENCE);
  setenv("NCCL_NUMA_CONFIG", nn_abi_write_config(dir, "numa.conf", text, path, sizeof path), 1);
  CHECK(e2->init(2, 30, 7, "", NULL) == nn_ncclSuccess, "env v2 init");
  const char *topo = e2->getEnv("NCCL_TOPO_FILE");
  CHECK(topo != NULL, "topology served with mode=numa");
  if (topo) {
    struct stat st;
    CHECK(stat(topo, &st) == 0 && (st.st_mode & 0777) == 0600, "topology file 0600");
    char buf[256] = "";
    FILE *f = fopen(topo, "r");
    if (f) {
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      buf[n] = 0;
      fclose(f);
    }
    CHECK(!strncmp(buf, "<system version=\"1\">", 20), "topology XML starts with <system> (%.40s)",
          buf);
    CHECK(strstr(buf, "<?xml") == NULL, "no XML declaration");
  }
  setenv("NCCL_TOPO_FILE", "/my/own.xml", 1);
  v = e2->getEnv("NCCL_TOPO_FILE");
  CHECK(v && !strcmp(v, "/my/own.xml"), "user's NCCL_TOPO_FILE wins");
  unsetenv("NCCL_TOPO_FILE");
  CHECK(e2->finalize() == nn_ncclSuccess, "env v2 finalize");

  /* A bad config: init still succeeds, nothing served. */
  setenv("NCCL_NUMA_CONFIG",
         nn_abi_write_config(dir, "bad-env.conf", "env FOO=1\n", path, sizeof path), 1);
  CHECK(e1->init(2, 28, 9, "") == nn_ncclSuccess, "env init with a bad config");
  CHECK(e1->getEnv("NCCL_TOPO_FILE") == NULL, "bad config: no topology");
  e1->finalize();
}

static char g_warning[1024];

__attribute__((format(printf, 5, 6))) static void keep_warning(int level, unsigned long flags,
                                                               const char *file, int line,
                                                               const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NN_NCCL_LOG_WARN || g_warning[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_warning, sizeof g_warning, fmt, ap);
  va_end(ap);
}

/* Whether a library whose file name contains `part` is mapped into this process. */
static int mapped(const char *part) {
  FILE *fp = fopen("/proc/self/maps", "r");
  char line[1024];
  int found = 0;
  while (fp && !found && fgets(line, sizeof line, fp)) found = strstr(line, part) != NULL;
  if (fp) fclose(fp);
  return found;
}

void nn_abi_env_test_no_libxml2(void *h, const char *dir) {
  const nn_ncclEnv_v2_t *e2 = nn_abi_symbol(h, "ncclEnvPlugin_v2");
  char text[4096], path[512];
  snprintf(text, sizeof text, "%stopology mode=numa\nenv NCCL_SOCKET_IFNAME=lo\n", REFERENCE);
  setenv("NCCL_NUMA_CONFIG", nn_abi_write_config(dir, "numa.conf", text, path, sizeof path), 1);
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_TOPO_FILE");
  CHECK(!mapped("libxml2"), "no libxml2 mapped before the plugin serves");
  CHECK(e2->init(2, 30, 7, "", keep_warning) == nn_ncclSuccess, "env v2 init");
  const char *topo = e2->getEnv("NCCL_TOPO_FILE");
  CHECK(topo != NULL, "a topology is served without libxml2 (warning: %s)", g_warning);
  char head[32] = "";
  FILE *fp = topo ? fopen(topo, "r") : NULL;
  if (fp) {
    if (!fgets(head, sizeof head, fp)) head[0] = 0;
    fclose(fp);
  }
  CHECK(!strcmp(head, "<system version=\"1\">\n"), "the file served is a topology (%s)", head);
  CHECK(!mapped("libxml2"), "no libxml2 mapped after the plugin wrote its topology");
  const char *v = e2->getEnv("NCCL_SOCKET_IFNAME");
  CHECK(v && !strcmp(v, "lo"), "env defaults still served");
  CHECK(e2->finalize() == nn_ncclSuccess, "env v2 finalize");
}
