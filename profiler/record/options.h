// SPDX-License-Identifier: MIT
// `cpcprof record` command line (perf's conventions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::record {

struct EventArg {
    std::string name;
    uint64_t period = 0; // 0: from -c, -F or the default
};

// Bounds of --ring-kb: the agent's smallest ring, and a size that a
// program with many threads can still afford (each may fill its own).
inline constexpr size_t kMinRingKb = 16;
inline constexpr size_t kMaxRingKb = 64 * 1024;

inline constexpr uint64_t kDefaultOffCpuMinNs = 1'000'000;

struct Options {
    std::vector<EventArg> events;
    std::optional<uint64_t> period; // -c
    std::optional<uint64_t> freq;   // -F
    std::string output = "out.cpcprof";
    std::string call_graph = "dwarf";
    int max_depth = 128;
    bool children = true;
    bool quiet = false;
    bool stats = false;    // measure and print the agent's handler cost
    bool symbolize = true; // resolve the profile's addresses when the recording ends
    // How long the end of the recording may wait for debuginfod servers
    // (DEBUGINFOD_URLS) to give debug files this machine lacks; 0: not asked.
    uint64_t debuginfod_wait_s = 5;
    // The events count in the kernel too and samples taken there keep the
    // kernel's frames: --kernel (said if refused), --no-kernel (user mode
    // alone), or unset: the rings do where this user may, the agent not.
    std::optional<bool> kernel;
    size_t ring_kb = 256;
    std::vector<std::string> command;
    std::vector<int> pids;          // -p: running processes to attach to (no command)
    bool system_wide = false;       // -a: every process on the machine
    std::vector<int> cpus;          // --cpu: with -a, only these CPUs (empty: all)
    std::optional<double> duration; // --duration: seconds to record an attach for
    // --capture: how a command's samples are taken: "agent" (the library
    // preloaded into each process), "ring" (the kernel's sample rings, as
    // -p), or "auto" (the agent, and the rings for a static program).
    std::string capture = "auto";
    // --off-cpu: each stretch a thread spends off the CPU, with where it
    // waited, as the event off-cpu; those under --off-cpu-min (us) summed.
    bool off_cpu = false;
    std::optional<uint64_t> off_cpu_min_ns; // unset: kDefaultOffCpuMinNs
    bool help = false;                      // -h or --help before the command: nothing else is set
};

// Parses argv after "record"; on error returns nullopt and sets *error.
std::optional<Options> parse_options(const std::vector<std::string> &args, std::string *error);

const char *usage();

} // namespace cpcprof::record
