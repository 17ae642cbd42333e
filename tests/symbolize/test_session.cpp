// SPDX-License-Identifier: MIT
// Session against the purpose-built programs of data/: each prints its
// probe return addresses and executable mappings; the tests resolve them
// and compare with the "@marker" lines of the sources.
#include "tests/symbolize/helpers.h"

#include "symbolize/symbolizer.h"

#include "symbolize/src/build_id.h"

#include <gtest/gtest.h>

#include <elf.h>
#include <gelf.h>
#include <link.h>
#include <sys/auxv.h>

#include <cstdlib>
#include <filesystem>

using namespace cpcprof::symbolize;
using symtest::line_of;

namespace {

const std::string targets_src = SYMTEST_SOURCE;
const std::string shlib_src = SYMTEST_SHLIB_SOURCE;

// No test may reach a debuginfod server.
class Environment : public ::testing::Environment {
    void SetUp() override { unsetenv("DEBUGINFOD_URLS"); }
};
const auto *env = ::testing::AddGlobalTestEnvironment(new Environment);

void expect_frame(const Frame &f, const std::string &function, const std::string &source,
                  const std::string &marker, bool inlined) {
    EXPECT_EQ(f.function, function);
    EXPECT_EQ(symtest::basename(f.file), symtest::basename(source)) << f.function;
    // Absolute even where the unit was compiled from a relative path (as
    // ccache with base_dir compiles it): joined to DW_AT_comp_dir.
    EXPECT_TRUE(std::filesystem::path(f.file).is_absolute()) << f.file;
    EXPECT_EQ(f.line, line_of(source, marker)) << f.function << " at @" << marker;
    EXPECT_EQ(f.inlined, inlined) << f.function;
}

std::string describe(const Location &loc) {
    std::string s = fallback_name(loc) + ":";
    for (const Frame &f : loc.frames)
        s += "\n  " + f.function + " " + f.file + ":" + std::to_string(f.line) +
             (f.inlined ? " (inline)" : "");
    return s;
}

// The inline chain leaf -> middle -> outer, at leaf's probe call.
void expect_inline_chain(Session &session, uint64_t return_address) {
    Location loc = session.resolve(return_address, true);
    ASSERT_TRUE(loc.has_symbols) << describe(loc);
    ASSERT_EQ(loc.frames.size(), 3u) << describe(loc);
    expect_frame(loc.frames[0], "demo::leaf(int)", targets_src, "leaf_probe", true);
    expect_frame(loc.frames[1], "demo::middle(int)", targets_src, "middle_calls_leaf", true);
    expect_frame(loc.frames[2], "demo::outer(int)", targets_src, "outer_calls_middle", false);
}

class Executables : public ::testing::TestWithParam<const char *> {};

TEST_P(Executables, InlineChainWithFileAndLine) {
    symtest::Run run = symtest::run_program(GetParam());
    ASSERT_TRUE(run.probes.count("leaf"));
    Session session(run.mappings);
    expect_inline_chain(session, run.probes["leaf"]);
    Location loc = session.resolve(run.probes["leaf"], true);
    EXPECT_EQ(loc.module, GetParam());
    EXPECT_EQ(loc.module_offset, run.file_offset(run.probes["leaf"]));
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

TEST_P(Executables, TemplatesLambdasAndStaticFunctionsDemangled) {
    symtest::Run run = symtest::run_program(GetParam());
    Session session(run.mappings);
    struct Case {
        const char *probe;
        const char *function;
        const char *marker;
    };
    for (Case c : {Case{"twice_int", "int demo::twice<int>(int)", "twice_probe"},
                   Case{"twice_double", "double demo::twice<double>(double)", "twice_probe"},
                   Case{"static", "demo::hidden_helper(int)", "static_probe"},
                   Case{"lambda", "demo::run_lambda(int)::{lambda(int)#1}::operator()(int) const",
                        "lambda_probe"}}) {
        SCOPED_TRACE(c.probe);
        Location loc = session.resolve(run.probes.at(c.probe), true);
        ASSERT_EQ(loc.frames.size(), 1u) << describe(loc);
        expect_frame(loc.frames[0], c.function, targets_src, c.marker, false);
    }
}

TEST_P(Executables, FunctionEntryIsNotAReturnAddress) {
    symtest::Run run = symtest::run_program(GetParam());
    Session session(run.mappings);
    Location loc = session.resolve(run.functions.at("hidden_helper"), false);
    ASSERT_EQ(loc.frames.size(), 1u) << describe(loc);
    expect_frame(loc.frames[0], "demo::hidden_helper(int)", targets_src, "hidden_helper_decl",
                 false);
    // As a return address, the function's first byte belongs to whatever
    // precedes it: not hidden_helper.
    Location before = session.resolve(run.functions.at("hidden_helper"), true);
    EXPECT_TRUE(before.frames.empty() || before.frames[0].function != "demo::hidden_helper(int)")
        << describe(before);
}

TEST_P(Executables, InlinedStaticFunctionQualifiedFromItsScopes) {
    // GCC gives internal-linkage functions no DW_AT_linkage_name: the name
    // is DW_AT_name qualified by the enclosing namespaces, without parameters.
    symtest::Run run = symtest::run_program(GetParam());
    Session session(run.mappings);
    Location loc = session.resolve(run.probes.at("static_inline"), true);
    ASSERT_EQ(loc.frames.size(), 2u) << describe(loc);
    expect_frame(loc.frames[0], "demo::quiet", targets_src, "static_inline_probe", true);
    expect_frame(loc.frames[1], "demo::calls_static_inline(int)", targets_src,
                 "calls_static_inline", false);
}

INSTANTIATE_TEST_SUITE_P(Symbolize, Executables, ::testing::Values(SYMTEST_PIE, SYMTEST_NOPIE),
                         [](const auto &info) {
                             return std::string(info.index == 0 ? "Pie" : "NoPie");
                         });

TEST(Session, EachAddressResolvedOnce) {
    symtest::Run run = symtest::run_program(SYMTEST_PIE);
    Session session(run.mappings);
    uint64_t ret = run.probes.at("leaf");
    Location first = session.resolve(ret, true);
    Location again = session.resolve(ret, true);
    // The call instruction's last byte, as a plain address: same lookup.
    Location plain = session.resolve(ret - 1, false);
    EXPECT_EQ(session.stats().lookups, 3u);
    EXPECT_EQ(session.stats().cache_hits, 2u);
    EXPECT_EQ(session.stats().compile_units_indexed, 1u);
    EXPECT_EQ(again.frames.size(), first.frames.size());
    EXPECT_EQ(plain.frames.size(), first.frames.size());
    EXPECT_EQ(again.module_offset, first.module_offset);
    EXPECT_EQ(plain.module_offset, first.module_offset - 1);
}

TEST(Session, SharedLibraryAtItsLoadBias) {
    symtest::Run run = symtest::run_program(SYMTEST_USESHLIB);
    ASSERT_TRUE(run.probes.count("lib_leaf"));
    Session session(run.mappings);
    Location loc = session.resolve(run.probes["lib_leaf"], true);
    EXPECT_EQ(symtest::basename(loc.module), "libsymtest_shlib.so");
    ASSERT_EQ(loc.frames.size(), 2u) << describe(loc);
    expect_frame(loc.frames[0], "demo_lib::lib_leaf(int)", shlib_src, "lib_leaf_probe", true);
    expect_frame(loc.frames[1], "demo_lib::lib_entry(int)", shlib_src, "lib_entry_calls_leaf",
                 false);
}

TEST(Session, DebugInfoFoundByGnuDebuglink) {
    symtest::Run run = symtest::run_program(SYMTEST_DEBUGLINK);
    Session session(run.mappings);
    expect_inline_chain(session, run.probes.at("leaf"));
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

TEST(Session, DebugInfoFoundByBuildIdInADebugDirectory) {
    symtest::Run run = symtest::run_program(SYMTEST_STRIPPED);
    {
        Session bare(run.mappings);
        Location loc = bare.resolve(run.probes.at("leaf"), true);
        EXPECT_FALSE(loc.has_symbols) << describe(loc);
        EXPECT_EQ(
            fallback_name(loc), "symtest_stripped+0x" + [&] {
                char b[32];
                snprintf(b, sizeof b, "%llx",
                         (unsigned long long)run.file_offset(run.probes.at("leaf")));
                return std::string(b);
            }());
        EXPECT_EQ(bare.modules_without_symbols(), std::vector<std::string>{SYMTEST_STRIPPED});
    }
    std::string id = read_build_id(SYMTEST_STRIPPED);
    ASSERT_GT(id.size(), 2u);
    EXPECT_EQ(id, read_build_id(SYMTEST_DEBUGFILE));
    symtest::TempDir debug;
    auto dir = std::filesystem::path(debug.path()) / ".build-id" / id.substr(0, 2);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(SYMTEST_DEBUGFILE, dir / (id.substr(2) + ".debug"));
    Session session(run.mappings, {debug.path()});
    expect_inline_chain(session, run.probes.at("leaf"));
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

TEST(Session, DeletedBinaryKeepsItsFallbackName) {
    symtest::TempDir tmp;
    std::string copy = tmp.path() + "/symtest_copy";
    std::filesystem::copy_file(SYMTEST_PIE, copy);
    std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
    symtest::Run run = symtest::run_program(copy);
    ASSERT_TRUE(run.probes.count("leaf"));
    std::filesystem::remove(copy);

    Session session(run.mappings);
    uint64_t ret = run.probes["leaf"];
    Location loc = session.resolve(ret, true);
    EXPECT_FALSE(loc.has_symbols);
    EXPECT_TRUE(loc.frames.empty());
    EXPECT_EQ(loc.module, copy);
    char expected[64];
    snprintf(expected, sizeof expected, "symtest_copy+0x%llx",
             (unsigned long long)run.file_offset(ret));
    EXPECT_EQ(fallback_name(loc), expected);
    EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{copy});
}

TEST(Session, ReplacedBinaryIsNotUsed) {
    symtest::Run run = symtest::run_program(SYMTEST_PIE);
    for (auto &m : run.mappings)
        if (m.path == SYMTEST_PIE)
            m.build_id = "00112233445566778899aabbccddeeff00112233";
    Session session(run.mappings);
    Location loc = session.resolve(run.probes.at("leaf"), true);
    EXPECT_FALSE(loc.has_symbols) << describe(loc);
    EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{SYMTEST_PIE});

    for (auto &m : run.mappings)
        if (m.path == SYMTEST_PIE)
            m.build_id = read_build_id(SYMTEST_PIE);
    Session matching(run.mappings);
    expect_inline_chain(matching, run.probes.at("leaf"));
}

// This process's vDSO as the recorder describes it (exec segments, the
// build-id note), and the address of one of its exported functions.
struct OwnVdso {
    std::vector<Mapping> mappings;
    uint64_t clock_gettime = 0;
};

OwnVdso own_vdso() {
    OwnVdso v;
    auto base = reinterpret_cast<char *>(getauxval(AT_SYSINFO_EHDR));
    if (base == nullptr)
        return v;
    auto *eh = reinterpret_cast<const ElfW(Ehdr) *>(base);
    size_t size = eh->e_shoff + size_t(eh->e_shnum) * eh->e_shentsize; // headers come last
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory(base, size);
    if (elf == nullptr)
        return v;
    std::string id = elf_build_id(elf);
    auto *ph = reinterpret_cast<const ElfW(Phdr) *>(base + eh->e_phoff);
    uint64_t bias = 0;
    bool first = true;
    for (int i = 0; i < eh->e_phnum; ++i) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        if (first)
            bias = uint64_t(uintptr_t(base)) - ph[i].p_vaddr;
        first = false;
        if (ph[i].p_flags & PF_X)
            v.mappings.push_back({"linux-vdso.so.1", id, bias + ph[i].p_vaddr,
                                  bias + ph[i].p_vaddr + ph[i].p_memsz, ph[i].p_offset});
    }
    for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *data = elf_getdata(scn, nullptr);
        for (size_t i = 0; data != nullptr && i < sh.sh_size / sh.sh_entsize; ++i) {
            GElf_Sym sym;
            const char *name = gelf_getsym(data, int(i), &sym)
                                   ? elf_strptr(elf, sh.sh_link, sym.st_name)
                                   : nullptr;
            if (name != nullptr && std::string(name) == "__vdso_clock_gettime")
                v.clock_gettime = bias + sym.st_value;
        }
    }
    elf_end(elf);
    return v;
}

