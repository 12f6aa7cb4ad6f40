// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_HOST_SVG_HPP
#define CTATTN_HOST_SVG_HPP

/// \file
/// Host-only: heat maps of matrices as SVG pictures (attention weights, masked scores, position-encoding
/// tables). Not part of the core: it uses the standard library's strings, streams and exceptions, which firmware
/// builds do not have.
///
/// The output is a standalone SVG 1.1 document (UTF-8) that browsers, Inkscape and rsvg-convert render: one
/// `<rect class="cell">` per matrix element, coloured by a colour map, with row and column labels, an optional
/// title, optional values printed in the cells, and a colour scale. Labels and the title are escaped for XML.
/// Numbers are written with `std::to_chars`, so the stream's locale never changes them.
///
/// Example:
/// \code
///   #include <ctattn/host/svg.hpp>
///   #include <fstream>
///
///   std::ofstream file("weights.svg");
///   ctattn::write_svg_heatmap(file, weights, {.title = "Attention weights",
///                                             .row_labels = {"Life", "is", "short"},
///                                             .column_labels = {"Life", "is", "short"},
///                                             .show_values = true});
/// \endcode

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// The colours of a heat map, from the low end of the scale to the high end.
///
/// | value      | colours                          | suits                                        |
/// |------------|----------------------------------|----------------------------------------------|
/// | `viridis`  | dark violet, blue, green, yellow | any values; readable in grey and by most colour-blind readers |
/// | `blues`    | white to dark blue               | values from 0 up, such as attention weights  |
/// | `red_blue` | blue, white at the middle, red   | values of both signs around 0 (scores, position encodings); the default scale is then symmetric about 0 |
/// | `greys`    | white to black                   | printing                                     |
///
/// Example: `ctattn::svg_heatmap_options options{.colours = ctattn::colour_map::red_blue};`
enum class colour_map { viridis, blues, red_blue, greys };

/// What `write_svg_heatmap` draws besides the cells. Every member has a default, so designated initializers
/// can name only what differs.
///
/// Example:
/// \code
///   ctattn::svg_heatmap_options options{.title = "Sinusoidal position encoding",
///                                       .row_axis_label = "position t",
///                                       .column_axis_label = "dimension",
///                                       .colours = ctattn::colour_map::red_blue,
///                                       .cell_width = 6, .cell_height = 6};
/// \endcode
struct svg_heatmap_options {
  /// Drawn above the map and used as the document's `<title>`. Empty: no title line.
  std::string title{};
  /// One label per row, drawn left of the rows. Empty: the row indices, thinned out when rows are small.
  std::vector<std::string> row_labels{};
  /// One label per column, drawn above the columns (turned upright when wider than a cell). Empty: the column
  /// indices, thinned out when columns are narrow.
  std::vector<std::string> column_labels{};
  /// Names the row axis (for example "query"). Empty: the row extent's name for a named matrix, else nothing.
  std::string row_axis_label{};
  /// Names the column axis (for example "key"). Empty: the column extent's name for a named matrix, else nothing.
  std::string column_axis_label{};
  /// The colour map (see `colour_map`).
  colour_map colours = colour_map::viridis;
  /// Print each value in its cell, in black or white, whichever reads better on the cell's colour. Skipped
  /// when the cells are too small for the text.
  bool show_values = false;
  /// Digits after the decimal point of the printed values and of the colour scale's labels.
  int value_decimals = 2;
  /// The value at the low end of the colour scale. Empty: the smallest finite value (for `red_blue`,
  /// -max|value|). Values below it take the lowest colour.
  std::optional<double> minimum{};
  /// The value at the high end of the colour scale. Empty: the largest finite value (for `red_blue`,
  /// +max|value|). Values above it take the highest colour.
  std::optional<double> maximum{};
  /// Width of a cell in SVG user units (pixels at 100 %).
  double cell_width = 48;
  /// Height of a cell in SVG user units.
  double cell_height = 32;
  /// Draw the colour scale right of the map.
  bool show_colour_scale = true;
  /// Give each cell a `<title>` ("row, column: value") that browsers show on hover. Turn off for large
  /// matrices to keep the file small.
  bool cell_tooltips = true;
};

