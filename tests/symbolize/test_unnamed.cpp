// SPDX-License-Identifier: MIT
// Names for what symbols do not name, and names as users know them: a
// stripped module's addresses grouped into functions by their FDE
// (.eh_frame_hdr), and symbol versions dropped from .symtab's aliases.
#include "tests/symbolize/helpers.h"

#include "symbolize/src/fde_index.h"
#include "symbolize/src/symbol_table.h"

#include "symbolize/symbolizer.h"

#include <gtest/gtest.h>

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace cpcprof::symbolize;

extern "C" int __libc_start_main(int (*)(int, char **, char **), int, char **, void (*)(),
                                 void (*)(), void (*)(), void *);

namespace {

// An .eh_frame_hdr: version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4,
// table datarel|sdata4, then (start, fde) pairs relative to the header.
std::vector<uint8_t> eh_frame_hdr(const std::vector<int32_t> &starts, uint8_t table_enc = 0x3b) {
    std::vector<uint8_t> out = {1, 0x1b, 0x03, table_enc};
    auto put = [&](uint32_t v) {
        uint8_t b[4];
        std::memcpy(b, &v, 4);
        out.insert(out.end(), b, b + 4);
    };
    put(0x100); // eh_frame_ptr (not used)
    put(uint32_t(starts.size()));
    for (int32_t s : starts) {
        put(uint32_t(s));
        put(0x200); // the FDE's address (not used)
    }
    return out;
}

std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
    return b;
}

// This process's executable mapping that holds address.
std::optional<Mapping> own_mapping(uint64_t address) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream in(line);
        std::string range, perms, offset, dev, inode, path;
        in >> range >> perms >> offset >> dev >> inode >> path;
        uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
        uint64_t end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
        if (perms.size() > 2 && perms[2] == 'x' && address >= start && address < end &&
            !path.empty() && path[0] == '/')
            return Mapping{path, read_build_id(path), start, end, std::stoull(offset, nullptr, 16)};
    }
    return std::nullopt;
}

} // namespace

TEST(FdeIndex, FindsTheLastStartAtOrBelow) {
    FdeIndex index(eh_frame_hdr({0x40, -0x20, 0x100}), 0x1000); // unsorted, as a file may be
    ASSERT_EQ(index.size(), 3u);
    EXPECT_EQ(index.start_at_or_below(0xfdf), std::nullopt);
    EXPECT_EQ(index.start_at_or_below(0xfe0), 0xfe0u);
    EXPECT_EQ(index.start_at_or_below(0x103f), 0xfe0u);
    EXPECT_EQ(index.start_at_or_below(0x1040), 0x1040u);
    EXPECT_EQ(index.start_at_or_below(0x10ff), 0x1040u);
    EXPECT_EQ(index.start_at_or_below(0x5000), 0x1100u);
}

TEST(FdeIndex, PltStubsAreNotGrouped) {
    FdeIndex index(eh_frame_hdr({0x0, 0x100}), 0x1000);
    index.add_stubs(0x1000, 0x1080);
    EXPECT_EQ(index.start_at_or_below(0x1000), std::nullopt);
    EXPECT_EQ(index.start_at_or_below(0x107f), std::nullopt);
    EXPECT_EQ(index.start_at_or_below(0x1080), 0x1000u) << "past the stubs, the FDE again";
    EXPECT_EQ(index.start_at_or_below(0x1100), 0x1100u);
}

TEST(FdeIndex, RefusesWhatItCannotRead) {
    EXPECT_EQ(FdeIndex({}, 0).size(), 0u);
    EXPECT_EQ(FdeIndex(eh_frame_hdr({0x40}, 0x1b), 0x1000).size(), 0u) << "table encoding";
    std::vector<uint8_t> cut = eh_frame_hdr({0x40, 0x80});
    cut.resize(cut.size() - 1);
    EXPECT_EQ(FdeIndex(cut, 0x1000).size(), 0u) << "fewer entries than the count";
    std::vector<uint8_t> v2 = eh_frame_hdr({0x40});
    v2[0] = 2;
    EXPECT_EQ(FdeIndex(v2, 0x1000).size(), 0u) << "version";
}

TEST(UnversionedName, DropsTheVersionOfASymbol) {
    EXPECT_EQ(unversioned_name("__libc_start_main@GLIBC_2.2.5"), "__libc_start_main");
    EXPECT_EQ(unversioned_name("memcpy@@GLIBC_2.14"), "memcpy");
    EXPECT_EQ(unversioned_name("_ZN4demo5outerEi"), "_ZN4demo5outerEi");
    EXPECT_EQ(unversioned_name("@odd"), "@odd");
}

