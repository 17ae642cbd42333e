// SPDX-License-Identifier: MIT
// Symbolization speed: unique addresses per second, with inline chains, of
// symbolize::Session against llvm-symbolizer --inlining and addr2line -f -i
// -C on the same address sets, in the same run.  Inputs: libstdc++.so
// (symbols only on Debian without -dbg packages) and a generated large C++
// file compiled -O2 -g (one big compile unit full of inlined templates,
// which is where per-address scans of symbol tables and DIE trees hurt).
//
//   bench_symbolize [--addresses N] [--functions N] [--keep DIR]
#include "symbolize/symbolizer.h"

#include <gelf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using cpcprof::symbolize::Location;
using cpcprof::symbolize::Mapping;
using cpcprof::symbolize::Session;
using Clock = std::chrono::steady_clock;

namespace {

struct Image {
    std::vector<std::pair<uint64_t, uint64_t>> functions; // [start, end) ELF addresses
    uint64_t text_vaddr = 0, text_offset = 0, text_size = 0;
};

Image read_image(const std::string &path) {
    Image img;
    elf_version(EV_CURRENT);
    int fd = open(path.c_str(), O_RDONLY);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    size_t phnum = 0;
    elf_getphdrnum(elf, &phnum);
    for (size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            img.text_vaddr = ph.p_vaddr;
            img.text_offset = ph.p_offset;
            img.text_size = ph.p_filesz;
        }
    }
    for (int want : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh) || int(sh.sh_type) != want)
                continue;
            Elf_Data *data = elf_getdata(scn, nullptr);
            for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
                GElf_Sym sym;
                if (gelf_getsym(data, int(i), &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
                    sym.st_shndx != SHN_UNDEF && sym.st_size > 0)
                    img.functions.push_back({sym.st_value, sym.st_value + sym.st_size});
            }
        }
        if (!img.functions.empty())
            break;
    }
    elf_end(elf);
    close(fd);
    return img;
}

// Unique addresses uniformly spread over the bytes of the functions.
std::vector<uint64_t> pick_addresses(const Image &img, size_t count) {
    std::vector<uint64_t> starts;
    uint64_t total = 0;
    for (auto [s, e] : img.functions) {
        starts.push_back(total);
        total += e - s;
    }
    std::mt19937_64 rng(42);
    std::set<uint64_t> out;
    while (out.size() < count && out.size() < total) {
        uint64_t k = rng() % total;
        size_t i = size_t(std::upper_bound(starts.begin(), starts.end(), k) - starts.begin()) - 1;
        out.insert(img.functions[i].first + (k - starts[i]));
    }
    return {out.begin(), out.end()};
}

struct Result {
    double seconds = 0;
    size_t frames = 0, inlined = 0, named = 0;
    std::vector<size_t> depth; // frames per address, when known
};