namespace detail::svg {

inline constexpr double font_size = 12.0;
inline constexpr double title_font_size = 16.0;
inline constexpr double margin = 12.0;
inline constexpr double gap = 6.0;
// Average advance of a character of a sans-serif font, as a fraction of the font size: enough to lay labels
// out without measuring them.
inline constexpr double char_width = 0.62;
inline constexpr std::string_view non_finite_fill = "#d9d9d9";

struct rgb {
  double r;
  double g;
  double b;
};

constexpr rgb from_hex(std::uint32_t hex) noexcept {
  return {static_cast<double>((hex >> 16) & 0xffU), static_cast<double>((hex >> 8) & 0xffU),
          static_cast<double>(hex & 0xffU)};
}

// Anchor colours of each map, evenly spaced from the low end to the high end; colours in between are
// interpolated linearly in sRGB. viridis: matplotlib's map sampled at 0, 0.1, ..., 1; blues, red_blue and
// greys: ColorBrewer's Blues-9, RdBu-11 (reversed, so that low is blue) and Greys-9.
inline constexpr std::array<std::uint32_t, 11> viridis_anchors{
    0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c, 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
inline constexpr std::array<std::uint32_t, 9> blues_anchors{0xf7fbff, 0xdeebf7, 0xc6dbef, 0x9ecae1, 0x6baed6,
                                                            0x4292c6, 0x2171b5, 0x08519c, 0x08306b};
inline constexpr std::array<std::uint32_t, 11> red_blue_anchors{
    0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7, 0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};
inline constexpr std::array<std::uint32_t, 9> greys_anchors{0xffffff, 0xf0f0f0, 0xd9d9d9, 0xbdbdbd, 0x969696,
                                                            0x737373, 0x525252, 0x252525, 0x000000};

inline std::span<const std::uint32_t> anchors(colour_map map) noexcept {
  switch (map) {
    case colour_map::blues:
      return blues_anchors;
    case colour_map::red_blue:
      return red_blue_anchors;
    case colour_map::greys:
      return greys_anchors;
    case colour_map::viridis:
      break;
  }
  return viridis_anchors;
}

// The colour at t in [0, 1] (clamped).
inline rgb colour_at(colour_map map, double t) noexcept {
  const std::span<const std::uint32_t> a = anchors(map);
  if (!(t > 0.0)) return from_hex(a.front());
  if (t >= 1.0) return from_hex(a.back());
  const double position = t * static_cast<double>(a.size() - 1);
  const auto low = static_cast<std::size_t>(position);
  const double f = position - static_cast<double>(low);
  const rgb c0 = from_hex(a[low]);
  const rgb c1 = from_hex(a[low + 1]);
  return {c0.r + f * (c1.r - c0.r), c0.g + f * (c1.g - c0.g), c0.b + f * (c1.b - c0.b)};
}

inline std::string hex_colour(rgb c) {
  constexpr std::string_view digits = "0123456789abcdef";
  std::string text = "#";
  for (const double channel : {c.r, c.g, c.b}) {
    const auto v = static_cast<unsigned>(std::clamp(std::lround(channel), 0L, 255L));
    text += digits[v >> 4U];
    text += digits[v & 0xfU];
  }
  return text;
}

// An sRGB channel (0 to 255) as linear light (0 to 1).
inline double linear_light(double channel) noexcept {
  const double s = channel / 255.0;
  return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}

// Black text on light colours, white on dark ones (WCAG relative luminance).
inline std::string_view text_colour_on(rgb c) noexcept {
  const double luminance = 0.2126 * linear_light(c.r) + 0.7152 * linear_light(c.g) + 0.0722 * linear_light(c.b);
  return luminance > 0.18 ? "#000000" : "#ffffff";
}

// A number in fixed notation, locale-independent; "-0.00" is written "0.00".
inline std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  const auto [end, error] =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, decimals);
  if (error != std::errc{}) {
    // Only a huge magnitude overflows the buffer: write it in scientific notation.
    const auto [end2, error2] =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific, 3);
    return error2 == std::errc{} ? std::string(buffer.data(), end2) : std::string("?");
  }
  std::string text(buffer.data(), end);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

// A label of the colour scale: fixed decimals, trailing zeros dropped (0.25, 0.5, 1).
inline std::string scale_label(double value, int decimals) {
  std::string text = fixed(value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? std::string("0") : text;
}

// A coordinate: at most 2 decimals, trailing zeros dropped.
inline std::string coordinate(double value) { return scale_label(value, 2); }

// A value as a cell shows it: fixed decimals, or NaN, inf, -inf.
inline std::string value_text(double value, int decimals) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fixed(value, decimals);
}

