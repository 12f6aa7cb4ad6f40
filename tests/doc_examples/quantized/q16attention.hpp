// The names the doc examples of ctattn/quantized/q16attention.hpp use without defining them: four 16x8 projections
// of width 16 (W_Q, W_K, W_V, W_O), 6 tokens in int16, the int16 quantizations of the scores and the context, and one
// head's queries, keys and values in int16.
#pragma once

#include <ctattn/attention/projection.hpp>  // ctattn::linear
#include <ctattn/quantized/q16linear.hpp>

inline constexpr ctattn::quantization q_x16{0.0005}, q_p16{0.0004}, q_scores16{0.0003}, q_context16{0.0002};
inline constexpr ctattn::linear<float, 16, 16, ctattn::out_by_in, true> doc_projection{};
inline constexpr auto wq16 = ctattn::quantize_linear<q_x16, q_p16, std::int16_t>(doc_projection);
inline constexpr auto wk16 = wq16;
inline constexpr auto wv16 = wq16;
inline constexpr auto wo16 = ctattn::quantize_linear<q_context16, q_p16, std::int16_t>(doc_projection);
inline constexpr ctattn::q16matrix<6, 16, q_x16> x16{};
inline constexpr ctattn::q16matrix<6, 4, q_p16> q16{}, k16{}, v16{};
