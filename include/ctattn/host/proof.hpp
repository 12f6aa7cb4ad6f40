// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_HOST_PROOF_HPP
#define CTATTN_HOST_PROOF_HPP

/// \file
/// A model proved one link at a time (host only): `write_chain_proof` runs a model's links (ctattn/layers/links.hpp)
/// on golden inputs with exact arithmetic and writes, for each link, a translation unit whose `static_assert`s check
/// the link, evaluated by the compiler, on the exact input it gets against the exact output the run-time pass
/// wrote. Exact arithmetic at run time gives constant evaluation's bits (with `-ffp-contract=off`), so every
/// assertion holds where the model is right, and the chain of them is the whole forward: link 0 starts from the
/// golden inputs, and each link's input is the one before's checked output. The units build in parallel, each holds
/// one link's weights and work, and one rebuilds alone when its link changes.
///
/// | file                              | what                                                               |
/// |-----------------------------------|--------------------------------------------------------------------|
/// | `NAME_inputs.hpp`                 | `NAME_inputs[G]`: the golden inputs                                |
/// | `NAME_link_K_weights.hpp`         | `NAME_link_K`: link K (`ctattn::link_type<K, M>`) with the model's parameters and settings |
/// | `NAME_after_K.hpp`                | `NAME_after_K[G]`: link K's output on each golden input, exact literals |
/// | `NAME_link_K_input_G.cpp`         | the proof of link K on input G: `static_assert(ctattn::run_link(NAME_link_K, input) == NAME_after_K[G])` |
/// | `NAME_int8_after_K.hpp`           | the int8 model's output after float link K on each golden input (`write_int8_chain_proof`) |
/// | `NAME_int8_link_K_input_G.cpp`    | the proof of the int8 link that ends at float link K, made from the float link's weights by `ctattn::quantize_link` |
///
/// The int8 chain (`write_int8_chain_proof`, after the float one) proves `ctattn::quantize<Ranges>(model)` the same
/// way, one int8 link per unit: each unit makes its int8 link from the float link's weights and the ranges
/// (ctattn/quantized/links.hpp), as `quantize` does, and checks it on the exact int8 input it gets. Its first link
/// takes the golden inputs quantized with Q(`input`) (token ids as they are); its units are numbered by float link,
/// a token embedding and its positions (one int8 link) proved in the first one's unit, the second's saying so.
///
/// The last link's outputs are what the model computes; a test that compares them with PyTorch's (within its
/// tolerance) closes the chain (tools/ctattn_export.py's generated test does).
///
/// Example:
/// \code
///   const ctattn::host::proof_options options{.name = "doc", .model_include = "doc_model.hpp",
///                                             .model_type = "doc_model", .input_type = "ctattn::matrix<float, 3, 4>"};
///   if (auto e = ctattn::host::write_chain_proof(model, golden_inputs, "build/doc_proof", options)) {
///     std::fprintf(stderr, "%s\n", e->message().c_str());   // the file, and why it could not be written
///   }
/// \endcode

#include <array>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "ctattn/attention/options.hpp"
#include "ctattn/host/import.hpp"
#include "ctattn/layers/links.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/quantized/links.hpp"