// Decodes one UTF-8 sequence at text[i]; returns its length, or 0 when it is not valid UTF-8 or not a character
// XML 1.0 allows.
inline std::size_t valid_utf8_length(std::string_view text, std::size_t i) noexcept {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  std::uint32_t minimum = 0;
  if (lead < 0x80U) return (lead >= 0x20U || lead == '\t' || lead == '\n' || lead == '\r') ? 1 : 0;
  if ((lead & 0xe0U) == 0xc0U) {
    length = 2;
    code = lead & 0x1fU;
    minimum = 0x80U;
  } else if ((lead & 0xf0U) == 0xe0U) {
    length = 3;
    code = lead & 0x0fU;
    minimum = 0x800U;
  } else if ((lead & 0xf8U) == 0xf0U) {
    length = 4;
    code = lead & 0x07U;
    minimum = 0x10000U;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xc0U) != 0x80U) return 0;
    code = (code << 6U) | (next & 0x3fU);
  }
  const bool surrogate = code >= 0xd800U && code <= 0xdfffU;
  const bool not_a_character = code == 0xfffeU || code == 0xffffU;
  return (code < minimum || code > 0x10ffffU || surrogate || not_a_character) ? 0 : length;
}

// The number of characters of a UTF-8 string (for laying labels out).
inline std::size_t character_count(std::string_view text) noexcept {
  std::size_t count = 0;
  for (const char c : text) count += (static_cast<unsigned char>(c) & 0xc0U) != 0x80U ? 1 : 0;
  return count;
}

inline double text_width(std::string_view text, double size) noexcept {
  return static_cast<double>(character_count(text)) * char_width * size;
}

// Text made safe for XML character data and attribute values: the five special characters become entities,
// bytes that are not valid UTF-8 become U+FFFD, and control characters that XML 1.0 forbids are dropped.
inline std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&apos;";
        ++i;
        continue;
      default:
        break;
    }
    const std::size_t length = valid_utf8_length(text, i);
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      if (static_cast<unsigned char>(c) >= 0x80U) out += "\xef\xbf\xbd";  // U+FFFD for a byte that is not UTF-8
      ++i;
    }
  }
  return out;
}

// The smallest step among 1, 2, 5, 10, 20, 50, ... such that labels every `step` cells of `cell` units do not
// overlap labels `label` units long.
inline std::size_t label_step(double cell, double label) noexcept {
  for (std::size_t decade = 1;; decade *= 10) {
    for (const std::size_t m : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
      if (static_cast<double>(m * decade) * cell >= label || decade > 1000000) return m * decade;
    }
  }
}

// The labels of one axis: the caller's, or indices. `step` says which ones are drawn.
struct axis_labels {
  std::vector<std::string> text;
  std::size_t step = 1;
  double longest = 0;  // width of the longest drawn label
};

inline axis_labels make_labels(const std::vector<std::string>& given, std::size_t count, double cell, bool across,
                               std::string_view what) {
  axis_labels labels;
  if (!given.empty()) {
    if (given.size() != count) {
      throw std::invalid_argument("ctattn::write_svg_heatmap: " + std::string(what) + " has " +
                                  std::to_string(given.size()) + " labels for " + std::to_string(count) +
                                  " entries; give one label per entry, or none for indices");
    }
    labels.text = given;
  } else {
    labels.text.reserve(count);
    for (std::size_t i = 0; i < count; ++i) labels.text.push_back(std::to_string(i));
    // Index labels are thinned out so that they never overlap: along a row of columns a label needs its
    // width, down a column of rows its height.
    const double needed =
        across ? text_width(std::to_string(count > 0 ? count - 1 : 0), font_size) + 4.0 : font_size + 2.0;
    labels.step = label_step(cell, needed);
  }
  for (std::size_t i = 0; i < labels.text.size(); i += labels.step) {
    labels.longest = std::max(labels.longest, text_width(labels.text[i], font_size));
  }
  return labels;
}

