// SPDX-License-Identifier: MIT
#include "libcpc/src/pctx_park.h"

#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <cerrno>

namespace pctx {

namespace {

constexpr uint16_t kSyscallInsn = 0x050f; // 0f 05, little-endian

int set_mask(pid_t tid, uint64_t mask) {
    if (ptrace(PTRACE_SETSIGMASK, tid, reinterpret_cast<void *>(sizeof mask), &mask) != 0)
        return errno;
    return 0;
}

} // namespace

int park(pid_t tid, Parked *out) {
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &out->regs) != 0)
        return errno;
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, tid, reinterpret_cast<void *>(out->regs.rip - 2), nullptr);
    if (errno != 0)
        return errno;
    // A 64-bit fork by the syscall instruction (not int 0x80 of a 32-bit
    // program, whose numbers differ).
    if ((word & 0xffff) != kSyscallInsn)
        return ENOSYS;
    if (ptrace(PTRACE_GETSIGMASK, tid, reinterpret_cast<void *>(sizeof out->sigmask),
               &out->sigmask) != 0)
        return errno;
    if (int e = set_mask(tid, ~uint64_t(0)))
        return e;
    user_regs_struct r = out->regs;
    r.rip -= 2;
    r.rax = SYS_pause;
    r.orig_rax = static_cast<unsigned long long>(-1); // no restart of the fork
    if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) {
        int e = errno;
        set_mask(tid, out->sigmask);
        return e;
    }
    return 0;
}

int unpark(pid_t tid, const Parked &saved) {
    user_regs_struct r = saved.regs;
    // Not in a system call: the interrupted pause() is not restarted.
    r.orig_rax = static_cast<unsigned long long>(-1);
    if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0)
        return errno;
    return set_mask(tid, saved.sigmask);
}

} // namespace pctx
