// SPDX-License-Identifier: MIT
// gzip (export_formats.h) with zlib's deflate: windowBits 15 + 16 asks
// zlib for the gzip wrapper (header and CRC-32 trailer) instead of zlib's.
#include "profiler/export/export_formats.h"

#include <zlib.h>

#include <cstdint>

namespace cpcprof::exporter {

namespace {

// Owns a deflate stream: deflateEnd on every exit.
class Deflater {
  public:
    Deflater() = default;
    ~Deflater() {
        if (ready_)
            deflateEnd(&z_);
    }
    Deflater(const Deflater &) = delete;
    Deflater &operator=(const Deflater &) = delete;

    int init() {
        int rc =
            deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        ready_ = rc == Z_OK;
        return rc;
    }
    z_stream &stream() { return z_; }

  private:
    z_stream z_{};
    bool ready_ = false;
};

} // namespace

bool gzip(std::string_view data, std::string *out, std::string *error) {
    if (data.size() > UINT32_MAX) { // deflate counts input in uInt
        *error = "zlib: more than 4 GiB to compress";
        return false;
    }
    Deflater d;
    int rc = d.init();
    if (rc != Z_OK) {
        *error = std::string("zlib: ") + zError(rc);
        return false;
    }
    z_stream &z = d.stream();
    out->assign(deflateBound(&z, uLong(data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out->data());
    z.avail_out = uInt(out->size());
    rc = deflate(&z, Z_FINISH);
    if (rc != Z_STREAM_END) {
        *error = std::string("zlib: ") + (z.msg != nullptr ? z.msg : zError(rc));
        return false;
    }
    out->resize(z.total_out);
    return true;
}

} // namespace cpcprof::exporter
