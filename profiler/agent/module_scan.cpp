// SPDX-License-Identifier: MIT
// The process's executable mappings (module_scan.h).  Ordinary context.
#include "profiler/agent/module_scan.h"

#include "profiler/agent/cfi_cache.h"
#include "profiler/protocol/protocol.h"

#include "base/address_ranges.h"
#include "base/scoped_fd.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <tuple>

namespace cpcprof::agent {

namespace {

// Reads a number in base at the front of s and drops it; false if none.
bool take_number(std::string_view &s, uint64_t *out, int base) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
    if (ec != std::errc() || end == s.data())
        return false;
    s.remove_prefix(static_cast<size_t>(end - s.data()));
    return true;
}

bool take_char(std::string_view &s, char c) {
    if (s.empty() || s.front() != c)
        return false;
    s.remove_prefix(1);
    return true;
}

void skip_spaces(std::string_view &s) {
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
}

// "start-end perms offset major:minor inode [path]"; false if it does not
// parse.  *exec: the perms have x.
bool parse_line(std::string_view s, MapsLine *m, bool *exec) {
    if (!take_number(s, &m->start, 16) || !take_char(s, '-') || !take_number(s, &m->end, 16) ||
        !take_char(s, ' ') || s.size() < 5)
        return false;
    *exec = s[2] == 'x';
    s.remove_prefix(4);
    if (!take_char(s, ' ') || !take_number(s, &m->file_offset, 16) || !take_char(s, ' ') ||
        !take_number(s, &m->dev_major, 16) || !take_char(s, ':') ||
        !take_number(s, &m->dev_minor, 16) || !take_char(s, ' ') || !take_number(s, &m->inode, 10))
        return false;
    skip_spaces(s);
    m->path = std::string(s);
    return m->end > m->start;
}

bool anonymous(const MapsLine &m) {
    return m.inode == 0 && (m.path.empty() || m.path.starts_with("[anon:"));
}

struct Loader {
    std::vector<ModuleEntry> *out;
    const std::string *exe;
    bool first = true;
};

int add_loader_module(dl_phdr_info *info, size_t, void *arg) {
    auto *l = static_cast<Loader *>(arg);
    std::string path = info->dlpi_name ? info->dlpi_name : "";
    if (path.empty())
        path = l->first ? *l->exe : "[vdso]";
    l->first = false;
    std::string id = module_build_id(info);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        uint64_t start = info->dlpi_addr + ph.p_vaddr;
        l->out->push_back({start, start + ph.p_memsz, ph.p_offset, path, id});
    }
    return 0;
}

// /proc/self/maps whole; "" if it cannot be read.  Read with read(2):
// the kernel produces the text a page at a time.
std::string read_own_maps() {
    base::ScopedFd fd(open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
    std::string text;
    if (!fd.valid())
        return text;
    char buf[16384];
    for (;;) {
        ssize_t n = read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text.append(buf, static_cast<size_t>(n));
    }
    return text;
}

} // namespace

std::vector<MapsLine> parse_exec_maps(std::string_view text) {
    std::vector<MapsLine> out;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        MapsLine m;
        bool exec = false;
        if (parse_line(line, &m, &exec) && exec)
            out.push_back(std::move(m));
    }
    return out;
}

std::string jit_map_path(int pid) {
    return "/tmp/perf-" + std::to_string(pid) + ".map";
}

void add_unlisted_mappings(std::vector<ModuleEntry> &modules, const std::vector<MapsLine> &maps,
                           int pid) {
    size_t loader_count = modules.size();
    auto overlaps_loader = [&](const MapsLine &m) -> const ModuleEntry * {
        for (size_t i = 0; i < loader_count; ++i)
            if (modules[i].start < m.end && m.start < modules[i].end)
                return &modules[i];
        return nullptr;
    };
    // A file the loader has, by device and inode: its name and build-id.
    using FileKey = std::tuple<uint64_t, uint64_t, uint64_t>;
    std::map<FileKey, const ModuleEntry *> loaded;
    for (const MapsLine &m : maps)
        if (m.inode != 0)
            if (const ModuleEntry *e = overlaps_loader(m))
                loaded.emplace(FileKey{m.dev_major, m.dev_minor, m.inode}, e);
    std::vector<ModuleEntry> extra;
    for (const MapsLine &m : maps) {
        if (overlaps_loader(m) != nullptr)
            continue;
        ModuleEntry e{m.start, m.end, m.file_offset, m.path, {}};
        if (anonymous(m)) {
            e.path = jit_map_path(pid);
            e.file_offset = m.start;
        } else if (m.inode == 0) {
            continue; // [vsyscall], [uprobes], ...
        } else if (auto it = loaded.find({m.dev_major, m.dev_minor, m.inode}); it != loaded.end()) {
            e.path = it->second->path;
            e.build_id = it->second->build_id;
        }
        if (!extra.empty() && extra.back().end == e.start && extra.back().path == e.path &&
            extra.back().file_offset + (extra.back().end - extra.back().start) == e.file_offset)
            extra.back().end = e.end;
        else
            extra.push_back(std::move(e));
    }
    modules.insert(modules.end(), std::make_move_iterator(extra.begin()),
                   std::make_move_iterator(extra.end()));
}

std::vector<ModuleEntry> scan_modules(const std::string &exe, bool maps) {
    std::vector<ModuleEntry> modules;
    Loader l{&modules, &exe};
    dl_iterate_phdr(add_loader_module, &l);
    if (!maps)
        return modules;
    std::string text = read_own_maps();
    add_unlisted_mappings(modules, parse_exec_maps(text), getpid());
    return modules;
}

KnownRanges::KnownRanges(const std::vector<ModuleEntry> &modules) {
    for (const ModuleEntry &m : modules)
        ranges.emplace_back(m.start, m.end);
    ranges = cpcprof::base::merge_ranges(std::move(ranges));
}

bool KnownRanges::covers(uint64_t address) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                               [](uint64_t a, const auto &r) { return a < r.first; });
    return it != ranges.begin() && address < std::prev(it)->second;
}

std::vector<char> module_table_message(int pid, int64_t time_ns,
                                       const std::vector<ModuleEntry> &modules) {
    proto::Writer w(proto::Type::modules);
    w.put(static_cast<int32_t>(pid));
    w.put(time_ns);
    size_t count_at = w.size();
    w.put(uint32_t(0)); // count, patched below
    uint32_t count = 0;
    for (const ModuleEntry &m : modules) {
        if (w.size() + 3 * sizeof(uint64_t) + 8 + m.path.size() + m.build_id.size() >
            proto::kMaxMessage)
            break;
        w.put(m.start);
        w.put(m.end);
        w.put(m.file_offset);
        w.put_string(m.path);
        w.put_string(m.build_id);
        ++count;
    }
    std::vector<char> msg = w.finish();
    std::memcpy(msg.data() + count_at, &count, sizeof count);
    return msg;
}

} // namespace cpcprof::agent
