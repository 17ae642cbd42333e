// SPDX-License-Identifier: MIT
// Test programs print, at each PROBE, its return address (an address inside
// the calling function, after the call), and at exit their executable
// mappings (from /proc/self/maps), so that tests know the addresses to
// resolve and what they must resolve to.  Source lines are marked with
// "@name" comments that the tests look up.
#pragma once
#include <cstdio>
#include <cstring>

__attribute__((noipa)) static void probe(const char *tag) {
    std::printf("probe %s %p\n", tag, __builtin_return_address(0));
}
// The barrier keeps the call out of tail position (a jump has no return address).
#define PROBE(tag)                                                                                 \
    do {                                                                                           \
        probe(tag);                                                                                \
        asm volatile("" ::: "memory");                                                             \
    } while (0)

#define PRINT_FUNCTION(name, fn) std::printf("func %s %p\n", name, reinterpret_cast<void *>(fn))

static void print_maps() {
    std::fflush(stdout);
    FILE *f = std::fopen("/proc/self/maps", "r");
    char line[4096];
    while (f && std::fgets(line, sizeof line, f)) {
        unsigned long start, end, offset;
        char perms[8], path[3000] = "";
        if (std::sscanf(line, "%lx-%lx %7s %lx %*s %*s %2999[^\n]", &start, &end, perms, &offset,
                        path) >= 4 &&
            perms[2] == 'x' && path[0] == '/')
            std::printf("map %lx %lx %lx %s\n", start, end, offset, path);
    }
    if (f)
        std::fclose(f);
}
