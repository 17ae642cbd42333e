// SPDX-License-Identifier: MIT
// A process started beside a test (to attach to, to trace), its stdout on
// a pipe; killed and reaped if still there at the end.  And who traces a
// process.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cpcprof::test {

class Spawned {
  public:
    // argv[0] a path.  Non-zero uid or euid: runs with those real and
    // effective (and saved) user IDs, as group nogroup (65534).  Throws
    // std::system_error when the pipe or the fork fails.
    explicit Spawned(const std::vector<std::string> &argv, uid_t uid = 0, uid_t euid = 0);
    ~Spawned();
    Spawned(const Spawned &) = delete;
    Spawned &operator=(const Spawned &) = delete;

    // The next line it writes (its "ready"), without the '\n'.
    std::string line();
    // Waits for it to end; its wait status.
    int wait();

    pid_t pid = -1; // -1 once waited for
    int out = -1;   // the read end of its stdout
};

// The TracerPid of /proc/PID/status: 0 untraced, -1 when it cannot be read.
pid_t tracer_of(pid_t pid);

} // namespace cpcprof::test