// The colour scale's range: from the options, else from the finite values (symmetric about 0 for red-blue), widened
// about its middle when it is empty or reversed; and whether any value is finite, any not.
struct scale_range {
  double low = 0.0;
  double high = 1.0;
  bool any_non_finite = false;
};
inline scale_range colour_scale_range(std::span<const double> values, const svg_heatmap_options& options) noexcept {
  bool any_finite = false;
  scale_range r{0.0, 0.0, false};
  for (const double v : values) {
    if (!std::isfinite(v)) {
      r.any_non_finite = true;
    } else if (!any_finite) {
      r.low = r.high = v;
      any_finite = true;
    } else {
      r.low = std::min(r.low, v);
      r.high = std::max(r.high, v);
    }
  }
  if (options.colours == colour_map::red_blue && any_finite) {
    const double extent = std::max(std::abs(r.low), std::abs(r.high));
    r.low = -extent;
    r.high = extent;
  }
  if (options.minimum && std::isfinite(*options.minimum)) r.low = *options.minimum;
  if (options.maximum && std::isfinite(*options.maximum)) r.high = *options.maximum;
  if (!any_finite && !options.minimum && !options.maximum) {
    r.low = 0.0;
    r.high = 1.0;
  }
  if (!(r.high > r.low)) {  // a constant matrix, or a reversed range: centre the values on the scale
    const double half = r.low == 0.0 ? 1.0 : std::abs(r.low) * 0.5;
    const double middle = (r.low + r.high) * 0.5;
    r.low = middle - half;
    r.high = middle + half;
  }
  return r;
}

// Where everything goes. Left to right: row axis label, row labels, cells, colour scale; top to bottom: title,
// column axis label, column labels, cells.
struct heatmap_layout {
  std::size_t rows = 0;
  std::size_t cols = 0;
  double cw = 0.0;  // a cell's width and height
  double ch = 0.0;
  int decimals = 0;
  scale_range range;
  axis_labels row_text;
  axis_labels column_text;
  bool upright_columns = false;
  double title_height = 0.0;
  double grid_x = 0.0;
  double grid_y = 0.0;
  double grid_width = 0.0;
  double grid_height = 0.0;
  bool empty = false;
  double drawn_height = 0.0;
  double scale_x = 0.0;
  double scale_height = 0.0;
  bool draw_scale = false;
  double empty_note_width = 0.0;
  double width = 0.0;
  double height = 0.0;
  std::string gradient_id;

  static constexpr double scale_bar_width = 14.0;
  static constexpr std::size_t scale_ticks = 5;

  // The fill of a finite value.
  [[nodiscard]] rgb colour(colour_map map, double value) const noexcept {
    return colour_at(map, (value - range.low) / (range.high - range.low));
  }
};

inline heatmap_layout layout_heatmap(std::span<const double> values, std::size_t rows, std::size_t cols,
                                     const svg_heatmap_options& options) {
  heatmap_layout l;
  l.rows = rows;
  l.cols = cols;
  l.cw = options.cell_width;
  l.ch = options.cell_height;
  l.decimals = std::clamp(options.value_decimals, 0, 12);
  l.range = colour_scale_range(values.first(rows * cols), options);
  l.row_text = make_labels(options.row_labels, rows, l.ch, false, "row_labels");
  l.column_text = make_labels(options.column_labels, cols, l.cw, true, "column_labels");
  l.upright_columns = l.column_text.longest > l.cw * static_cast<double>(l.column_text.step) - 4.0;
  const double column_label_height = cols == 0 ? 0.0 : (l.upright_columns ? l.column_text.longest : font_size) + gap;
  const double row_label_width = rows == 0 ? 0.0 : l.row_text.longest + gap;
  l.title_height = options.title.empty() ? 0.0 : title_font_size + 2 * gap;
  const double row_axis_width = options.row_axis_label.empty() ? 0.0 : font_size + gap;
  const double column_axis_height = options.column_axis_label.empty() ? 0.0 : font_size + gap;

  // Whole-unit origin: cell edges then fall on pixel boundaries at 100 %.
  l.grid_x = std::ceil(margin + row_axis_width + row_label_width);
  l.grid_y = std::ceil(margin + l.title_height + column_axis_height + column_label_height);
  l.grid_width = l.cw * static_cast<double>(cols);
  l.grid_height = l.ch * static_cast<double>(rows);
  l.empty = rows == 0 || cols == 0;
  l.drawn_height = l.empty ? 2 * font_size : l.grid_height;

  l.scale_x = l.grid_x + l.grid_width + 2 * gap;
  l.scale_height = std::max(l.drawn_height, 96.0);
  double scale_label_width = 0.0;
  for (std::size_t t = 0; t < heatmap_layout::scale_ticks; ++t) {
    const double v = l.range.low + (l.range.high - l.range.low) * static_cast<double>(t) /
                                       static_cast<double>(heatmap_layout::scale_ticks - 1);
    scale_label_width = std::max(scale_label_width, text_width(scale_label(v, l.decimals), font_size));
  }
  if (l.range.any_non_finite) scale_label_width = std::max(scale_label_width, text_width("not finite", font_size));
  l.draw_scale = options.show_colour_scale && !l.empty;
  const double non_finite_key_height = l.range.any_non_finite ? font_size + 2 * gap : 0.0;
  const double scale_width = l.draw_scale ? 2 * gap + heatmap_layout::scale_bar_width + 4.0 + scale_label_width : 0.0;
  const double title_width = text_width(options.title, title_font_size);
  l.empty_note_width = l.empty ? text_width("(empty matrix)", font_size) : 0.0;
  l.width = std::max(l.grid_x + std::max(l.grid_width, l.empty_note_width) + scale_width + margin,
                     2 * margin + std::max(title_width, 40.0));
  const double body_height =
      l.draw_scale ? std::max(l.drawn_height, l.scale_height + non_finite_key_height) : l.drawn_height;
  l.height = l.grid_y + body_height + margin;

  const std::string map_name = options.colours == colour_map::blues      ? "blues"
                               : options.colours == colour_map::red_blue ? "red-blue"
                               : options.colours == colour_map::greys    ? "greys"
                                                                         : "viridis";
  l.gradient_id = "ctattn-scale-" + map_name;
  return l;
}

