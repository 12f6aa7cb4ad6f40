// The synthetic keyword task of the keyword-spotting example, in C++: the same numbers as train_keyword_spotter.py's
// generator (integers only, so both languages give the same bits), at compile time and at run time.
//
// A sample is one second of "audio" as a keyword spotter sees it: 49 frames of 10 MFCC-like features. Four
// "phonemes" are spectral shapes over the 10 features; each keyword is three of them in an order of its own, each
// held for 4 to 7 frames, starting anywhere in the second, at a random loudness, in noise. Class 0 is background:
// noise and one phoneme alone. The order of the phonemes is what tells keywords 1 and 2 apart (the same phonemes,
// reversed), so a model has to see where each one is: attention over the frames and positions.
//
// | value        | shape                           |
// |--------------|---------------------------------|
// | frames       | 49 x 10 floats, k / 32 for integers k |
// | label        | 0 (background) to 4             |
//
// Example:
//   constexpr auto s = keyword_data::sample_at(keyword_data::test_seed, 0);   // s.label, s.frames
#pragma once

#include <cstddef>
#include <cstdint>

#include <ctattn/matrix/matrix.hpp>

namespace keyword_data {

inline constexpr std::size_t frame_count = 49;
inline constexpr std::size_t features = 10;
inline constexpr std::size_t classes = 5;

/// The seeds of the training, the held-out (test) and the calibration samples (train_keyword_spotter.py's).
inline constexpr std::uint32_t train_seed = 0x7261'696eu;
inline constexpr std::uint32_t test_seed = 0x7465'7374u;
inline constexpr std::uint32_t calibration_seed = 0x6361'6c69u;

/// The phonemes' spectral shapes, and each keyword's three phonemes in order.
inline constexpr int shapes[4][features] = {{8, 6, 3, 0, -3, -5, -6, -4, -2, 0},
                                            {-4, -2, 2, 6, 8, 6, 2, -2, -4, -6},
                                            {0, -3, -6, -4, 0, 3, 6, 8, 6, 3},
                                            {5, -5, 5, -5, 5, -5, 5, -5, 5, -5}};
inline constexpr int keywords[4][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 3}, {3, 1, 2}};

struct xorshift32 {
  std::uint32_t state;
  constexpr std::uint32_t next() noexcept {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

struct sample {
  int label;
  ctattn::matrix<float, frame_count, features> frames;
};

/// The sample from one generator state.
constexpr sample draw(xorshift32& g) noexcept {
  sample s{};
  s.label = static_cast<int>(g.next() % classes);
  int grid[frame_count][features]{};
  for (auto& row : grid) {
    for (int& cell : row) cell = static_cast<int>(g.next() % 49u) - 24;
  }
  const int gain = 2 + static_cast<int>(g.next() % 3u);
  int phonemes[3]{};
  int count = 3;
  if (s.label == 0) {
    phonemes[0] = static_cast<int>(g.next() % 4u);
    count = 1;
  } else {
    for (int i = 0; i < 3; ++i) phonemes[i] = keywords[s.label - 1][i];
  }
  int durations[3]{};
  int total = 0;
  for (int i = 0; i < count; ++i) {
    durations[i] = 4 + static_cast<int>(g.next() % 4u);
    total += durations[i];
  }
  int t = static_cast<int>(g.next() % static_cast<std::uint32_t>(static_cast<int>(frame_count) - total + 1));
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < durations[i]; ++k, ++t) {
      for (std::size_t f = 0; f < features; ++f) grid[t][f] += gain * shapes[phonemes[i]][f];
    }
  }
  for (std::size_t r = 0; r < frame_count; ++r) {
    for (std::size_t f = 0; f < features; ++f) s.frames(r, f) = static_cast<float>(grid[r][f]) / 32.0f;
  }
  return s;
}

/// Sample `index` of the set with `seed`: each sample has a generator of its own, seeded from both.
constexpr sample sample_at(std::uint32_t seed, std::uint32_t index) noexcept {
  xorshift32 g{seed ^ (index * 0x9E37'79B9u + 1u)};
  if (g.state == 0) g.state = 1;
  for (int i = 0; i < 4; ++i) (void)g.next();
  return draw(g);
}

/// The keyword a row of logits (1 x classes, float or int8) picks: the index of the largest, the first of equal
/// ones.
///
/// \code
/// const int heard = keyword_data::keyword_of(model.forward(sample_at(test_seed, 0).frames));
/// \endcode
template <typename Logits>
constexpr int keyword_of(const Logits& logits) noexcept {
  int best = 0;
  for (std::size_t c = 1; c < classes; ++c) {
    if (logits(0, c) > logits(0, static_cast<std::size_t>(best))) best = static_cast<int>(c);
  }
  return best;
}

}  // namespace keyword_data
