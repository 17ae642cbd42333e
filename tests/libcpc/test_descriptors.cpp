// SPDX-License-Identifier: MIT
// What a binding costs the program's descriptor table, and where libcpc
// says that a new thread could not count: one descriptor per request and
// thread (cpc_buf_tick needs none of its own), and an inheriting thread's
// failure goes to the handle's error handler, not to the program's stderr.
#include "tests/libcpc/helpers.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Descriptors : ::testing::Test {
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    void SetUp() override {
        cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc, nullptr);
        cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
        cpctest::ErrorLog::clear();
        set = cpc_set_create(cpc);
    }
    void TearDown() override {
        if (cpc != nullptr)
            cpc_close(cpc);
    }
};

TEST_F(Descriptors, OnePerRequestAndTheTickStillCounts) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, nullptr), 1);
    int before = cpctest::perf_fds();
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    EXPECT_EQ(cpctest::perf_fds(), before + 2) << "two requests, two descriptors";
    cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_set_sample(cpc, set, a), 0);
    cpctest::spin_cpu_ms(50);
    ASSERT_EQ(cpc_set_sample(cpc, set, b), 0);
    // The tick is the group's on-CPU time, converted to TSC cycles: 50 ms
    // of CPU at any clock rate from 100 MHz to 10 GHz.
    uint64_t ticks = cpc_buf_tick(cpc, b) - cpc_buf_tick(cpc, a);
    EXPECT_GT(ticks, uint64_t(0.05 * 100e6)) << ticks;
    EXPECT_LT(ticks, uint64_t(1.0 * 10e9)) << ticks;
    // And it agrees with task-clock over the same interval (ns), converted
    // the same way: within 20 %.
    uint64_t t0 = 0, t1 = 0;
    cpc_buf_get(cpc, a, 1, &t0);
    cpc_buf_get(cpc, b, 1, &t1);
    ASSERT_GT(t1, t0);
    double cycles_per_ns = double(ticks) / double(t1 - t0);
    EXPECT_GT(cycles_per_ns, 0.1);
    EXPECT_LT(cycles_per_ns, 10.0);
    ASSERT_EQ(cpc_unbind(cpc, set), 0);
    EXPECT_EQ(cpctest::perf_fds(), before);
}

// Lowers RLIMIT_NOFILE to just above what is open now and fills the
// table, so that the next descriptor cannot be had; undoes it all on
// destruction.
class NoMoreDescriptors {
  public:
    NoMoreDescriptors() {
        getrlimit(RLIMIT_NOFILE, &saved_);
        int high = 0;
        for (int fd = 0; fd < 4096; ++fd)
            if (fcntl(fd, F_GETFD) >= 0)
                high = fd;
        rlimit rl = saved_;
        rl.rlim_cur = rlim_t(high) + 1;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            return;
        for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
            filler_.push_back(fd);
        ok_ = errno == EMFILE;
    }
    ~NoMoreDescriptors() {
        for (int fd : filler_)
            close(fd);
        setrlimit(RLIMIT_NOFILE, &saved_);
    }
    bool ok() const { return ok_; }

  private:
    rlimit saved_{};
    std::vector<int> filler_;
    bool ok_ = false;
};

void *nothing(void *) {
    return nullptr;
}

TEST_F(Descriptors, InheritingThreadThatCannotCountTellsTheHandler) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT), 0);
    // stderr into a file, to see that nothing is written there.
    FILE *capture = tmpfile();
    ASSERT_NE(capture, nullptr);
    fflush(stderr);
    int saved_err = dup(2);
    dup2(fileno(capture), 2);
    {
        NoMoreDescriptors full;
        ASSERT_TRUE(full.ok());
        pthread_t t;
        ASSERT_EQ(pthread_create(&t, nullptr, nothing, nullptr), 0);
        pthread_join(t, nullptr);
    }
    fflush(stderr);
    dup2(saved_err, 2);
    close(saved_err);
    fseek(capture, 0, SEEK_END);
    long written = ftell(capture);
    fclose(capture);
    EXPECT_EQ(written, 0) << "libcpc wrote to stderr";
    ASSERT_EQ(cpctest::ErrorLog::functions.size(), 1u);
    EXPECT_EQ(cpctest::ErrorLog::functions[0], "pthread_create");
    EXPECT_EQ(cpctest::ErrorLog::subcodes[0], CPC_RESOURCE_UNAVAIL);
    EXPECT_NE(cpctest::ErrorLog::messages[0].find(std::strerror(EMFILE)), std::string::npos)
        << cpctest::ErrorLog::messages[0];
    cpc_unbind(cpc, set);
}

} // namespace
