// SPDX-License-Identifier: MIT
/*
 * waiter: threads that wait for known amounts of time, each in a function
 * of its own, for the off-CPU tests (record --off-cpu):
 *   main     wait_sleeping: 8 x nanosleep(25 ms);
 *   locker   wait_mutex: 3 x pthread_mutex_lock of a mutex main holds for
 *            about 40 ms each (one round a call);
 *   reader   wait_pipe: 3 x read(2) of a pipe main writes after about 30 ms;
 *   spinner  spin_only: 150 ms of CPU time, never blocking;
 *   shorty   wait_short: 2000 x nanosleep(20 us), each far under the
 *            recorder's default threshold (1 ms).
 * Each waiting function times its waits on CLOCK_MONOTONIC, around the
 * blocking call alone, and the program prints, after its threads ended,
 *     wait FUNCTION SECONDS COUNT
 * and per thread
 *     thread NAME TID WALL_SECONDS START_NS END_NS
 * (WALL from the thread's start to its end, on CLOCK_MONOTONIC): the truth
 * the profile is held to.  Exits 0.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <sys/syscall.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_step_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_step_cond = PTHREAD_COND_INITIALIZER;
static int g_locker_step = 0; /* rounds the locker is ready for */
static int g_held = 1;        /* rounds main has held the lock for */
static int g_taken = 0;       /* rounds the locker has had the lock in */
static int g_pipe[2];

struct thread_time {
    const char *name;
    int tid;
    int64_t start, end;
};
static struct thread_time g_times[5];

static void begin(struct thread_time *t, const char *name) {
    t->name = name;
    t->tid = (int)syscall(SYS_gettid);
    t->start = mono_ns();
    pthread_setname_np(pthread_self(), name);
}

NOINLINE static double wait_sleeping(int rounds) {
    int64_t waited = 0;
    for (int i = 0; i < rounds; ++i) {
        struct timespec ts = {0, 25 * 1000 * 1000};
        int64_t t0 = mono_ns();
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        waited += mono_ns() - t0;
    }
    return (double)waited / 1e9;
}

/* One round: blocked on the lock main holds. */
NOINLINE static int64_t wait_mutex(void) {
    int64_t t0 = mono_ns();
    pthread_mutex_lock(&g_lock);
    int64_t waited = mono_ns() - t0;
    pthread_mutex_unlock(&g_lock);
    return waited;
}

/* The handshake around the rounds, outside wait_mutex: round i begins
 * once main holds the lock for it, and main waits for the locker to be
 * about to take it. */
static double locker_rounds(int rounds) {
    int64_t waited = 0;
    for (int i = 1; i <= rounds; ++i) {
        pthread_mutex_lock(&g_step_lock);
        while (g_held < i)
            pthread_cond_wait(&g_step_cond, &g_step_lock);
        g_locker_step = i;
        pthread_cond_broadcast(&g_step_cond);
        pthread_mutex_unlock(&g_step_lock);
        waited += wait_mutex();
        pthread_mutex_lock(&g_step_lock);
        g_taken = i;
        pthread_cond_broadcast(&g_step_cond);
        pthread_mutex_unlock(&g_step_lock);
    }
    return (double)waited / 1e9;
}

NOINLINE static double wait_pipe(int rounds) {
    int64_t waited = 0;
    for (int i = 0; i < rounds; ++i) {
        char c;
        int64_t t0 = mono_ns();
        while (read(g_pipe[0], &c, 1) != 1) {
        }
        waited += mono_ns() - t0;
    }
    return (double)waited / 1e9;
}

NOINLINE static uint64_t spin_only(double seconds) {
    uint64_t x = 1;
    double end = thread_cpu_seconds() + seconds;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

NOINLINE static double wait_short(int rounds) {
    int64_t waited = 0;
    for (int i = 0; i < rounds; ++i) {
        struct timespec ts = {0, 20 * 1000};
        int64_t t0 = mono_ns();
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        waited += mono_ns() - t0;
    }
    return (double)waited / 1e9;
}

static double g_mutex_s, g_pipe_s, g_short_s;
static volatile uint64_t g_sink;

static void *locker(void *arg) {
    (void)arg;
    begin(&g_times[1], "locker");
    g_mutex_s = locker_rounds(3);
    g_times[1].end = mono_ns();
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    begin(&g_times[2], "reader");
    g_pipe_s = wait_pipe(3);
    g_times[2].end = mono_ns();
    return NULL;
}

static void *spinner(void *arg) {
    (void)arg;
    begin(&g_times[3], "spinner");
    g_sink = spin_only(0.15);
    g_times[3].end = mono_ns();
    return NULL;
}

static void *shorty(void *arg) {
    (void)arg;
    begin(&g_times[4], "shorty");
    g_short_s = wait_short(2000);
    g_times[4].end = mono_ns();
    return NULL;
}

int main(void) {
    begin(&g_times[0], "waiter");
    if (pipe(g_pipe) != 0)
        return 2;
    pthread_t t[4];
    pthread_mutex_lock(&g_lock);
    pthread_create(&t[0], NULL, locker, NULL);
    pthread_create(&t[1], NULL, reader, NULL);
    pthread_create(&t[2], NULL, spinner, NULL);
    pthread_create(&t[3], NULL, shorty, NULL);
    /* The locker's rounds: held about 40 ms after it has begun waiting. */
    for (int i = 1; i <= 3; ++i) {
        if (i > 1) {
            /* Not before the locker has had it: it would wait on. */
            pthread_mutex_lock(&g_step_lock);
            while (g_taken < i - 1)
                pthread_cond_wait(&g_step_cond, &g_step_lock);
            pthread_mutex_unlock(&g_step_lock);
            pthread_mutex_lock(&g_lock);
            pthread_mutex_lock(&g_step_lock);
            g_held = i;
            pthread_cond_broadcast(&g_step_cond);
            pthread_mutex_unlock(&g_step_lock);
        }
        pthread_mutex_lock(&g_step_lock);
        while (g_locker_step < i)
            pthread_cond_wait(&g_step_cond, &g_step_lock);
        pthread_mutex_unlock(&g_step_lock);
        usleep(40 * 1000);
        pthread_mutex_unlock(&g_lock);
    }
    /* The reader's rounds: a byte every 30 ms. */
    for (int i = 0; i < 3; ++i) {
        usleep(30 * 1000);
        if (write(g_pipe[1], "x", 1) != 1)
            return 2;
    }
    double sleep_s = wait_sleeping(8);
    for (int i = 0; i < 4; ++i)
        pthread_join(t[i], NULL);
    g_times[0].end = mono_ns();
    printf("wait wait_sleeping %.6f 8\n", sleep_s);
    printf("wait wait_mutex %.6f 3\n", g_mutex_s);
    printf("wait wait_pipe %.6f 3\n", g_pipe_s);
    printf("wait wait_short %.6f 2000\n", g_short_s);
    for (int i = 0; i < 5; ++i)
        printf("thread %s %d %.6f %lld %lld\n", g_times[i].name, g_times[i].tid,
               (double)(g_times[i].end - g_times[i].start) / 1e9, (long long)g_times[i].start,
               (long long)g_times[i].end);
    return 0;
}
