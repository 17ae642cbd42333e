// SPDX-License-Identifier: MIT
#include "profiler/symbolize_profile/symbolize_profile.h"

#include "base/address_ranges.h"
#include "storage/symbol_writer.h"
#include "symbolize/debuginfod.h"
#include "symbolize/symbolizer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>

namespace cpcprof::symbolize_profile {
namespace {

using storage::AddressToResolve;

// One module's file as a single process image: every mapping its addresses
// came from (they may come from several processes, each with its own load
// address) moved to the bias of the first one, so that one Session reads
// the file once and each file offset has one address.
struct Image {
    uint64_t shift = 0; // process address - file offset, mod 2^64
    std::vector<symbolize::Mapping> mappings;

    uint64_t address(uint64_t offset) const { return offset + shift; }
};

Image module_image(std::span<const AddressToResolve> addrs, const Options &options) {
    const AddressToResolve &first = addrs.front();
    auto held = first.build_id.empty() ? options.files.end() : options.files.find(first.build_id);
    std::string file = held == options.files.end() ? "" : held->second;
    Image image;
    image.shift = first.mapping_start - first.mapping_file_offset;
    // File-offset ranges [begin, end) of the mappings, merged where they
    // overlap: a Session wants each address in one mapping.
    std::vector<base::AddressRange> ranges;
    for (const AddressToResolve &a : addrs)
        ranges.emplace_back(a.mapping_file_offset,
                            a.mapping_file_offset + (a.mapping_end - a.mapping_start));
    for (const auto &[begin, end] : base::merge_ranges(std::move(ranges)))
        image.mappings.push_back(
            {first.path, first.build_id, image.address(begin), image.address(end), begin, file});
    return image;
}

std::string file_name(const std::string &path) {
    return std::filesystem::path(path).filename().string();
}

// Resolves the addresses of one module (all with the same module_id) and
// hands the answers to the writer.
void symbolize_module(storage::SymbolWriter &writer, std::span<const AddressToResolve> addrs,
                      const Options &options, Summary *summary) {
    Image image = module_image(addrs, options);
    std::optional<symbolize::Session> made;
    made.emplace(image.mappings, options.debug_dirs, options.kallsyms);
    const AddressToResolve &first = addrs.front();
    if (!first.build_id.empty() && first.path.starts_with('/')) {
        made->resolve(image.address(first.offset), false);
        // A module without DWARF here (stripped, perhaps with a symbol
        // table): a debug file fetched earlier is used without asking
        // anyone, then the servers are asked.
        const std::string cached = made->modules_without_dwarf().empty()
                                       ? ""
                                       : symbolize::debuginfod_cached_debug_file(first.build_id);
        if (!cached.empty()) {
            for (symbolize::Mapping &m : image.mappings)
                m.debug_file = cached;
            made.emplace(image.mappings, options.debug_dirs, options.kallsyms);
            made->resolve(image.address(first.offset), false);
            summary->fetched.push_back(first.path + " (from debuginfod's cache)");
        }
        if (options.debuginfod != nullptr && !made->modules_without_dwarf().empty()) {
            symbolize::Fetched f = options.debuginfod->find_debuginfo(
                first.build_id, "the debug file of " + file_name(first.path));
            if (!f.path.empty()) {
                for (symbolize::Mapping &m : image.mappings)
                    m.debug_file = f.path;
                made.emplace(image.mappings, options.debug_dirs, options.kallsyms);
                made->resolve(image.address(first.offset), false);
                if (made->modules_without_dwarf().empty())
                    summary->fetched.push_back(first.path + " (from " + f.server + ")");
                else
                    summary->not_fetched.push_back(first.path + " (" + f.server +
                                                   " gave a file that is not its debug file)");
            } else {
                summary->not_fetched.push_back(first.path + " (" + f.error + ")");
                summary->fetch_timed_out = summary->fetch_timed_out || f.timed_out;
                summary->fetch_stopped = summary->fetch_stopped || f.stopped;
            }
        }
    }
    symbolize::Session &session = *made;
    // An address no symbol names is stored as its function by the FDE
    // ("liblzma.so.5+0x15b40", schema.cpp "symbol"), so that a stripped
    // module's samples group by function, not by address.
    bool named = false; // by the last frames_at(): a symbol or DWARF, not the FDE
    uint64_t resolved = 0, by_fde = 0;
    auto frames_at = [&](const AddressToResolve &a, bool return_address) {
        std::vector<storage::SymbolFrame> frames;
        symbolize::Location loc = session.resolve(image.address(a.offset), return_address);
        named = loc.has_symbols;
        for (const symbolize::Frame &f : loc.frames)
            frames.push_back({f.function, f.file, f.line, f.inlined});
        if (frames.empty() && loc.function_offset)
            frames.push_back({symbolize::function_fallback_name(loc), "", 0, false});
        return frames;
    };
    for (size_t i = 0; i < addrs.size(); ++i) {
        const AddressToResolve &a = addrs[i];
        // A PC is looked up where it is, a return address in its call
        // (offset - 1); an address used both ways gets both answers, unless
        // offset - 1 is itself an address here (a garbage frame): then the
        // return address's answer stands for both, as it did before.
        bool apart = a.pc && a.return_address && a.offset > 0 &&
                     (i == 0 || addrs[i - 1].offset != a.offset - 1);
        std::vector<storage::SymbolFrame> frames = frames_at(a, a.return_address && !apart);
        if (!frames.empty())
            writer.add(a.module_id, a.offset, frames);
        resolved += named;
        by_fde += !named && !frames.empty();
        if (apart) {
            std::vector<storage::SymbolFrame> caller = frames_at(a, true);
            if (caller != frames)
                writer.add_return(a.module_id, a.offset, caller);
        }
    }
    bool has_symbols = session.modules_without_symbols().empty();
    // Names found before, from a file not readable now, are not lost.
    if (!has_symbols && writer.keep_earlier(addrs.front().module_id)) {
        summary->kept_earlier.push_back(addrs.front().path);
        summary->addresses -= addrs.size();
        return;
    }
    ++summary->modules;
    summary->resolved += resolved;
    summary->by_fde += by_fde;
    writer.set_module_symbols(addrs.front().module_id, has_symbols);
    if (!has_symbols)
        summary->modules_without_symbols.push_back(addrs.front().path);
    for (std::string &why : session.why_without_symbols())
        summary->why_without_symbols.push_back(std::move(why));
}

} // namespace

std::optional<Summary> symbolize_profile(const std::string &path, const Options &options,
                                         std::string *error) {
    auto start = std::chrono::steady_clock::now();
    auto writer = storage::SymbolWriter::open(path, error);
    if (!writer)
        return std::nullopt;
    std::vector<AddressToResolve> all = writer->addresses(); // sorted by (module_id, offset)
    Summary summary;
    summary.addresses = all.size();
    for (size_t i = 0; i < all.size() && writer->ok();) {
        size_t end = i;
        while (end < all.size() && all[end].module_id == all[i].module_id)
            ++end;
        symbolize_module(*writer, std::span(all).subspan(i, end - i), options, &summary);
        i = end;
    }
    std::string reason;
    if (!writer->finish(&reason)) {
        *error = path + ": " + reason;
        return std::nullopt;
    }
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
}

std::string describe(const Summary &s) {
    std::string text = "symbolized " + std::to_string(s.resolved) + " of " +
                       std::to_string(s.addresses) + " addresses in " + std::to_string(s.modules) +
                       (s.modules == 1 ? " module" : " modules");
    if (!s.modules_without_symbols.empty()) {
        text += " (" + std::to_string(s.modules_without_symbols.size()) + " without symbols: ";
        for (size_t i = 0; i < s.modules_without_symbols.size(); ++i)
            text += (i ? ", " : "") + s.modules_without_symbols[i];
        text += ")";
    }
    if (!s.kept_earlier.empty()) {
        text +=
            "; the earlier names of " + std::to_string(s.kept_earlier.size()) +
            (s.kept_earlier.size() == 1 ? " module kept, its file" : " modules kept, their files") +
            " no longer readable here: ";
        for (size_t i = 0; i < s.kept_earlier.size(); ++i)
            text += (i ? ", " : "") + s.kept_earlier[i];
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " in %.2f s", s.seconds);
    text += seconds;
    if (s.by_fde > 0)
        text += "; " + std::to_string(s.by_fde) + " others grouped into functions by their FDE";
    for (const std::string &why : s.why_without_symbols)
        text += "; " + why;
    auto list = [&](const char *head, const std::vector<std::string> &items) {
        if (items.empty())
            return;
        text += head;
        for (size_t i = 0; i < items.size(); ++i)
            text += (i ? ", " : "") + items[i];
    };
    list("; debug files from debuginfod: ", s.fetched);
    list("; not from debuginfod: ", s.not_fetched);
    return text;
}

} // namespace cpcprof::symbolize_profile
