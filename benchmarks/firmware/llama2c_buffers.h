/* The static buffers llama2.c's programs allocate at start-up, sized for the benchmark's model (the tiny llama of
   firmware/models/tiny_llama.hpp: dim 64, hidden 172, 5 layers, 8 heads over 4, vocabulary 512, 32 positions of
   cache), and the check that a shape fits them. */
#ifndef CTATTN_BENCHMARK_LLAMA2C_BUFFERS_H
#define CTATTN_BENCHMARK_LLAMA2C_BUFFERS_H

enum {
  llama2c_dim = 64,
  llama2c_hidden = 172,
  llama2c_layers = 5,
  llama2c_heads = 8,
  llama2c_kv_heads = 4,
  llama2c_vocabulary = 512,
  llama2c_positions = 32,
  llama2c_kv_dim = llama2c_dim * llama2c_kv_heads / llama2c_heads
};

#define LLAMA2C_FLOAT_BUFFERS(name)                                           \
  struct {                                                                    \
    float x[llama2c_dim], xb[llama2c_dim], xb2[llama2c_dim];                  \
    float hb[llama2c_hidden], hb2[llama2c_hidden], q[llama2c_dim];            \
    float key_cache[llama2c_layers * llama2c_positions * llama2c_kv_dim];     \
    float value_cache[llama2c_layers * llama2c_positions * llama2c_kv_dim];   \
    float att[llama2c_heads * llama2c_positions], logits[llama2c_vocabulary]; \
  } name

/* Both programs' Config from shape (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len), and the
   RunState members they share pointed at the buffers `b` (run.c's and runq.c's structs have these members alike). */
#define LLAMA2C_SET_CONFIG(c, shape) \
  do {                               \
    (c)->dim = (shape)[0];           \
    (c)->hidden_dim = (shape)[1];    \
    (c)->n_layers = (shape)[2];      \
    (c)->n_heads = (shape)[3];       \
    (c)->n_kv_heads = (shape)[4];    \
    (c)->vocab_size = (shape)[5];    \
    (c)->seq_len = (shape)[6];       \
  } while (0)
#define LLAMA2C_SET_FLOAT_STATE(s, b)   \
  do {                                  \
    (s)->x = (b).x;                     \
    (s)->xb = (b).xb;                   \
    (s)->xb2 = (b).xb2;                 \
    (s)->hb = (b).hb;                   \
    (s)->hb2 = (b).hb2;                 \
    (s)->q = (b).q;                     \
    (s)->key_cache = (b).key_cache;     \
    (s)->value_cache = (b).value_cache; \
    (s)->att = (b).att;                 \
    (s)->logits = (b).logits;           \
  } while (0)

/* 1 when shape (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len) is the buffers' own. */
static inline int llama2c_shape_fits(const int shape[7]) {
  return shape[0] == llama2c_dim && shape[1] == llama2c_hidden && shape[2] == llama2c_layers &&
         shape[3] == llama2c_heads && shape[4] == llama2c_kv_heads && shape[5] == llama2c_vocabulary &&
         shape[6] == llama2c_positions;
}

#endif
