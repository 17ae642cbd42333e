// SPDX-License-Identifier: MIT
/*
 * trapper: a program that takes SIGTRAP - the signal the kernel raises in
 * a thread whose profiling counter overflows - in the ways real programs
 * do.  Every mode spins in tr_spin() (CPU time) and prints one line
 *   "trapper MODE own N foreign M"
 * where N counts the SIGTRAPs the program raised itself (raise, int3)
 * that reached its handler, and M every other signal its handler saw (an
 * overflow trap, si_code TRAP_PERF, or any signal it did not send).  A
 * foreign signal makes it print what Go's runtime prints for one and exit
 * 2, as Go does.  Without the profiler every mode prints "foreign 0".
 *
 *   dfl-before    signal(SIGTRAP, SIG_DFL) first, then spins 0.4 s
 *   dfl-after     spins 0.2 s, signal(SIGTRAP, SIG_DFL), spins 0.2 s
 *   handler-before  sigaction(SIGTRAP, handler) first, spins 0.4 s,
 *                 raise(SIGTRAP), int3
 *   handler-after   spins 0.2 s, sigaction(SIGTRAP, handler), spins
 *                 0.2 s, raise(SIGTRAP), int3
 *   sigset-dfl    sigset(SIGTRAP, SIG_DFL) first, then spins 0.4 s
 *   sysv-handler  sysv_signal(SIGTRAP, handler) (reset to SIG_DFL when
 *                 it runs), spins 0.2 s, raise(SIGTRAP), spins 0.2 s more
 *                 with the default action
 *   syscall-all   a handler for every signal (SIGTRAP included) at start
 *                 with syscall(SYS_rt_sigaction, ...) of libc; spins
 *                 0.4 s, raise(SIGTRAP)
 *   raw-all       what Go's runtime does at start: the same with its own
 *                 system call instruction, which no library can
 *                 interpose; then it waits (1 s at most) for its SIGTRAP
 *                 disposition to change (the profiler's agent looks for
 *                 such changes every 250 us at first, and puts its own
 *                 back), spins 0.4 s, raise(SIGTRAP)
 *   raw-all-now   raw-all without the wait: the race that remains
 *   raw-all-fork  raw-all, then forks a child that spins 0.2 s and exits
 *                 0 ("child exit 0"), then spins 0.2 s, raise(SIGTRAP)
 *   ign-exec      signal(SIGTRAP, SIG_IGN), spins 0.2 s, execs itself as
 *                 "trapper ign-report", which spins 0.2 s, raise(SIGTRAP)
 *                 and prints "ignored yes" when sigaction(2) says SIGTRAP
 *                 is ignored (exec keeps an ignored signal ignored), then
 *                 its usual line
 *   fork-reset    forks; the child resets every signal to SIG_DFL with
 *                 its own system call instruction, waits as raw-all does,
 *                 spins 0.3 s and exits 0; the parent prints the child's
 *                 status ("child exit 0")
 *   fork-reset-now    the same without the wait
 *   fork-reset-syscall  the same through syscall(3), without the wait
 *   fork-reset-libc     the same through signal(3), without the wait
 *
 * The expected own count is 2 for handler-*, 1 for *-all and
 * sysv-handler, 0 otherwise.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

static atomic_long g_own, g_foreign;
static volatile sig_atomic_t g_expect_own; /* a trap of ours is under way */
volatile uint64_t tr_sink;

/* Each spin says on stderr what the kernel counted of it: "clock spin
 * PERIODS TAKEN", "clock child ..." in a fork child (target_util.h:
 * ref_clock). */
static const char *g_clock_name = "spin";

NOINLINE void tr_spin(double seconds) {
    struct ref_clock ref;
    struct ref_tally tally = {0, 0, 0};
    ref_clock_start(&ref);
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 23;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    tr_sink = x;
    ref_clock_stop(&ref, &tally);
    ref_clock_print(stderr, g_clock_name, &tally);
}

