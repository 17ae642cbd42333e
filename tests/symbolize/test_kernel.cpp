// SPDX-License-Identifier: MIT
// Kernel frames: the kallsyms table alone (a fake file: unsorted, shared
// addresses, a module's symbols, data symbols and hidden addresses), the
// "[kernel]" module through a Session, what a Session says once where the
// kernel hides its symbols, and this machine's own /proc/kallsyms where it
// shows addresses.
#include "symbolize/src/kernel_symbols.h"
#include "symbolize/symbolizer.h"
#include "tests/symbolize/helpers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace cpcprof::symbolize;

namespace {

// Unsorted, as kallsyms is past the kernel's own symbols; three names at
// 0x...81000000 (global _stext and _text, local startup_local); data (D) and
// absolute (A) symbols; a hidden address; two modules.
const char kFakeKallsyms[] = "ffffffff82255aa0 T clear_page_erms\n"
                             "ffffffff81000000 t startup_local\n"
                             "ffffffff81000000 T _stext\n"
                             "ffffffff81000000 T _text\n"
                             "ffffffff81000000 T __pi__text\n"
                             "ffffffff81000c60 T asm_exc_page_fault\n"
                             "ffffffff82255b00 T clear_page_rep\n"
                             "ffffffff82400000 D some_data\n"
                             "0000000000000000 A fixed_percpu_data\n"
                             "0000000000000000 T hidden_function\n"
                             "ffffffff82255c00 T _etext\n"
                             "ffffffffc0a12340 t ext4_file_write_iter\t[ext4]\n"
                             "ffffffffc0a12000 t ext4_llseek\t[ext4]\n"
                             "ffffffffc0b00000 T nft_do_chain\t[nf_tables]\n"
                             "not a line\n";

// What find() gives as "function [module]", "" for nothing.
std::string name_at(const KernelSymbols &t, uint64_t address) {
    std::optional<KernelSymbols::Symbol> s = t.find(address);
    if (!s)
        return "";
    std::string name(s->function);
    return s->module.empty() ? name : name + " [" + std::string(s->module) + "]";
}

std::string write_file(const symtest::TempDir &dir, const std::string &name,
                       const std::string &text) {
    std::string path = dir.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

} // namespace

TEST(KernelSymbols, NamesExactAddressesAndAddressesInsideFunctions) {
    KernelSymbols t = KernelSymbols::parse(kFakeKallsyms);
    EXPECT_EQ(t.size(), 8u) << "one per address, text symbols only";
    EXPECT_EQ(t.hidden(), 1u);
    EXPECT_EQ(name_at(t, 0xffffffff82255aa0), "clear_page_erms");
    EXPECT_EQ(name_at(t, 0xffffffff82255aff), "clear_page_erms") << "ends at the next symbol";
    EXPECT_EQ(name_at(t, 0xffffffff82255b00), "clear_page_rep");
    EXPECT_EQ(name_at(t, 0xffffffff81000c61), "asm_exc_page_fault");
    EXPECT_EQ(name_at(t, 0xffffffffc0a12000), "ext4_llseek [ext4]");
    EXPECT_EQ(name_at(t, 0xffffffffc0a12345), "ext4_file_write_iter [ext4]");
    EXPECT_EQ(name_at(t, 0xffffffffc0b00010), "nft_do_chain [nf_tables]");
}

TEST(KernelSymbols, SharedAddressKeepsTheGlobalNameFirstInTheFile) {
    KernelSymbols t = KernelSymbols::parse(kFakeKallsyms);
    // _stext and _text are both global with one leading underscore:
    // the file's first wins; the local name and __pi__text lose.
    EXPECT_EQ(name_at(t, 0xffffffff81000000), "_stext");
    EXPECT_EQ(name_at(t, 0xffffffff81000c5f), "_stext");
}

TEST(KernelSymbols, NothingBeforeTheFirstOrPastTheLastSymbol) {
    KernelSymbols t = KernelSymbols::parse(kFakeKallsyms);
    EXPECT_EQ(name_at(t, 0), "");
    EXPECT_EQ(name_at(t, 0xffffffff80ffffff), "");
    // The last symbol has no size: it reaches the end of the page after its own.
    EXPECT_EQ(name_at(t, 0xffffffffc0b01fff), "nft_do_chain [nf_tables]");
    EXPECT_EQ(name_at(t, 0xffffffffc0b02000), "");
    EXPECT_EQ(name_at(t, UINT64_MAX), "");
}

TEST(KernelSymbols, SaysWhyItNamesNothing) {
    symtest::TempDir dir;
    std::string problem;
    KernelSymbols hidden = KernelSymbols::load(
        write_file(dir, "hidden", "0000000000000000 T _stext\n0000000000000000 t x\t[m]\n"),
        &problem);
    EXPECT_EQ(hidden.size(), 0u);
    EXPECT_EQ(hidden.hidden(), 2u);
    EXPECT_NE(problem.find("shows every address as 0"), std::string::npos) << problem;
    EXPECT_NE(problem.find("CAP_SYSLOG"), std::string::npos) << problem;
    EXPECT_NE(problem.find("kernel.kptr_restrict=0"), std::string::npos) << problem;

    problem.clear();
    KernelSymbols missing = KernelSymbols::load(dir.path() + "/none", &problem);
    EXPECT_EQ(missing.size(), 0u);
    EXPECT_EQ(problem, "cannot read " + dir.path() + "/none (No such file or directory)");

    problem.clear();
    KernelSymbols fine = KernelSymbols::load(write_file(dir, "fine", kFakeKallsyms), &problem);
    EXPECT_EQ(fine.size(), 8u);
    EXPECT_EQ(problem, "");
}

TEST(KernelSession, KernelModuleIsNamedFromKallsyms) {
    symtest::TempDir dir;
    Session session({kernel_mapping()}, {}, write_file(dir, "kallsyms", kFakeKallsyms));
    Location leaf = session.resolve(0xffffffff82255aa5, false);
    ASSERT_EQ(leaf.frames.size(), 1u);
    EXPECT_EQ(leaf.frames[0].function, "clear_page_erms");
    EXPECT_EQ(leaf.frames[0].line, 0);
    EXPECT_EQ(leaf.module, "[kernel]");
    EXPECT_EQ(leaf.module_offset, 0xffffffff82255aa5u) << "offsets are the kernel's addresses";
    // A return address just past a function is in its call.
    EXPECT_EQ(session.resolve(0xffffffff82255b00, true).frames.at(0).function, "clear_page_erms");
    EXPECT_EQ(session.resolve(0xffffffffc0a12350, true).frames.at(0).function,
              "ext4_file_write_iter [ext4]");
    Location before = session.resolve(0xffffffff80000010, false);
    EXPECT_TRUE(before.frames.empty());
    EXPECT_EQ(fallback_name(before), "[kernel]+0xffffffff80000010");
    EXPECT_EQ(function_fallback_name(before), "[kernel]+0xffffffff80000010");
    EXPECT_TRUE(session.modules_without_symbols().empty());
    EXPECT_TRUE(session.why_without_symbols().empty());
}

TEST(KernelSession, HiddenKernelSymbolsAreSaidOnceNotPerFrame) {
    symtest::TempDir dir;
    std::string hidden = write_file(dir, "kallsyms", "0000000000000000 T clear_page_erms\n");
    Session session({kernel_mapping()}, {}, hidden);
    for (uint64_t a = 0xffffffff81000000; a < 0xffffffff81000100; a += 0x10) {
        Location loc = session.resolve(a, a != 0xffffffff81000000);
        EXPECT_TRUE(loc.frames.empty());
        EXPECT_EQ(loc.module, "[kernel]");
    }
    EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{"[kernel]"});
    std::vector<std::string> why = session.why_without_symbols();
    ASSERT_EQ(why.size(), 1u);
    EXPECT_TRUE(why[0].starts_with("[kernel]: " + hidden + " shows every address as 0")) << why[0];
}

