// libFuzzer target for the safetensors reader (ctattn/host/safetensors.hpp): reads the input as a file from
// memory, then copies every tensor the reader accepted into float and double buffers. Any crash, sanitizer finding,
// escaping exception, or accepted file whose tensors break the reader's promises (each range inside the file,
// the ranges tiling the data, every float tensor copyable with its own shape) is a finding. docs/safetensors.md
// says how it is built and run.
//
// Each input is read twice: as the file itself, and as "JSON header, a 0 byte, data" turned into a file by
// prefixing the header's length. A mutation that changes the header's length breaks the first form's length
// field, so the second form is what lets the fuzzer explore the JSON (a header cannot hold a 0 byte).
#include <ctattn/host/safetensors.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

void check(std::span<const unsigned char> bytes) {
  namespace host = ctattn::host;
  const std::size_t size = bytes.size();
  const host::read_result result = host::read_safetensors_bytes("fuzz", bytes);
  if (!result) {
    if (!result.error) std::abort();  // exactly one of the two is set
    // Every message is printable ASCII (bytes quoted from the file escaped) and names a byte within the file.
    if (result.error->offset > size) std::abort();
    for (const char c : result.error->message()) {
      if (c < 0x20 || c > 0x7e) std::abort();
    }
    return;
  }
  const host::safetensors_file& file = *result.file;
  if (result.error || file.bytes().size() != size) std::abort();
  std::uint64_t covered = 0;
  for (const host::tensor_info& t : file.tensors()) {
    if (t.begin < file.data_offset() || t.begin > t.end || t.end > size) std::abort();
    if (t.header_offset < 8 || t.header_offset >= file.data_offset()) std::abort();  // the name, in the header
    if (file.data(t).size() != t.end - t.begin) std::abort();
    if ((t.end - t.begin) * 8 != t.element_count() * host::dtype_bits(t.type)) std::abort();
    covered += t.end - t.begin;
    const std::vector<std::size_t> shape(t.shape.begin(), t.shape.end());
    std::vector<float> floats(static_cast<std::size_t>(t.element_count()));
    std::vector<double> doubles(floats.size());
    const auto as_float = host::copy_tensor(file, t.name, shape, std::span<float>(floats));
    const auto as_double = host::copy_tensor(file, t.name, shape, std::span<double>(doubles));
    const bool readable = t.type == host::dtype::f32 || t.type == host::dtype::f64 || t.type == host::dtype::f16 ||
                          t.type == host::dtype::bf16;
    // Every readable tensor converts to double; to float too, unless an F64 value is beyond float's range.
    if (readable == as_double.has_value()) std::abort();
    if (readable && t.type != host::dtype::f64 && as_float) std::abort();
    if (!readable && !as_float) std::abort();
    if (as_float) (void)as_float->message();
  }
  if (covered != size - file.data_offset()) std::abort();  // the ranges tile the data buffer
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> input(data, size);
  check(input);
  const auto separator = std::find(input.begin(), input.end(), 0);
  if (separator != input.end()) {
    const auto header_size = static_cast<std::uint64_t>(separator - input.begin());
    std::vector<unsigned char> file;
    file.reserve(size + 7);
    for (int i = 0; i < 8; ++i) file.push_back(static_cast<unsigned char>(header_size >> (8 * i)));
    file.insert(file.end(), input.begin(), separator);
    file.insert(file.end(), separator + 1, input.end());
    check(file);
  }
  return 0;
}
