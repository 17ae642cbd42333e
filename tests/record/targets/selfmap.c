// SPDX-License-Identifier: MIT
/*
 * selfmap: maps its own text segment a second time (r-xp, from its own
 * file at an address the kernel picks) and spends its CPU time in sm_spin
 * called through that second mapping, as node runs part of its binary
 * from a copy it maps itself.  sm_spin touches no global and calls
 * nothing, so its bytes run the same at any address.  Prints
 * "remap START END" (the second mapping, hex) and "spun SECONDS", exits 0.
 * The test expects the module table to hold both mappings of the file and
 * the samples in the second one to be named sm_spin.
 *
 * usage: selfmap [SECONDS]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

NOINLINE uint64_t sm_spin(uint64_t x, long n) {
    for (long i = 0; i < n; ++i)
        x = (x ^ (x >> 17)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return x;
}

struct text {
    uintptr_t start; /* in memory */
    uint64_t offset, size;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    struct text *t = arg;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            t->start = info->dlpi_addr + ph->p_vaddr;
            t->offset = ph->p_offset;
            t->size = ph->p_memsz;
        }
    }
    return 1; /* the first entry is the program itself */
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    struct text t = {0, 0, 0};
    dl_iterate_phdr(find_text, &t);
    if (t.size == 0)
        die("no executable segment");
    long page = sysconf(_SC_PAGESIZE);
    uint64_t skew = t.offset % (uint64_t)page;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        die("open /proc/self/exe");
    size_t len = (t.size + skew + (uint64_t)page - 1) & ~((uint64_t)page - 1);
    char *copy = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, (off_t)(t.offset - skew));
    if (copy == MAP_FAILED)
        die("mmap");
    close(fd);
    uint64_t (*spin)(uint64_t, long) =
        (uint64_t(*)(uint64_t, long))(copy + skew + ((uintptr_t)sm_spin - t.start));
    printf("remap %lx %lx\n", (unsigned long)(uintptr_t)copy,
           (unsigned long)((uintptr_t)copy + len));
    fflush(stdout);
    uint64_t x = 1;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        x = spin(x, 200000);
    printf("spun %f (%llx)\n", thread_cpu_seconds() - start, (unsigned long long)x);
    return 0;
}
