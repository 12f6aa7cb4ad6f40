// Run-time tests of the SVG heat-map writer (ctattn/host/svg.hpp): the output is well-formed XML with an SVG 1.1
// root, one cell per element, labels escaped, and edge cases (NaN, infinities, an empty table, a constant
// matrix, bad arguments) handled.
#include "catch.hpp"

#include <ctattn/host/svg.hpp>
#include <ctattn/matrix/matrix.hpp>

#include <cstddef>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct query : ctattn::dimension<"query"> {};
struct key : ctattn::dimension<"key"> {};

// A small XML checker, enough for what the writer emits: a declaration, elements with quoted attributes,
// character data and the predefined entities (no comments, CDATA or DTD). Returns an empty string when the
// document is well-formed, else what is wrong. It also counts the elements by name.
struct xml_report {
  std::string error;
  std::vector<std::string> elements;  // every start tag's name, in order
  std::string root;
};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == ':' || c == '.';
}

// Checks that every '&' in character data or an attribute value starts a predefined entity.
bool entities_valid(std::string_view text) {
  for (std::size_t i = text.find('&'); i != std::string_view::npos; i = text.find('&', i + 1)) {
    const std::string_view rest = text.substr(i);
    bool known = false;
    for (const std::string_view entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      known = known || rest.substr(0, entity.size()) == entity;
    }
    if (!known) return false;
  }
  return true;
}

xml_report check_xml(std::string_view doc) {
  xml_report report;
  std::vector<std::string> open;
  std::size_t i = 0;
  const auto fail = [&](std::string what) {
    report.error = what + " at offset " + std::to_string(i);
    return report;
  };
  if (doc.substr(0, 5) != "<?xml") return fail("no XML declaration");
  i = doc.find("?>");
  if (i == std::string_view::npos) return fail("unterminated declaration");
  i += 2;
  bool seen_root = false;
  while (i < doc.size()) {
    const std::size_t lt = doc.find('<', i);
    const std::string_view text = doc.substr(i, (lt == std::string_view::npos ? doc.size() : lt) - i);
    if (!entities_valid(text)) return fail("bad entity in text");
    if (open.empty() && text.find_first_not_of(" \n\r\t") != std::string_view::npos) return fail("text outside root");
    if (lt == std::string_view::npos) break;
    i = lt + 1;
    if (i < doc.size() && doc[i] == '/') {
      ++i;
      std::size_t end = i;
      while (end < doc.size() && is_name_char(doc[end])) ++end;
      const std::string name(doc.substr(i, end - i));
      if (open.empty() || open.back() != name) return fail("mismatched end tag </" + name + ">");
      open.pop_back();
      if (end >= doc.size() || doc[end] != '>') return fail("bad end tag");
      i = end + 1;
      continue;
    }
    std::size_t end = i;
    while (end < doc.size() && is_name_char(doc[end])) ++end;
    if (end == i) return fail("'<' not starting a tag");
    const std::string name(doc.substr(i, end - i));
    if (open.empty()) {
      if (seen_root) return fail("second root element");
      seen_root = true;
      report.root = name;
    }
    report.elements.push_back(name);
    i = end;
    // Attributes: name="value", separated by spaces.
    while (true) {
      while (i < doc.size() && (doc[i] == ' ' || doc[i] == '\n')) ++i;
      if (i >= doc.size()) return fail("unterminated start tag");
      if (doc[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (doc.substr(i, 2) == "/>") {
        i += 2;
        break;
      }
      std::size_t attribute_end = i;
      while (attribute_end < doc.size() && is_name_char(doc[attribute_end])) ++attribute_end;
      if (attribute_end == i || doc.substr(attribute_end, 2) != "=\"") return fail("bad attribute in <" + name + ">");
      const std::size_t value_begin = attribute_end + 2;
      const std::size_t value_end = doc.find('"', value_begin);
      if (value_end == std::string_view::npos) return fail("unterminated attribute value");
      const std::string_view value = doc.substr(value_begin, value_end - value_begin);
      if (value.find('<') != std::string_view::npos || !entities_valid(value)) return fail("bad attribute value");
      i = value_end + 1;
    }
  }
  if (!open.empty()) return fail("unclosed <" + open.back() + ">");
  if (!seen_root) return fail("no root element");
  return report;
}

std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t i = haystack.find(needle); i != std::string_view::npos; i = haystack.find(needle, i + 1)) ++n;
  return n;
}