// Rationale: the generated C++ is written as runs of adjacent string literals joined by +, laid out to read
// like the file it makes; clang-format breaks such runs at every literal, so this file keeps its own layout.
// clang-format off
namespace ctattn::host {

/// What `write_chain_proof` writes around the numbers.
///
/// | member          | example                                  |
/// |-----------------|------------------------------------------|
/// | `name`          | `"kwt"`: the files' and constants' prefix |
/// | `model_include` | `"kwt.hpp"`: the header declaring the model |
/// | `model_type`    | `"kws::kwt"`                              |
/// | `input_type`    | `"ctattn::matrix<float, 98, 40>"`, or `"std::array<int, 6>"` for token ids |
/// | `ranges_include`| `"kwt_ranges.hpp"`: the int8 chain's ranges header (`write_int8_chain_proof`) |
/// | `ranges_name`   | `"kws::kwt_ranges"`: the ranges' array in it                |
struct proof_options {
  std::string name;
  std::string model_include;
  std::string model_type;
  std::string input_type;
  std::string ranges_include = {};  ///< the int8 chain's: `"kwt_ranges.hpp"`, the header of the recorded ranges
  std::string ranges_name = {};     ///< the int8 chain's: `"kws::kwt_ranges"`, the ranges' array
};

namespace detail {
// An input or an activation as an exact C++ initializer: a matrix's rows of exact literals, or token ids.
template <typename X>
std::string initializer(const X& x) {
  std::string text = "{{";
  if constexpr (FixedMatrix<X>) {
    for (std::size_t r = 0; r < X::rows; ++r) {
      text += "\n        {";
      for (std::size_t c = 0; c < X::cols; ++c) text += (c ? ", " : "") + exact_literal(x.elements[r][c]);
      text += "},";
    }
    text += "\n    }}";
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) text += (i ? ", " : "") + std::to_string(x[i]);
    text += "}}";
  }
  return text;
}

template <typename X, std::size_t G>
std::string values(const std::array<X, G>& xs) {
  std::string text;
  for (const X& x : xs) text += "    " + initializer(x) + ",\n";
  return text;
}

inline std::optional<load_error> write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return load_error{path, 0, "cannot open the file for writing"};
  out << text;
  out.close();
  if (!out) return load_error{path, 0, "could not write the file"};
  return std::nullopt;
}

inline std::string banner(const std::string& what, const std::string& writer = "write_chain_proof") {
  return "// " + what + "\n// GENERATED by ctattn::host::" + writer + " (ctattn/host/proof.hpp): do not edit, "
         "regenerate.\n#pragma once\n\n";
}

// Link K's weights header: the link's type, its parameters as exact literals in state_dict order, its real
// settings set by path.
template <std::size_t K, typename M>
std::string link_weights_header(const M& model, const proof_options& o) {
  const auto& layer = ctattn::link<K>(model);
  const std::string k = std::to_string(K);
  const std::string type = "ctattn::link_type<" + k + ", " + o.model_type + ">";
  std::string numbers;
  std::size_t count = 0;
  for_each_parameter(layer, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size; ++i, ++count) {
      numbers += (count % 6 == 0 ? "\n    " : " ") + exact_literal(view[i]) + ",";
    }
  });
  std::string settings;
  for_each_setting(layer, [&](std::string_view name, const setting_entry& s) {
    if (s.kind != setting_entry::kind_type::real) return;
    settings += "  (void)ctattn::set_setting(l, \"" + std::string(name) + "\", " + exact_literal(s.number) + ");\n";
  });
  std::string text = banner(o.name + "_link_" + k + ": link " + k + " of " + o.model_type + " (" +
                            std::string(ctattn::link_name<K, M>.view()) + "), its parameters and settings.") +
                     "#include <bit>\n#include <limits>\n\n#include <ctattn/layers/links.hpp>\n\n#include \"" +
                     o.model_include + "\"\n\n";
  if (count == 0) {
    return text + "inline constexpr " + type + " " + o.name + "_link_" + k + "{};\n";
  }
  return text + "inline constexpr float " + o.name + "_link_" + k + "_parameters[" + std::to_string(count) +
         "] = {" + numbers + "\n};\n\ninline constexpr " + type + " " + o.name + "_link_" + k + " = [] {\n  auto l = "
         "ctattn::from_parameters<" + type + ">(" + o.name + "_link_" + k + "_parameters);\n" + settings +
         "  return l;\n}();\n";
}