TEST(Session, VdsoOfTheSameKernelIsNamed) {
    OwnVdso v = own_vdso();
    if (v.mappings.empty() || v.clock_gettime == 0 || v.mappings[0].build_id.empty())
        GTEST_SKIP() << "this process has no vDSO with a build-id and __vdso_clock_gettime";
    Session session(v.mappings);
    Location loc = session.resolve(v.clock_gettime + 4, false);
    ASSERT_TRUE(loc.has_symbols) << describe(loc);
    EXPECT_NE(loc.frames.back().function.find("clock_gettime"), std::string::npos) << describe(loc);
    EXPECT_EQ(loc.module, "linux-vdso.so.1");
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

TEST(Session, VdsoOfAnotherKernelKeepsItsFallbackName) {
    OwnVdso v = own_vdso();
    if (v.mappings.empty() || v.clock_gettime == 0)
        GTEST_SKIP() << "this process has no vDSO with __vdso_clock_gettime";
    for (const std::string id : {"00112233445566778899aabbccddeeff00112233", ""}) {
        for (auto &m : v.mappings)
            m.build_id = id;
        Session session(v.mappings);
        Location loc = session.resolve(v.clock_gettime + 4, false);
        EXPECT_FALSE(loc.has_symbols) << "build-id '" << id << "': " << describe(loc);
        EXPECT_EQ(fallback_name(loc).rfind("linux-vdso.so.1+0x", 0), 0u) << fallback_name(loc);
        EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{"linux-vdso.so.1"});
    }
}

TEST(Session, AddressOutsideEveryMapping) {
    Session session({});
    Location loc = session.resolve(0x1234, false);
    EXPECT_FALSE(loc.has_symbols);
    EXPECT_EQ(fallback_name(loc), "[unknown]+0x1234");
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

} // namespace
