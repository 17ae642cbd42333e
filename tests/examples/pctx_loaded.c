/* SPDX-License-Identifier: MIT */
/*
 * cpc_bind_pctx from a program linked with libcpc alone, which is how
 * libcpc.so.1 is loaded into every program cpcprof records: libcpc does
 * not bring libpctx with it, and finds the libpctx the program has.
 *
 *   pctx_loaded none     binds through a pctx while libpctx is not in the
 *                        process: prints "rc -1 errno EINVAL" (libcpc's
 *                        message goes to stderr, as without a handler)
 *   pctx_loaded dlopen [PATH]
 *                        loads libpctx.so.1 (PATH, else by its name) with
 *                        dlopen (RTLD_LOCAL, as Python's ctypes does), and
 *                        runs /bin/sleep 0.05 under it counting task-clock
 *                        in its thread: prints "bound N, failed M"
 */
#include <libcpc.h>
#include <libpctx.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static cpc_t *cpc;
static cpc_set_t *set;
static int bound, failed;

static int init_lwp(pctx_t *pctx, pid_t pid, id_t lwp, void *arg) {
    (void)pid;
    (void)arg;
    if (cpc_bind_pctx(cpc, pctx, lwp, set, 0) == 0)
        ++bound;
    else
        ++failed;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3)
        return 2;
    cpc = cpc_open(CPC_VER_CURRENT);
    if (cpc == NULL) {
        printf("cpc_open: %s\n", strerror(errno));
        return 1;
    }
    set = cpc_set_create(cpc);
    if (set == NULL || cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, NULL) < 0)
        return 1; /* libcpc said why */
    if (strcmp(argv[1], "none") == 0) {
        static char not_a_pctx[64];
        int rc = cpc_bind_pctx(cpc, (pctx_t *)not_a_pctx, 1, set, 0);
        fflush(stderr);
        printf("rc %d errno %s\n", rc, errno == EINVAL ? "EINVAL" : strerror(errno));
        return 0;
    }
    void *lib = dlopen(argc == 3 ? argv[2] : "libpctx.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    __typeof__(&pctx_create) create = (__typeof__(&pctx_create))dlsym(lib, "pctx_create");
    __typeof__(&pctx_set_events) set_events =
        (__typeof__(&pctx_set_events))dlsym(lib, "pctx_set_events");
    __typeof__(&pctx_run) run = (__typeof__(&pctx_run))dlsym(lib, "pctx_run");
    __typeof__(&pctx_release) release = (__typeof__(&pctx_release))dlsym(lib, "pctx_release");
    if (!create || !set_events || !run || !release) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    char *args[] = {"/bin/sleep", "0.05", NULL};
    pctx_t *pctx = create(args[0], args, NULL, 0, NULL);
    if (pctx == NULL) {
        printf("pctx_create: %s\n", strerror(errno));
        return 1;
    }
    set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp, PCTX_NULL_EVENT);
    run(pctx, 0, 0, NULL);
    release(pctx);
    printf("bound %d, failed %d\n", bound, failed);
    return 0;
}