// The document's head: the svg element, its title and description, the scale's gradient, the background.
inline void write_heatmap_head(std::ostream& out, const heatmap_layout& l, const svg_heatmap_options& options) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << coordinate(l.width) << "\" height=\""
      << coordinate(l.height) << "\" viewBox=\"0 0 " << coordinate(l.width) << ' ' << coordinate(l.height)
      << "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" font-size=\"" << coordinate(font_size) << "\">\n";
  out << "<title>" << escape(options.title.empty() ? std::string("heat map") : options.title) << "</title>\n";
  out << "<desc>" << std::to_string(l.rows) << " x " << std::to_string(l.cols)
      << " heat map written by ctattn::write_svg_heatmap</desc>\n";
  if (l.draw_scale) {
    const std::span<const std::uint32_t> a = anchors(options.colours);
    out << "<defs>\n<linearGradient id=\"" << l.gradient_id << "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
    for (std::size_t k = 0; k < a.size(); ++k) {
      out << "<stop offset=\"" << coordinate(static_cast<double>(k) / static_cast<double>(a.size() - 1))
          << "\" stop-color=\"" << hex_colour(from_hex(a[k])) << "\"/>\n";
    }
    out << "</linearGradient>\n</defs>\n";
  }
  out << "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" << coordinate(l.width) << "\" height=\""
      << coordinate(l.height) << "\" fill=\"#ffffff\"/>\n";
}

