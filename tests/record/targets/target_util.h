// SPDX-License-Identifier: MIT
/*
 * Helpers shared by the record test targets: CPU-time clocks, a busy
 * loop, and the kernel's own count of a piece of work's clock periods.
 * Everything is static inline so that each target stays one file.
 */
#ifndef RECORD_TARGET_UTIL_H
#define RECORD_TARGET_UTIL_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static inline double thread_cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* About 100 us of integer work; the result keeps it from being optimised out. */
static inline uint64_t spin_chunk(uint64_t x) {
    for (int i = 0; i < 60000; ++i)
        x = (x ^ (x >> 17)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return x;
}

static inline void die(const char *what) {
    perror(what);
    exit(1);
}

/*
 * What the sampler must be held to, counted by the kernel beside it: a
 * perf event of cpu-clock in the calling thread, user mode only and with
 * the recorder's default period (1 ms) like the sampler's, that writes a
 * record at each overflow it takes and raises no signal.  A period that
 * ends while the thread is in the kernel is no overflow of a user-mode
 * count; a busy machine makes more of those, for the sampler as for this
 * reference.  Open it around the work (ref_clock_start) and add what it
 * counted (ref_clock_stop) to a tally; print the tally with
 * ref_clock_print:
 *     clock NAME PERIODS TAKEN
 * PERIODS, the periods the event counted (its CPU time / period), and
 * TAKEN, the overflows it took ("clock NAME - -" where the kernel refused
 * the event).  Where perf_event_open is refused (a container's seccomp
 * filter), the reference is the thread's CPU clock itself, as the POSIX
 * CPU timers of libcpc's timer backend count it: every period of CPU
 * time, user and system, is one taken.  The tests (tests/record/record_harness.h: clock_reference)
 * expect at least the binomial lower bound of PERIODS at TAKEN's rate of
 * samples in that work, and at most PERIODS and one at each end.
 */
enum { kRefPeriodNs = 1000000, kRefDataPages = 16 };

struct ref_clock {
    int fd;
    int err;       /* perf_event_open's errno, where it failed */
    uint64_t cpu0; /* the thread's CPU time at the start, where refused */
    struct perf_event_mmap_page *page;
    size_t bytes;
};

struct ref_tally {
    uint64_t periods, taken;
    int refused;
};

static inline uint64_t ref_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void ref_clock_start(struct ref_clock *r) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = kRefPeriodNs;
    a.sample_type = PERF_SAMPLE_IP;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    /* Nobody waits for the records: no wake-up (an IRQ-work interrupt)
     * before the ring is full. */
    a.watermark = 1;
    a.wakeup_watermark = (uint32_t)sysconf(_SC_PAGESIZE) * kRefDataPages;
    r->page = NULL;
    r->err = 0;
    r->cpu0 = 0;
    r->bytes = (size_t)sysconf(_SC_PAGESIZE) * (1 + kRefDataPages);
    r->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (r->fd < 0) {
        r->err = errno;
        r->cpu0 = ref_thread_cpu_ns();
        return;
    }
    void *p = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED) {
        close(r->fd);
        r->fd = -1;
        return;
    }
    r->page = (struct perf_event_mmap_page *)p;
    ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
}

static inline void ref_clock_stop(struct ref_clock *r, struct ref_tally *t) {
    if (r->fd < 0) {
        uint64_t periods = (ref_thread_cpu_ns() - r->cpu0) / kRefPeriodNs;
        if (r->err == EPERM || r->err == EACCES || r->err == ENOSYS) {
            t->periods += periods;
            t->taken += periods;
        } else {
            t->refused = 1;
        }
        return;
    }
    ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t counted = 0;
    if (read(r->fd, &counted, sizeof counted) != (ssize_t)sizeof counted)
        t->refused = 1;
    t->periods += counted / kRefPeriodNs;
    uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
    const char *data = (const char *)r->page + r->page->data_offset;
    uint64_t size = r->page->data_size;
    /* Records are 8-byte aligned in a ring of a power of two of pages: a
     * header, and the count of a PERF_RECORD_LOST, never wrap. */
    for (uint64_t at = r->page->data_tail; at < head;) {
        struct perf_event_header h;
        memcpy(&h, data + at % size, sizeof h);
        if (h.type == PERF_RECORD_SAMPLE) {
            ++t->taken;
        } else if (h.type == PERF_RECORD_LOST) { /* u64 id, u64 lost */
            uint64_t lost = 0;
            memcpy(&lost, data + (at + sizeof h + 8) % size, sizeof lost);
            t->taken += lost;
        }
        if (h.size == 0)
            break;
        at += h.size;
    }
    munmap(r->page, r->bytes);
    close(r->fd);
    r->fd = -1;
}

static inline void ref_clock_print(FILE *out, const char *name, const struct ref_tally *t) {
    if (t->refused)
        fprintf(out, "clock %s - -\n", name);
    else
        fprintf(out, "clock %s %llu %llu\n", name, (unsigned long long)t->periods,
                (unsigned long long)t->taken);
    fflush(out);
}

#endif
