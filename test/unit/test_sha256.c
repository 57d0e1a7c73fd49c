/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sha256.c - SHA-256 against the FIPS 180-4 example vectors. */
#include "nn_test.h"

#include "cli/common/sha256.h"

/* The digest of `text` as hex, through a file as the CLI uses it. */
static void sha256_hex(const char *text, size_t len, char hex[65]) {
  char *path = nn_test_write_file("");
  assert_non_null(path);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
  assert_int_equal(nn_sha256_file_hex(path, hex), 0);
  nn_test_remove_file(path);
}

static void vectors(void **state) {
  (void)state;
  char hex[65];
  sha256_hex("", 0, hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha256_hex("abc", 3, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two =
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes: padding spills */
  sha256_hex(two, strlen(two), hex);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void million_a_in_pieces(void **state) {
  (void)state;
  struct nn_sha256 s;
  unsigned char d[32];
  char chunk[1001];
  memset(chunk, 'a', sizeof chunk);
  nn_sha256_init(&s);
  for (int i = 0; i < 1000; i++) nn_sha256_update(&s, chunk, i % 2 ? 999 : 1001);
  nn_sha256_final(&s, d);
  static const unsigned char want[4] = {0xcd, 0xc7, 0x6e, 0x5c};
  assert_memory_equal(d, want, 4);
  char *path = nn_test_write_file("abc");
  char hex[65];
  assert_int_equal(nn_sha256_file_hex(path, hex), 0);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  nn_test_remove_file(path);
  assert_int_equal(nn_sha256_file_hex("/nonexistent/x", hex), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(vectors),
                                     cmocka_unit_test(million_a_in_pieces)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
