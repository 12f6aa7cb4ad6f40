// Pictures of attention: writes two SVG heat maps with ctattn::write_svg_heatmap (ctattn/host/svg.hpp).
//   worked_example_attention_weights.svg   the reference text's worked example, "Life is short, eat dessert
//                                          first": softmax(Q K^T / sqrt(d_k)), 6 x 6, words on both axes
//   sinusoidal_position_encoding.svg        the sinusoidal position-encoding table, 50 positions x 128 dimensions
// Both matrices are computed by the compiler; the program only draws them.
//
// Usage: attention_svg [output directory]     (default: the current directory)
// docs/images/ holds the two pictures as this program writes them.
#include <ctattn/ctattn.hpp>
#include <ctattn/host/svg.hpp>
#include <ctattn/position/embedding.hpp>
#include <ctattn/position/sinusoidal.hpp>

#include "worked_example_model.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

struct position : ctattn::dimension<"position"> {};
constexpr auto attention_weights = ctattn::self_attention(embedded_sentence, head, ctattn::with_weights).weights;

// PE(t, 2i) = sin(t / 10000^(2i/D)), PE(t, 2i + 1) = cos(t / 10000^(2i/D)), for t < 50 and D = 128.
constexpr auto& encoding = ctattn::sinusoidal_table<float, position{50}, d_model{128}>;

namespace {

bool write_file(const std::filesystem::path& path, const auto& matrix, const ctattn::svg_heatmap_options& options) {
  std::ofstream file(path, std::ios::binary);
  ctattn::write_svg_heatmap(file, matrix, options);
  file.close();
  if (!file) {
    std::fprintf(stderr, "attention_svg: could not write %s\n", path.string().c_str());
    return false;
  }
  std::printf("wrote %s\n", path.string().c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path directory = argc > 1 ? argv[1] : ".";
  std::error_code error;
  std::filesystem::create_directories(directory, error);

  const std::vector<std::string> words(std::begin(data::words), std::end(data::words));
  const bool weights_written = write_file(directory / "worked_example_attention_weights.svg", attention_weights,
                                          {.title = "Attention weights: \"Life is short, eat dessert first\"",
                                           .row_labels = words,
                                           .column_labels = words,
                                           .row_axis_label = "query",
                                           .column_axis_label = "key",
                                           .colours = ctattn::colour_map::blues,
                                           .show_values = true,
                                           .value_decimals = 4,
                                           .minimum = 0.0,
                                           .maximum = 1.0,
                                           .cell_width = 64,
                                           .cell_height = 40});

  const bool encoding_written = write_file(directory / "sinusoidal_position_encoding.svg", encoding,
                                           {.title = "Sinusoidal position encoding, 50 positions x 128 dimensions",
                                            .row_axis_label = "position t",
                                            .column_axis_label = "dimension (even: sin, odd: cos)",
                                            .colours = ctattn::colour_map::red_blue,
                                            .value_decimals = 1,
                                            .minimum = -1.0,
                                            .maximum = 1.0,
                                            .cell_width = 6,
                                            .cell_height = 6,
                                            .cell_tooltips = false});
  return weights_written && encoding_written ? 0 : 1;
}
