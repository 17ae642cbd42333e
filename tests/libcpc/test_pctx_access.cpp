// SPDX-License-Identifier: MIT
// Who may be put under control: other users' and set-ID processes and
// programs are refused to a caller without CAP_SYS_PTRACE, before anything
// is attached.
#include "tests/libcpc/pctx_helpers.h"

using namespace pctxtest;

namespace {

// ---- who may be captured ----

// Runs fn in a child as uid/gid 65534 (nobody): its exit status.
int as_nobody(const std::function<int()> &fn) {
    return cpctest::in_child([&] {
        if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
            setresuid(65534, 65534, 65534) != 0)
            return 99;
        return fn();
    });
}

#define SKIP_UNLESS_ROOT()                                                                         \
    do {                                                                                           \
        if (geteuid() != 0)                                                                        \
            GTEST_SKIP() << "needs root to make processes of other users";                         \
    } while (0)

// 0 when capture of pid fails with EACCES and says why, leaving it untraced.
int refused(pid_t pid, const char *why) {
    PctxErrors::clear();
    pctx_t *p = pctx_capture(pid, nullptr, 0, PctxErrors::fn);
    if (p != nullptr)
        return 1;
    if (errno != EACCES)
        return 2;
    if (!PctxErrors::said(why))
        return 3;
    return tracer_of(pid) == 0 ? 0 : 4;
}

TEST(PctxAccess, AnotherUsersProcessIsRefusedWithoutPrivilege) {
    SKIP_WITHOUT_PTRACE();
    SKIP_UNLESS_ROOT();
    Spawned root_owned({PCTX_SLEEPER, "500"});
    ASSERT_EQ(root_owned.line(), "ready");
    EXPECT_EQ(as_nobody([&] { return refused(root_owned.pid, "another user"); }), 0);
    int st = root_owned.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST(PctxAccess, ASetIdProcessIsRefusedWithoutPrivilege) {
    SKIP_WITHOUT_PTRACE();
    SKIP_UNLESS_ROOT();
    // Real uid nobody, effective root: a set-uid-root program run by nobody.
    Spawned setuid_like({PCTX_SLEEPER, "500"}, 65534, 0);
    ASSERT_EQ(setuid_like.line(), "ready");
    EXPECT_EQ(as_nobody([&] { return refused(setuid_like.pid, "set-id"); }), 0);
    int st = setuid_like.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST(PctxAccess, ASetIdProgramIsNotStartedWithoutPrivilege) {
    SKIP_WITHOUT_PTRACE();
    SKIP_UNLESS_ROOT();
    char dir[] = "/tmp/test_pctx-suid-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    chmod(dir, 0755);
    std::string prog = std::string(dir) + "/true";
    std::string cmd = "cp /bin/true " + prog;
    ASSERT_EQ(system(cmd.c_str()), 0);
    ASSERT_EQ(chmod(prog.c_str(), 04755), 0);
    int rc = as_nobody([&] {
        pctx_t *p = create({prog});
        if (p != nullptr)
            return 1;
        if (errno != EACCES)
            return 2;
        return PctxErrors::said("cannot trace set-id") ? 0 : 3;
    });
    EXPECT_EQ(rc, 0);
    unlink(prog.c_str());
    rmdir(dir);
}

TEST(PctxAccess, RootMayCaptureAnotherUsersProcess) {
    SKIP_WITHOUT_PTRACE();
    SKIP_UNLESS_ROOT();
    Spawned nobodys({PCTX_SLEEPER, "300"}, 65534, 65534);
    ASSERT_EQ(nobodys.line(), "ready");
    PctxErrors::clear();
    pctx_t *p = pctx_capture(nobodys.pid, nullptr, 0, PctxErrors::fn);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pctx_release(p);
    int st = nobodys.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

} // namespace
