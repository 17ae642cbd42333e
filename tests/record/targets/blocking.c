// SPDX-License-Identifier: MIT
/*
 * blocking: blocking system calls in a sampled thread while another thread
 * keeps the sampler busy.  Each round, in the main thread:
 *   read(2) on a pipe that a helper thread writes after a delay,
 *   nanosleep(2),
 *   accept(2) on a loopback TCP socket that a helper thread connects to
 *       after a delay,
 *   waitpid(2) on a child that sleeps, then exits 0,
 * with a little CPU work between the calls so that the main thread is
 * sampled too.  A spinning thread (blk_busy) runs throughout.
 *
 * Any call failing with EINTR makes the program print
 *     EINTR in CALL
 * on stderr and exit 1; otherwise it prints "blocking ok ROUNDS" and exits
 * 0.  The test expects exit 0: sampling must never make a blocking call
 * fail with EINTR (the handlers are SA_RESTART; nanosleep is not restarted,
 * so the signal must never hit a thread sleeping in it).
 *
 * usage: blocking [ROUNDS]
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int g_stop;
static volatile uint64_t blk_sink;

static void eintr(const char *call) {
    fprintf(stderr, "EINTR in %s\n", call);
    exit(1);
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    /* Helper threads: an EINTR here is just as much a failure. */
    if (nanosleep(&ts, NULL) != 0)
        eintr(errno == EINTR ? "nanosleep (helper)" : "nanosleep (helper, other error)");
}

NOINLINE void *blk_busy(void *arg) {
    (void)arg;
    uint64_t x = 3;
    while (!atomic_load(&g_stop))
        x = spin_chunk(x);
    blk_sink = x;
    return NULL;
}

struct delayed_fd {
    int fd;
    int port;
};

NOINLINE void *blk_write_later(void *arg) {
    struct delayed_fd *d = arg;
    sleep_ms(20);
    if (write(d->fd, "x", 1) != 1)
        die("write");
    return NULL;
}

NOINLINE void *blk_connect_later(void *arg) {
    struct delayed_fd *d = arg;
    sleep_ms(20);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect");
    close(s);
    return NULL;
}

NOINLINE void blk_work(void) {
    uint64_t x = 5;
    for (int i = 0; i < 20; ++i) /* ~2 ms */
        x = spin_chunk(x);
    blk_sink = x;
}

static void check(long rc, const char *call) {
    if (rc < 0 && errno == EINTR)
        eintr(call);
    if (rc < 0)
        die(call);
}

NOINLINE void blk_read_pipe(void) {
    int p[2];
    check(pipe(p), "pipe");
    struct delayed_fd d = {p[1], 0};
    pthread_t t;
    pthread_create(&t, NULL, blk_write_later, &d);
    char c;
    check(read(p[0], &c, 1), "read");
    pthread_join(t, NULL);
    close(p[0]);
    close(p[1]);
}

NOINLINE void blk_nanosleep(void) {
    struct timespec ts = {0, 20 * 1000000};
    check(nanosleep(&ts, NULL), "nanosleep");
}

NOINLINE void blk_accept(void) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    check(s, "socket");
    check(bind(s, (struct sockaddr *)&a, sizeof a), "bind");
    check(listen(s, 1), "listen");
    check(getsockname(s, (struct sockaddr *)&a, &len), "getsockname");
    struct delayed_fd d = {-1, ntohs(a.sin_port)};
    pthread_t t;
    pthread_create(&t, NULL, blk_connect_later, &d);
    int c = accept(s, NULL, NULL);
    check(c, "accept");
    pthread_join(t, NULL);
    close(c);
    close(s);
}

NOINLINE void blk_waitpid(void) {
    pid_t pid = fork();
    check(pid, "fork");
    if (pid == 0) {
        struct timespec ts = {0, 20 * 1000000};
        nanosleep(&ts, NULL);
        exit(0);
    }
    int status;
    check(waitpid(pid, &status, 0), "waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child status %#x\n", status);
        exit(1);
    }
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    pthread_t busy;
    pthread_create(&busy, NULL, blk_busy, NULL);
    for (int r = 0; r < rounds; ++r) {
        blk_work();
        blk_read_pipe();
        blk_work();
        blk_nanosleep();
        blk_work();
        blk_accept();
        blk_work();
        blk_waitpid();
    }
    atomic_store(&g_stop, 1);
    pthread_join(busy, NULL);
    printf("blocking ok %d\n", rounds);
    return 0;
}
