// SPDX-License-Identifier: MIT
/*
 * spawn_child: starts one program as a fork child, optionally under a
 * seccomp filter against perf_event_open(2).
 *
 *   spawn_child [--seccomp kill|eperm] PROGRAM [ARGS...]
 *       with --seccomp, sets no_new_privs and installs (prctl
 *       PR_SET_SECCOMP, a raw BPF program) a filter whose verdict for
 *       perf_event_open is SECCOMP_RET_KILL_PROCESS (kill) or
 *       SECCOMP_RET_ERRNO(EPERM) (eperm), everything else allowed; then
 *       forks, the child execs PROGRAM, and the parent waits for it and
 *       prints "child exited N" or "child killed by signal N", and exits
 *       with the child's exit code (128 + N for a signal).
 *   spawn_child --posix-spawn PROGRAM [ARGS...]
 *       the same without a filter, the child started with posix_spawn
 *       (a vfork child: it runs no exec wrapper of the profiler's).
 *   spawn_child --exit N
 *       prints "exiting N" and exits with status N (a dynamically linked
 *       child for the filter's cases).
 *   spawn_child --seccomp kill|eperm --fork2
 *       with the filter installed, forks a child that forks a grandchild
 *       (no exec): the grandchild prints "grandchild" and exits 3, the
 *       child exits with its status, the parent prints "child exited 3"
 *       and exits 3.
 *
 * Test: output and status equal to the bare run: no SIGSYS from the
 * profiler's own calls, the child's exit status in the profile, and one
 * line per process saying that it runs under a seccomp filter and is not
 * sampled.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void install_filter(const char *mode) {
    unsigned verdict = strcmp(mode, "kill") == 0 ? SECCOMP_RET_KILL_PROCESS
                                                 : SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, verdict),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die("PR_SET_NO_NEW_PRIVS");
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        die("PR_SET_SECCOMP");
}

int main(int argc, char **argv) {
    int arg = 1;
    if (argc == 3 && strcmp(argv[1], "--exit") == 0) {
        printf("exiting %d\n", atoi(argv[2]));
        return atoi(argv[2]);
    }
    if (argc > 3 && strcmp(argv[1], "--seccomp") == 0) {
        install_filter(argv[2]);
        arg = 3;
    }
    if (argc > 2 && strcmp(argv[1], "--posix-spawn") == 0) {
        fflush(stdout);
        pid_t child;
        int rc = posix_spawn(&child, argv[2], NULL, NULL, argv + 2, environ);
        if (rc != 0) {
            fprintf(stderr, "posix_spawn: %s\n", strerror(rc));
            return 127;
        }
        int st;
        if (waitpid(child, &st, 0) != child)
            die("waitpid");
        printf("child exited %d\n", WEXITSTATUS(st));
        return WEXITSTATUS(st);
    }
    if (arg < argc && strcmp(argv[arg], "--fork2") == 0) {
        fflush(stdout);
        pid_t child = fork();
        if (child < 0)
            die("fork");
        if (child == 0) {
            pid_t grandchild = fork();
            if (grandchild == 0) {
                printf("grandchild\n");
                exit(3);
            }
            int st;
            waitpid(grandchild, &st, 0);
            exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
        }
        int st;
        waitpid(child, &st, 0);
        printf("child exited %d\n", WEXITSTATUS(st));
        return WEXITSTATUS(st);
    }
    if (arg >= argc) {
        fprintf(stderr, "usage: spawn_child [--seccomp kill|eperm] PROGRAM [ARGS...]\n");
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        execv(argv[arg], argv + arg);
        perror("execv");
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    if (WIFSIGNALED(status)) {
        printf("child killed by signal %d\n", WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    printf("child exited %d\n", WEXITSTATUS(status));
    return WEXITSTATUS(status);
}
