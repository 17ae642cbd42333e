// SPDX-License-Identifier: MIT
#include "tests/view_common/hostile_profiles.h"

#include "tests/storage/helpers.h" // tests/storage: test_run, kStartMono

#include <map>
#include <vector>

namespace cpcprof::test {

using namespace cpcprof::storage;
using storagetest::kStartMono;

namespace {

constexpr uint64_t kBase = 0x400000;

void symbolize(const std::string &path, const std::map<uint64_t, SymbolFrame> &answers) {
    std::string error;
    auto s = SymbolWriter::open(path, &error);
    ASSERT_TRUE(s) << error;
    for (const AddressToResolve &a : s->addresses()) {
        auto it = answers.find(a.offset);
        if (it != answers.end())
            s->add(a.module_id, a.offset, std::span<const SymbolFrame>(&it->second, 1));
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

} // namespace

void write_deep_profile(const std::string &path, uint32_t depth, uint32_t samples, bool recursive) {
    std::string error;
    auto w = Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run = storagetest::test_run();
    run.max_depth = depth;
    w->begin_run(run);
    w->add_process({100, 1, {"./deep"}, "/opt/deep", kStartMono});
    w->add_thread({100, 100, "deep"});
    w->add_module({100, "/opt/deep", "", kBase, kBase + 0x1000000, 0, kStartMono});
    // Frame i (root = 0) at offset 0x1000 + 16 i, or all at 0x1000.
    auto offset = [&](uint32_t i) { return 0x1000 + (recursive ? 0 : 16 * uint64_t(i)); };
    std::vector<uint64_t> root_first(depth);
    for (uint32_t i = 0; i < depth; ++i)
        root_first[i] = kBase + offset(i);
    uint32_t n = samples == 0 ? 1 : samples;
    for (uint32_t k = 0; k < n; ++k) {
        uint64_t d = n == 1 ? depth : uint64_t(depth) * (k + 1) / n;
        std::vector<uint64_t> frames(root_first.rend() - d, root_first.rend());
        std::vector<uint64_t> values = {1'000'000, 1};
        w->add_sample({100, 100, kStartMono + 1000 * int64_t(k), true, frames, values});
        if (k % 1000 == 999) {
            ASSERT_TRUE(w->commit()) << w->error();
        }
    }
    w->add_accounting(100, {n, n, 0});
    ASSERT_TRUE(w->finish(kStartMono + 1000 * int64_t(n) + 1, &error)) << error;

    std::map<uint64_t, SymbolFrame> answers;
    for (uint32_t i = 0; i < (recursive ? 1 : depth); ++i)
        answers[offset(i)] = {recursive ? "recurse" : "f" + std::to_string(i), "/src/deep.c",
                              int(i % 1000) + 1, false};
    symbolize(path, answers);
}

void write_overlapping_mappings_profile(const std::string &path, uint32_t mappings,
                                        uint32_t samples) {
    std::string error;
    auto w = Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(storagetest::test_run());
    w->add_process({100, 1, {"./maps"}, "/opt/maps", kStartMono});
    w->add_thread({100, 100, "maps"});
    // Mapping m: [base - m * 4 KiB, base + 1 MiB + m * 4 KiB), loaded at
    // time 2m, the even ones unloaded at 2m + 1: every load and unload is
    // a boundary of its own and every mapping holds the sampled code.
    const int64_t step = 1000;
    for (uint32_t m = 0; m < mappings; ++m) {
        uint64_t start = kBase + 0x10000000 - uint64_t(m) * 0x1000;
        w->add_module({100, "/opt/lib" + std::to_string(m % 64) + ".so", "", start,
                       kBase + 0x10100000 + uint64_t(m) * 0x1000, 0, kStartMono + 2 * step * m});
        if (m % 2 == 0)
            w->unload_module(100, start, kStartMono + 2 * step * m + step);
    }
    const int64_t span = 2 * step * int64_t(mappings);
    for (uint32_t k = 0; k < samples; ++k) {
        std::vector<uint64_t> frames;
        for (uint32_t f = 0; f < 8; ++f)
            frames.push_back(kBase + 0x10000000 + 0x100 * ((k + f) % 97) + f);
        std::vector<uint64_t> values = {1'000'000, 1};
        int64_t t = kStartMono + span * int64_t(k) / int64_t(samples) + 1;
        w->add_sample({100, 100, t, true, frames, values});
        if (k % 1000 == 999) {
            ASSERT_TRUE(w->commit()) << w->error();
        }
    }
    w->add_accounting(100, {samples, samples, 0});
    ASSERT_TRUE(w->finish(kStartMono + span + 1, &error)) << error;
}

void write_valued_profile(const std::string &path, uint64_t period_value, uint64_t count,
                          uint32_t hot_samples) {
    std::string error;
    auto w = Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(storagetest::test_run()); // cpu-clock period 1e6, page-faults
    w->add_process({100, 1, {"./valued"}, "/opt/valued", kStartMono});
    w->add_thread({100, 100, "valued"});
    w->add_module({100, "/opt/valued", "", kBase, kBase + 0x10000, 0, kStartMono});
    std::vector<uint64_t> hot = {kBase + 0x2000, kBase + 0x1000};
    std::vector<uint64_t> cold = {kBase + 0x3000, kBase + 0x1000};
    std::vector<uint64_t> v1 = {period_value, count}, v2 = {1'000'000, 1};
    for (uint32_t k = 0; k < hot_samples; ++k)
        w->add_sample({100, 100, kStartMono + 1000 + k, true, hot, v1});
    w->add_sample({100, 100, kStartMono + 2000 * (hot_samples + 1), true, cold, v2});
    w->add_accounting(100, {hot_samples + 1, hot_samples + 1, 0});
    ASSERT_TRUE(w->finish(kStartMono + 2000 * (hot_samples + 2), &error)) << error;
    symbolize(path, {{0x1000, {"main", "/src/v.c", 1, false}},
                     {0x2000, {"hot", "/src/v.c", 2, false}},
                     {0x3000, {"cold", "/src/v.c", 3, false}}});
}

} // namespace cpcprof::test
