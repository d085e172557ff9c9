/* Replays fuzz inputs without libFuzzer: `fuzz_scan_replay FILE|DIR ...` feeds every file to
 * LLVMFuzzerTestOneInput (fuzz_scan.c; fuzz_parsers.c in fuzz_parsers_replay), which aborts on
 * any disagreement. Lets ctest run the
 * fuzzing corpus as a regression test with any compiler. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  static uint8_t buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  return 0;
}

int main(int argc, char **argv) {
  unsigned long files = 0;
  int errors = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += replay_file(argv[i]);
      files++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (e->d_name[0] == '.')
        continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      errors += replay_file(path);
      files++;
    }
    if (d)
      closedir(d);
  }
  printf("fuzz replay: %lu inputs replayed\n", files);
  printf("%lu passed, %d failed\n", files - (unsigned long)errors, errors);
  return errors != 0 || files == 0;
}
