// SPDX-License-Identifier: MIT
// SampleRows: the rows of the sample table, stepped through SQLite on a
// thread of its own, in batches, while the caller's thread checks and
// visits the batch before (Reader::for_each_sample).  SQLite's decoding of
// a row's columns costs about as much as what a report does with the
// sample, so the two then take a core each: Query::open of a synthetic
// 1 M-sample profile took 0.96-1.15 s instead of 1.53-1.74 s (2-core VM).
//
// The connection is used by that thread alone from the constructor until
// the end of the rows or the destructor (SQLite's multi-thread mode: one
// thread at a time per connection); the caller must not use it meanwhile.
// Memory: at most kBatches batches of kRows rows, or of the rows whose
// more_values blobs first reach kBytes.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace cpcprof::storage {

// One row of `sample`, its columns as stored (nothing judged yet).
struct SampleRow {
    int64_t id = 0;
    int64_t thread = 0;
    int64_t time_ns = 0;
    int64_t stack = 0;
    int64_t complete = 0;
    bool has_value = false; // value not NULL
    int64_t value = 0;
    uint32_t more_first = 0, more_size = 0; // more_values: bytes in SampleBatch::more
    int64_t cpu = -1;                       // NULL (or no such column) reads as -1
};

struct SampleBatch {
    std::vector<SampleRow> rows;
    std::vector<uint8_t> more;
    std::span<const uint8_t> more_of(const SampleRow &r) const {
        return {more.data() + r.more_first, r.more_size};
    }
};

class SampleRows {
  public:
    static constexpr size_t kRows = 4096, kBytes = size_t{1} << 20, kBatches = 8;

    // Starts reading db's samples in id order; cpus: the file has
    // sample.cpu (format 5 on).
    SampleRows(sqlite3 *db, bool cpus);
    // Stops the reading thread (within one batch) and waits for it.
    ~SampleRows();
    SampleRows(const SampleRows &) = delete;
    SampleRows &operator=(const SampleRows &) = delete;

    // The next batch, valid until the next call; nullptr after the last
    // (then error() is empty, or what stopped the reading).  Never empty.
    const SampleBatch *next();
    // "cannot read the samples: SQLite's message (code)", or "".
    const std::string &error() const { return error_; }

  private:
    void read(sqlite3 *db, bool cpus);

    std::mutex mutex_;
    std::condition_variable filled_cv_, freed_cv_;
    std::vector<SampleBatch> ring_{kBatches};
    // Batches filled, taken by the caller and given back (its next call)
    // so far; batch i lives in ring_[i % kBatches], and the reader fills
    // one while filled_ - released_ < kBatches.
    size_t filled_ = 0, taken_ = 0, released_ = 0;
    bool done_ = false, stop_ = false;
    std::string error_; // written by the reader before done_
    std::thread thread_;
};

} // namespace cpcprof::storage
