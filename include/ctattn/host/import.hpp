// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_HOST_IMPORT_HPP
#define CTATTN_HOST_IMPORT_HPP

/// \file
/// Host-only: PyTorch weights into ctattn models, by the model's `state_dict` names (ctattn/layers/parameters.hpp).
///
/// | step | function |
/// |------|----------|
/// | load a `.safetensors` file into a model at run time | `load_parameters(model, path[, options])` |
/// | load a submodule, or skip tensors the model does not have | `load_options{.prefix, .ignore}` |
/// | write a header of `constexpr` weights for a model | `write_weights_header(model, path, options)` |
/// | a model's parameters as `.safetensors` bytes | `safetensors_bytes(model)` |
/// | the import tool's `main` (cmake/ctattn_import.cmake builds one per model) | `import_main<Model>(...)` |
///
/// Every check of ctattn/host/safetensors.hpp applies, and against the model: each parameter must be in the file
/// under its name, with PyTorch's shape and a floating-point dtype; a tensor in the file that the model does not
/// have is an error too (a file for another model, or a model missing a layer), unless `load_options` names it. Each
/// error names the file, the byte offset and the tensor, and says what to do where a name is only misplaced (the
/// file's names carry a prefix the model's do not, or the other way round). Where the file's `__metadata__` names
/// a setting of the model (`<path>.num_heads`, `.eps`, `.activation`, `.norm_first`: `ctattn::for_each_setting`,
/// written by `safetensors_bytes` and tools/ctattn_export.py), it must be the model's. A failed load leaves the
/// model as it was.

#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctattn/host/safetensors.hpp"
#include "ctattn/layers/parameters.hpp"

namespace ctattn::host {

/// How a file's tensor names map to a model's parameters (`load_parameters`, and the import tool's `--prefix` and
/// `--ignore`, `ctattn_import_weights`'s PREFIX and IGNORE).
///
/// | member   | meaning |
/// |----------|---------|
/// | `prefix` | the model is the file's submodule under this prefix (`"encoder.layers.0."`): each parameter is read from `prefix + name`, and the file's tensors outside the prefix are not the model's business |
/// | `ignore` | tensors of the file the model does not have, skipped: a whole name (`"pos_encoder.pe"`, a persistent buffer), or a name ending in '.' for everything under it (`"decoder."`) |
///
/// Example:
/// \code
///   const ctattn::host::load_options options{.prefix = "", .ignore = {"pos_encoder.pe"}};
/// \endcode
struct load_options {
  std::string prefix;
  std::vector<std::string> ignore;
};

namespace detail {
// Whether `options.ignore` names the file's tensor `name` (a whole name, or a prefix ending in '.').
inline bool ignored(const load_options& options, std::string_view name) {
  for (const std::string& pattern : options.ignore) {
    if (name == pattern) return true;
    if (!pattern.empty() && pattern.back() == '.' && name.substr(0, pattern.size()) == pattern) return true;
  }
  return false;
}

// What to do when the model's parameter `name` (the file's options.prefix + name) is not in the file: a tensor whose
// name ends in "." + name says which prefix to give; the name without the prefix says to give none.
inline std::string missing_hint(const safetensors_file& file, std::string_view name, const load_options& options) {
  const std::string dotted = "." + std::string(name);
  for (const tensor_info& t : file.tensors()) {
    if (t.name.size() > dotted.size() && t.name.compare(t.name.size() - dotted.size(), dotted.size(), dotted) == 0) {
      return "; the file has " + quote_name(t.name) + ": load with the prefix " +
             quote_name(std::string_view(t.name).substr(0, t.name.size() - name.size())) +
             " (load_options::prefix, the import tool's --prefix)";
    }
  }
  if (!options.prefix.empty() && file.find(name) != nullptr) {
    return "; the file has " + quote_name(name) + ", without the prefix " + quote_name(options.prefix) +
           ": load with no prefix";
  }
  return "";
}

// `text` as a JSON string, quoted and escaped by nlohmann/json (a setting of a layer of one's own may hold any
// character; bytes that are not UTF-8 become U+FFFD rather than an exception).
inline std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A setting's value as a file's __metadata__ holds it: the text, an integer, or the shortest decimal that reads
// back as the value (in float for a setting held in float).
inline std::string setting_text(const setting_entry& s) {
  if (s.kind == setting_entry::kind_type::text) return std::string(s.text);
  char text[64];
  std::to_chars_result r{};
  if (s.kind == setting_entry::kind_type::integer) {
    r = std::to_chars(text, text + sizeof text, static_cast<long long>(s.number));
  } else if (s.single) {
    r = std::to_chars(text, text + sizeof text, static_cast<float>(s.number));
  } else {
    r = std::to_chars(text, text + sizeof text, s.number);
  }
  return std::string(text, r.ptr);
}

// A number written in full (the whole text read), into `number`.
inline bool read_number(std::string_view text, double& number) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  return error == std::errc{} && end == text.data() + text.size();
}

// Whether a file's __metadata__ value says the setting `s`: the same text, or a number that, read in the setting's
// precision, is its value (PyTorch's "1e-05" is a float eps of 1e-5f).
inline bool setting_matches(const setting_entry& s, std::string_view value) {
  if (s.kind == setting_entry::kind_type::text) return value == s.text;
  double number = 0;
  if (!read_number(value, number)) return false;
  if (s.kind == setting_entry::kind_type::real && s.single)
    return static_cast<float>(number) == static_cast<float>(s.number);
  return number == s.number;
}
}  // namespace detail