std::string write(std::span<const double> values, std::size_t rows, std::size_t cols,
                  const ctattn::svg_heatmap_options& options = {}) {
  std::ostringstream out;
  ctattn::write_svg_heatmap(out, values, rows, cols, options);
  return std::move(out).str();
}

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("a heat map is a well-formed SVG 1.1 document with one cell per element", "[svg]") {
  const ctattn::matrix<float, 3, 5> m{{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}}};
  const bool values = GENERATE(false, true);
  const bool tooltips = GENERATE(false, true);
  const std::string svg =
      ctattn::svg_heatmap(m, {.title = "three by five", .show_values = values, .cell_tooltips = tooltips});
  const xml_report report = check_xml(svg);
  INFO(report.error);
  REQUIRE(report.error.empty());
  CHECK(report.root == "svg");
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"") != std::string::npos);
  CHECK(count(svg, "<rect class=\"cell\"") == 15);
  CHECK(count(svg, "<title>three by five</title>") == 1);
  CHECK(count(svg, ">7.00</text>") == (values ? 1U : 0U));
  CHECK(count(svg, "<title>1, 2: 7.0000</title>") == (tooltips ? 1U : 0U));
  // Cells are written row by row from the top left: the first has viridis's lowest colour, the last its highest.
  CHECK(svg.find("fill=\"#440154\"") < svg.find("fill=\"#fde725\""));
  CHECK(count(svg, "fill=\"#440154\"") == 1);
}

TEST_CASE("labels and the title are escaped for XML", "[svg]") {
  const ctattn::matrix<double, 2, 2> m{{{0.25, 0.75}, {0.5, 0.5}}};
  const std::string svg = ctattn::svg_heatmap(m, {.title = "Q & K <scores>",
                                                  .row_labels = {"<b>bold</b>", "it's \"quoted\""},
                                                  .column_labels = {"caf\xc3\xa9", std::string("bad\xff"
                                                                                               "byte\x01"
                                                                                               "control")},
                                                  .row_axis_label = "a < b",
                                                  .show_values = true});
  const xml_report report = check_xml(svg);
  INFO(report.error);
  REQUIRE(report.error.empty());
  CHECK(svg.find("Q &amp; K &lt;scores&gt;") != std::string::npos);
  CHECK(svg.find("&lt;b&gt;bold&lt;/b&gt;") != std::string::npos);
  CHECK(svg.find("it&apos;s &quot;quoted&quot;") != std::string::npos);
  CHECK(svg.find("a &lt; b") != std::string::npos);
  CHECK(svg.find("<b>") == std::string::npos);
  CHECK(svg.find("caf\xc3\xa9") != std::string::npos);  // valid UTF-8 is kept
  CHECK(svg.find("bad\xef\xbf\xbd"
                 "bytecontrol") != std::string::npos);  // a stray byte becomes U+FFFD, control dropped
  CHECK(count(svg, "<rect class=\"cell\"") == 4);
}

TEST_CASE("NaN and infinite elements are drawn grey, printed, and kept out of the scale", "[svg]") {
  const std::vector<double> values{0.0, not_a_number, 1.0, -infinity, infinity, 0.5};
  const std::string svg = write(values, 2, 3, {.show_values = true});
  const xml_report report = check_xml(svg);
  INFO(report.error);
  REQUIRE(report.error.empty());
  CHECK(count(svg, "<rect class=\"cell\"") == 6);
  CHECK(count(svg, "fill=\"#d9d9d9\"") == 3 + 1);  // three cells and the key under the scale
  CHECK(svg.find(">NaN</text>") != std::string::npos);
  CHECK(svg.find(">-inf</text>") != std::string::npos);
  CHECK(svg.find(">inf</text>") != std::string::npos);
  CHECK(svg.find(">not finite</text>") != std::string::npos);
  // The scale runs over the finite values only: 0 to 1.
  CHECK(svg.find(">0</text>") != std::string::npos);
  CHECK(svg.find(">1</text>") != std::string::npos);
  CHECK(svg.find("nan\"") == std::string::npos);
  CHECK(svg.find("inf\"") == std::string::npos);

  const std::vector<double> all_nan(4, not_a_number);
  const std::string nothing_finite = write(all_nan, 2, 2, {.show_values = true});
  CHECK(check_xml(nothing_finite).error.empty());
  CHECK(count(nothing_finite, "<rect class=\"cell\"") == 4);
  CHECK(count(nothing_finite, ">NaN</text>") == 4);
}

TEST_CASE("an empty table gives a valid document that says so", "[svg]") {
  const std::vector<double> none;
  const std::size_t rows = GENERATE(0U, 3U);
  const std::string svg = write(none, rows, 0, {.title = "nothing"});
  const xml_report report = check_xml(svg);
  INFO(report.error);
  REQUIRE(report.error.empty());
  CHECK(report.root == "svg");
  CHECK(count(svg, "<rect class=\"cell\"") == 0);
  CHECK(svg.find("(empty matrix)") != std::string::npos);
}

