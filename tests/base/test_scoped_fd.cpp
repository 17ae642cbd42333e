// SPDX-License-Identifier: MIT
// ScopedFd: the descriptor is closed exactly once, by its last owner.
#include "base/scoped_fd.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using cpcprof::base::ScopedFd;

namespace {

bool is_open(int fd) {
    return fcntl(fd, F_GETFD) != -1;
}

// A fresh descriptor (the read end of a pipe whose write end is closed).
int fresh_fd() {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    close(p[1]);
    return p[0];
}

} // namespace

TEST(ScopedFd, DefaultOwnsNothing) {
    ScopedFd fd;
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(fd.get(), -1);
}

TEST(ScopedFd, ClosesWhatItOwnsWhenItGoesAway) {
    int raw = fresh_fd();
    {
        ScopedFd fd(raw);
        EXPECT_TRUE(fd.valid());
        EXPECT_EQ(fd.get(), raw);
        EXPECT_TRUE(is_open(raw));
    }
    EXPECT_FALSE(is_open(raw));
    EXPECT_EQ(errno, EBADF);
}

TEST(ScopedFd, MoveHandsOverOwnership) {
    int raw = fresh_fd();
    ScopedFd a(raw);
    ScopedFd b(std::move(a));
    EXPECT_FALSE(a.valid()); // NOLINT(bugprone-use-after-move): the moved-from state is the point
    EXPECT_EQ(b.get(), raw);
    a.reset(); // owns nothing: must not close raw
    EXPECT_TRUE(is_open(raw));
    b.reset();
    EXPECT_FALSE(is_open(raw));
}

TEST(ScopedFd, MoveAssignmentClosesTheOldDescriptor) {
    int first = fresh_fd(), second = fresh_fd();
    ScopedFd a(first), b(second);
    a = std::move(b);
    EXPECT_FALSE(is_open(first));
    EXPECT_TRUE(is_open(second));
    EXPECT_EQ(a.get(), second);
    EXPECT_FALSE(b.valid()); // NOLINT(bugprone-use-after-move)
}

TEST(ScopedFd, SelfMoveAssignmentKeepsTheDescriptor) {
    int raw = fresh_fd();
    ScopedFd a(raw);
    ScopedFd &same = a;
    a = std::move(same);
    EXPECT_EQ(a.get(), raw);
    EXPECT_TRUE(is_open(raw));
}

TEST(ScopedFd, ResetClosesAndTakesTheNewOne) {
    int first = fresh_fd(), second = fresh_fd();
    ScopedFd fd(first);
    fd.reset(second);
    EXPECT_FALSE(is_open(first));
    EXPECT_TRUE(is_open(second));
    EXPECT_EQ(fd.get(), second);
    fd.reset();
    EXPECT_FALSE(fd.valid());
    EXPECT_FALSE(is_open(second));
}

TEST(ScopedFd, ReleaseGivesUpOwnership) {
    int raw = fresh_fd();
    {
        ScopedFd fd(raw);
        EXPECT_EQ(fd.release(), raw);
        EXPECT_FALSE(fd.valid());
    }
    EXPECT_TRUE(is_open(raw));
    close(raw);
}