// symtest_stripped has neither symbols nor DWARF: an address in a function
// is named after the function's first byte, the same for all of its
// addresses, another function's differently.
TEST(Session, StrippedAddressesGroupedByTheirFde) {
    symtest::Run run = symtest::run_program(SYMTEST_STRIPPED);
    ASSERT_TRUE(run.functions.count("outer") && run.functions.count("hidden_helper"));
    Session session(run.mappings);
    const uint64_t outer = run.file_offset(run.functions["outer"]);
    const uint64_t helper = run.file_offset(run.functions["hidden_helper"]);
    const std::string name = symtest::basename(SYMTEST_STRIPPED) + "+0x";

    Location in_outer = session.resolve(run.probes.at("leaf"), true);
    EXPECT_FALSE(in_outer.has_symbols);
    EXPECT_TRUE(in_outer.frames.empty());
    ASSERT_TRUE(in_outer.function_offset);
    EXPECT_EQ(*in_outer.function_offset, outer);
    EXPECT_EQ(function_fallback_name(in_outer), name + hex(outer));
    EXPECT_EQ(fallback_name(in_outer), name + hex(run.file_offset(run.probes.at("leaf"))))
        << "the address's own name is kept";

    Location entry = session.resolve(run.functions["outer"], false);
    ASSERT_TRUE(entry.function_offset);
    EXPECT_EQ(*entry.function_offset, outer);

    Location in_helper = session.resolve(run.probes.at("static"), true);
    ASSERT_TRUE(in_helper.function_offset);
    EXPECT_EQ(*in_helper.function_offset, helper);
    EXPECT_NE(outer, helper);
    EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{SYMTEST_STRIPPED});
}

// The file offset and size of path's section called name; size 0 if none.
std::pair<uint64_t, uint64_t> section(const std::string &path, const char *name) {
    elf_version(EV_CURRENT);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::pair<uint64_t, uint64_t> found{0, 0};
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, nullptr) : nullptr;
    size_t names = 0;
    if (elf != nullptr && elf_getshdrstrndx(elf, &names) == 0)
        for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn != nullptr;
             scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
            if (n != nullptr && std::strcmp(n, name) == 0)
                found = {sh.sh_offset, sh.sh_size};
        }
    if (elf != nullptr)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    return found;
}

// One FDE covers all of .plt: its stubs (printf@plt, ...) are not grouped
// into one function.
TEST(Session, PltStubsKeepTheirOwnAddresses) {
    symtest::Run run = symtest::run_program(SYMTEST_STRIPPED);
    auto [offset, size] = section(SYMTEST_STRIPPED, ".plt");
    if (size < 0x30)
        GTEST_SKIP() << SYMTEST_STRIPPED << " has no .plt with two stubs";
    const Mapping *text = nullptr;
    for (const Mapping &m : run.mappings)
        if (m.path == SYMTEST_STRIPPED && offset >= m.file_offset &&
            offset < m.file_offset + (m.end - m.start))
            text = &m;
    ASSERT_NE(text, nullptr) << "no mapping holds .plt";
    Session session(run.mappings);
    for (uint64_t stub = 0x10; stub + 0x10 <= size; stub += 0x10) {
        Location loc = session.resolve(text->start + (offset + stub - text->file_offset), false);
        EXPECT_FALSE(loc.function_offset)
            << ".plt+" << stub << " named " << function_fallback_name(loc);
    }
}

// objdump's "<name@plt>" labels of path's PLT sections: address -> name.
std::map<uint64_t, std::string> objdump_plt_labels(const std::string &path) {
    std::map<uint64_t, std::string> labels;
    FILE *p = popen(
        ("objdump -d -j .plt -j .plt.sec -j .plt.got '" + path + "' 2>/dev/null").c_str(), "r");
    char line[512];
    while (p != nullptr && std::fgets(line, sizeof line, p) != nullptr) {
        unsigned long long address;
        char name[256];
        if (std::sscanf(line, "%llx <%255[^>]>:", &address, name) == 2 &&
            std::string_view(name).ends_with("@plt") && !std::strchr(name, '-') &&
            !std::strchr(name, '+'))
            labels[address] = name;
    }
    if (p != nullptr)
        pclose(p);
    return labels;
}