/// Copies every parameter of `model` from `file`, converting to the model's element type (rounding as
/// docs/safetensors.md says), the names mapped by `options` (a prefix, tensors to skip). On an error `model` is
/// unchanged.
///
/// Example:
/// \code
///   auto model = std::make_unique<my_model>();
///   if (auto e = ctattn::host::load_parameters(*model, "model.safetensors")) {
///     std::fprintf(stderr, "%s\n", e->message().c_str());   // model.safetensors:93: tensor 'head.weight' ...
///   }
/// \endcode
template <typename Model>
[[nodiscard]] std::optional<load_error> load_parameters(Model& model, const safetensors_file& file,
                                                        const load_options& options = {}) {
  if constexpr (!::ctattn::detail::first_broken<::ctattn::detail::parameters_rules<Model>>::check()) {
    return load_error{file.name(), 0, "not a model"};  // unreachable: the rule stops the build
  }
  std::optional<load_error> error;
  try {
    // Rationale: loaded into a copy, assigned only when every tensor is in, so a bad file loses nothing.
    auto staged = std::make_unique<Model>(model);
    std::vector<std::string> names;
    for_each_parameter(*staged, [&](std::string_view name, const auto& view) {
      if (error) return;
      names.push_back(options.prefix + std::string(name));
      const std::string& wanted = names.back();
      using T = std::remove_cvref_t<decltype(view[0])>;
      std::vector<T> values(view.size);
      error =
          copy_tensor(file, wanted, std::span<const std::size_t>(view.shape.data(), view.rank), std::span<T>(values));
      if (!error) {
        for (std::size_t i = 0; i < view.size; ++i) view[i] = values[i];
      } else if (file.find(wanted) == nullptr) {
        error->reason += detail::missing_hint(file, name, options);  // copy_tensor's "no tensor named ...", and why
      }
    });
    if (!error) {
      for (const tensor_info& t : file.tensors()) {
        if (t.name.compare(0, options.prefix.size(), options.prefix) != 0 || detail::ignored(options, t.name)) {
          continue;
        }
        bool known = false;
        for (const std::string& name : names) known = known || name == t.name;
        if (!known) {
          error = load_error{file.name(), t.header_offset,
                             "tensor " + detail::quote_name(t.name) + " is not a parameter of the model (" +
                                 std::to_string(names.size()) +
                                 " parameters, named as PyTorch's state_dict); if the model should not have it (a "
                                 "buffer, another part of the module), skip it with load_options::ignore (the "
                                 "import tool's --ignore)"};
          break;
        }
      }
    }
    // Then the settings: a file saved from a module with other settings (8 heads, relu, post-norm) has tensors of
    // the same shapes, and would load into wrong numbers. A real setting the model holds as a value (a norm's eps:
    // timm and KWT build theirs with 1e-6) is taken from the file instead.
    if (!error) {
      std::vector<std::pair<std::string, double>> taken;
      for_each_setting(*staged, [&](std::string_view name, const setting_entry& s) {
        if (error) return;
        const std::string key = options.prefix + std::string(name);
        const std::string* value = file.find_metadata(key);
        double number = 0;
        if (value != nullptr && !detail::setting_matches(s, *value) && s.kind == setting_entry::kind_type::real &&
            detail::read_number(*value, number)) {
          taken.emplace_back(name, number);
        } else if (value != nullptr && !detail::setting_matches(s, *value)) {
          error = load_error{file.name(), file.metadata_offset(key),
                             "__metadata__ says " + detail::quote_name(key) + " is " + detail::quote_name(*value) +
                                 ", the model's is " + detail::quote_name(detail::setting_text(s)) +
                                 ": the weights were saved from a module configured otherwise; declare the model with "
                                 "the file's setting, or save the weights again from the module the model declares"};
        }
      });
      for (const auto& [name, number] : taken) {
        if (!error && !set_setting(*staged, name, number)) {
          const std::string key = options.prefix + name;
          error = load_error{file.name(), file.metadata_offset(key),
                             "__metadata__ says " + detail::quote_name(key) + " is " +
                                 detail::quote_name(*file.find_metadata(key)) +
                                 ", and the model cannot take another value of it; declare the model with the "
                                 "file's setting"};
        }
      }
    }
    if (!error) model = *staged;
  } catch (const std::bad_alloc&) {
    error = load_error{file.name(), 0, "out of memory while loading the parameters"};
  }
  return error;
}

