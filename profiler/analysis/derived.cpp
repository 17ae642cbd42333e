// SPDX-License-Identifier: MIT
#include "profiler/analysis/derived.h"

#include <algorithm>
#include <cctype>

namespace cpcprof::analysis {

// The file's records, read through storage's Reader and StackLocator.
using namespace storage;

namespace {

std::string lower(std::string s) {
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool ends_with(const std::string &s, const std::string &end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// papi_l1_dcm -> true (lowercased names).
bool papi_miss(const std::string &n) {
    return n.size() == 11 && n.starts_with("papi_l") && std::isdigit((unsigned char)n[6]) &&
           n[7] == '_' && std::isalpha((unsigned char)n[8]) && n.compare(9, 2, "cm") == 0;
}

// The lowercased name of the reference event of a miss event; "" if none.
std::string reference_of(const std::string &n) {
    if (papi_miss(n))
        return n.substr(0, 9) + "ca";
    if (ends_with(n, "-load-misses"))
        return n.substr(0, n.size() - 12) + "-loads";
    if (ends_with(n, "-store-misses"))
        return n.substr(0, n.size() - 13) + "-stores";
    if (ends_with(n, "-misses"))
        return n.substr(0, n.size() - 7) + "-references";
    return "";
}

} // namespace

std::vector<DerivedColumn> derived_columns(const std::vector<EventInfo> &events) {
    std::vector<DerivedColumn> out;
    if (events.size() < 2)
        return out;
    std::vector<std::string> names;
    for (const auto &e : events)
        names.push_back(lower(e.name));
    auto find = [&](std::initializer_list<const char *> wanted) {
        for (const char *w : wanted)
            for (size_t i = 0; i < names.size(); ++i)
                if (names[i] == w)
                    return int(i);
        return -1;
    };
    int ins = find({"instructions", "papi_tot_ins"});
    int cyc = find({"cycles", "cpu-cycles", "papi_tot_cyc"});
    if (ins >= 0 && cyc >= 0)
        out.push_back({"CPI", "cpi", cyc, ins, 1});
    for (size_t i = 0; i < names.size(); ++i) {
        std::string ref = reference_of(names[i]);
        if (ref.empty())
            continue;
        const std::string &miss = events[i].name;
        if (ins >= 0)
            out.push_back({miss + "/1k-" + events[size_t(ins)].name, "mpki", int(i), ins, 1000});
        auto r = std::find(names.begin(), names.end(), ref);
        if (r != names.end()) {
            int ri = int(r - names.begin());
            out.push_back({miss + "/" + events[size_t(ri)].name, "miss_ratio", int(i), ri, 1});
        }
    }
    return out;
}

DerivedValue derive(const DerivedColumn &column, const Cost &cost) {
    DerivedValue v;
    v.samples = cost.samples;
    size_t n = size_t(column.numerator), d = size_t(column.denominator);
    if (n < cost.values.size() && d < cost.values.size() && cost.values[d] != 0)
        v.value = double(cost.values[n]) / double(cost.values[d]) * column.scale;
    return v;
}

} // namespace cpcprof::analysis
