// SPDX-License-Identifier: MIT
#include "storage/src/sample_rows.h"

#include "storage/src/sqlite_handle.h"

namespace cpcprof::storage {

SampleRows::SampleRows(sqlite3 *db, bool cpus) : thread_([this, db, cpus] { read(db, cpus); }) {}

SampleRows::~SampleRows() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    freed_cv_.notify_one();
    thread_.join();
}

const SampleBatch *SampleRows::next() {
    std::unique_lock lock(mutex_);
    released_ = taken_;
    freed_cv_.notify_one();
    filled_cv_.wait(lock, [this] { return filled_ > taken_ || done_; });
    if (filled_ == taken_)
        return nullptr;
    return &ring_[taken_++ % kBatches];
}

void SampleRows::read(sqlite3 *db, bool cpus) {
    sql::Statement s;
    int rc = s.query(db, cpus ? "SELECT id, thread, time_ns, stack, complete, value, more_values, "
                                "cpu FROM sample ORDER BY id"
                              : "SELECT id, thread, time_ns, stack, complete, value, more_values, "
                                "NULL FROM sample ORDER BY id");
    while (rc == SQLITE_ROW) {
        SampleBatch *b = nullptr;
        {
            std::unique_lock lock(mutex_);
            freed_cv_.wait(lock, [this] { return filled_ - released_ < kBatches || stop_; });
            if (stop_)
                return;
            b = &ring_[filled_ % kBatches];
        }
        b->rows.clear();
        b->more.clear();
        for (; rc == SQLITE_ROW && b->rows.size() < kRows && b->more.size() < kBytes;
             rc = s.step()) {
            SampleRow r{
                s.int64(0),    s.int64(1), s.int64(2), s.int64(3), s.int64(4),
                !s.is_null(5), s.int64(5), 0,          0,          s.is_null(7) ? -1 : s.int64(7)};
            std::span<const uint8_t> more = s.blob(6);
            r.more_first = uint32_t(b->more.size());
            r.more_size = uint32_t(more.size());
            b->more.insert(b->more.end(), more.begin(), more.end());
            b->rows.push_back(r);
        }
        {
            std::lock_guard lock(mutex_);
            ++filled_;
        }
        filled_cv_.notify_one();
    }
    std::string error;
    if (rc != SQLITE_DONE)
        error = sql::describe(db, rc, "cannot read the samples");
    {
        std::lock_guard lock(mutex_);
        error_ = std::move(error);
        done_ = true;
    }
    filled_cv_.notify_one();
}

} // namespace cpcprof::storage