Result run_session(const std::string &path, const Image &img, const std::vector<uint64_t> &addrs) {
    const uint64_t base = 0x7f0000000000;
    Mapping m{path, "", base + (img.text_vaddr & ~0xfffULL), base + img.text_vaddr + img.text_size,
              img.text_offset & ~0xfffULL};
    Result r;
    auto t0 = Clock::now();
    Session session({m});
    for (uint64_t a : addrs) {
        Location loc = session.resolve(base + a, false);
        r.frames += loc.frames.size();
        r.named += loc.has_symbols;
        for (auto &f : loc.frames)
            r.inlined += f.inlined;
        r.depth.push_back(loc.frames.size());
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    auto st = session.stats();
    std::printf("    session: %llu compile units indexed, %llu symbol tables read\n",
                (unsigned long long)st.compile_units_indexed,
                (unsigned long long)st.symbol_tables_read);
    return r;
}

// Runs a tool on the addresses (one per line, hex) and reads its frames:
// pairs of lines (function, file:line), llvm-symbolizer separating
// addresses with a blank line.
Result run_tool(const std::string &command, const fs::path &dir, const std::vector<uint64_t> &addrs,
                bool blank_separated) {
    fs::path in = dir / "addresses.txt", out = dir / "tool.out";
    {
        std::ofstream f(in);
        for (uint64_t a : addrs)
            f << "0x" << std::hex << a << "\n";
    }
    std::string cmd = command + " < " + in.string() + " > " + out.string() + " 2>/dev/null";
    auto t0 = Clock::now();
    int rc = std::system(cmd.c_str());
    Result r;
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (rc != 0) {
        r.seconds = -1;
        return r;
    }
    std::ifstream f(out);
    std::string fn, loc;
    size_t current = 0;
    while (std::getline(f, fn)) {
        if (fn.empty()) {
            r.depth.push_back(current);
            current = 0;
            continue;
        }
        std::getline(f, loc);
        ++r.frames;
        ++current;
        if (fn != "??")
            ++r.named;
    }
    if (!blank_separated)
        r.depth.clear();
    return r;
}

void report(const char *name, const Result &r, size_t n, const Result *ours) {
    if (r.seconds < 0) {
        std::printf("  %-28s not available\n", name);
        return;
    }
    double rate = double(n) / r.seconds;
    std::printf("  %-28s %9.0f addresses/s  (%.3f s, %zu frames", name, rate, r.seconds, r.frames);
    if (ours)
        std::printf(", ours/this %.2fx", (double(n) / ours->seconds) / rate);
    std::printf(")\n");
}

bool have(const char *tool) {
    return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

void bench(const std::string &label, const std::string &path, size_t count, const fs::path &dir) {
    Image img = read_image(path);
    std::vector<uint64_t> addrs = pick_addresses(img, count);
    std::printf("%s: %s\n  %zu functions, %zu unique addresses\n", label.c_str(), path.c_str(),
                img.functions.size(), addrs.size());
    Result ours = run_session(path, img, addrs);
    report("symbolize::Session", ours, addrs.size(), nullptr);
    std::printf("    %zu frames, %zu of them inlined, %zu addresses named\n", ours.frames,
                ours.inlined, ours.named);
    if (have("llvm-symbolizer")) {
        Result llvm =
            run_tool("llvm-symbolizer --inlining --demangle --obj=" + path, dir, addrs, true);
        report("llvm-symbolizer --inlining", llvm, addrs.size(), &ours);
        size_t same = 0;
        for (size_t i = 0; i < addrs.size() && i < llvm.depth.size(); ++i)
            same += llvm.depth[i] == ours.depth[i] ||
                    (llvm.depth[i] == 1 && ours.depth[i] == 0); // "??" line for unnamed
        if (llvm.seconds > 0)
            std::printf("    same inline depth as llvm-symbolizer for %.1f%% of addresses\n",
                        100.0 * double(same) / double(addrs.size()));
    } else {
        std::printf("  llvm-symbolizer not installed (apt-get install llvm)\n");
    }
    if (have("addr2line"))
        report("addr2line -f -i -C", run_tool("addr2line -f -i -C -e " + path, dir, addrs, false),
               addrs.size(), &ours);
}

// A large C++ file: each of `functions` namespaces has a class template, an
// inline chain and a lambda given to std::sort, so one compile unit carries
// thousands of inlined instances.
void generate(const fs::path &file, int functions) {
    std::ofstream f(file);
    f << "#include <algorithm>\n#include <map>\n#include <string>\n#include <vector>\n";
    for (int i = 0; i < functions; ++i) {
        f << "namespace ns" << i << " {\n"
          << "template <typename T> struct Acc { T v{}; T add(T x) { v += x * " << i + 1
          << "; return v; } };\n"
          << "static inline int a(int x) { return x * 3 + " << i << "; }\n"
          << "static inline int b(int x) { return a(x) ^ (x >> 2); }\n"
          << "__attribute__((noinline)) long run(std::vector<int>& v, std::map<int, int>& m, "
             "std::string& s) {\n"
          << "  Acc<long> acc;\n"
          << "  for (int x : v) { acc.add(b(x)); m[x % 17] += x; }\n"
          << "  std::sort(v.begin(), v.end(), [](int p, int q) { return (p ^ " << i << ") < (q ^ "
          << i << "); });\n"
          << "  s += std::to_string(acc.v);\n"
          << "  return acc.v + long(m.size()) + long(s.size());\n}\n}\n";
    }
    f << "int main(int argc, char**) {\n  std::vector<int> v(argc, 1); std::map<int, int> m; "
         "std::string s; long t = 0;\n";
    for (int i = 0; i < functions; ++i)
        f << "  t += ns" << i << "::run(v, m, s);\n";
    f << "  return int(t & 1);\n}\n";
}

} // namespace

int main(int argc, char **argv) {
    size_t count = 20000;
    int functions = 300;
    std::string keep;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--addresses")
            count = std::stoul(argv[i + 1]);
        else if (a == "--functions")
            functions = std::stoi(argv[i + 1]);
        else if (a == "--keep")
            keep = argv[i + 1];
    }
    fs::path dir = keep.empty()
                       ? fs::temp_directory_path() / ("bench_symbolize." + std::to_string(getpid()))
                       : fs::path(keep);
    fs::create_directories(dir);

    fs::path big = dir / "big";
    if (!fs::exists(big)) {
        generate(dir / "big.cpp", functions);
        std::printf("compiling a generated %d-namespace C++ file with -O2 -g ...\n", functions);
        auto t0 = Clock::now();
        std::string cmd = "c++ -O2 -g -o " + big.string() + " " + (dir / "big.cpp").string();
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "compiling the generated file failed\n");
            return 1;
        }
        std::printf("  %.1f s, %.1f MB\n", std::chrono::duration<double>(Clock::now() - t0).count(),
                    double(fs::file_size(big)) / 1e6);
    }
    bench("generated -O2 -g C++", big.string(), count, dir);
    bench("libstdc++ (symbols only)", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", count, dir);
    if (keep.empty())
        fs::remove_all(dir);
    return 0;
}
