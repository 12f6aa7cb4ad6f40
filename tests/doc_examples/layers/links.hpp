// What the doc examples of ctattn/layers/links.hpp use beside the header: the layers (ctattn::relu).
#pragma once

#include <ctattn/layers.hpp>