// Links K to the last: each run on `inputs` (link K's inputs, the outputs of link K - 1), written, and the next
// run on its outputs.
template <std::size_t K, typename M, typename X, std::size_t G>
std::optional<load_error> write_links(const M& model, const std::array<X, G>& inputs, const std::string& dir,
                                      const proof_options& o) {
  if constexpr (K == link_count<M>) {
    return std::nullopt;
  } else {
    const std::string k = std::to_string(K);
    using result = decltype(ctattn::run_link(ctattn::link<K>(model), inputs[0], ctattn::exact_arithmetic));
    std::array<result, G> outputs{};
    for (std::size_t g = 0; g < G; ++g) {
      outputs[g] = ctattn::run_link(ctattn::link<K>(model), inputs[g], ctattn::exact_arithmetic);
    }
    const std::string type = "ctattn::link_result<" + k + ", " + o.model_type + ", " + o.input_type + ">";
    const std::string after = o.name + "_after_" + k;
    const std::string before = K == 0 ? o.name + "_inputs" : o.name + "_after_" + std::to_string(K - 1);
    if (auto e = write_file(dir + "/" + after + ".hpp",
                            banner(after + ": link " + k + "'s output on each golden input, from the run-time "
                                   "pass with exact arithmetic.") +
                                "#include <bit>\n#include <limits>\n\n#include <ctattn/layers/links.hpp>\n\n"
                                "#include \"" + o.model_include + "\"\n\ninline constexpr " + type + " " + after +
                                "[" + std::to_string(G) + "] = {\n" + values(outputs) + "};\n")) {
      return e;
    }
    if (auto e = write_file(dir + "/" + o.name + "_link_" + k + "_weights.hpp", link_weights_header<K>(model, o))) {
      return e;
    }
    // Rationale: one unit per link and input. GCC holds every value of a constant evaluation until the unit ends
    // (about 1.1 GB for one KWT-1 encoder layer on one input), so two inputs in one unit would double its peak.
    for (std::size_t g = 0; g < G; ++g) {
      const std::string i = std::to_string(g);
      const std::string proof =
          "// The proof of link " + k + " of " + o.model_type + " (" + std::string(ctattn::link_name<K, M>.view()) +
          ") on golden input " + i + ": evaluated by the compiler on the exact input it gets, it gives the exact "
          "output the next link takes.\n// GENERATED by ctattn::host::write_chain_proof (ctattn/host/proof.hpp): do "
          "not edit, regenerate.\n#include \"" + o.name + "_link_" + k + "_weights.hpp\"\n#include \"" + before +
          ".hpp\"\n#include \"" + after + ".hpp\"\n\nstatic_assert(ctattn::run_link(" + o.name + "_link_" + k + ", " +
          before + "[" + i + "]) == " + after + "[" + i + "],\n              \"link " + k + " (" +
          std::string(ctattn::link_name<K, M>.view()) + "), golden input " + i +
          ": the compiler's result differs from the run-time pass's\");\n";
      if (auto e = write_file(dir + "/" + o.name + "_link_" + k + "_input_" + i + ".cpp", proof)) return e;
    }
    return write_links<K + 1>(model, outputs, dir, o);
  }
}
}  // namespace detail

/// Writes the chain of proofs of `model` on `inputs` into the directory `dir` (see this header): for each link K,
/// its weights, its outputs and the translation unit that proves it, and the inputs. Before writing, it checks that
/// the links run in turn give the model's own forward, bit for bit, on every input (a model whose own `forward` is
/// not its chain of members is refused: its links would prove another function).
///
/// | operand  | what                                                                  |
/// |----------|-----------------------------------------------------------------------|
/// | `model`  | a `ctattn::model` or `ctattn::sequential` with its trained parameters |
/// | `inputs` | G golden inputs: matrices, or token ids                               |
/// | result   | nullopt, or the file and the reason it could not be written           |
template <typename M, typename X, std::size_t G>
[[nodiscard]] std::optional<load_error> write_chain_proof(const M& model, const std::array<X, G>& inputs,
                                                          const std::string& dir, const proof_options& o) {
  for (std::size_t g = 0; g < G; ++g) {
    if (!(ctattn::run_links<0, link_count<M>>(model, inputs[g], ctattn::exact_arithmetic) ==
          model.forward(inputs[g], ctattn::exact_arithmetic))) {
      return load_error{o.model_type, g,
                        "the model's forward is not its links run in turn (a forward of its own: a residual, a "
                        "scale); the chain of proofs would prove another function"};
    }
  }
  if (auto e = detail::write_file(dir + "/" + o.name + "_inputs.hpp",
                                  detail::banner(o.name + "_inputs: the golden inputs of the chain of proofs.") +
                                      "#include <array>\n#include <bit>\n#include <limits>\n\n#include "
                                      "<ctattn/layers/links.hpp>\n\n#include \"" + o.model_include +
                                      "\"\n\ninline constexpr " + o.input_type + " " + o.name + "_inputs[" +
                                      std::to_string(G) + "] = {\n" + detail::values(inputs) + "};\n")) {
    return e;
  }
  return detail::write_links<0>(model, inputs, dir, o);
}

