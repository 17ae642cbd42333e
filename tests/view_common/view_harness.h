// SPDX-License-Identifier: MIT
// Running the viewing commands from a test: cpcprof with arguments, its
// exit status, stdout and stderr (tests/record's harness), a synthetic
// profile whose every sample is known (storagetest::write_known_profile),
// and a real recording of cpcprof-demo.
#pragma once

#include "tests/record/record_harness.h" // tests/record: run_cpcprof (and tests/support's TempDir, read_file)
#include "tests/storage/helpers.h" // tests/storage: write_known_profile

#include <string>
#include <vector>

namespace cpcprof::test {

// A recording of `cpcprof-demo 1` (matrix_multiply and walk_list on the
// main thread, checksum on a second), made once per test program with the
// default event and symbolized; its path, or "" with a failed assertion.
const std::string &demo_profile();
// What the demo printed in that recording (its own CPU time per phase).
const std::string &demo_output();

// Why the demo cannot be recorded here, or nullptr: in a sanitized build
// (the asan preset) the agent carries the AddressSanitizer runtime, which
// refuses to load into the unsanitized demo.  Tests of the demo recording
// begin with SKIP_WITHOUT_DEMO_RECORDING().
const char *demo_recording_unavailable();
#define SKIP_WITHOUT_DEMO_RECORDING()                                                              \
    do {                                                                                           \
        if (const char *why_ = ::cpcprof::test::demo_recording_unavailable())                      \
            GTEST_SKIP() << why_;                                                                  \
    } while (0)

// Runs cpcprof ARGS in dir (see run_cpcprof) with a 60 s limit.
RunResult cpcprof(const TempDir &dir, const std::vector<std::string> &args);

} // namespace cpcprof::test