/// `load_parameters(model, read_safetensors(path), options)`: the file's own errors first, then the model's.
template <typename Model>
[[nodiscard]] std::optional<load_error> load_parameters(Model& model, const std::string& path,
                                                        const load_options& options = {}) {
  const read_result r = read_safetensors(path);
  if (!r) return *r.error;
  return load_parameters(model, *r.file, options);
}

/// The bytes of a `.safetensors` file holding `model`'s parameters under their PyTorch names and shapes, in the
/// model's element type (F32 or F64), in `state_dict` order: what PyTorch's `safetensors.torch.load_file` reads
/// back into the module (exporting a model, or making test files). Its `__metadata__` holds the model's settings
/// (`ctattn::for_each_setting`: heads, eps, activations, norm_first), which `load_parameters` checks.
///
/// Example:
/// \code
///   const std::vector<unsigned char> bytes = ctattn::host::safetensors_bytes(model);
///   std::ofstream("model.safetensors", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
///                                                              static_cast<std::streamsize>(bytes.size()));
/// \endcode
template <typename Model>
[[nodiscard]] std::vector<unsigned char> safetensors_bytes(const Model& model) {
  std::string header = "{";
  std::string settings;
  for_each_setting(model, [&](std::string_view name, const setting_entry& s) {
    settings +=
        (settings.empty() ? "" : ",") + detail::json_string(name) + ":" + detail::json_string(detail::setting_text(s));
  });
  if (!settings.empty()) header += "\"__metadata__\":{" + settings + "}";
  std::vector<unsigned char> data;
  for_each_parameter(model, [&](std::string_view name, const auto& view) {
    using T = std::remove_cvref_t<decltype(view[0])>;
    const std::size_t begin = data.size();
    for (std::size_t i = 0; i < view.size; ++i) {
      const auto bits = std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(view[i]);
      for (std::size_t b = 0; b < sizeof(T); ++b) data.push_back(static_cast<unsigned char>(bits >> (8 * b)));
    }
    if (header.size() > 1) header += ",";
    header += "\"" + std::string(name) + "\":{\"dtype\":\"" + (sizeof(T) == 4 ? "F32" : "F64") + "\",\"shape\":[";
    for (std::size_t d = 0; d < view.rank; ++d) header += (d ? "," : "") + std::to_string(view.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
  });
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<unsigned char> bytes;
  const std::uint64_t length = header.size();
  for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<unsigned char>(length >> (8 * b)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

/// What `write_weights_header` writes around the numbers.
///
/// | member          | example                    |
/// |-----------------|----------------------------|
/// | `model_include` | `"sorter.hpp"`             |
/// | `model_type`    | `"toy::sorter"`            |
/// | `name`          | `"trained"` (the constant) |
/// | `source`        | the weights file's name, for the header's comment |
struct header_options {
  std::string model_include;
  std::string model_type;
  std::string name;
  std::string source;
};

namespace detail {
// An exact C++ expression of x: a hexadecimal floating literal (with an f suffix for float); a NaN as the bit_cast
// of its bits, so that its sign and payload come through as the run-time loader gives them.
template <typename T>
std::string exact_literal(T x) {
  char text[64];
  if (x != x) {
    if constexpr (sizeof(T) == 4) {
      std::snprintf(text, sizeof text, "std::bit_cast<float>(0x%08lxu)",
                    static_cast<unsigned long>(std::bit_cast<std::uint32_t>(x)));
    } else {
      std::snprintf(text, sizeof text, "std::bit_cast<double>(0x%016llxull)",
                    static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(x)));
    }
    return text;
  }
  if (x == std::numeric_limits<T>::infinity())
    return sizeof(T) == 4 ? "std::numeric_limits<float>::infinity()" : "std::numeric_limits<double>::infinity()";
  if (x == -std::numeric_limits<T>::infinity())
    return sizeof(T) == 4 ? "-std::numeric_limits<float>::infinity()" : "-std::numeric_limits<double>::infinity()";
  std::snprintf(text, sizeof text, "%a", static_cast<double>(x));
  return std::string(text) + (sizeof(T) == 4 ? "f" : "");
}
}  // namespace detail

/// Writes a header that defines `inline constexpr <model_type> <name>`: the model with `model`'s parameters, as
/// exact hexadecimal literals in `state_dict` order, loaded by `ctattn::from_parameters`, and its real settings (a
/// norm's eps) set by `ctattn::set_setting`. The header also lists
/// the names, and a `static_assert` checks them against the model's: a header written for another model (or
/// before the model changed) does not compile.
template <typename Model>
[[nodiscard]] std::optional<load_error> write_weights_header(const Model& model, const std::string& path,
                                                             const header_options& options) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return load_error{path, 0, "cannot open the header for writing"};
  std::string value_type;
  std::size_t count = 0;
  std::vector<std::string> names;
  std::string numbers;
  std::string settings;  // the real settings (a norm's eps), set on the model by path
  for_each_setting(model, [&](std::string_view name, const setting_entry& s) {
    if (s.kind != setting_entry::kind_type::real) return;
    settings +=
        "  (void)ctattn::set_setting(m, \"" + std::string(name) + "\", " + detail::exact_literal(s.number) + ");\n";
  });
  for_each_parameter(model, [&](std::string_view name, const auto& view) {
    using T = std::remove_cvref_t<decltype(view[0])>;
    value_type = sizeof(T) == 4 ? "float" : "double";
    names.emplace_back(name);
    for (std::size_t i = 0; i < view.size; ++i) {
      numbers += (count % 6 == 0 ? "\n    " : " ") + detail::exact_literal(view[i]) + ",";
      ++count;
    }
  });
  out << "// " << options.name << ": the parameters of a " << options.model_type << ", imported from " << options.source
      << ".\n"
      << "// GENERATED by ctattn's import tool (cmake/ctattn_import.cmake): do not edit, regenerate.\n"
      << "#pragma once\n\n#include <bit>\n#include <limits>\n\n#include <ctattn/layers/parameters.hpp>\n\n#include \""
      << options.model_include << "\"\n\n";
  out << "inline constexpr const char* " << options.name << "_names[" << names.size() << "] = {\n";
  for (const std::string& n : names) out << "    \"" << n << "\",\n";
  out << "};\n\n";
  out << "inline constexpr " << value_type << " " << options.name << "_parameters[" << count << "] = {" << numbers
      << "\n};\n\n";
  out << "static_assert(ctattn::parameter_names_match<" << options.model_type << ">(" << options.name << "_names),\n"
      << "              \"ctattn: these imported weights were written for another model (names, order or count of "
         "parameters differ); regenerate them from the model's .safetensors file\");\n\n";
  out << "inline constexpr " << options.model_type << " " << options.name << " = [] {\n"
      << "  auto m = ctattn::from_parameters<" << options.model_type << ">(" << options.name << "_parameters);\n"
      << settings << "  return m;\n}();\n";
  out.close();
  if (!out) return load_error{path, 0, "could not write the header"};
  return std::nullopt;
}

/// The import tool: `import <weights.safetensors> <output.hpp> <name> [--prefix P] [--ignore NAME]...`. Loads the
/// weights into a `Model` (every check of `load_parameters`, the names mapped by `--prefix` and `--ignore` as
/// `load_options` says), then writes the header (`write_weights_header`). Errors go to stderr as
/// `file:offset: reason`, and the exit status is 1 (2 for a wrong command line).
template <typename Model>
int import_main(int argc, char** argv, std::string_view model_type, std::string_view model_include) {
  const char* tool = argc > 0 ? argv[0] : "import";
  load_options options;
  bool usage = argc < 4;
  for (int i = 4; !usage && i < argc; i += 2) {
    const std::string_view flag = argv[i];
    usage = i + 1 >= argc || (flag != "--prefix" && flag != "--ignore");
    if (usage) break;
    if (flag == "--prefix") {
      options.prefix = argv[i + 1];
    } else {
      options.ignore.emplace_back(argv[i + 1]);
    }
  }
  if (usage) {
    std::fprintf(stderr, "usage: %s <weights.safetensors> <output.hpp> <name> [--prefix P] [--ignore NAME]...\n", tool);
    return 2;
  }
  auto model = std::make_unique<Model>();
  if (auto e = load_parameters(*model, std::string(argv[1]), options)) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e->message().c_str());
    return 1;
  }
  const header_options header{std::string(model_include), std::string(model_type), argv[3], argv[1]};
  if (auto e = write_weights_header(*model, argv[2], header)) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e->message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace ctattn::host

#endif  // CTATTN_HOST_IMPORT_HPP