namespace detail {
// An int8 activation as an exact C++ initializer: a qmatrix's rows of integers.
template <typename Q>
std::string int8_initializer(const Q& q) {
  std::string text = "{{";
  for (std::size_t r = 0; r < Q::rows; ++r) {
    text += "\n        {";
    for (std::size_t c = 0; c < Q::cols; ++c) text += (c ? ", " : "") + std::to_string(int{q.elements[r][c]});
    text += "},";
  }
  return text + "\n    }}";
}

template <typename Y, std::size_t G>
std::string int8_values(const std::array<Y, G>& ys) {
  std::string text;
  for (const Y& y : ys) text += "    " + int8_initializer(y) + ",\n";
  return text;
}

// Int8 links J to the last, each run on `inputs` (what int8 link J takes) and written under the number of the last
// float link it is made of; the unit of a pair's second float link only says where it was proved.
template <std::size_t J, const auto& Ranges, typename M, typename Chain, typename X, typename Y, std::size_t G>
std::optional<load_error> write_int8_links(const M& model, const Chain& int8_model, const std::array<Y, G>& inputs,
                                           const std::string& dir, const proof_options& o) {
  if constexpr (J == int8_link_count<M>) {
    return std::nullopt;
  } else {
    constexpr std::size_t first = int8_link_first<J, M>;
    constexpr std::size_t span = int8_link_span<J, M>;
    constexpr std::size_t last = first + span - 1;
    const auto& layer = int8_model.template layer<J>();
    // The layer the units will build from the float links is the one `quantize` made, bit for bit.
    const bool same = [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (requires { layer == layer; }) {
        return ctattn::quantize_link<J, Ranges, M>(ctattn::link<first + I>(model)...) == layer;
      } else {
        return true;
      }
    }(std::make_index_sequence<span>{});
    if (!same) {
      return load_error{o.model_type, J, "int8 link " + std::to_string(J) + ": quantize_link does not give the layer "
                                         "ctattn::quantize made; the int8 chain would prove another model"};
    }
    using result = std::remove_cvref_t<decltype(ctattn::run_link(layer, inputs[0]))>;
    static_assert(std::is_same_v<result, int8_link_result<J, Ranges, M, X>>);
    std::array<result, G> outputs{};
    for (std::size_t g = 0; g < G; ++g) outputs[g] = ctattn::run_link(layer, inputs[g]);

    const std::string k = std::to_string(last);
    std::string name(ctattn::link_name<first, M>.view());
    if constexpr (span == 2) name += "+" + std::string(ctattn::link_name<first + 1, M>.view());
    const std::string type = "ctattn::int8_link_result<" + std::to_string(J) + ", " + o.ranges_name + ", " +
                             o.model_type + ", " + o.input_type + ">";
    const std::string after = o.name + "_int8_after_" + k;
    const std::string head = "#include <array>\n\n#include <ctattn/quantized/links.hpp>\n\n#include \"" +
                             o.model_include + "\"\n#include \"" + o.ranges_include + "\"\n";
    std::string values_text = int8_values(outputs);
    if (auto e = write_file(dir + "/" + after + ".hpp",
                            banner(after + ": the int8 model's output after float link " + k + " (int8 link " +
                                   std::to_string(J) + ", " + name + ") on each golden input.",
                                   "write_int8_chain_proof") +
                                head + "\ninline constexpr " + type + " " + after + "[" + std::to_string(G) +
                                "] = {\n" + values_text + "};\n")) {
      return e;
    }
    if constexpr (span == 2) {  // the pair's first float link: its output is the pair's second's
      const std::string f = std::to_string(first);
      if (auto e = write_file(dir + "/" + o.name + "_int8_after_" + f + ".hpp",
                              banner(o.name + "_int8_after_" + f + ": float link " + f + " is the first of int8 link " +
                                     std::to_string(J) + " (" + name + "); its output is " + after + "'s.",
                                     "write_int8_chain_proof") +
                                  "#include \"" + after + ".hpp\"\n")) {
        return e;
      }
    }
    const std::string before = J == 0 ? (FixedMatrix<X> ? "ctattn::int8_link_input<" + o.ranges_name + ", " +
                                                               o.model_type + ">(" + o.name + "_inputs[G])"
                                                         : o.name + "_inputs[G]")
                                      : o.name + "_int8_after_" + std::to_string(first - 1) + "[G]";
    const std::string before_header =
        J == 0 ? o.name + "_inputs.hpp" : o.name + "_int8_after_" + std::to_string(first - 1) + ".hpp";
    std::string weights_includes;
    std::string float_links;
    for (std::size_t i = 0; i < span; ++i) {
      weights_includes += "#include \"" + o.name + "_link_" + std::to_string(first + i) + "_weights.hpp\"\n";
      float_links += (i ? ", " : "") + o.name + "_link_" + std::to_string(first + i);
    }
    for (std::size_t g = 0; g < G; ++g) {
      const std::string i = std::to_string(g);
      std::string input = before;
      input.replace(input.find("[G]"), 3, "[" + i + "]");
      const std::string proof =
          "// The proof of int8 link " + std::to_string(J) + " of " + o.model_type + " (" + name + ") on golden "
          "input " + i + ": made from the float link's weights and the ranges as ctattn::quantize makes it, evaluated "
          "by the compiler on the exact int8 input it gets, it gives the exact output the next int8 link takes.\n"
          "// GENERATED by ctattn::host::write_int8_chain_proof (ctattn/host/proof.hpp): do not edit, regenerate.\n" +
          "#include <ctattn/quantized/links.hpp>\n\n" + weights_includes + "#include \"" + o.ranges_include +
          "\"\n#include \"" + before_header + "\"\n#include \"" + after + ".hpp\"\n\nstatic_assert(ctattn::run_link("
          "ctattn::quantize_link<" + std::to_string(J) + ", " + o.ranges_name + ", " + o.model_type + ">(" +
          float_links + "),\n                                " + input + ") == " + after + "[" + i + "],\n"
          "              \"int8 link " + std::to_string(J) + " (" + name + "), golden input " + i +
          ": the compiler's result differs from the run-time pass's\");\n";
      if (auto e = write_file(dir + "/" + o.name + "_int8_link_" + k + "_input_" + i + ".cpp", proof)) return e;
      if constexpr (span == 2) {
        const std::string f = std::to_string(first);
        const std::string note =
            "// Float link " + f + " of " + o.model_type + " and the one after it make one int8 link (" + name +
            "), proved in " + o.name + "_int8_link_" + k + "_input_" + i + ".cpp.\n"
            "// GENERATED by ctattn::host::write_int8_chain_proof (ctattn/host/proof.hpp): do not edit, regenerate.\n"
            "#include <ctattn/quantized/links.hpp>\n\n#include \"" + o.model_include + "\"\n\n"
            "static_assert(ctattn::int8_link_first<" + std::to_string(J) + ", " + o.model_type + "> == " + f +
            " && ctattn::int8_link_span<" + std::to_string(J) + ", " + o.model_type + "> == 2);\n";
        if (auto e = write_file(dir + "/" + o.name + "_int8_link_" + f + "_input_" + i + ".cpp", note)) return e;
      }
    }
    return write_int8_links<J + 1, Ranges, M, Chain, X>(model, int8_model, outputs, dir, o);
  }
}
}  // namespace detail

