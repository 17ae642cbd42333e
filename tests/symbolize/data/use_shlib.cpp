// SPDX-License-Identifier: MIT
#include "tests/symbolize/data/probe.h"

namespace demo_lib {
int lib_entry(int x);
}

int main(int argc, char **) {
    int v = demo_lib::lib_entry(argc);
    print_maps();
    return v == 12345 ? 1 : 0;
}
