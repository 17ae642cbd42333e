// SPDX-License-Identifier: MIT
// Reading a pprof profile the way pprof would, through independent tools:
// gunzip it (`gzip -dc`), decode it with `protoc --decode
// perftools.profiles.Profile` against google/pprof's profile.proto, and
// parse protoc's text format into the Profile below, ids resolved.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cpcprof::test {

struct PprofLine {
    std::string function, system_name, filename;
    int64_t line = 0;
};

struct PprofLocation {
    uint64_t id = 0;
    uint64_t address = 0;
    std::string mapping;          // the mapping's filename; "" without mapping
    std::vector<PprofLine> lines; // innermost first, as stored
};

struct PprofSample {
    std::vector<const PprofLocation *> locations; // leaf first, as stored
    std::vector<int64_t> values;
    std::map<std::string, std::string> str_labels;
    std::map<std::string, int64_t> num_labels;
    // Function names, leaf first, every Line of every location in order.
    std::vector<std::string> names() const;
};

struct PprofMapping {
    uint64_t id = 0, memory_start = 0, memory_limit = 0;
    std::string filename;
    bool has_functions = false, has_line_numbers = false, has_inline_frames = false;
};

struct PprofProfile {
    std::vector<std::pair<std::string, std::string>> sample_types; // (type, unit)
    std::pair<std::string, std::string> period_type;
    int64_t period = 0, time_nanos = 0, duration_nanos = 0;
    std::string default_sample_type;
    std::vector<std::string> comments;
    std::vector<std::string> strings; // the string table
    std::map<uint64_t, PprofLocation> locations;
    std::vector<PprofMapping> mappings;
    std::vector<PprofSample> samples;
};

// The profile.proto to decode with: google/pprof's, as Debian's
// golang-github-google-pprof-dev installs it; "" when missing.
std::string pprof_proto_path();
// protoc, found on PATH; "" when missing.
std::string protoc_path();

// Decodes the gzipped profile at path; false with *error (the tool's
// complaint) when gunzip or protoc refuse it.
bool decode_pprof(const std::string &path, const std::string &workdir, PprofProfile *out,
                  std::string *error);

} // namespace cpcprof::test
