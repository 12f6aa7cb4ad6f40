// Runs a backend test when this CPU has its instruction sets: `ctattn_cpu_supports avx512f -- test_backend_avx512`
// checks every feature before `--`, then replaces itself with the command after it. Without a feature it prints
// which one and exits 77 (CTest's SKIP_RETURN_CODE for the backend tests). Built without any -m flag, so that it
// runs on any x86-64 CPU.
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {
bool supports(const char* feature) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (std::strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
  if (std::strcmp(feature, "fma") == 0) return __builtin_cpu_supports("fma");
  if (std::strcmp(feature, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(feature, "avx512bw") == 0) return __builtin_cpu_supports("avx512bw");
#endif
  (void)feature;
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (!supports(argv[i])) {
      std::printf("skipped: this CPU has no %s, so its backend test cannot run here (the scalar tests still run)\n",
                  argv[i]);
      return 77;
    }
  }
  if (i + 1 >= argc) {
    std::printf("usage: ctattn_cpu_supports FEATURE... -- COMMAND [ARGUMENTS...]\n");
    return 2;
  }
  execv(argv[i + 1], argv + i + 1);
  std::perror("ctattn_cpu_supports: cannot run the test");
  return 1;
}
