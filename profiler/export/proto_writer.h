// SPDX-License-Identifier: MIT
// A protocol buffers encoder for the few wire types a profile.proto
// message uses: varints (wire type 0) and length-delimited fields (wire
// type 2: strings, nested messages, packed repeated varints).  No schema,
// no reflection: the caller writes fields by number, as the .proto says.
//
//   ProtoWriter line;
//   line.uint_field(1, function_id);   // Line.function_id
//   line.int_field(2, 42);             // Line.line
//   location.message_field(4, line);   // Location.line
//
// Scalar fields that equal 0 are not written (proto3 leaves defaults out);
// string, message and packed fields are always written, so that a
// repeated string field keeps its empty entries (profile.proto's string
// table starts with "").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cpcprof::exporter {

class ProtoWriter {
  public:
    // A uint64 / uint32 / bool field.
    void uint_field(uint32_t field, uint64_t v);
    // An int64 / int32 field (negative values take 10 bytes, as in protobuf).
    void int_field(uint32_t field, int64_t v) { uint_field(field, static_cast<uint64_t>(v)); }
    // A string or bytes field.
    void bytes_field(uint32_t field, std::string_view bytes);
    // An embedded message.
    void message_field(uint32_t field, const ProtoWriter &message) {
        bytes_field(field, message.bytes());
    }
    // A packed repeated uint64 / int64 field; nothing when values is empty.
    void packed_field(uint32_t field, std::span<const uint64_t> values);

    const std::string &bytes() const { return buf_; }
    void clear() { buf_.clear(); }

  private:
    void varint(uint64_t v);
    void tag(uint32_t field, unsigned wire_type) { varint(uint64_t(field) << 3 | wire_type); }
    std::string buf_;
};

} // namespace cpcprof::exporter
