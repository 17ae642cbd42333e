// SPDX-License-Identifier: MIT
/*
 * forker: processes that fork, exec and load libraries, one mode per run.
 *
 *   forker fork [exit|_exit|return|kill [late]]
 *       fork without exec (late: after 0.2 s spun in fk_before_fork(), so
 *       that a profiler that comes to the process from outside is there
 *       at the fork): the child spins 0.3 s in fk_child_busy() and
 *       ends with status 3 - by exit(3) (the default), by _exit(3) as fork
 *       children often do, or by returning 3 from main; the parent spins
 *       0.3 s in fk_parent_busy(), reaps the child, prints "child PID
 *       exited 3" and "parent PID", and exits 0.  Test: two processes in
 *       the profile, each with samples in its own function; the child
 *       ended, with exit status 3, however it ended.
 *
 *   forker fork kill
 *       the same, but the child kills itself with SIGUSR1 after its spin,
 *       and the parent, after its own, waits 0.3 s before it reaps the
 *       child (a zombie meanwhile) and prints "child PID killed 10".
 *       Test: the child ended killed by SIGUSR1, which only the kernel
 *       can tell (the child says nothing as it dies).
 *
 *   forker chain N [SECONDS [LAST]]
 *       prints "stage N pid PID", spins SECONDS (default 0.2) of CPU time
 *       in fk_chain_stage() and prints "spun N SECONDS" (its CPU time),
 *       spins 5 ms more in fk_chain_last() and execs itself as "forker
 *       chain N-1 SECONDS [LAST]" at once; stage 0 spins LAST seconds
 *       (default SECONDS) and exits 7.
 *       "chain 2" is an exec chain of 3 programs in one pid.  Test:
 *       cpcprof exits 7 and every stage's image has samples in
 *       fk_chain_stage, as many as its CPU time gives: the spin ends right
 *       before the exec, so the samples of an image's last milliseconds
 *       count; fk_chain_last()'s are those moments alone, whatever the
 *       rate of sampling the image got.
 *
 *   forker dlopen N LIBRARY
 *       N times: dlopen LIBRARY, call its dlib_work(), dlclose it (and check
 *       that it is gone).  Prints "dlopen cycles N unloaded U" and exits 0.
 *       Test: exit 0, U == N, the library in the profile's modules.
 *
 *   forker exec-lister
 *       spins 0.1 s, then forks and execs "forker list-fds" and exits with
 *       its status.
 *   forker list-fds
 *       prints "fd N TARGET" for every open descriptor (readlink of
 *       /proc/self/fd/N), "env NAME=VALUE" for LD_PRELOAD, every
 *       CPCPROF_* variable and CPC_SIGEMT_STABLE, and "lister PID"; exits
 *       0.  Test (--no-children): no socket among the descriptors, no
 *       agent in LD_PRELOAD, none of those variables, the lister not in
 *       the profile.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
volatile uint64_t fk_sink;

NOINLINE uint64_t fk_spin(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 13;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

/* The store after the call keeps each one on the stack (no tail call). */
NOINLINE void fk_child_busy(void) {
    fk_sink = fk_spin(0.3) + 1;
}
NOINLINE void fk_parent_busy(void) {
    fk_sink = fk_spin(0.3) + 2;
}
NOINLINE void fk_before_fork(void) {
    fk_sink = fk_spin(0.2) + 5;
}
NOINLINE void fk_chain_stage(double seconds) {
    fk_sink = fk_spin(seconds) + 3;
}
NOINLINE void fk_chain_last(void) {
    fk_sink = fk_spin(0.005) + 4;
}

static void self_exe(char *buf, size_t size) {
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        die("readlink /proc/self/exe");
    buf[n] = '\0';
}

/* Returns 0 in the parent; in the child, 3 to be returned from main, or
 * does not return. */
static int mode_fork(const char *how, int late) {
    if (late)
        fk_before_fork();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        fk_child_busy();
        if (strcmp(how, "kill") == 0)
            raise(SIGUSR1);
        if (strcmp(how, "_exit") == 0)
            _exit(3);
        if (strcmp(how, "return") == 0)
            return 3;
        exit(3);
    }
    fk_parent_busy();
    if (strcmp(how, "kill") == 0)
        usleep(300 * 1000);
    int status;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    if (WIFSIGNALED(status))
        printf("child %d killed %d\n", (int)pid, WTERMSIG(status));
    else
        printf("child %d exited %d\n", (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    printf("parent %d\n", (int)getpid());
    return 0;
}

static int mode_chain(int n, const char *seconds, const char *last) {
    printf("stage %d pid %d\n", n, (int)getpid());
    double t0 = thread_cpu_seconds();
    fk_chain_stage(atof(n <= 0 && last != NULL ? last : seconds));
    printf("spun %d %.6f\n", n, thread_cpu_seconds() - t0);
    fflush(stdout);
    if (n <= 0)
        return 7;
    char exe[4096], next[16];
    self_exe(exe, sizeof exe);
    snprintf(next, sizeof next, "%d", n - 1);
    char *argv[] = {"forker", "chain", next, (char *)seconds, (char *)last, NULL};
    fk_chain_last();
    execv(exe, argv);
    die("execv");
    return 1;
}

static int mode_dlopen(int n, const char *library) {
    int unloaded = 0;
    uint64_t x = 17;
    for (int i = 0; i < n; ++i) {
        void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        uint64_t (*work)(uint64_t) = (uint64_t(*)(uint64_t))dlsym(h, "dlib_work");
        if (work == NULL) {
            fprintf(stderr, "dlsym: %s\n", dlerror());
            return 1;
        }
        x = work(x);
        dlclose(h);
        void *still = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
        if (still == NULL)
            ++unloaded;
        else
            dlclose(still);
    }
    fk_sink = x;
    printf("dlopen cycles %d unloaded %d\n", n, unloaded);
    return 0;
}

static int mode_exec_lister(void) {
    fk_sink = fk_spin(0.1);
    fflush(stdout);
    char exe[4096];
    self_exe(exe, sizeof exe);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        char *argv[] = {"forker", "list-fds", NULL};
        execv(exe, argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int mode_list_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        die("opendir /proc/self/fd");
    int own = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == own)
            continue;
        char path[300], target[4096];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("fd %s %s\n", e->d_name, target);
    }
    closedir(d);
    for (char **v = environ; *v != NULL; ++v)
        if (strncmp(*v, "LD_PRELOAD=", 11) == 0 || strncmp(*v, "CPCPROF_", 8) == 0 ||
            strncmp(*v, "CPC_SIGEMT_STABLE=", 18) == 0)
            printf("env %s\n", *v);
    printf("lister %d\n", (int)getpid());
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fork") == 0)
        return mode_fork(argc > 2 ? argv[2] : "exit", argc > 3 && strcmp(argv[3], "late") == 0);
    if (strcmp(mode, "chain") == 0 && argc > 2)
        return mode_chain(atoi(argv[2]), argc > 3 ? argv[3] : "0.2", argc > 4 ? argv[4] : NULL);
    if (strcmp(mode, "dlopen") == 0 && argc > 3)
        return mode_dlopen(atoi(argv[2]), argv[3]);
    if (strcmp(mode, "exec-lister") == 0)
        return mode_exec_lister();
    if (strcmp(mode, "list-fds") == 0)
        return mode_list_fds();
    fprintf(
        stderr,
        "usage: forker fork [exit|_exit|return|kill [late]] | chain N [SECONDS [LAST]] | dlopen N "
        "LIBRARY | exec-lister | list-fds\n");
    return 2;
}
