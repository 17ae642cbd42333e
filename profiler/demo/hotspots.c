// SPDX-License-Identifier: MIT
/*
 * cpcprof-demo: a small program with known hotspots, for a first
 * `cpcprof record`: the main thread alternates between matrix_multiply
 * and walk_list (a pointer chase that misses the caches) and prints how
 * much CPU time each took; a second thread runs a checksum loop for a
 * third of that time.
 *
 *   cpcprof-demo [SECONDS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 160

static double a[N][N], b[N][N], c[N][N];
static volatile uint64_t sink;

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void matrix_multiply(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
}

struct node {
    struct node *next;
    char pad[56];
};

__attribute__((noinline)) void walk_list(struct node *head, long steps) {
    struct node *p = head;
    for (long i = 0; i < steps; i++)
        p = p->next;
    sink = (uintptr_t)p;
}

static struct node *make_list(size_t n) {
    struct node *nodes = calloc(n, sizeof *nodes);
    size_t *order = malloc(n * sizeof *order);
    if (nodes == NULL || order == NULL) {
        perror("cpcprof-demo");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        nodes[order[i]].next = &nodes[order[(i + 1) % n]];
    free(order);
    return nodes;
}

__attribute__((noinline)) uint64_t checksum(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static double g_seconds = 2.0;

static void *worker(void *arg) {
    (void)arg;
    static unsigned char data[1 << 16];
    double end = cpu_seconds() + g_seconds / 3;
    while (cpu_seconds() < end)
        sink += checksum(data, sizeof data);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1 && (g_seconds = atof(argv[1])) <= 0) {
        fprintf(stderr, "usage: cpcprof-demo [SECONDS]\n");
        return 2;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i + j, b[i][j] = i - j;
    struct node *list = make_list(1 << 20);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    double mm = 0, wl = 0, end = cpu_seconds() + g_seconds;
    while (cpu_seconds() < end) {
        double t0 = cpu_seconds();
        matrix_multiply();
        sink += (uint64_t)c[N / 2][N / 2];
        double t1 = cpu_seconds();
        walk_list(list, 20000);
        double t2 = cpu_seconds();
        mm += t1 - t0;
        wl += t2 - t1;
    }
    pthread_join(t, NULL);
    printf("cpcprof-demo: matrix_multiply %.2f s, walk_list %.2f s of CPU time\n", mm, wl);
    return 0;
}
