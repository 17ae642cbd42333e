// SPDX-License-Identifier: MIT
// Reading a profile without writing beside it (private_copy.h).
#include "storage/src/private_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace cpcprof::storage {
namespace {

// The journals whose content SQLite would fold into what it reads.
constexpr const char *kJournals[] = {"-wal", "-journal"};

int64_t nonempty_size(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
}

// Size and change times of the profile itself.  The database file is
// copied first, its journal after it: whatever a live writer appends to
// the journal meanwhile is either a whole commit (read) or a torn one
// (SQLite's recovery stops before it), but a checkpoint (WAL) or a page
// write (rollback journal) changes the file itself and makes the pair
// inconsistent: equal stamps before and after mean that did not happen.
struct Stamp {
    int64_t size = -1, mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
    bool operator==(const Stamp &) const = default;
};

Stamp stamp(const std::string &path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        return {};
    return {st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec,
            st.st_ctim.tv_nsec};
}

struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
};

// Copies from to a new file to; false with *reason naming the file, and
// *vanished if from did not exist.
bool copy_file(const std::string &from, const std::string &to, std::string *reason,
               bool *vanished = nullptr) {
    Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.fd < 0) {
        if (vanished != nullptr)
            *vanished = errno == ENOENT;
        *reason = from + ": " + std::strerror(errno);
        return false;
    }
    Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (out.fd < 0) {
        *reason = "cannot create a private copy " + to + ": " + std::strerror(errno);
        return false;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(in.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *reason = from + ": " + std::strerror(errno);
            return false;
        }
        if (n == 0)
            return true;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = ::write(out.fd, buf + done, size_t(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                *reason = "cannot write a private copy " + to + ": " + std::strerror(errno);
                return false;
            }
            done += w;
        }
    }
}

} // namespace

ReadSource read_source(const std::string &path) {
    for (const char *suffix : kJournals)
        if (nonempty_size(path + suffix) > 0)
            return ReadSource::private_copy;
    // Header bytes 18 and 19: the file format's write and read versions,
    // 2 = WAL.
    unsigned char versions[2] = {0, 0};
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.fd >= 0 && ::pread(fd.fd, versions, sizeof versions, 18) == sizeof versions &&
        (versions[0] == 2 || versions[1] == 2))
        return ReadSource::immutable;
    return ReadSource::as_is;
}

std::string immutable_uri(const std::string &path) {
    static const char kHex[] = "0123456789ABCDEF";
    // An absolute path gets the empty authority ("file:///tmp/x"), so that
    // one starting with "//" is not read as a host name.
    std::string uri = path.starts_with('/') ? "file://" : "file:";
    for (unsigned char c : path) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
        if (plain) {
            uri += char(c);
        } else {
            uri += '%';
            uri += kHex[c >> 4];
            uri += kHex[c & 0xF];
        }
    }
    return uri + "?immutable=1";
}

PrivateCopy::PrivateCopy(std::string dir) : dir_(std::move(dir)), path_(dir_ + "/profile") {}

PrivateCopy::~PrivateCopy() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec); // nothing to do about a failure here
}

std::unique_ptr<PrivateCopy> PrivateCopy::make(const std::string &path, std::string *reason) {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cpcprof-read.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
        *reason = "has a journal (-wal or -journal) and cannot be copied to read it: " + tmpl +
                  ": " + std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<PrivateCopy> copy(new PrivateCopy(tmpl));
    for (int attempt = 0; attempt < 3; ++attempt) {
        for (const char *suffix : {"", "-wal", "-journal", "-shm"})
            ::unlink((copy->path_ + suffix).c_str());
        Stamp before = stamp(path);
        if (!copy_file(path, copy->path_, reason))
            return nullptr;
        bool ok = true, vanished = false;
        for (const char *suffix : kJournals)
            if (ok && nonempty_size(path + suffix) > 0)
                ok = copy_file(path + suffix, copy->path_ + suffix, reason, &vanished);
        // A journal that vanished meanwhile (its transaction ended) changed
        // the file too: try again.
        if (!ok && !vanished)
            return nullptr;
        if (ok && stamp(path) == before) {
            copy->rollback_ = nonempty_size(copy->path_ + "-journal") > 0;
            return copy;
        }
    }
    *reason = "changed while it was being copied to read it (is a recorder still writing it?)";
    return nullptr;
}

} // namespace cpcprof::storage
