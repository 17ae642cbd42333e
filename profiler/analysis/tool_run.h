// SPDX-License-Identifier: MIT
// Running a binutils tool (objdump, nm) as a child process and taking its
// output: bounded in size and time, no descriptor of ours inherited, no
// shell, the C locale (LC_ALL=C: its output is parsed).  Any thread (the
// viewer calls it off the GUI thread).
#pragma once

#include <string>
#include <vector>

namespace cpcprof::analysis {

struct ToolResult {
    bool ran = false;  // started and exited (any status) within the bounds
    int status = -1;   // exit status when it exited
    std::string out;   // stdout
    std::string err;   // stderr (at most 64 KiB)
    std::string error; // why it did not run or was stopped ("objdump: not found")
};

// argv[0] is looked up in PATH.  Output past max_out bytes, or a run past
// timeout_ms, kills the child (SIGKILL) and says so in error.
ToolResult run_tool(const std::vector<std::string> &argv, size_t max_out = size_t{256} << 20,
                    int timeout_ms = 60000);

} // namespace cpcprof::analysis
