// SPDX-License-Identifier: MIT
#include "libcpc/src/pctx_access.h"

#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace pctx {

bool privileged() {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (syscall(SYS_capget, &hdr, data) != 0)
        return geteuid() == 0;
    return (data[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective & CAP_TO_MASK(CAP_SYS_PTRACE)) != 0;
}

const char *capture_refusal(const proc::Status &st, int *err) {
    if (privileged())
        return nullptr;
    uid_t u = getuid();
    gid_t g = getgid();
    *err = EACCES;
    if (st.uid[0] != u)
        return "pid %d: permission denied (another user's process)\n";
    for (int i = 0; i < 3; ++i) {
        if (st.uid[i] != u || st.gid[i] != g)
            return "pid %d is a set-id process: permission denied\n";
    }
    return nullptr;
}

int program_refusal(const char *path) {
    if (privileged())
        return 0;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno;
    bool setid = ((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) ||
                 ((sb.st_mode & S_ISGID) && sb.st_gid != getegid());
    if (setid || access(path, R_OK) != 0)
        return EACCES;
    return 0;
}

} // namespace pctx
