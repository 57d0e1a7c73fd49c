/* SPDX-License-Identifier: BSD-3-Clause */
/* test_include_csv.c - NVIDIA example-tuner CSV rules through `include-csv` and
 * NCCL_TUNER_CONFIG_FILE, in order, with errors naming both files; each included file
 * read once per mapping, and the bytes included by one mapping capped. */
#include <stdarg.h>
#include <sys/stat.h>

#include "cache.h"
#include "nn_config.h"
#include "nn_test.h"
#include "snapshot.h"

static char dir[64];
static char first_warn[1024];

static void log_line(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  (void)self;
  (void)level;
  (void)subsys;
  if (!first_warn[0]) snprintf(first_warn, sizeof first_warn, "%s", msg);
}
static const struct nn_logger logger = {.line = log_line};

static const char *put(const char *name, const char *text) { return nn_test_put(dir, name, text); }

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-csv-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(dir);
}

static const char *CSV =
  "# NVIDIA example tuner format\n"
  "collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n"
  "allreduce,0,65536,tree,simple,2,1,-1,-1,-1\n"
  "allgather,-1,-1,ring,-1,-1,-1,8,1,0\n";

static void test_include_in_order(void **state) {
  (void)state;
  put("rules.csv", CSV);
  const char *map = put(
    "m.conf", "rule coll=broadcast algo=ring\ninclude-csv rules.csv\nrule coll=reduce proto=ll\n");
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(map, NULL, &cfg, &d), 0);
  assert_int_equal(cfg->n_rules, 4);
  assert_int_equal(cfg->rules[0].coll, NN_COLL_BROADCAST);
  assert_int_equal(cfg->rules[1].coll, NN_COLL_ALLREDUCE);
  assert_int_equal(cfg->rules[1].algo, NN_ALGO_TREE);
  assert_int_equal(cfg->rules[1].proto, NN_PROTO_SIMPLE);
  assert_int_equal(cfg->rules[1].channels, 2);
  assert_true(cfg->rules[1].bytes_hi == 65536);
  assert_int_equal(cfg->rules[1].line, 3);
  assert_non_null(strstr(cfg->rules[1].file, "/rules.csv")); /* relative to the mapping's dir */
  assert_int_equal(cfg->rules[2].pipeops, 1);
  assert_int_equal(cfg->rules[2].regbuff, 0);
  assert_true(cfg->rules[2].ranks_lo == 8 && cfg->rules[2].ranks_hi == 8);
  assert_int_equal(cfg->rules[3].coll, NN_COLL_REDUCE);
  nn_config_free(cfg);
}

static void test_include_errors(void **state) {
  (void)state;
  put("bad.csv", "allreduce,0,10,bogus,simple,2,1,-1\n");
  const char *map = put("b.conf", "include-csv bad.csv\ninclude-csv missing.csv\ninclude-csv\n");
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(map, NULL, &cfg, &d), -1);
  assert_null(cfg);
  assert_int_equal(d.n, 3);
  assert_non_null(strstr(d.msgs[0], "b.conf:1: include-csv: "));
  assert_non_null(strstr(d.msgs[0], "bad.csv:1: unknown algorithm 'bogus'"));
  assert_non_null(strstr(d.msgs[1], "b.conf:2: include-csv: "));
  assert_non_null(strstr(d.msgs[1], "missing.csv: cannot open"));
  assert_non_null(strstr(d.msgs[2], "b.conf:3: include-csv: expected exactly one path"));
  nn_diag_clear(&d);
}

