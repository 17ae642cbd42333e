// SPDX-License-Identifier: MIT
// libFuzzer target: a profile someone else made.  An input that starts
// like an SQLite file is written to a temporary file as it is; any other
// is a list of row edits of a good profile (profile_edits.h).  The file
// is then read as every command reads one: Reader::open (the header
// checks, integrity_check, schema, metadata, trie, symbols), every sample,
// Query::open (locating and naming every stack) and the call trees.  A
// crash, a sanitizer report or an uncaught exception is a bug; refusing
// the file is the expected answer to most inputs.
#include "tests/fuzz/profile_edits.h"

#include "profiler/analysis/query.h"
#include "storage/file_problems.h"
#include "storage/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// One file per fuzzing process, rewritten for every input and removed
// when the fuzzer exits (one object: the name lives as long as the file).
struct InputFile {
    std::string path;
    InputFile() {
        const char *tmp = std::getenv("TMPDIR");
        path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/fuzz_profile." +
               std::to_string(getpid()) + ".cpcprof";
    }
    ~InputFile() {
        for (const char *suffix : {"", "-wal", "-shm", "-journal"})
            ::unlink((path + suffix).c_str());
    }
} g_input;

const std::string &input_path() {
    return g_input.path;
}

bool write_input(const uint8_t *data, size_t size) {
    const std::string &path = input_path();
    for (const char *suffix : {"-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = ::write(fd, data, size) == static_cast<ssize_t>(size);
    ::close(fd);
    return ok;
}

void read_everything(const std::string &path) {
    using namespace cpcprof::storage;
    std::string error;
    auto r = Reader::open(path, &error);
    if (!r)
        return;
    uint64_t frames = 0;
    r->for_each_sample([&](const StoredSample &s) { frames += s.frames.size(); }, &error);
    r->for_each_sample_checked([&](const StoredSample &) {}, [](const std::string &) {}, &error);
    (void)accounting_problems(*r);
    if (auto per_pid = r->samples_per_process())
        (void)stored_count_problems(*r, *per_pid);
    for (const ModuleRecord &m : r->modules())
        (void)r->locate(m.info.pid, m.info.start, m.info.load_ns);

    using cpcprof::analysis::CallTree;
    using cpcprof::analysis::Query;
    auto q = Query::open(path, {}, &error);
    if (!q)
        return;
    (void)CallTree::top_down(*q);
    (void)CallTree::bottom_up(*q);
    if (!q->functions().empty()) {
        (void)CallTree::callers(*q, 0);
        (void)CallTree::callees(*q, 0);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char kMagic[] = "SQLite format 3";
    bool raw = size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
    bool written = raw ? write_input(data, size)
                       : (write_input(data, 0) &&
                          fuzzprofile::write_edited(FUZZ_BASE_PROFILE, input_path(), data, size));
    if (!written)
        std::abort(); // the machine, not the input: stop the run
    read_everything(input_path());
    return 0;
}
