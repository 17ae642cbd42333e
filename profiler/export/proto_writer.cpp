// SPDX-License-Identifier: MIT
// ProtoWriter (proto_writer.h): base-128 varints, least significant group
// first, the high bit set on every byte but the last.
#include "profiler/export/proto_writer.h"

namespace cpcprof::exporter {

namespace {
constexpr unsigned kVarint = 0;
constexpr unsigned kLengthDelimited = 2;
} // namespace

void ProtoWriter::varint(uint64_t v) {
    while (v >= 0x80) {
        buf_.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    buf_.push_back(static_cast<char>(v));
}

void ProtoWriter::uint_field(uint32_t field, uint64_t v) {
    if (v == 0)
        return;
    tag(field, kVarint);
    varint(v);
}

void ProtoWriter::bytes_field(uint32_t field, std::string_view bytes) {
    tag(field, kLengthDelimited);
    varint(bytes.size());
    buf_.append(bytes);
}

void ProtoWriter::packed_field(uint32_t field, std::span<const uint64_t> values) {
    if (values.empty())
        return;
    ProtoWriter body;
    for (uint64_t v : values)
        body.varint(v);
    bytes_field(field, body.bytes());
}

} // namespace cpcprof::exporter