static void test_tuner_config_file_variable(void **state) {
  (void)state;
  const char *csv = put("env.csv", CSV);
  setenv("NCCL_TUNER_CONFIG_FILE", csv, 1);
  const char *norules = put("norules.conf", "gpu 0 bus=01:00.0 numa=0\n");
  setenv("NCCL_NUMA_CONFIG", norules, 1);
  struct nn_cache_version *v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(v), NN_CFG_OK);
  assert_int_equal(nn_cache_config(v)->n_rules, 2); /* the mapping has none: CSV used */
  nn_cache_release(v);
  const char *rules = put("rules.conf", "rule algo=ring\n");
  setenv("NCCL_NUMA_CONFIG", rules, 1);
  v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_config(v)->n_rules, 1); /* the mapping's rules win */
  nn_cache_release(v);
  setenv("NCCL_TUNER_CONFIG_FILE", put("worse.csv", "allreduce,0,10,ring,simple,2\n"), 1);
  const char *again = put("again.conf", "gpu 0 bus=02:00.0 numa=0\n");
  setenv("NCCL_NUMA_CONFIG", again, 1);
  v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(v), NN_CFG_INVALID); /* a bad CSV rejects the version */
  first_warn[0] = 0;
  nn_cache_warn_rejected(v, &logger, "pass-through");
  assert_non_null(strstr(first_warn, "worse.csv:1:"));
  nn_cache_release(v);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  unsetenv("NCCL_NUMA_CONFIG");
}

/* nn_config_load of map with every file read recorded: nn_snapshot_read adds one entry per
 * read, whatever its outcome, so r->n counts the reads. */
static int load_recorded(const char *map, struct nn_config **cfg, struct nn_diag *d,
                         struct nn_snapshot_record *r) {
  nn_snapshot_record_begin(r);
  int rc = nn_config_load(map, NULL, cfg, d);
  nn_snapshot_record_end(r);
  return rc;
}

/* 255 include-csv lines of one file (four spellings of its path and a hard link): the
 * file is read once, its rules appended 255 times, each naming its own line's path.
 * The code before read it once per line (400 reads of a 16 MiB file took 5.3 s). */
static void test_one_file_read_once(void **state) {
  (void)state;
  const char *csv = put("big.csv", CSV);
  char link_path[128], text[255 * 64];
  snprintf(link_path, sizeof link_path, "%s/hard.csv", dir);
  assert_int_equal(link(csv, link_path), 0);
  const char *spell[5] = {"big.csv", "./big.csv", csv, "hard.csv", NULL};
  char twice[128];
  snprintf(twice, sizeof twice, "%s//big.csv", dir);
  spell[4] = twice;
  size_t len = 0;
  for (int i = 0; i < 255; i++)
    len += (size_t)snprintf(text + len, sizeof text - len, "include-csv %s\n", spell[i % 5]);
  const char *map = put("many.conf", text);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  struct nn_snapshot_record r;
  assert_int_equal(load_recorded(map, &cfg, &d, &r), 0);
  assert_int_equal(r.n, 2); /* the mapping and big.csv, once */
  assert_string_equal(r.files[1].path, csv);
  assert_int_equal(cfg->n_rules, 510);
  for (int i = 0; i < 255; i++) {
    const struct nn_rule *a = &cfg->rules[2 * i], *b = &cfg->rules[2 * i + 1];
    assert_int_equal(a->coll, NN_COLL_ALLREDUCE);
    assert_int_equal(b->coll, NN_COLL_ALLGATHER);
    assert_int_equal(a->line, 3);
    const char *want = spell[i % 5];
    size_t n = strlen(want) - (want[0] == '.' ? 1 : 0);
    assert_string_equal(a->file + strlen(a->file) - n, want + strlen(want) - n);
    assert_ptr_equal(a->file, b->file);
  }
  nn_snapshot_record_free(&r);
  nn_config_free(cfg);
  /* A bad file included twice: read once, the second line points at the first. */
  put("bad2.csv", "allreduce,0,10,bogus,simple,2,1,-1\n");
  map = put("bad2.conf", "include-csv bad2.csv\ninclude-csv ./bad2.csv\n");
  assert_int_equal(load_recorded(map, &cfg, &d, &r), -1);
  assert_int_equal(r.n, 2);
  assert_int_equal(d.n, 2);
  assert_non_null(strstr(d.msgs[0], "bad2.conf:1: include-csv: "));
  assert_non_null(strstr(d.msgs[1], "bad2.conf:2: include-csv: "));
  assert_non_null(strstr(d.msgs[1], "./bad2.csv: rejected at line 1 above"));
  nn_snapshot_record_free(&r);
  nn_diag_clear(&d);
}

