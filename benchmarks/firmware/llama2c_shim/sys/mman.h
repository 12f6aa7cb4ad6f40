/* The declarations llama2.c's run.c and runq.c take from <sys/mman.h>, which a bare-metal C library (newlib,
   picolibc) lacks. The benchmark never maps a file: it hands the programs their weights in flash, so these are
   only declared, and the linker drops the functions that would call them (-ffunction-sections, --gc-sections). */
#ifndef CTATTN_BENCHMARK_LLAMA2C_SYS_MMAN_H
#define CTATTN_BENCHMARK_LLAMA2C_SYS_MMAN_H
#include <stddef.h>
#include <sys/types.h>
#define PROT_READ 1
#define MAP_PRIVATE 2
#define MAP_FAILED ((void*)-1)
void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset);
int munmap(void* address, size_t length);
#endif
