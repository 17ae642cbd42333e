// SPDX-License-Identifier: MIT
// Inline chains, templates, lambdas and static functions, built -O2 -g as a
// PIE, a non-PIE executable and stripped copies (see ../CMakeLists.txt).
#include "tests/symbolize/data/probe.h"

namespace demo {

__attribute__((always_inline)) inline int leaf(int x) {
    int r = x * 3;
    PROBE("leaf"); // @leaf_probe
    return r;
}

__attribute__((always_inline)) inline int middle(int x) {
    return leaf(x + 1) + 1; // @middle_calls_leaf
}

__attribute__((noipa)) int outer(int x) {
    int v = middle(x) * 2; // @outer_calls_middle
    return v;
}

template <typename T> __attribute__((noipa)) T twice(T v) {
    PROBE(sizeof(T) == sizeof(int) ? "twice_int" : "twice_double"); // @twice_probe
    return v + v;
}

static __attribute__((noipa)) int hidden_helper(int x) { // @hidden_helper_decl
    PROBE("static");                                     // @static_probe
    return x - 1;
}

__attribute__((noipa)) int run_lambda(int x) {
    auto f = [](int y) __attribute__((noipa)) {
        PROBE("lambda"); // @lambda_probe
        return y * 5;
    };
    return f(x) + 1;
}

static __attribute__((always_inline)) inline int quiet(int x) {
    PROBE("static_inline"); // @static_inline_probe
    return x + 2;
}

__attribute__((noipa)) int calls_static_inline(int x) {
    return quiet(x) * 3; // @calls_static_inline
}

} // namespace demo

int main(int argc, char **) {
    int sum = demo::outer(argc) + demo::twice(argc) + int(demo::twice(double(argc))) +
              demo::hidden_helper(argc) + demo::run_lambda(argc) + demo::calls_static_inline(argc);
    PRINT_FUNCTION("hidden_helper", &demo::hidden_helper);
    PRINT_FUNCTION("outer", &demo::outer);
    print_maps();
    return sum == 12345 ? 1 : 0;
}