static void handler(int sig, siginfo_t *si, void *uc) {
    (void)uc;
    if (sig == SIGTRAP && g_expect_own && si->si_code != TRAP_PERF) {
        atomic_fetch_add(&g_own, 1);
        g_expect_own = 0;
        return;
    }
    atomic_fetch_add(&g_foreign, 1);
    if (sig == SIGTRAP) {
        /* What a Go program prints before it dies of an unexpected trap. */
        char msg[96];
        int n =
            snprintf(msg, sizeof msg, "SIGTRAP: trace trap\nPC=0 m=0 sigcode=%d\n", si->si_code);
        if (write(2, msg, (size_t)n) < 0)
            _exit(3);
        _exit(2);
    }
}

static void plain_handler(int sig) {
    if (sig == SIGTRAP && g_expect_own) {
        atomic_fetch_add(&g_own, 1);
        g_expect_own = 0;
        return;
    }
    atomic_fetch_add(&g_foreign, 1);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, NULL) != 0)
        die("sigaction");
}

/* The kernel's struct sigaction and a return trampoline of our own, as
 * Go's runtime has them. */
struct ksigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};
#define K_SA_RESTORER 0x04000000UL

void tr_restore_rt(void);
#if defined(__x86_64__)
__asm__(".text\n.globl tr_restore_rt\ntr_restore_rt:\n\tmovq $15, %rax\n\tsyscall\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl tr_restore_rt\ntr_restore_rt:\n\tmov x8, #139\n\tsvc #0\n");
#endif

/* rt_sigaction without libc, as Go's runtime calls it. */
static long raw_sigaction(int sig, const struct ksigaction *act, struct ksigaction *old) {
    long rc;
#if defined(__x86_64__)
    register long r10 __asm__("r10") = sizeof act->mask;
    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_rt_sigaction), "D"((long)sig), "S"(act), "d"(old), "r"(r10)
                     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_rt_sigaction;
    register long x0 __asm__("x0") = sig;
    register long x1 __asm__("x1") = (long)act;
    register long x2 __asm__("x2") = (long)old;
    register long x3 __asm__("x3") = sizeof act->mask;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    rc = x0;
#endif
    return rc;
}

enum how { LIBC, SYSCALL3, RAW };

static int set_action(enum how how, int sig, const struct ksigaction *ka) {
    if (how == RAW)
        return raw_sigaction(sig, ka, NULL) == 0 ? 0 : -1;
    return (int)syscall(SYS_rt_sigaction, sig, ka, NULL, sizeof ka->mask);
}

static void take_all(enum how how) {
    for (int sig = 1; sig <= 64; ++sig) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        struct ksigaction ka = {0};
        ka.handler = (void *)handler;
        ka.flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | K_SA_RESTORER;
        ka.restorer = (void *)tr_restore_rt;
        ka.mask = ~0ULL;
        if (set_action(how, sig, &ka) != 0 && sig < 32)
            die("rt_sigaction");
    }
}

static void reset_all(enum how how) {
    for (int sig = 1; sig <= 64; ++sig) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        if (how == LIBC) {
            signal(sig, SIG_DFL);
        } else {
            struct ksigaction ka = {0};
            ka.handler = (void *)SIG_DFL;
            set_action(how, sig, &ka);
        }
    }
}

/* Waits, 1 s at most, for SIGTRAP's disposition to be something other
 * than what this program set (a bare run waits the whole second). */
static void await_change(void) {
    struct ksigaction now;
    int64_t end = mono_ns() + 1000000000;
    while (mono_ns() < end) {
        if (raw_sigaction(SIGTRAP, NULL, &now) != 0)
            die("rt_sigaction");
        if (now.handler != (void *)handler && now.handler != (void *)SIG_DFL)
            return;
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void own_traps(int int3) {
    g_expect_own = 1;
    raise(SIGTRAP);
    if (int3) {
        g_expect_own = 1;
#if defined(__x86_64__)
        __asm__ volatile("int3");
#elif defined(__aarch64__)
        __asm__ volatile("brk #0");
#endif
    }
}

static void wait_child(pid_t pid) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    if (WIFEXITED(status))
        printf("child exit %d\n", WEXITSTATUS(status));
    else
        printf("child killed by signal %d\n", WTERMSIG(status));
    fflush(stdout);
}

static void fork_spin(void) {
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        g_clock_name = "child";
        tr_spin(0.2);
        _exit(0);
    }
    wait_child(pid);
}

