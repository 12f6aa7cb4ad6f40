// What the doc examples of ctattn/host/print.hpp use without including it: std::cout.
#pragma once

#include <iostream>