// The title, the axis labels and the row and column labels.
inline void write_heatmap_labels(std::ostream& out, const heatmap_layout& l, const svg_heatmap_options& options) {
  if (!options.title.empty()) {
    out << "<text class=\"title\" x=\"" << coordinate(margin) << "\" y=\"" << coordinate(margin + title_font_size)
        << "\" font-size=\"" << coordinate(title_font_size) << "\" font-weight=\"bold\">" << escape(options.title)
        << "</text>\n";
  }
  if (!options.column_axis_label.empty()) {
    out << "<text class=\"axis-label\" x=\"" << coordinate(l.grid_x + std::max(l.grid_width, l.empty_note_width) / 2)
        << "\" y=\"" << coordinate(margin + l.title_height + font_size)
        << "\" text-anchor=\"middle\" font-style=\"italic\">" << escape(options.column_axis_label) << "</text>\n";
  }
  if (!options.row_axis_label.empty()) {
    const double x = margin + font_size;
    const double y = l.grid_y + l.drawn_height / 2;
    out << "<text class=\"axis-label\" x=\"" << coordinate(x) << "\" y=\"" << coordinate(y)
        << "\" text-anchor=\"middle\" font-style=\"italic\" transform=\"rotate(-90 " << coordinate(x) << ' '
        << coordinate(y) << ")\">" << escape(options.row_axis_label) << "</text>\n";
  }
  if (l.cols > 0) {
    out << "<g class=\"column-labels\" fill=\"#222222\">\n";
    for (std::size_t j = 0; j < l.cols; j += l.column_text.step) {
      const double x = l.grid_x + l.cw * (static_cast<double>(j) + 0.5);
      const double y = l.grid_y - gap;
      if (l.upright_columns) {
        // Read bottom to top, ending just above the column.
        out << "<text x=\"" << coordinate(x) << "\" y=\"" << coordinate(y) << "\" dy=\"0.35em\" transform=\"rotate(-90 "
            << coordinate(x) << ' ' << coordinate(y) << ")\">" << escape(l.column_text.text[j]) << "</text>\n";
      } else {
        out << "<text x=\"" << coordinate(x) << "\" y=\"" << coordinate(y) << "\" text-anchor=\"middle\">"
            << escape(l.column_text.text[j]) << "</text>\n";
      }
    }
    out << "</g>\n";
  }
  if (l.rows > 0) {
    out << "<g class=\"row-labels\" fill=\"#222222\" text-anchor=\"end\">\n";
    for (std::size_t i = 0; i < l.rows; i += l.row_text.step) {
      out << "<text x=\"" << coordinate(l.grid_x - gap) << "\" y=\""
          << coordinate(l.grid_y + l.ch * (static_cast<double>(i) + 0.5)) << "\" dy=\"0.35em\">"
          << escape(l.row_text.text[i]) << "</text>\n";
    }
    out << "</g>\n";
  }
}

// The cells and their frame. crispEdges keeps renderers from drawing hairline seams between neighbours.
inline void write_heatmap_cells(std::ostream& out, std::span<const double> values, const heatmap_layout& l,
                                const svg_heatmap_options& options) {
  out << "<g class=\"cells\" shape-rendering=\"crispEdges\">\n";
  for (std::size_t i = 0; i < l.rows; ++i) {
    for (std::size_t j = 0; j < l.cols; ++j) {
      const double v = values[i * l.cols + j];
      const std::string fill =
          std::isfinite(v) ? hex_colour(l.colour(options.colours, v)) : std::string(non_finite_fill);
      out << "<rect class=\"cell\" x=\"" << coordinate(l.grid_x + l.cw * static_cast<double>(j)) << "\" y=\""
          << coordinate(l.grid_y + l.ch * static_cast<double>(i)) << "\" width=\"" << coordinate(l.cw) << "\" height=\""
          << coordinate(l.ch) << "\" fill=\"" << fill << '"';
      if (options.cell_tooltips) {
        out << "><title>" << escape(l.row_text.text[i]) << ", " << escape(l.column_text.text[j]) << ": "
            << value_text(v, std::max(l.decimals, 4)) << "</title></rect>\n";
      } else {
        out << "/>\n";
      }
    }
  }
  out << "</g>\n";
  out << "<rect class=\"frame\" x=\"" << coordinate(l.grid_x) << "\" y=\"" << coordinate(l.grid_y) << "\" width=\""
      << coordinate(l.grid_width) << "\" height=\"" << coordinate(l.grid_height)
      << "\" fill=\"none\" stroke=\"#444444\" stroke-width=\"0.5\"/>\n";
}

// The values printed on their cells, when the longest fits: below 6 units they would not be readable.
inline void write_heatmap_values(std::ostream& out, std::span<const double> values, const heatmap_layout& l,
                                 const svg_heatmap_options& options) {
  double longest = 0.0;
  for (std::size_t i = 0; i < l.rows; ++i) {
    for (std::size_t j = 0; j < l.cols; ++j) {
      longest = std::max(longest, static_cast<double>(character_count(value_text(values[i * l.cols + j], l.decimals))));
    }
  }
  const double size = std::min({font_size, l.ch * 0.6, (l.cw - 4.0) / (char_width * std::max(longest, 1.0))});
  if (size < 6.0) return;
  out << "<g class=\"values\" text-anchor=\"middle\" font-size=\"" << coordinate(size) << "\">\n";
  for (std::size_t i = 0; i < l.rows; ++i) {
    for (std::size_t j = 0; j < l.cols; ++j) {
      const double v = values[i * l.cols + j];
      const std::string_view ink = std::isfinite(v) ? text_colour_on(l.colour(options.colours, v)) : "#555555";
      out << "<text x=\"" << coordinate(l.grid_x + l.cw * (static_cast<double>(j) + 0.5)) << "\" y=\""
          << coordinate(l.grid_y + l.ch * (static_cast<double>(i) + 0.5)) << "\" dy=\"0.35em\" fill=\"" << ink << "\">"
          << value_text(v, l.decimals) << "</text>\n";
    }
  }
  out << "</g>\n";
}

