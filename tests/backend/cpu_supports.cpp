// Runs a backend test when this CPU has its instruction sets: `ctattn_cpu_supports avx512f -- test_backend_avx512`
// checks every feature before `--`, then replaces itself with the command after it. Without a feature it prints
// which one and exits 77 (CTest's SKIP_RETURN_CODE for the backend tests). Built without any -m flag, so that it
// runs on any x86-64 CPU.
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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
  // Rationale: the VNNI features from cpuid's leaf 7 (subleaf 0: ECX bit 11; subleaf 1: EAX bit 4), which Clang
  // 14's __builtin_cpu_supports does not name; the OS's saving of the vector state is what avx2 and avx512f check.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (std::strcmp(feature, "avx512vnni") == 0)
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx >> 11 & 1u);
  if (std::strcmp(feature, "avxvnni") == 0) return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 4 & 1u);
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
