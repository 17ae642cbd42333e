// SPDX-License-Identifier: MIT
/*
 * closer: a program that closes descriptors it did not open, as daemons
 * do, then works; one mode per run.  The work is cl_work(): 0.3 s of CPU
 * time, after which it prints "clock work PERIODS TAKEN" (the kernel's
 * count of its clock periods, target_util.h: ref_clock) and "work
 * SECONDS" (the CPU time) and exits 0.
 *
 *   closer all
 *       close(fd) for every fd from 3 to 1023 (the classic daemon loop),
 *       then close_range(3, ~0U, 0), then closefrom(3), then works.
 *       Test: the work is sampled (the profiler's channel survived), and
 *       cpcprof says nothing about processes that stopped reporting.
 *   closer cloexec-exec
 *       close_range(3, ~0U, CLOSE_RANGE_CLOEXEC), then execs itself as
 *       "closer work".  Test: the exec'd image is sampled (the channel
 *       was still inheritable).
 *   closer dup2-exec
 *       copies its environment, puts /dev/null at the channel's number
 *       (CPCPROF_CHANNEL) with dup2, checks that the number now is
 *       /dev/null (else prints "dup2 did not take" and exits 1), and execs
 *       itself as "closer work" with the copied environment.  Test: both
 *       images are recorded and the second one's work is sampled.
 *   closer raw
 *       closes every descriptor from 3 up with the close_range system call
 *       itself (which no library can intercept), then works.  Test: cpcprof
 *       says that the process stopped reporting and why; exit status 0.
 *   closer work
 *       just the work.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;
volatile uint64_t cl_sink;

NOINLINE void cl_work(void) {
    struct ref_clock ref;
    struct ref_tally work = {0, 0, 0};
    ref_clock_start(&ref);
    double t0 = thread_cpu_seconds();
    uint64_t x = 5;
    while (thread_cpu_seconds() < t0 + 0.3)
        x = spin_chunk(x);
    cl_sink = x;
    double spent = thread_cpu_seconds() - t0;
    ref_clock_stop(&ref, &work);
    ref_clock_print(stdout, "work", &work);
    printf("work %.6f\n", spent);
}

static void exec_self(const char *mode, char **envp) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        die("readlink /proc/self/exe");
    exe[n] = '\0';
    char *argv[] = {"closer", (char *)mode, NULL};
    fflush(stdout);
    execve(exe, argv, envp);
    die("execve");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "all") == 0) {
        for (int fd = 3; fd < 1024; ++fd)
            close(fd);
        if (close_range(3, ~0U, 0) != 0)
            die("close_range");
        closefrom(3);
    } else if (strcmp(mode, "cloexec-exec") == 0) {
        if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
            die("close_range");
        exec_self("work", environ);
    } else if (strcmp(mode, "dup2-exec") == 0) {
        const char *ch = getenv("CPCPROF_CHANNEL");
        if (ch == NULL) {
            fprintf(stderr, "closer: CPCPROF_CHANNEL is not set\n");
            return 1;
        }
        int target = atoi(ch);
        size_t n = 0;
        while (environ[n] != NULL)
            ++n;
        char **copy = calloc(n + 1, sizeof *copy);
        for (size_t i = 0; i < n; ++i)
            copy[i] = strdup(environ[i]);
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, target) != target)
            die("dup2");
        char path[64], seen[256] = {0};
        snprintf(path, sizeof path, "/proc/self/fd/%d", target);
        if (readlink(path, seen, sizeof seen - 1) <= 0 || strcmp(seen, "/dev/null") != 0) {
            printf("dup2 did not take: fd %d is %s\n", target, seen);
            return 1;
        }
        close(null);
        exec_self("work", copy);
    } else if (strcmp(mode, "raw") == 0) {
        if (syscall(SYS_close_range, 3, ~0U, 0) != 0)
            die("close_range");
    } else if (strcmp(mode, "work") != 0) {
        fprintf(stderr, "usage: closer all | cloexec-exec | dup2-exec | raw | work\n");
        return 2;
    }
    cl_work();
    return 0;
}