// Each stub is named after the symbol it jumps to, as objdump labels it.
TEST(Session, PltStubsNamedAfterTheirSymbol) {
    symtest::Run run = symtest::run_program(SYMTEST_STRIPPED);
    std::map<uint64_t, std::string> labels = objdump_plt_labels(SYMTEST_STRIPPED);
    if (labels.empty())
        GTEST_SKIP() << "objdump labels no PLT stub of " << SYMTEST_STRIPPED;
    // PIE: ELF addresses of the executable segment are its file offsets.
    auto [offset, size] = section(SYMTEST_STRIPPED, ".plt");
    ASSERT_GT(size, 0u);
    const Mapping *text = nullptr;
    for (const Mapping &m : run.mappings)
        if (m.path == SYMTEST_STRIPPED && offset >= m.file_offset &&
            offset < m.file_offset + (m.end - m.start))
            text = &m;
    ASSERT_NE(text, nullptr);
    Session session(run.mappings);
    bool printf_seen = false;
    for (const auto &[address, name] : labels) {
        Location loc = session.resolve(text->start + (address - text->file_offset) + 4, false);
        ASSERT_EQ(loc.frames.size(), 1u) << name;
        EXPECT_EQ(loc.frames[0].function, name);
        printf_seen |= name == "printf@plt";
    }
    EXPECT_TRUE(printf_seen) << "the probes call printf";
}

TEST(Session, NamedAddressHasNoFdeName) {
    symtest::Run run = symtest::run_program(SYMTEST_PIE);
    Session session(run.mappings);
    Location loc = session.resolve(run.probes.at("leaf"), true);
    EXPECT_TRUE(loc.has_symbols);
    EXPECT_FALSE(loc.function_offset);
}

// glibc's .symtab (its debug file, when installed) names
// __libc_start_main's entry by two versioned aliases as well.
TEST(Session, VersionedSymbolsNamedWithoutTheirVersion) {
    uint64_t address = reinterpret_cast<uint64_t>(&__libc_start_main);
    std::optional<Mapping> libc = own_mapping(address);
    if (!libc)
        GTEST_SKIP() << "no executable file mapping holds __libc_start_main";
    // Only .symtab (glibc's debug file, libc6-dbg) names versions.
    if (libc->build_id.size() < 3 ||
        !std::filesystem::exists("/usr/lib/debug/.build-id/" + libc->build_id.substr(0, 2) + "/" +
                                 libc->build_id.substr(2) + ".debug"))
        GTEST_SKIP() << "no debug file of " << libc->path
                     << " under /usr/lib/debug/.build-id: no versioned names to drop";
    Session session({*libc});
    Location loc = session.resolve(address, false);
    ASSERT_FALSE(loc.frames.empty()) << libc->path << " names nothing at __libc_start_main";
    EXPECT_EQ(loc.frames.back().function, "__libc_start_main") << libc->path;
}

// crt1.o's _start has no DWARF; the unit before it ends with main's
// landing pads.  No address of _start (up to and including the return
// address of its call to __libc_start_main) gets a line of that unit.
// Whether libdwfl, reading path offline, hands some unit the address
// _start + 0x10 (the situation the test below guards against).
bool dwfl_gives_start_a_unit(const std::string &path) {
    static char *debuginfo_path = nullptr;
    static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                             dwfl_offline_section_address, &debuginfo_path};
    Dwfl *dwfl = dwfl_begin(&callbacks);
    bool handed = false;
    Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, "", path.c_str(), -1) : nullptr;
    dwfl_report_end(dwfl, nullptr, nullptr);
    for (int i = 0, n = mod ? dwfl_module_getsymtab(mod) : 0; i < n && !handed; ++i) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, nullptr, nullptr, nullptr);
        Dwarf_Addr bias;
        if (name != nullptr && std::strcmp(name, "_start") == 0)
            handed = dwfl_module_addrdie(mod, addr + 0x10, &bias) != nullptr;
    }
    dwfl_end(dwfl);
    return handed;
}

TEST(Session, CodeBetweenUnitsHasNoLine) {
    if (!dwfl_gives_start_a_unit(SYMTEST_START))
        GTEST_SKIP() << "libdwfl hands _start of " << SYMTEST_START
                     << " to no unit here: no wrong line to guard against";
    symtest::Run run = symtest::run_program(SYMTEST_START);
    ASSERT_TRUE(run.functions.count("_start"));
    Session session(run.mappings);
    const uint64_t start = run.functions["_start"];
    // x86-64's _start: the call ends within 0x30 bytes, hlt after it.
    size_t named = 0;
    for (uint64_t a = start; a < start + 0x30; ++a)
        for (bool ret : {false, true}) {
            if (ret && a == start) // looked up at start - 1: main's last byte
                continue;
            Location loc = session.resolve(a, ret);
            if (loc.frames.empty())
                continue;
            EXPECT_EQ(loc.frames.back().function, "_start");
            named += loc.frames.back().function == "_start";
            for (const Frame &f : loc.frames)
                EXPECT_TRUE(f.file.empty() && f.line == 0)
                    << "_start+" << (a - start) << (ret ? " (return address)" : "") << " at "
                    << f.file << ":" << f.line;
        }
    EXPECT_GT(named, 0u) << "the symbol table names _start";
}
