// SPDX-License-Identifier: MIT
// The user stacks of attached processes (record -p, -a, --capture ring):
// the kernel's sample ring copies each sample's user registers and the top
// of its stack (cpc_ring_open's CPC_RING_USER_STACK), and the recorder
// unwinds the copy.  First with the agent's compiled rows (agent/cfi.h,
// the walk of agent/cfi_walk.h reading the copy), compiled once per module
// file from the process's own files (read through /proc/PID/root, so that
// a process in another mount namespace resolves); where that walk stops
// short of the first frame, with libunwind's remote mode
// (unw_create_addr_space), as perf's unwind-libunwind-local.c does, whose
// memory reads come from the copy or the module files, and which also
// walks modules without .eh_frame_hdr (a static program's), and the
// longer of the two is kept.  The rows are about 20 times faster than
// libunwind on the same copies (tests/bench/bench_unwind; docs/profiler.md).
// Ordinary context (the recorder's reader thread); not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cpcprof::record {

class CopiedStackUnwinder {
  public:
    CopiedStackUnwinder();
    ~CopiedStackUnwinder();
    CopiedStackUnwinder(const CopiedStackUnwinder &) = delete;
    CopiedStackUnwinder &operator=(const CopiedStackUnwinder &) = delete;

    // One executable mapping of pid, as /proc/PID/maps gives it.
    struct Mapping {
        uint64_t start = 0, end = 0, file_offset = 0;
        std::string path;
    };
    // The process's executable mappings (all of them, replacing the last).
    // A "[vdso]" mapping is unwound with this process's own vDSO: pass it
    // only where the process's holds the same bytes.
    void set_mappings(pid_t pid, const std::vector<Mapping> &maps);
    // The process is gone: its files and caches are released.
    void forget(pid_t pid);

    // Unwinds one sample: regs as the ring gives them (regs_mask's bits,
    // lowest first), the stack copied from the stack pointer up.  Appends
    // the frames, leaf first (the interrupted PC, then return addresses),
    // at most max_depth; true when the walk reached the outermost frame.
    bool unwind(pid_t pid, const uint64_t *regs, uint64_t regs_mask, const void *stack,
                uint64_t stack_size, int max_depth, std::vector<uint64_t> *frames);

    // How unwind walks: the rows, then libunwind where they stop short
    // (recordings); or either alone (tests, tests/bench/bench_unwind).
    enum class Method { rows_then_libunwind, rows, libunwind };
    void set_method(Method m) { method_ = m; }

    struct Process;

  private:
    std::map<pid_t, std::unique_ptr<Process>> procs_;
    Method method_ = Method::rows_then_libunwind;
};

} // namespace cpcprof::record