static int fork_reset(enum how how, int pause) {
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        reset_all(how);
        if (pause)
            await_change();
        g_clock_name = "child";
        tr_spin(0.3);
        _exit(0);
    }
    wait_child(pid);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "dfl-before") == 0) {
        signal(SIGTRAP, SIG_DFL);
        tr_spin(0.4);
    } else if (strcmp(mode, "dfl-after") == 0) {
        tr_spin(0.2);
        signal(SIGTRAP, SIG_DFL);
        tr_spin(0.2);
    } else if (strcmp(mode, "handler-before") == 0) {
        install();
        tr_spin(0.4);
        own_traps(1);
    } else if (strcmp(mode, "handler-after") == 0) {
        tr_spin(0.2);
        install();
        tr_spin(0.2);
        own_traps(1);
    } else if (strcmp(mode, "sigset-dfl") == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        if (sigset(SIGTRAP, SIG_DFL) == SIG_ERR) /* what old programs call */
            die("sigset");
#pragma GCC diagnostic pop
        tr_spin(0.4);
    } else if (strcmp(mode, "sysv-handler") == 0) {
        if (sysv_signal(SIGTRAP, plain_handler) == SIG_ERR)
            die("sysv_signal");
        tr_spin(0.2);
        own_traps(0);
        tr_spin(0.2);
    } else if (strcmp(mode, "syscall-all") == 0) {
        take_all(SYSCALL3);
        tr_spin(0.4);
        own_traps(0);
    } else if (strcmp(mode, "raw-all") == 0 || strcmp(mode, "raw-all-now") == 0) {
        take_all(RAW);
        if (strcmp(mode, "raw-all") == 0)
            await_change();
        tr_spin(0.4);
        own_traps(0);
    } else if (strcmp(mode, "raw-dfl-now") == 0) {
        struct ksigaction ka = {0};
        ka.handler = (void *)SIG_DFL;
        if (set_action(RAW, SIGTRAP, &ka) != 0)
            die("rt_sigaction");
        tr_spin(0.4);
    } else if (strcmp(mode, "raw-all-fork") == 0) {
        take_all(RAW);
        await_change();
        fork_spin();
        tr_spin(0.2);
        own_traps(0);
    } else if (strcmp(mode, "ign-exec") == 0) {
        signal(SIGTRAP, SIG_IGN);
        tr_spin(0.2);
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "ign-report", (char *)NULL);
        die("execl");
    } else if (strcmp(mode, "ign-report") == 0) {
        struct sigaction old;
        if (sigaction(SIGTRAP, NULL, &old) != 0)
            die("sigaction");
        tr_spin(0.2);
        raise(SIGTRAP);
        printf("ignored %s\n", old.sa_handler == SIG_IGN ? "yes" : "no");
    } else if (strcmp(mode, "fork-reset") == 0) {
        fork_reset(RAW, 1);
    } else if (strcmp(mode, "fork-reset-now") == 0) {
        fork_reset(RAW, 0);
    } else if (strcmp(mode, "fork-reset-syscall") == 0) {
        fork_reset(SYSCALL3, 0);
    } else if (strcmp(mode, "fork-reset-libc") == 0) {
        fork_reset(LIBC, 0);
    } else {
        fprintf(stderr, "usage: trapper dfl-before|dfl-after|handler-before|handler-after|"
                        "syscall-all|raw-all|raw-all-now|raw-dfl-now|raw-all-fork|ign-exec|fork-"
                        "reset|fork-reset-now|"
                        "fork-reset-syscall|fork-reset-libc\n");
        return 64;
    }
    printf("trapper %s own %ld foreign %ld\n", mode, atomic_load(&g_own), atomic_load(&g_foreign));
    return 0;
}