// The colour scale: the gradient bar, its ticks and labels, and the key of non-finite values.
inline void write_heatmap_scale(std::ostream& out, const heatmap_layout& l) {
  const double bar_x = l.scale_x;
  const double bar_y = l.grid_y;
  const double bar_width = heatmap_layout::scale_bar_width;
  out << "<g class=\"colour-scale\">\n";
  out << "<rect x=\"" << coordinate(bar_x) << "\" y=\"" << coordinate(bar_y) << "\" width=\"" << coordinate(bar_width)
      << "\" height=\"" << coordinate(l.scale_height) << "\" fill=\"url(#" << l.gradient_id
      << ")\" stroke=\"#444444\" stroke-width=\"0.5\"/>\n";
  for (std::size_t t = 0; t < heatmap_layout::scale_ticks; ++t) {
    const double fraction = static_cast<double>(t) / static_cast<double>(heatmap_layout::scale_ticks - 1);
    const double y = bar_y + l.scale_height * (1.0 - fraction);
    out << "<line x1=\"" << coordinate(bar_x + bar_width) << "\" y1=\"" << coordinate(y) << "\" x2=\""
        << coordinate(bar_x + bar_width + 3.0) << "\" y2=\"" << coordinate(y)
        << "\" stroke=\"#444444\" stroke-width=\"0.5\"/>\n";
    out << "<text x=\"" << coordinate(bar_x + bar_width + 5.0) << "\" y=\"" << coordinate(y)
        << "\" dy=\"0.35em\" fill=\"#222222\">"
        << scale_label(l.range.low + (l.range.high - l.range.low) * fraction, l.decimals) << "</text>\n";
  }
  if (l.range.any_non_finite) {
    const double y = bar_y + l.scale_height + 2 * gap;
    out << "<rect x=\"" << coordinate(bar_x) << "\" y=\"" << coordinate(y) << "\" width=\"" << coordinate(bar_width)
        << "\" height=\"" << coordinate(font_size) << "\" fill=\"" << non_finite_fill
        << "\" stroke=\"#444444\" stroke-width=\"0.5\"/>\n";
    out << "<text x=\"" << coordinate(bar_x + bar_width + 5.0) << "\" y=\"" << coordinate(y + font_size / 2)
        << "\" dy=\"0.35em\" fill=\"#222222\">not finite</text>\n";
  }
  out << "</g>\n";
}

// Writes the document. `values[i * cols + j]` is element (i, j); values.size() == rows * cols.
// Rationale: not a template, and no lambda takes a parameter here: GCC's -Wshadow reports a lambda parameter
// of an instantiated template that has the name of one of the user's globals (say `x` or `v`).
inline void write_heatmap(std::ostream& out, std::span<const double> values, std::size_t rows, std::size_t cols,
                          const svg_heatmap_options& options) {
  if (!(options.cell_width > 0.0) || !(options.cell_height > 0.0)) {
    throw std::invalid_argument("ctattn::write_svg_heatmap: cell_width and cell_height must be positive");
  }
  const heatmap_layout l = layout_heatmap(values, rows, cols, options);
  write_heatmap_head(out, l, options);
  write_heatmap_labels(out, l, options);
  if (l.empty) {
    out << "<text class=\"empty\" x=\"" << coordinate(l.grid_x) << "\" y=\"" << coordinate(l.grid_y + font_size)
        << "\" fill=\"#666666\">(empty matrix)</text>\n";
    out << "</svg>\n";
    return;
  }
  write_heatmap_cells(out, values, l, options);
  if (options.show_values) write_heatmap_values(out, values, l, options);
  if (l.draw_scale) write_heatmap_scale(out, l);
  out << "</svg>\n";
}

