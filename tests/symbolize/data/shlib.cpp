// SPDX-License-Identifier: MIT
// A shared library with an inline chain, loaded by use_shlib.cpp.
#include "tests/symbolize/data/probe.h"

namespace demo_lib {

__attribute__((always_inline)) inline int lib_leaf(int x) {
    PROBE("lib_leaf"); // @lib_leaf_probe
    return x + 7;
}

__attribute__((visibility("default"), noipa)) int lib_entry(int x) {
    return lib_leaf(x) * 2; // @lib_entry_calls_leaf
}

} // namespace demo_lib
