// SPDX-License-Identifier: MIT
// main's exception landing pads (std::string temporaries) end the code of
// this unit right before crt1.o's _start, which has no DWARF: libdwfl hands
// _start's addresses to this unit, whose line table would give them its
// last line (basic_string.h).  Prints _start's address and the mappings.
#include "tests/symbolize/data/probe.h"

#include <stdexcept>
#include <string>

extern "C" void _start();

__attribute__((noipa)) std::string name_of(int i) {
    if (i > 1000)
        throw std::runtime_error("too big");
    return "item " + std::to_string(i) + " of a list long enough to be allocated";
}

int main(int argc, char **argv) {
    std::string all;
    try {
        for (int i = 0; i < argc * 3; ++i)
            all += name_of(i) + (argv[0] ? std::string(argv[0]) : std::string("none"));
    } catch (const std::exception &e) {
        std::printf("%s\n", e.what());
    }
    PRINT_FUNCTION("_start", &_start);
    print_maps();
    return all.empty() ? 1 : 0;
}