/// Writes the int8 chain of proofs of `ctattn::quantize<Ranges>(model)` on `inputs` into `dir`, beside the float
/// chain `write_chain_proof` wrote there (its units include the float links' weights headers and `NAME_inputs.hpp`):
/// for each int8 link, its outputs and the units that prove it (see this header). `o.ranges_include` and
/// `o.ranges_name` name the ranges for the units. Before writing, it checks that each int8 link made from its float
/// links (`ctattn::quantize_link`) is the layer `quantize` made (the int8 model's forward is its layers run in turn).
///
/// | operand  | what                                                                  |
/// |----------|-----------------------------------------------------------------------|
/// | `Ranges` | the model's recorded ranges (the array `o.ranges_name` names)         |
/// | `model`  | the float model, with its trained parameters                          |
/// | `inputs` | the G golden inputs of the float chain                                |
/// | result   | nullopt, or the file and the reason it could not be written           |
///
/// Example: `if (auto e = ctattn::host::write_int8_chain_proof<kwt_ranges>(model, inputs, dir, options)) { ... }`
template <const auto& Ranges, typename M, typename X, std::size_t G>
[[nodiscard]] std::optional<load_error> write_int8_chain_proof(const M& model, const std::array<X, G>& inputs,
                                                               const std::string& dir, const proof_options& o) {
  if (o.ranges_include.empty() || o.ranges_name.empty()) {
    return load_error{o.model_type, 0, "an int8 chain of proofs needs proof_options::ranges_include and ranges_name"};
  }
  using int8_model_type = quantized_model<M, Ranges>;
  // Rationale: on the heap; a large model's int8 form (KWT-1: 0.7 MB) is no local.
  auto int8_model = std::make_unique<int8_model_type>();
  *int8_model = ctattn::quantize<Ranges>(model);
  using input_type = std::remove_cvref_t<decltype(ctattn::int8_link_input<Ranges, M>(inputs[0]))>;
  std::array<input_type, G> int8_inputs{};
  for (std::size_t g = 0; g < G; ++g) int8_inputs[g] = ctattn::int8_link_input<Ranges, M>(inputs[g]);
  return detail::write_int8_links<0, Ranges, M, int8_model_type, X>(model, *int8_model, int8_inputs, dir, o);
}