TEST(KernelSession, UserModulesBesideTheKernelResolveAsBefore) {
    symtest::TempDir dir;
    symtest::Run run = symtest::run_program(SYMTEST_PIE);
    std::vector<Mapping> mappings = run.mappings;
    mappings.push_back(kernel_mapping());
    Session session(mappings, {}, write_file(dir, "kallsyms", kFakeKallsyms));
    Location user = session.resolve(run.functions.at("hidden_helper"), false);
    ASSERT_EQ(user.frames.size(), 1u);
    EXPECT_EQ(user.frames[0].function, "demo::hidden_helper(int)");
    EXPECT_EQ(session.resolve(0xffffffff81000c70, true).frames.at(0).function,
              "asm_exc_page_fault");
}

// This machine's own kernel, where this reader may see its addresses.
TEST(KernelSession, ThisKernelsKallsymsNamesItsOwnFunctions) {
    std::ifstream in("/proc/kallsyms");
    if (!in)
        GTEST_SKIP() << "/proc/kallsyms cannot be read here";
    std::map<uint64_t, std::set<std::string>> text; // address -> names, kernel's own
    std::map<std::string, uint64_t> known;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string address, type, name, module;
        l >> address >> type >> name >> module;
        if (!module.empty() || (type != "T" && type != "t"))
            continue;
        uint64_t a = std::stoull(address, nullptr, 16);
        text[a].insert(name);
        if (name == "clear_page_erms" || name == "asm_exc_page_fault" || name == "schedule")
            known[name] = a;
    }
    if (text.size() == 1 && text.begin()->first == 0)
        GTEST_SKIP() << "/proc/kallsyms hides kernel addresses from this user "
                        "(kernel.kptr_restrict; root or CAP_SYSLOG would see them)";
    ASSERT_FALSE(known.empty()) << "none of clear_page_erms, asm_exc_page_fault, schedule";
    Session session({kernel_mapping()});
    for (const auto &[name, address] : known) {
        SCOPED_TRACE(name);
        const std::set<std::string> &aliases = text.at(address);
        for (uint64_t a : {address, address + 1}) {
            Location loc = session.resolve(a, false);
            ASSERT_EQ(loc.frames.size(), 1u);
            EXPECT_TRUE(aliases.contains(loc.frames[0].function)) << loc.frames[0].function;
        }
    }
    EXPECT_TRUE(session.modules_without_symbols().empty());
}
