// SPDX-License-Identifier: MIT
// The words of check's findings, shared with the readers (file_problems.h).
#include "storage/file_problems.h"

namespace cpcprof::storage {
namespace {

std::string count(uint64_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string unbalanced(const Accounting &a) {
    return "taken " + std::to_string(a.taken) + " != stored " + std::to_string(a.stored) +
           " + dropped " + std::to_string(a.dropped);
}

} // namespace

std::vector<std::string> accounting_problems(const Reader &r) {
    std::vector<std::string> out;
    for (const auto &[pid, a] : r.accounting())
        if (!a.balanced())
            out.push_back("accounting of process " + std::to_string(pid) +
                          " does not balance: " + unbalanced(a));
    Accounting total = r.accounting_total();
    if (!total.balanced())
        out.push_back("accounting does not balance in total: " + unbalanced(total));
    return out;
}

std::vector<std::string> stored_count_problems(const Reader &r,
                                               const std::map<int, uint64_t> &per_pid) {
    std::vector<std::string> out;
    if (!r.complete())
        return out;
    std::map<int, std::pair<uint64_t, uint64_t>> by_pid; // pid -> (rows, accounted)
    for (const auto &[pid, n] : per_pid)
        by_pid[pid].first = n;
    for (const auto &[pid, a] : r.accounting())
        by_pid[pid].second = a.stored;
    for (const auto &[pid, n] : by_pid)
        if (n.first != n.second)
            out.push_back(
                "process " + std::to_string(pid) + " has " + count(n.first, "sample", "samples") +
                " in the file, its accounting says " + std::to_string(n.second) + " stored");
    return out;
}

std::string value_count_problem(uint64_t samples, uint64_t values, uint64_t events) {
    return count(samples, "sample has ", "samples have ") + count(values, "value", "values") +
           ", the run has " + count(events, "event", "events");
}

} // namespace cpcprof::storage
