/* llama2.c's runq.c (karpathy/llama2.c, CTATTN_LLAMA2C_DIR: not part of this project), int8 weights in groups with
   float activations quantized in groups per product, compiled for the target beside run.c (llama2c_run.c), with
   the benchmark's entry points: its Transformer set up from the float weights of llama2c_run.c's layout, each
   matrix quantized by runq.c's own `quantize` into static buffers (runq.c's export does the same in Python), then
   its `forward` for one token at a position. runq.c's global names get a prefix so that both programs link into
   one image.

   | function                             | what                                                             |
   |--------------------------------------|------------------------------------------------------------------|
   | `llama2c_runq_setup(w, shape, gs)`   | the Transformer over `w` quantized in groups of `gs` (at least 4, dividing dim, hidden_dim and the key/value width) |
   | `llama2c_runq_forward(tok, pos)`     | runq.c's `forward`: the logits of the next token                 |  */
#define TESTING /* runq.c's main() is left out */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#define GS runq_GS
#define build_sampler runq_build_sampler
#define build_tokenizer runq_build_tokenizer
#define build_transformer runq_build_transformer
#define compare runq_compare
#define compare_tokens runq_compare_tokens
#define decode runq_decode
#define dequantize runq_dequantize
#define encode runq_encode
#define error_usage runq_error_usage
#define forward runq_forward
#define free_run_state runq_free_run_state
#define free_sampler runq_free_sampler
#define free_tokenizer runq_free_tokenizer
#define free_transformer runq_free_transformer
#define generate runq_generate
#define chat runq_chat
#define init_quantized_tensors runq_init_quantized_tensors
#define malloc_run_state runq_malloc_run_state
#define matmul runq_matmul
#define memory_map_weights runq_memory_map_weights
#define quantize runq_quantize
#define random_f32 runq_random_f32
#define random_u32 runq_random_u32
#define read_checkpoint runq_read_checkpoint
#define read_stdin runq_read_stdin
#define rmsnorm runq_rmsnorm
#define safe_printf runq_safe_printf
#define sample runq_sample
#define sample_argmax runq_sample_argmax
#define sample_mult runq_sample_mult
#define sample_topp runq_sample_topp
#define softmax runq_softmax
#define str_lookup runq_str_lookup
#define time_in_ms runq_time_in_ms
#include "runq.c"

#include "llama2c_buffers.h"

/* The checkpoint's floats: the layout of llama2c_run.c (benchmarks/llama2c_layout.hpp). */
enum {
  runq_head = llama2c_dim / llama2c_heads,
  runq_q_floats = llama2c_dim * llama2c_dim,
  runq_kv_floats = llama2c_kv_dim * llama2c_dim,
  runq_ffn_floats = llama2c_hidden * llama2c_dim,
  runq_embedding_floats = llama2c_vocabulary * llama2c_dim,
  runq_smallest_group = 4,
  runq_matrix_floats =
      runq_embedding_floats + llama2c_layers * (2 * runq_q_floats + 2 * runq_kv_floats + 3 * runq_ffn_floats)
};

static Transformer llama2c_runq_model;
static LLAMA2C_FLOAT_BUFFERS(llama2c_runq_buffers);
static int8_t llama2c_runq_xq[llama2c_hidden], llama2c_runq_hq[llama2c_hidden];
static float llama2c_runq_xs[llama2c_hidden], llama2c_runq_hs[llama2c_hidden];
/* runq.c computes a token's key and value apart, then copies them into the caches. */
static float llama2c_runq_k[llama2c_kv_dim], llama2c_runq_v[llama2c_kv_dim];
static float llama2c_runq_embedding[runq_embedding_floats];
static int8_t llama2c_runq_values[runq_matrix_floats];
/* A scale per group: the smallest group the set-up takes is runq_smallest_group. */
static float llama2c_runq_scales[runq_matrix_floats / runq_smallest_group];
static QuantizedTensor llama2c_runq_tensors[1 + 7 * llama2c_layers];

/* Quantizes n floats at `from` into the next free values and scales, as tensor `t`. */
static void llama2c_runq_take(QuantizedTensor* t, const float* from, int n, int* used) {
  t->q = llama2c_runq_values + *used;
  t->s = llama2c_runq_scales + *used / GS;
  quantize(t, (float*)from, n);
  *used += n;
}

int llama2c_runq_setup(const float* weights, const int shape[7], int group_size) {
  Config* c = &llama2c_runq_model.config;
  LLAMA2C_SET_CONFIG(c, shape);
  if (!llama2c_shape_fits(shape) || group_size < runq_smallest_group || llama2c_dim % group_size != 0 ||
      llama2c_hidden % group_size != 0 || llama2c_kv_dim % group_size != 0) {
    return 0;
  }
  GS = group_size;
  TransformerWeights* w = &llama2c_runq_model.weights;
  /* llama2c_run.c's layout: embedding, attention norms, wq, wk, wv, wo, ffn norms, w1, w2, w3, final norm. */
  const float* p = weights;
  const float* embedding = p;
  p += runq_embedding_floats;
  w->rms_att_weight = (float*)p;
  p += llama2c_layers * llama2c_dim;
  const float* wq = p;
  p += llama2c_layers * runq_q_floats;
  const float* wk = p;
  p += llama2c_layers * runq_kv_floats;
  const float* wv = p;
  p += llama2c_layers * runq_kv_floats;
  const float* wo = p;
  p += llama2c_layers * runq_q_floats;
  w->rms_ffn_weight = (float*)p;
  p += llama2c_layers * llama2c_dim;
  const float* w1 = p;
  p += llama2c_layers * runq_ffn_floats;
  const float* w2 = p;
  p += llama2c_layers * runq_ffn_floats;
  const float* w3 = p;
  p += llama2c_layers * runq_ffn_floats;
  w->rms_final_weight = (float*)p;

  int used = 0;
  QuantizedTensor* t = llama2c_runq_tensors;
  w->q_tokens = t;
  llama2c_runq_take(t++, embedding, runq_embedding_floats, &used);
  /* runq.c keeps the embedding dequantized for the lookup, and the quantized table as the shared classifier. */
  w->token_embedding_table = llama2c_runq_embedding;
  dequantize(w->q_tokens, w->token_embedding_table, runq_embedding_floats);
  w->wcls = w->q_tokens;
  QuantizedTensor** kinds[7] = {&w->wq, &w->wk, &w->wv, &w->wo, &w->w1, &w->w2, &w->w3};
  const float* sources[7] = {wq, wk, wv, wo, w1, w2, w3};
  const int sizes[7] = {runq_q_floats,   runq_kv_floats,  runq_kv_floats, runq_q_floats,
                        runq_ffn_floats, runq_ffn_floats, runq_ffn_floats};
  for (int k = 0; k < 7; ++k) {
    *kinds[k] = t;
    for (int l = 0; l < llama2c_layers; ++l) llama2c_runq_take(t++, sources[k] + l * sizes[k], sizes[k], &used);
  }

  RunState* s = &llama2c_runq_model.state;
  LLAMA2C_SET_FLOAT_STATE(s, llama2c_runq_buffers);
  s->xq.q = llama2c_runq_xq;
  s->xq.s = llama2c_runq_xs;
  s->hq.q = llama2c_runq_hq;
  s->hq.s = llama2c_runq_hs;
  s->k = llama2c_runq_k;
  s->v = llama2c_runq_v;
  return 1;
}

const float* llama2c_runq_forward(int token, int pos) { return forward(&llama2c_runq_model, token, pos); }
