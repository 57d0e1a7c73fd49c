/* fuzz_config.c - libFuzzer target for the mapping-file parser. Build and run:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Iplugin \
 *     test/fuzz/fuzz_config.c plugin/config.c -o build/fuzz_config
 *   build/fuzz_config -max_total_time=60 test/fixtures/config
 * Every input must give either a config or at least one message, and never crash. */
#include <stdint.h>
#include <stdlib.h>

#include "nn_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const struct nn_parse_opts opts[2] = {{0, "/dev/null"}, {NN_PARSE_HOST_SIDE, "/dev/null"}};
  for (int i = 0; i < 2; i++) {
    struct nn_config *cfg = NULL;
    struct nn_diag diag = {0};
    int r = nn_config_parse("fuzz", (const char *)data, size, &opts[i], &cfg, &diag);
    if ((r == 0) != (cfg != NULL) || (r != 0 && diag.n == 0)) abort();
    if (cfg) {
      (void)nn_config_numa_count(cfg);
      (void)nn_config_max_gpus_per_numa(cfg);
      for (int n = 0; n < cfg->n_numas; n++) {
        uint32_t mask[NN_CPUMASK_WORDS];
        char buf[NN_MAX_AFFINITY_CHARS + 1];
        int hi = nn_cpulist_parse(cfg->numas[n].cpus, mask, NULL, 0);
        if (hi < 0 || nn_cpumask_format(mask, hi, buf, sizeof buf) < 0) abort();
      }
    }
    nn_config_free(cfg);
    nn_diag_clear(&diag);
  }
  return 0;
}
