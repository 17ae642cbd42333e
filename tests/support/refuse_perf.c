// SPDX-License-Identifier: MIT
/*
 * refuse_perf: runs a command as it runs in a default container.
 *
 *   refuse_perf seccomp COMMAND [ARGS...]
 *       sets no_new_privs, installs a seccomp filter that answers
 *       perf_event_open(2) with EPERM (what the default profiles of
 *       Docker, containerd and podman do for a process without
 *       CAP_PERFMON) and everything else allowed, and execs COMMAND:
 *       it and every process it starts run under the filter.
 *   refuse_perf seccomp-kill-readv COMMAND [ARGS...]
 *       the same filter, which also kills the process that calls
 *       process_vm_readv(2) (as a stricter profile may).
 *   refuse_perf unprivileged COMMAND [ARGS...]
 *       as root, becomes the user nobody (no capabilities) and execs
 *       COMMAND, where perf_event_paranoid refuses that user
 *       perf_event_open; exits 77 (a skip), saying why, where it does not
 *       (perf_event_paranoid 2 or lower lets any user count its own
 *       threads) or where this is not root.
 *   refuse_perf user COMMAND [ARGS...]
 *       as root, becomes nobody and execs COMMAND where that user may
 *       count its own threads but not the kernel (perf_event_paranoid 2):
 *       a user's profiler without privilege.  Exits 77, saying why, where
 *       this is not root or the user may not count at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kSkip = 77 };

static void die(const char *what) {
    perror(what);
    exit(125);
}

static void refuse_with_seccomp(int kill_readv) {
#if defined(__x86_64__)
    const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned arch = AUDIT_ARCH_AARCH64;
#else
#error "refuse_perf: unsupported architecture"
#endif
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, kill_readv ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die("PR_SET_NO_NEW_PRIVS");
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        die("PR_SET_SECCOMP");
}

static int read_paranoid(void) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = -100;
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = -100;
        fclose(f);
    }
    return v;
}

// Whether this process may count its own user-mode time.
static int may_count_itself(void) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd >= 0)
        close((int)fd);
    return fd >= 0;
}

static void become_nobody(int want_perf) {
    if (geteuid() != 0) {
        printf("refuse_perf: not root, cannot become another user: skipped\n");
        exit(kSkip);
    }
    struct passwd *pw = getpwnam("nobody");
    if (pw == NULL)
        die("getpwnam(nobody)");
    if (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
        die("becoming nobody");
    const int may = may_count_itself();
    if (want_perf && !may) {
        printf("refuse_perf: perf_event_paranoid is %d here, which refuses an unprivileged "
               "user perf_event_open: skipped\n",
               read_paranoid());
        exit(kSkip);
    }
    if (!want_perf && may) {
        printf("refuse_perf: perf_event_paranoid is %d here, which lets an unprivileged user "
               "count its own threads (Debian's default is 3, Ubuntu's 4): skipped\n",
               read_paranoid());
        exit(kSkip);
    }
}

int main(int argc, char **argv) {
    if (argc < 3 ||
        (strcmp(argv[1], "seccomp") != 0 && strcmp(argv[1], "seccomp-kill-readv") != 0 &&
         strcmp(argv[1], "unprivileged") != 0 && strcmp(argv[1], "user") != 0)) {
        fprintf(stderr, "usage: refuse_perf seccomp|seccomp-kill-readv|unprivileged|user "
                        "COMMAND [ARGS...]\n");
        return 2;
    }
    if (strcmp(argv[1], "seccomp") == 0 || strcmp(argv[1], "seccomp-kill-readv") == 0)
        refuse_with_seccomp(strcmp(argv[1], "seccomp-kill-readv") == 0);
    else
        become_nobody(strcmp(argv[1], "user") == 0);
    fflush(stdout);
    execvp(argv[2], argv + 2);
    die(argv[2]);
}
