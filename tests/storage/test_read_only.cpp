// SPDX-License-Identifier: MIT
// Reading never writes beside the input (storage/src/private_copy.h): a
// profile a killed recorder left (WAL mode, with -wal and -shm) is read
// whole, the samples its WAL holds included, without a file created or
// changed in its directory, and from a read-only mount too.  Root ignores
// permission bits, so "read-only" is a read-only bind mount in a private
// mount namespace of a forked child; where the machine does not allow
// that, the test says so and skips that part.
#include "storage/src/private_copy.h"
#include "tests/storage/helpers.h"

#include <sched.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

using namespace storagetest;

namespace {

// Every file in dir: name -> (size, mtime in ns).
std::map<std::string, std::pair<uintmax_t, int64_t>> listing(const std::filesystem::path &dir) {
    std::map<std::string, std::pair<uintmax_t, int64_t>> out;
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
        struct stat st;
        EXPECT_EQ(::stat(e.path().c_str(), &st), 0);
        out[e.path().filename().string()] = {
            uintmax_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
    }
    return out;
}

// Opens file and reads every sample; the number read, or -1 with *error.
int64_t read_all_samples(const std::string &file, std::string *error) {
    auto r = Reader::open(file, error);
    if (!r)
        return -1;
    int64_t n = 0;
    if (!r->for_each_sample([&](const StoredSample &) { ++n; }, error))
        return -1;
    return n;
}

struct ReadOnly : StorageTest {
    std::string killed;
    void SetUp() override {
        StorageTest::SetUp();
        killed = path("killed.cpcprof");
        write_then_die(killed, 300, 200);
        ASSERT_TRUE(std::filesystem::exists(killed + "-wal"));
        ASSERT_GT(std::filesystem::file_size(killed + "-wal"), 0u);
        ASSERT_EQ(query_text_without_writing(), "2"); // header: WAL
    }
    // Header byte 18 (the write version: 2 = WAL), read without SQLite.
    std::string query_text_without_writing() {
        std::vector<char> bytes = read_bytes(killed);
        return bytes.size() > 18 ? std::to_string(int(bytes[18])) : "";
    }
};

TEST_F(ReadOnly, KilledRecordingIsReadWithItsWalAndNothingChangesBesideIt) {
    auto before = listing(dir);
    std::vector<char> wal = read_bytes(killed + "-wal");
    std::string error;
    EXPECT_EQ(read_all_samples(killed, &error), 300) << error; // the committed batch, from the WAL
    EXPECT_EQ(listing(dir), before);
    EXPECT_EQ(read_bytes(killed + "-wal"), wal);
}

TEST_F(ReadOnly, ThePrivateCopyGoesWithTheReader) {
    std::filesystem::path tmp = dir.string() + "-tmp";
    std::filesystem::create_directory(tmp);
    const char *old = std::getenv("TMPDIR");
    std::string saved = old != nullptr ? old : "";
    setenv("TMPDIR", tmp.c_str(), 1);
    std::string error;
    {
        auto r = Reader::open(killed, &error);
        EXPECT_TRUE(r) << error;
        EXPECT_FALSE(std::filesystem::is_empty(tmp)); // the copy is read
    }
    EXPECT_TRUE(std::filesystem::is_empty(tmp)); // and removed with the Reader
    if (old != nullptr)
        setenv("TMPDIR", saved.c_str(), 1);
    else
        unsetenv("TMPDIR");
    std::filesystem::remove_all(tmp);
}

TEST(ImmutableUri, EveryPathIsOneFile) {
    EXPECT_EQ(immutable_uri("/tmp/a b?c#d%e"), "file:///tmp/a%20b%3Fc%23d%25e?immutable=1");
    EXPECT_EQ(immutable_uri("//srv/x"), "file:////srv/x?immutable=1"); // not a host
    EXPECT_EQ(immutable_uri("rel/caf\xe9"), "file:rel/caf%E9?immutable=1");
}

TEST_F(ReadOnly, WalHeaderWithoutWalIsReadImmutable) {
    // Fold the WAL into the file, keep WAL mode, then lose -wal and -shm
    // (a file copied without them).
    ASSERT_EQ(run_sql(killed, "PRAGMA wal_checkpoint(TRUNCATE)"), "");
    std::filesystem::remove(killed + "-wal");
    std::filesystem::remove(killed + "-shm");
    ASSERT_EQ(query_text_without_writing(), "2");
    // A name the URI must encode.
    std::string odd = path("a b?c#d%e.cpcprof");
    std::filesystem::rename(killed, odd);
    auto before = listing(dir);
    std::string error;
    EXPECT_EQ(read_all_samples(odd, &error), 300) << error;
    EXPECT_EQ(listing(dir), before);
}

// A finished profile (rollback journal mode) whose writer died mid
// transaction (a killed `cpcprof symbolize`): a hot -journal beside it and
// pages of the unfinished transaction already in the file.  Reading rolls
// back a private copy: the samples as they were before the transaction,
// the file and its journal left as they are.
TEST_F(ReadOnly, HotJournalIsRolledBackInAPrivateCopy) {
    const std::string file = path("finished.cpcprof");
    write_profile(file, 3000);
    std::string error;
    std::vector<int64_t> before;
    {
        auto r = Reader::open(file, &error);
        ASSERT_TRUE(r) << error;
        r->for_each_sample([&](const StoredSample &s) { before.push_back(s.time_ns); }, &error);
    }
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        sqlite3 *db = nullptr;
        // A one-page cache: the transaction's pages spill into the file.
        if (sqlite3_open(file.c_str(), &db) != SQLITE_OK ||
            sqlite3_exec(db,
                         "PRAGMA cache_size = 1; BEGIN; "
                         "UPDATE sample SET time_ns = time_ns + 1000000",
                         nullptr, nullptr, nullptr) != SQLITE_OK)
            _exit(2);
        raise(SIGKILL);
        _exit(3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    ASSERT_GT(std::filesystem::file_size(file + "-journal"), 0u);
    auto listed = listing(dir);
    std::vector<char> damaged = read_bytes(file);
    std::vector<int64_t> after;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_TRUE(
        r->for_each_sample([&](const StoredSample &s) { after.push_back(s.time_ns); }, &error))
        << error;
    EXPECT_EQ(after, before);
    EXPECT_EQ(listing(dir), listed);
    EXPECT_EQ(read_bytes(file), damaged);
}

// Reads file in a forked child that sees dir as a read-only bind mount:
// the child's exit status, 0 when all 300 samples were read; 10 or 11
// when the mount cannot be made here.
int read_on_read_only_mount(const std::filesystem::path &dir, const std::string &file) {
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        // 10: no mount namespace here; 11: the mount failed; 12: writable
        // after all; 20: refused; 21: wrong count.
        if (unshare(CLONE_NEWNS) != 0 ||
            mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
            _exit(10);
        const std::string d = dir.string();
        if (mount(d.c_str(), d.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
            mount(nullptr, d.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
            _exit(11);
        if (access(d.c_str(), W_OK) == 0 || errno != EROFS)
            _exit(12);
        std::string error;
        int64_t n = read_all_samples(file, &error);
        if (n < 0) {
            std::fprintf(stderr, "refused: %s\n", error.c_str());
            _exit(20);
        }
        _exit(n == 300 ? 0 : 21);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

#define SKIP_WITHOUT_MOUNT(status)                                                                 \
    if ((status) == 10 || (status) == 11)                                                          \
    GTEST_SKIP() << "cannot make a read-only bind mount here (needs CAP_SYS_ADMIN and "            \
                    "unshare(CLONE_NEWNS)); the other tests check that nothing is written"

TEST_F(ReadOnly, KilledRecordingIsReadFromAReadOnlyMount) {
    int status = read_on_read_only_mount(dir, killed);
    SKIP_WITHOUT_MOUNT(status);
    EXPECT_EQ(status, 0) << "12 still writable, 20 refused, 21 wrong sample count";
}

// The same without its -shm (copied to the media with the file and its
// WAL only): SQLite would have to create the -shm beside it.
TEST_F(ReadOnly, KilledRecordingWithoutShmIsReadFromAReadOnlyMount) {
    std::filesystem::remove(killed + "-shm");
    int status = read_on_read_only_mount(dir, killed);
    SKIP_WITHOUT_MOUNT(status);
    EXPECT_EQ(status, 0) << "12 still writable, 20 refused, 21 wrong sample count";
}

} // namespace