/// The main of a chain-of-proofs writer (cmake/ctattn_proof.cmake's WRITER): `writer <directory> <links> <inputs>`
/// writes the chain into the directory, after checking that the model has that many links and that many golden
/// inputs (the units the build compiles). Errors go to stderr; the exit status is 1 (2 for a wrong command line).
/// Given `Ranges` (`chain_proof_main<ranges>(...)`, ctattn_chain_proof's INT8), it writes the int8 chain too
/// (`write_int8_chain_proof`; `o.ranges_include` and `o.ranges_name` set).
///
/// Example: `int main(int argc, char** argv) { return ctattn::host::chain_proof_main(argc, argv, weights, inputs,
/// options); }`
template <typename M, typename X, std::size_t G>
int chain_proof_main(int argc, char** argv, const M& model, const std::array<X, G>& inputs, const proof_options& o) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <directory> <links> <inputs>\n", argc > 0 ? argv[0] : "writer");
    return 2;
  }
  if (std::to_string(link_count<M>) != argv[2] || std::to_string(G) != argv[3]) {
    std::fprintf(stderr, "%s: %s has %zu links and %zu golden inputs, and the build expects %s and %s: give "
                 "ctattn_chain_proof LINKS %zu INPUTS %zu\n", argv[0], o.model_type.c_str(), link_count<M>, G,
                 argv[2], argv[3], link_count<M>, G);
    return 1;
  }
  if (auto e = write_chain_proof(model, inputs, argv[1], o)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e->message().c_str());
    return 1;
  }
  return 0;
}

/// The same, writing the int8 chain of `ctattn::quantize<Ranges>(model)` after the float one: `writer <directory>
/// <links> <inputs> int8` (ctattn_chain_proof's INT8 passes the last word, so that the build and the writer agree on
/// the units).
///
/// Example: `return ctattn::host::chain_proof_main<kwt_ranges>(argc, argv, weights, inputs, options);`
template <const auto& Ranges, typename M, typename X, std::size_t G>
int chain_proof_main(int argc, char** argv, const M& model, const std::array<X, G>& inputs, const proof_options& o) {
  if (argc != 5 || std::string(argv[4]) != "int8") {
    std::fprintf(stderr, "usage: %s <directory> <links> <inputs> int8 (this writer writes the int8 chain too: give "
                 "ctattn_chain_proof INT8)\n", argc > 0 ? argv[0] : "writer");
    return 2;
  }
  if (const int status = chain_proof_main(4, argv, model, inputs, o); status != 0) return status;
  if (auto e = write_int8_chain_proof<Ranges>(model, inputs, argv[1], o)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e->message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace ctattn::host
// clang-format on

#endif  // CTATTN_HOST_PROOF_HPP