template <typename T>
void write_span(std::ostream& out, std::span<const T> values, std::size_t rows, std::size_t cols,
                const svg_heatmap_options& options) {
  if ((cols != 0 && rows > values.size() / cols) || values.size() != rows * cols) {
    throw std::invalid_argument("ctattn::write_svg_heatmap: values must hold rows x cols elements, row by row");
  }
  if constexpr (std::is_same_v<T, double>) {
    write_heatmap(out, values, rows, cols, options);
  } else {
    const std::vector<double> widened(values.begin(), values.end());
    write_heatmap(out, widened, rows, cols, options);
  }
}

}  // namespace detail::svg

/// Writes a heat map of a matrix to `out` as a standalone SVG 1.1 document.
///
/// | operand   | shape / meaning                                                    |
/// |-----------|--------------------------------------------------------------------|
/// | `out`     | any `std::ostream` (a file, a `std::ostringstream`); opened in text or binary mode |
/// | `m`       | M x N: one cell per element, row i at the top of row i + 1         |
/// | `options` | labels, title, colours, values (see `svg_heatmap_options`)         |
///
/// Cells are coloured by position on the colour scale; NaN and infinite elements (a masked score is -inf) are
/// drawn grey, printed as `NaN`, `inf` or `-inf`, kept out of the scale's default range, and named by a key
/// under the scale. When the matrix's extents are named and the options leave the axis labels empty, the
/// extent names label the axes.
///
/// Throws `std::invalid_argument` when a label list is neither empty nor one label per row (column), or a cell
/// size is not positive. The stream's own failures are left in its state, as for any `operator<<`.
///
/// Example:
/// \code
///   auto [context, weights] = ctattn::self_attention(x, head, ctattn::with_weights);   // weights: seq x seq
///   std::ofstream file("weights.svg");
///   ctattn::write_svg_heatmap(file, weights, {.title = "Attention weights", .show_values = true});
/// \endcode
template <typename T, auto M, auto N>
void write_svg_heatmap(std::ostream& out, const basic_matrix<T, M, N>& m, const svg_heatmap_options& options = {}) {
  svg_heatmap_options named = options;
  if (named.row_axis_label.empty()) named.row_axis_label = std::string(extent_name(M));
  if (named.column_axis_label.empty()) named.column_axis_label = std::string(extent_name(N));
  using matrix_type = basic_matrix<T, M, N>;
  std::vector<double> values;
  values.reserve(matrix_type::size);
  for (std::size_t i = 0; i < matrix_type::rows; ++i) {
    for (std::size_t j = 0; j < matrix_type::cols; ++j) values.push_back(static_cast<double>(m.elements[i][j]));
  }
  detail::svg::write_heatmap(out, values, matrix_type::rows, matrix_type::cols, named);
}

/// Writes a heat map of `rows` x `cols` values stored row by row (`values[i * cols + j]` is element (i, j)), for
/// tables that are not a `ctattn::matrix`: sizes known only at run time, or an empty table (rows or cols 0),
/// which gives a valid document that says "(empty matrix)".
///
/// Throws `std::invalid_argument` when `values.size() != rows * cols`, and as the matrix overload does.
///
/// Example:
/// \code
///   std::vector<double> table(rows * cols);   // filled at run time
///   ctattn::write_svg_heatmap(std::cout, table, rows, cols, {.colours = ctattn::colour_map::blues});
/// \endcode
inline void write_svg_heatmap(std::ostream& out, std::span<const double> values, std::size_t rows, std::size_t cols,
                              const svg_heatmap_options& options = {}) {
  detail::svg::write_span(out, values, rows, cols, options);
}

/// The `float` version of the overload above.
///
/// Example:
/// \code
///   std::vector<float> table(rows * cols);
///   ctattn::write_svg_heatmap(std::cout, table, rows, cols);
/// \endcode
inline void write_svg_heatmap(std::ostream& out, std::span<const float> values, std::size_t rows, std::size_t cols,
                              const svg_heatmap_options& options = {}) {
  detail::svg::write_span(out, values, rows, cols, options);
}

/// The SVG document of `write_svg_heatmap(out, m, options)` as a string (to embed in HTML or to test).
///
/// Example:
/// \code
///   const std::string svg = ctattn::svg_heatmap(weights, {.title = "Attention weights"});
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] std::string svg_heatmap(const basic_matrix<T, M, N>& m, const svg_heatmap_options& options = {}) {
  std::ostringstream out;
  write_svg_heatmap(out, m, options);
  return std::move(out).str();
}

}  // namespace ctattn

#endif  // CTATTN_HOST_SVG_HPP
