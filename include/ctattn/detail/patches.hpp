// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_DETAIL_PATCHES_HPP
#define CTATTN_DETAIL_PATCHES_HPP

// How a patch embedding cuts its input (ctattn/layers/patch.hpp, and its int8 form in ctattn/quantized/patch.hpp):
// each patch gathered into one row in PyTorch's weight order (channel, then the offsets within the patch, as
// torch.nn.functional.unfold orders them), so that a linear map of the rows is the convolution. One definition of
// the cut for the float and the int8 layers, over any element type.

#include <cstddef>

namespace ctattn::detail {

// nn.Conv1d(Channels, D, Kernel, stride=Kernel): runs of Kernel rows of Channels columns.
template <std::size_t Channels, std::size_t Kernel>
struct patches_1d {
  static constexpr std::size_t width = Channels * Kernel;  // the entries of one gathered patch
  template <std::size_t Rows>
  static constexpr std::size_t tokens = Rows / Kernel;

  template <typename E, std::size_t Rows>
  static constexpr void gather(const E (&x)[Rows][Channels], E (&p)[Rows / Kernel][width]) noexcept {
    for (std::size_t token = 0; token < Rows / Kernel; ++token) {
      for (std::size_t c = 0; c < Channels; ++c) {
        for (std::size_t k = 0; k < Kernel; ++k) p[token][c * Kernel + k] = x[token * Kernel + k][c];
      }
    }
  }
};

// nn.Conv2d(Channels, D, (PatchHeight, PatchWidth), stride=(PatchHeight, PatchWidth)) over a Height x Width image
// given as Height Width rows of pixels (row-major), Channels columns: the patches row by row.
template <std::size_t Channels, std::size_t Height, std::size_t Width, std::size_t PatchHeight, std::size_t PatchWidth>
struct patches_2d {
  static constexpr bool whole =
      PatchHeight != 0 && PatchWidth != 0 && Height % PatchHeight == 0 && Width % PatchWidth == 0;
  static constexpr std::size_t across = whole ? Width / PatchWidth : 1;
  static constexpr std::size_t area = PatchHeight * PatchWidth;
  static constexpr std::size_t width = Channels * area;
  // 1 when the patch does not divide the image (refused by the layer's rule).
  template <std::size_t Rows>
  static constexpr std::size_t tokens = whole ? (Height / PatchHeight) * across : 1;

  template <typename E>
  static constexpr void gather(const E (&x)[Height * Width][Channels], E (&p)[tokens<0>][width]) noexcept {
    for (std::size_t token = 0; token < tokens<0>; ++token) {
      const std::size_t top = token / across * PatchHeight;
      const std::size_t left = token % across * PatchWidth;
      for (std::size_t i = 0; i < PatchHeight; ++i) {
        for (std::size_t j = 0; j < PatchWidth; ++j) {
          const auto& pixel = x[(top + i) * Width + left + j];
          for (std::size_t c = 0; c < Channels; ++c) p[token][c * area + i * PatchWidth + j] = pixel[c];
        }
      }
    }
  }
};

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_PATCHES_HPP