/* Distinct files of 13 MiB each: four fit the 64 MiB a mapping may include, the fifth is an
 * error naming it and the limit, and is never read. */
static void test_include_byte_cap(void **state) {
  (void)state;
  size_t size = 13u << 20;
  char *body = malloc(size);
  assert_non_null(body);
  for (size_t i = 0; i < size; i += 64) { /* 63 bytes of comment and a newline */
    memset(body + i, 'x', 64);
    body[i] = '#';
    body[i + 63] = '\n';
  }
  char text[512] = "";
  for (int i = 0; i < 5; i++) {
    char name[32], path[128];
    snprintf(name, sizeof name, "c%d.csv", i);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(body, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    snprintf(text + strlen(text), sizeof text - strlen(text), "include-csv %s\n", name);
  }
  free(body);
  const char *map = put("cap.conf", text);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  struct nn_snapshot_record r;
  assert_int_equal(load_recorded(map, &cfg, &d, &r), -1);
  assert_int_equal(r.n, 5); /* the mapping and c0..c3; not c4 */
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], "cap.conf:5: include-csv: "));
  assert_non_null(strstr(d.msgs[0], "/c4.csv: its 13631488 bytes would pass the 64 MiB"));
  nn_snapshot_record_free(&r);
  nn_diag_clear(&d);
}

/* At most 256 include-csv lines: the 257th is an error naming its line, reported once, and
 * nothing after it is read. A missing file named on every line is tried once and recorded
 * once (16 MiB of such lines used to stat and record it on each line, and again on every
 * later look-up of the cache). */
static void test_include_count_cap(void **state) {
  (void)state;
  put("one.csv", CSV);
  size_t cap = 300 * 40, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  for (int i = 0; i < 300; i++) {
    char name[32];
    snprintf(name, sizeof name, "n%d.csv", i);
    if (i < 256) put(name, CSV);
    len += (size_t)snprintf(text + len, cap - len, "include-csv %s\n", name);
  }
  const char *map = put("count.conf", text);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  struct nn_snapshot_record r;
  assert_int_equal(load_recorded(map, &cfg, &d, &r), -1);
  assert_int_equal(r.n, 257); /* the mapping and n0..n255 */
  assert_int_equal(d.n, 1);
  assert_non_null(
    strstr(d.msgs[0], "count.conf:257: include-csv: more than 256 include-csv lines"));
  nn_snapshot_record_free(&r);
  nn_diag_clear(&d);
  /* 256 lines of one missing file */
  len = 0;
  for (int i = 0; i < 256; i++)
    len += (size_t)snprintf(text + len, cap - len, "include-csv gone.csv\n");
  map = put("missing.conf", text);
  assert_int_equal(load_recorded(map, &cfg, &d, &r), -1);
  assert_int_equal(r.n, 2); /* the mapping and gone.csv, once */
  assert_non_null(strstr(d.msgs[0], "missing.conf:1: include-csv: "));
  assert_non_null(strstr(d.msgs[0], "gone.csv: cannot open: No such file or directory"));
  assert_non_null(strstr(d.msgs[1], "missing.conf:2: include-csv: "));
  assert_non_null(strstr(d.msgs[1], "gone.csv: rejected at line 1 above"));
  nn_snapshot_record_free(&r);
  nn_diag_clear(&d);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_include_in_order),           cmocka_unit_test(test_include_errors),
    cmocka_unit_test(test_tuner_config_file_variable), cmocka_unit_test(test_one_file_read_once),
    cmocka_unit_test(test_include_byte_cap),           cmocka_unit_test(test_include_count_cap),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
