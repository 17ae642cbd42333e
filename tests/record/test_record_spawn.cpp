// SPDX-License-Identifier: MIT
// spawn_target in-process: descriptors it made are closed when it fails
// before the command starts.
#include "profiler/record/spawn.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/resource.h>

#include <cstdlib>
#include <set>

namespace {

std::set<int> open_fds() {
    std::set<int> fds;
    DIR *d = opendir("/proc/self/fd");
    if (d == nullptr)
        return fds;
    while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            fds.insert(std::atoi(e->d_name));
    fds.erase(dirfd(d));
    closedir(d);
    return fds;
}

} // namespace

// With room for exactly the socketpair's two descriptors, pipe2 fails
// (EMFILE): the socketpair must not stay open.
TEST(RecordSpawn, AFailedPipeLeavesNoDescriptorOpen) {
    std::set<int> before = open_fds();
    ASSERT_FALSE(before.empty()) << "cannot read /proc/self/fd";
    int first_free = 0;
    while (before.count(first_free))
        ++first_free;
    int second_free = first_free + 1;
    while (before.count(second_free))
        ++second_free;
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
    rlimit tight = saved;
    tight.rlim_cur = rlim_t(second_free) + 1; // the two lowest free numbers, no more
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);

    cpcprof::record::Options o;
    o.command = {"true"};
    cpcprof::record::Plan p;
    std::string error;
    auto target = cpcprof::record::spawn_target(o, p, "", "", &error);

    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
    EXPECT_FALSE(target);
    EXPECT_EQ(error.rfind("pipe: ", 0), 0u) << error;
    EXPECT_EQ(open_fds(), before);
}