TEST_CASE("a constant matrix and a given range colour sensibly", "[svg]") {
  const std::vector<float> constant(6, 2.5f);
  std::ostringstream out;
  ctattn::write_svg_heatmap(out, constant, 2, 3, {.colours = ctattn::colour_map::blues});
  const std::string svg = std::move(out).str();
  CHECK(check_xml(svg).error.empty());
  CHECK(count(svg, "<rect class=\"cell\"") == 6);

  // Values outside a given range take the end colours; red_blue's default range is symmetric about 0.
  const std::vector<double> values{-10.0, 0.0, 10.0, 0.5};
  const std::string clamped = write(values, 2, 2, {.colours = ctattn::colour_map::greys, .minimum = 0, .maximum = 1});
  CHECK(count(clamped, "fill=\"#ffffff\"") >= 3);  // background, -10 and 0
  CHECK(count(clamped, "fill=\"#000000\"") == 1);  // 10
  const std::string diverging = write(values, 2, 2, {.colours = ctattn::colour_map::red_blue});
  CHECK(diverging.find(">-10</text>") != std::string::npos);
  CHECK(count(diverging, "fill=\"#f7f7f7\"") == 1);  // 0 is the middle of the scale
}

TEST_CASE("named extents label the axes unless the options do", "[svg]") {
  const ctattn::matrix<float, query{2}, key{3}> m{};
  const std::string named = ctattn::svg_heatmap(m);
  CHECK(named.find(">query</text>") != std::string::npos);
  CHECK(named.find(">key</text>") != std::string::npos);
  const std::string relabelled = ctattn::svg_heatmap(m, {.row_axis_label = "decoder token"});
  CHECK(relabelled.find(">decoder token</text>") != std::string::npos);
  CHECK(relabelled.find(">query</text>") == std::string::npos);
}

TEST_CASE("long column labels and many columns stay well-formed", "[svg]") {
  ctattn::matrix<float, 40, 128> big{};
  for (std::size_t i = 0; i < 40; ++i) {
    for (std::size_t j = 0; j < 128; ++j) big(i, j) = static_cast<float>(i) - static_cast<float>(j);
  }
  const std::string svg = ctattn::svg_heatmap(big, {.cell_width = 4, .cell_height = 4, .cell_tooltips = false});
  CHECK(check_xml(svg).error.empty());
  CHECK(count(svg, "<rect class=\"cell\"") == 40 * 128);
  CHECK(svg.find(">127</text>") == std::string::npos);  // index labels are thinned out: 0, 10, 20, ...
  CHECK(svg.find(">120</text>") != std::string::npos);

  const ctattn::matrix<float, 1, 2> wide{{{1, 2}}};
  const std::string upright = ctattn::svg_heatmap(wide, {.column_labels = {"a rather long label", "another long one"}});
  CHECK(check_xml(upright).error.empty());
  CHECK(count(upright, "rotate(-90") == 2);
}

TEST_CASE("numbers do not depend on the stream's locale", "[svg]") {
  struct comma_decimal : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\1"; }
  };
  const std::vector<double> values(12 * 100, 0.125);
  std::ostringstream classic;
  ctattn::write_svg_heatmap(classic, values, 12, 100, {.show_values = true});
  std::ostringstream localized;
  localized.imbue(std::locale(std::locale::classic(), new comma_decimal));
  ctattn::write_svg_heatmap(localized, values, 12, 100, {.show_values = true});
  CHECK(localized.str() == classic.str());
}

TEST_CASE("bad arguments are refused with an exception that says why", "[svg]") {
  const std::vector<double> values(6, 1.0);
  std::ostringstream out;
  CHECK_THROWS_AS(ctattn::write_svg_heatmap(out, values, 2, 2), std::invalid_argument);
  CHECK_THROWS_AS(ctattn::write_svg_heatmap(out, values, 2, 3, {.row_labels = {"only one"}}), std::invalid_argument);
  CHECK_THROWS_AS(ctattn::write_svg_heatmap(out, values, 2, 3, {.cell_width = 0}), std::invalid_argument);
  CHECK_NOTHROW(ctattn::write_svg_heatmap(out, values, 3, 2, {.row_labels = {"a", "b", "c"}}));
}

TEST_CASE("the test's XML checker rejects what is not well-formed", "[svg]") {
  CHECK(check_xml("<?xml version=\"1.0\"?>\n<svg><g></g><rect/></svg>\n").error.empty());
  CHECK_FALSE(check_xml("<svg></svg>").error.empty());                                // no declaration
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg><g></svg>").error.empty());      // unbalanced
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg><g></svg></g>").error.empty());  // crossed
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg>a & b</svg>").error.empty());    // raw ampersand
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg>a < b</svg>").error.empty());    // raw less-than
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg x=\"<\"/>").error.empty());      // '<' in an attribute
  CHECK_FALSE(check_xml("<?xml version=\"1.0\"?><svg/><svg/>").error.empty());        // two roots
}
