// The names the doc examples of ctattn/host/safetensors.hpp use without defining them: a file read before, a
// source of bytes, and what they call from ctattn's core and the standard library.
#pragma once

#include <ctattn/matrix/from_array.hpp>  // from_span
#include <ctattn/matrix/matrix.hpp>

#include <cassert>
#include <iostream>
#include <stdexcept>
#include <vector>

inline const ctattn::host::safetensors_file file{};
inline std::vector<unsigned char> download() { return {}; }
