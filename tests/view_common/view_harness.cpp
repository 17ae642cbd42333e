// SPDX-License-Identifier: MIT
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>

#include <memory>

namespace cpcprof::test {

namespace {
std::string g_demo_output;
} // namespace

const std::string &demo_profile() {
    static std::unique_ptr<TempDir> dir;
    static std::string path;
    if (!dir) {
        dir = std::make_unique<TempDir>();
        std::string out = dir->file("demo.cpcprof");
        // 4 kHz: about 5,000 samples of the demo's 1.3 s of CPU time, so
        // that the shares the tests judge have a binomial spread of a few
        // tenths of a percent (ReportDemo.HottestFunctionsAreTheDemosLoops).
        RunResult r =
            run_cpcprof(*dir, {"record", "-q", "-F", "4000", "-o", out, "--", DEMO_EXE, "1"}, 60);
        EXPECT_EQ(r.status, 0) << r.err;
        if (r.status == 0)
            path = out;
        g_demo_output = r.out;
    }
    EXPECT_FALSE(path.empty()) << "recording cpcprof-demo failed";
    return path;
}

const std::string &demo_output() {
    demo_profile();
    return g_demo_output;
}

const char *demo_recording_unavailable() {
#ifdef VIEW_AGENT_SANITIZED
    return "the agent is built with AddressSanitizer, whose runtime cannot be preloaded into "
           "the unsanitized demo; the demo recording tests run in the dev preset";
#else
    return nullptr;
#endif
}

RunResult cpcprof(const TempDir &dir, const std::vector<std::string> &args) {
    return run_cpcprof(dir, args, 60);
}

} // namespace cpcprof::test
