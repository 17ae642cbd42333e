// SPDX-License-Identifier: MIT
/*
 * dlib: the small shared library that forker's dlopen loop loads and
 * unloads.  dlib_work() spins for about 100 us so that some samples land in
 * the library while it is mapped.
 */
#include "tests/record/targets/target_util.h"

__attribute__((visibility("default"))) NOINLINE uint64_t dlib_work(uint64_t x) {
    return spin_chunk(x);
}
