/* llama2.c's run.c (karpathy/llama2.c, CTATTN_LLAMA2C_DIR: not part of this project) compiled for the target, with
   the benchmark's entry points: its Transformer set up over weights in flash and static buffers (run.c's own set-up
   reads a file and allocates), then its `forward` for one token at a position. Built with the image's flags.

   | function                        | what                                                               |
   |---------------------------------|--------------------------------------------------------------------|
   | `llama2c_run_setup(w, shape)`   | the Transformer over `w` (llama2.c's checkpoint layout, no header) |
   | `llama2c_run_forward(tok, pos)` | run.c's `forward`: the logits of the next token                    |  */
#define TESTING /* run.c's main() is left out */
/* run.c is POSIX C: in ISO C11 mode (-std=c11) glibc declares clock_gettime and its clocks only when asked, and
   run.c takes int8_t from <stdint.h> without naming it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include "run.c"

#include "llama2c_buffers.h"

static Transformer llama2c_run_model;
static LLAMA2C_FLOAT_BUFFERS(llama2c_run_buffers);

int llama2c_run_setup(const float* weights, const int shape[7]) {
  Config* c = &llama2c_run_model.config;
  LLAMA2C_SET_CONFIG(c, shape);
  if (!llama2c_shape_fits(shape)) return 0;
  /* run.c reads its weights only; its pointers are not const. */
  memory_map_weights(&llama2c_run_model.weights, c, (float*)weights, 1);
  RunState* s = &llama2c_run_model.state;
  LLAMA2C_SET_FLOAT_STATE(s, llama2c_run_buffers);
  return 1;
}

const float* llama2c_run_forward(int token, int pos) { return forward(&llama2c_run_model, token, pos); }

#if defined(__arm__) || defined(__riscv)
/* newlib's exit(), which run.c's file reading calls, is resolved before the linker drops that code, and wants the
   C runtime's _fini (crti.o), which the firmware images do not link: an empty one. Nothing here calls exit(). On
   the host (benchmarks/bench_llama_speed.cpp) the C runtime has its own. */
void _fini(void) {}
#endif
