// SPDX-License-Identifier: MIT
#include "profiler/record/stack_unwind.h"

#include "profiler/agent/cfi.h"
#include "profiler/agent/cfi_walk.h"
#include "profiler/agent/eh_frame.h"
#include "profiler/agent/module_scan.h"

#include "base/scoped_fd.h"

#include <elf.h>
#include <fcntl.h>
#include <libunwind.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <map>

// libunwind's search of a .eh_frame_hdr table in a remote address space
// (exported, not declared in its header).
extern "C" int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
                                                  unw_dyn_info_t *di, unw_proc_info_t *pi,
                                                  int need_unwind_info, void *arg);

namespace cpcprof::record {

namespace {

// A module's file, mapped read-only, and what the unwinder needs of it.
struct ElfFile {
    const unsigned char *image = nullptr;
    size_t size = 0;
    std::vector<Elf64_Phdr> loads;
    bool has_hdr = false;
    uint64_t hdr_vaddr = 0; // PT_GNU_EH_FRAME
    bool mapped = false;    // image is our mapping of the file
    // A file without .eh_frame_hdr (a static program: its libc registers
    // its frames itself): a search table built from .eh_frame, as the
    // header's would be, entries relative to eh_frame_vaddr.
    uint64_t eh_frame_vaddr = 0, eh_frame_size = 0;
    bool synth_built = false;
    std::vector<int32_t> synth; // (start, FDE) pairs, sorted by start
    // The compiled rows (the agent's, agent/cfi.h), pcs relative to the
    // file's virtual addresses; none without .eh_frame_hdr.
    bool rows_built = false;
    std::vector<agent::CfiRow> rows;
    std::vector<uint32_t> pcs;
    ~ElfFile() {
        if (mapped)
            munmap(const_cast<unsigned char *>(image), size);
    }
    // The file at path; null when it is not a 64-bit ELF file.
    static std::shared_ptr<ElfFile> open(const std::string &path) {
        base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        struct stat st;
        if (!fd.valid() || fstat(fd.get(), &st) != 0 || size_t(st.st_size) < sizeof(Elf64_Ehdr))
            return nullptr;
        void *p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
        if (p == MAP_FAILED)
            return nullptr;
        auto f = std::make_shared<ElfFile>();
        f->mapped = true;
        return parse(std::move(f), static_cast<const unsigned char *>(p), size_t(st.st_size));
    }
    // This process's vDSO, an ELF image in memory; null if there is none.
    static std::shared_ptr<ElfFile> own_vdso() {
        static const std::shared_ptr<ElfFile> vdso = [] {
            const auto *image = reinterpret_cast<const unsigned char *>(getauxval(AT_SYSINFO_EHDR));
            size_t size = 0; // its mapping's, from /proc/self/maps
            base::ScopedFd fd(::open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
            std::string maps;
            char buf[4096];
            for (ssize_t n; fd.valid() && (n = read(fd.get(), buf, sizeof buf)) > 0;)
                maps.append(buf, size_t(n));
            for (const agent::MapsLine &l : agent::parse_exec_maps(maps))
                if (l.path == "[vdso]" && l.start == uintptr_t(image))
                    size = l.end - l.start;
            if (image == nullptr || size < sizeof(Elf64_Ehdr))
                return std::shared_ptr<ElfFile>();
            return parse(std::make_shared<ElfFile>(), image, size);
        }();
        return vdso;
    }
    static std::shared_ptr<ElfFile> parse(std::shared_ptr<ElfFile> f, const unsigned char *image,
                                          size_t size) {
        f->image = image;
        f->size = size;
        Elf64_Ehdr eh;
        std::memcpy(&eh, f->image, sizeof eh);
        if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
            eh.e_phentsize != sizeof(Elf64_Phdr) ||
            eh.e_phoff + uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr) > f->size)
            return nullptr;
        for (int i = 0; i < eh.e_phnum; ++i) {
            Elf64_Phdr ph;
            std::memcpy(&ph, f->image + eh.e_phoff + uint64_t(i) * sizeof ph, sizeof ph);
            if (ph.p_type == PT_LOAD && ph.p_offset <= f->size &&
                ph.p_filesz <= f->size - ph.p_offset)
                f->loads.push_back(ph);
            if (ph.p_type == PT_GNU_EH_FRAME) {
                f->has_hdr = true;
                f->hdr_vaddr = ph.p_vaddr;
            }
        }
        if (!f->has_hdr)
            f->find_eh_frame(eh);
        return f;
    }
    // .eh_frame by the section headers' names.
    void find_eh_frame(const Elf64_Ehdr &eh) {
        if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
            eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > size)
            return;
        auto section = [&](size_t i) {
            Elf64_Shdr sh;
            std::memcpy(&sh, image + eh.e_shoff + i * sizeof sh, sizeof sh);
            return sh;
        };
        Elf64_Shdr names = section(eh.e_shstrndx);
        for (size_t i = 0; i < eh.e_shnum; ++i) {
            Elf64_Shdr sh = section(i);
            if (names.sh_offset + sh.sh_name + sizeof ".eh_frame" > size ||
                std::memcmp(image + names.sh_offset + sh.sh_name, ".eh_frame",
                            sizeof ".eh_frame") != 0)
                continue;
            if (sh.sh_type == SHT_PROGBITS && at(sh.sh_addr, sh.sh_size) != nullptr) {
                eh_frame_vaddr = sh.sh_addr;
                eh_frame_size = sh.sh_size;
            }
        }
    }
    // The table of .eh_frame's FDEs; false when there is none.
    bool build_synth() {
        if (synth_built)
            return !synth.empty();
        synth_built = true;
        const unsigned char *base = at(eh_frame_vaddr, eh_frame_size);
        if (base == nullptr || eh_frame_size == 0)
            return false;
        std::vector<std::pair<int64_t, int64_t>> rows;
        std::map<uint64_t, uint8_t> cie_encoding; // by the CIE's offset
        EhFrameReader r{base, eh_frame_size, eh_frame_vaddr};
        for (uint64_t off = 0; off + 4 <= eh_frame_size;) {
            uint32_t len = r.u32(off);
            if (len == 0)
                break; // the terminator
            if (len == 0xffffffff || off + 4 + len > eh_frame_size)
                return false; // 64-bit lengths are not made by today's toolchains
            uint64_t body = off + 4, end = body + len;
            uint32_t id = r.u32(body);
            if (id == 0) {
                cie_encoding[off] = r.fde_encoding(body + 4, end);
            } else {
                uint64_t cie = body - id;
                auto enc = cie_encoding.find(cie);
                int64_t start = 0;
                if (enc == cie_encoding.end() || !r.pointer(body + 4, enc->second, &start))
                    return false;
                rows.emplace_back(start - int64_t(eh_frame_vaddr), int64_t(off));
            }
            off = end;
        }
        std::sort(rows.begin(), rows.end());
        for (const auto &[start, fde] : rows) {
            if (start < INT32_MIN || start > INT32_MAX || fde > INT32_MAX)
                return false;
            synth.push_back(int32_t(start));
            synth.push_back(int32_t(fde));
        }
        return !synth.empty();
    }
    // Reads .eh_frame's records (little-endian, as the file is this host's).
    struct EhFrameReader {
        const unsigned char *p;
        uint64_t size, vaddr;
        uint32_t u32(uint64_t at) const {
            uint32_t v = 0;
            if (at + 4 <= size)
                std::memcpy(&v, p + at, 4);
            return v;
        }
        uint64_t uleb(uint64_t *at, uint64_t end) const {
            uint64_t v = 0;
            for (int shift = 0; *at < end && shift < 64; shift += 7) {
                unsigned char b = p[(*at)++];
                v |= uint64_t(b & 0x7f) << shift;
                if (!(b & 0x80))
                    break;
            }
            return v;
        }
        // The CIE's FDE pointer encoding ('R'), DW_EH_PE_absptr without one.
        uint8_t fde_encoding(uint64_t at, uint64_t end) const {
            if (at >= end)
                return 0;
            uint8_t version = p[at++];
            const char *aug = reinterpret_cast<const char *>(p + at);
            size_t n = strnlen(aug, end - at);
            at += n + 1;
            if (aug[0] != 'z')
                return 0;
            if (n >= 3 && aug[1] == 'e' && aug[2] == 'h')
                return 0;
            uleb(&at, end); // code alignment
            uleb(&at, end); // data alignment (an sleb: skipped alike)
            if (version == 1)
                ++at; // return register: a byte
            else
                uleb(&at, end);
            uleb(&at, end); // augmentation data length
            for (size_t i = 1; i < n && at < end; ++i) {
                switch (aug[i]) {
                case 'R':
                    return p[at];
                case 'L':
                    ++at;
                    break;
                case 'P': {
                    uint8_t e = p[at++];
                    int64_t skip;
                    if (!pointer(at, e, &skip, &at))
                        return 0;
                    break;
                }
                default: // 'S', 'B', ...: no data
                    break;
                }
            }
            return 0;
        }
        // A pointer of encoding enc at offset at: its value (pcrel ones
        // made absolute); *next past it.
        bool pointer(uint64_t at, uint8_t enc, int64_t *out, uint64_t *next = nullptr) const {
            int64_t v = 0;
            size_t n = 0;
            switch (enc & 0x0f) {
            case 0x00: // absptr
            case 0x04: // udata8
            case 0x0c: // sdata8
                n = 8;
                break;
            case 0x03: // udata4
            case 0x0b: // sdata4
                n = 4;
                break;
            case 0x02: // udata2
            case 0x0a: // sdata2
                n = 2;
                break;
            default:
                return false;
            }
            if (at + n > size)
                return false;
            if (n == 8) {
                std::memcpy(&v, p + at, 8);
            } else if (n == 4) {
                uint32_t u;
                std::memcpy(&u, p + at, 4);
                v = (enc & 0x08) ? int64_t(int32_t(u)) : int64_t(u);
            } else {
                uint16_t u;
                std::memcpy(&u, p + at, 2);
                v = (enc & 0x08) ? int64_t(int16_t(u)) : int64_t(u);
            }
            switch (enc & 0x70) {
            case 0x00:
                break;
            case 0x10: // pcrel
                v += int64_t(vaddr + at);
                break;
            default:
                return false;
            }
            if (next != nullptr)
                *next = at + n;
            *out = v;
            return true;
        }
    };
    // Compiles the rows once, from the segment that holds .eh_frame_hdr:
    // its bytes lie in the image as they would in memory, so a row's pc
    // is relative to the image's own "bias" for that segment, which makes
    // it a virtual address of the file.  The compiler reads only inside
    // that segment (a .eh_frame elsewhere gives no rows: libunwind walks
    // the module then).
    void build_rows() {
        if (rows_built)
            return;
        rows_built = true;
        if (!has_hdr)
            return;
        for (const Elf64_Phdr &ph : loads) {
            if (hdr_vaddr < ph.p_vaddr || hdr_vaddr - ph.p_vaddr >= ph.p_filesz)
                continue;
            const unsigned char *seg = image + ph.p_offset;
            agent::CfiMemory readable{seg, seg + ph.p_filesz};
            uintptr_t bias = uintptr_t(seg) - ph.p_vaddr;
            rows = agent::compile_eh_frame(seg + (hdr_vaddr - ph.p_vaddr), bias, {&readable, 1});
            pcs.resize(rows.size());
            for (size_t i = 0; i < rows.size(); ++i)
                pcs[i] = rows[i].pc;
            return;
        }
    }
    // The file's bytes at virtual address vaddr (n of them), or null.
    const unsigned char *at(uint64_t vaddr, size_t n) const {
        for (const Elf64_Phdr &ph : loads)
            if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr <= ph.p_filesz &&
                n <= ph.p_filesz - (vaddr - ph.p_vaddr))
                return image + ph.p_offset + (vaddr - ph.p_vaddr);
        return nullptr;
    }
};

struct Module {
    uint64_t start = 0, end = 0; // the executable mapping
    uint64_t bias = 0;           // load address - the file's virtual address
    std::shared_ptr<ElfFile> file;
    // The search table of .eh_frame_hdr, once read.
    bool table_read = false, has_table = false;
    unw_word_t table_data = 0, table_len = 0, segbase = 0;
};

// Where libunwind is told a built table lies: in the kernel's half of the
// addresses, which no user stack or module holds; module i's at
// kBuiltTables + (i << 32).
constexpr uint64_t kBuiltTables = 0xffffc00000000000ull;

// glibc's x86-64 signal trampoline (__restore_rt): mov $15, %rax; syscall.
constexpr unsigned char kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
// Where the general registers lie in the ucontext that the trampoline's
// stack pointer points at (the rt_sigframe once the handler returned).
constexpr size_t kGregsAt = offsetof(ucontext_t, uc_mcontext.gregs);
// perf_regs bits of AX..IP and R8..R15.
constexpr uint64_t kAllRegs = 0x1ffu | (uint64_t(0xff) << 16);

// One walk's registers and stack copy.
struct Walk {
    CopiedStackUnwinder::Process *proc;
    const uint64_t *regs;
    uint64_t regs_mask;
    const unsigned char *stack;
    uint64_t stack_size, sp;
};

} // namespace

struct CopiedStackUnwinder::Process {
    pid_t pid = 0;
    std::vector<Module> modules; // sorted by start
    std::map<std::string, std::shared_ptr<ElfFile>> files;
    agent::CfiIndex index; // the modules' rows, for the rows walk
    unw_addr_space_t as = nullptr;
    Walk *walk = nullptr;

    ~Process() {
        if (as != nullptr)
            unw_destroy_addr_space(as);
    }

    Module *module_at(uint64_t ip) {
        auto it = std::upper_bound(modules.begin(), modules.end(), ip,
                                   [](uint64_t a, const Module &m) { return a < m.start; });
        if (it == modules.begin())
            return nullptr;
        --it;
        return ip < it->end ? &*it : nullptr;
    }

    // 8 bytes at addr from the stack copy or a module's file.
    bool read(uint64_t addr, unw_word_t *out) {
        // (Compared without sums: libunwind asks for any address, up to
        // UINT64_MAX, and addr + 8 would wrap.)
        if (walk != nullptr && walk->stack_size >= 8 && addr >= walk->sp &&
            addr - walk->sp <= walk->stack_size - 8) {
            std::memcpy(out, walk->stack + (addr - walk->sp), 8);
            return true;
        }
        if (addr >= kBuiltTables) {
            uint64_t i = (addr - kBuiltTables) >> 32, off = (addr - kBuiltTables) & 0xffffffffu;
            if (i >= modules.size())
                return false;
            const std::vector<int32_t> &t = modules[i].file->synth;
            size_t bytes = t.size() * sizeof(int32_t);
            if (off >= bytes)
                return false;
            *out = 0;
            std::memcpy(out, reinterpret_cast<const char *>(t.data()) + off,
                        std::min<size_t>(8, bytes - off));
            return true;
        }
        for (const Module &m : modules) {
            if (addr < m.bias)
                continue;
            if (const unsigned char *p = m.file->at(addr - m.bias, 8)) {
                std::memcpy(out, p, 8);
                return true;
            }
        }
        return false;
    }

    // The module's .eh_frame_hdr binary search table, as libunwind takes
    // it (perf's read_unwind_spec_eh_frame): the usual encodings only.
    bool table(Module &m) {
        if (m.table_read)
            return m.has_table;
        m.table_read = true;
        if (!m.file->has_hdr) {
            if (!m.file->build_synth())
                return false;
            m.segbase = m.bias + m.file->eh_frame_vaddr;
            m.table_data = kBuiltTables + (uint64_t(&m - modules.data()) << 32);
            m.table_len = m.file->synth.size() * sizeof(int32_t) / sizeof(unw_word_t);
            m.has_table = true;
            return true;
        }
        const unsigned char *h = m.file->at(m.file->hdr_vaddr, 12);
        // version 1; eh_frame_ptr pcrel|sdata4, fde_count udata4, table
        // datarel|sdata4.
        if (h == nullptr || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
            return false;
        uint32_t count;
        std::memcpy(&count, h + 8, 4);
        if (m.file->at(m.file->hdr_vaddr + 12, size_t(count) * 8) == nullptr)
            return false;
        m.segbase = m.bias + m.file->hdr_vaddr;
        m.table_data = m.segbase + 12;
        m.table_len = count * 8 / sizeof(unw_word_t);
        m.has_table = true;
        return true;
    }
};

namespace {

using Process = CopiedStackUnwinder::Process;

// Whether ip follows the trampoline's syscall: the thread is in
// rt_sigreturn.  The code is read from the module's file.
bool in_sigreturn(Process &p, uint64_t ip) {
    if (ip < sizeof kRestoreRt)
        return false;
    unsigned char code[16];
    unw_word_t w0 = 0, w1 = 0;
    if (!p.read(ip - sizeof kRestoreRt, &w0) || !p.read(ip - sizeof kRestoreRt + 8, &w1))
        return false;
    std::memcpy(code, &w0, 8);
    std::memcpy(code + 8, &w1, 8);
    return std::memcmp(code, kRestoreRt, sizeof kRestoreRt) == 0;
}

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info,
                   void *arg) {
    auto *proc = static_cast<Walk *>(arg)->proc;
    Module *m = proc->module_at(ip);
    if (m == nullptr || !proc->table(*m))
        return -UNW_ENOINFO;
    unw_dyn_info_t di{};
    di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    di.start_ip = m->start;
    di.end_ip = m->end;
    di.u.rti.segbase = m->segbase;
    di.u.rti.table_data = m->table_data;
    di.u.rti.table_len = m->table_len;
    return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

void put_unwind_info(unw_addr_space_t, unw_proc_info_t *, void *) {}

int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t *, void *) {
    return -UNW_ENOINFO;
}

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t *val, int write, void *arg) {
    if (write)
        return -UNW_EINVAL;
    return static_cast<Walk *>(arg)->proc->read(addr, val) ? 0 : -UNW_EINVAL;
}

// libunwind's x86-64 register numbers to the kernel's perf_regs bits.
int perf_bit(unw_regnum_t r) {
    switch (r) {
    case UNW_X86_64_RAX:
        return 0;
    case UNW_X86_64_RBX:
        return 1;
    case UNW_X86_64_RCX:
        return 2;
    case UNW_X86_64_RDX:
        return 3;
    case UNW_X86_64_RSI:
        return 4;
    case UNW_X86_64_RDI:
        return 5;
    case UNW_X86_64_RBP:
        return 6;
    case UNW_X86_64_RSP:
        return 7;
    case UNW_X86_64_RIP:
        return 8;
    default:
        if (r >= UNW_X86_64_R8 && r <= UNW_X86_64_R15)
            return 16 + (r - UNW_X86_64_R8);
        return -1;
    }
}

// The value of perf_regs bit `bit` in a sample's registers.
bool reg_value(const Walk &w, int bit, uint64_t *out) {
    if (bit < 0 || !(w.regs_mask & (uint64_t(1) << bit)))
        return false;
    *out = w.regs[__builtin_popcountll(w.regs_mask & ((uint64_t(1) << bit) - 1))];
    return true;
}

int access_reg(unw_addr_space_t, unw_regnum_t r, unw_word_t *val, int write, void *arg) {
    if (write)
        return -UNW_EREADONLYREG;
    uint64_t v;
    if (!reg_value(*static_cast<Walk *>(arg), perf_bit(r), &v))
        return -UNW_EBADREG;
    *val = v;
    return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t *, int, void *) {
    return -UNW_EINVAL;
}

int resume(unw_addr_space_t, unw_cursor_t *, void *) {
    return -UNW_EINVAL;
}

int get_proc_name(unw_addr_space_t, unw_word_t, char *, size_t, unw_word_t *, void *) {
    return -UNW_EINVAL;
}

unw_accessors_t g_accessors = {find_proc_info, put_unwind_info, get_dyn_info_list_addr,
                               access_mem,     access_reg,      access_fpreg,
                               resume,         get_proc_name};

} // namespace

CopiedStackUnwinder::CopiedStackUnwinder() = default;
CopiedStackUnwinder::~CopiedStackUnwinder() = default;

void CopiedStackUnwinder::set_mappings(pid_t pid, const std::vector<Mapping> &maps) {
    std::unique_ptr<Process> &p = procs_[pid];
    if (p == nullptr) {
        p = std::make_unique<Process>();
        p->pid = pid;
        p->as = unw_create_addr_space(&g_accessors, 0);
        if (p->as != nullptr)
            unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
    }
    std::vector<Module> modules;
    std::string root = "/proc/" + std::to_string(pid) + "/root";
    for (const Mapping &m : maps) {
        if (m.path != "[vdso]" && (m.path.empty() || m.path[0] != '/'))
            continue;
        std::shared_ptr<ElfFile> &f = p->files[m.path];
        if (f == nullptr && m.path == "[vdso]") {
            f = ElfFile::own_vdso(); // the caller found the process's the same
            if (f == nullptr)
                continue;
        } else if (f == nullptr) {
            // The process's own view of the file (another mount namespace),
            // else the path as this process sees it.
            f = ElfFile::open(root + m.path);
            if (f == nullptr)
                f = ElfFile::open(m.path);
            if (f == nullptr)
                continue;
        }
        // The executable segment that holds the mapping's file offset.
        for (const Elf64_Phdr &ph : f->loads) {
            uint64_t seg_off = ph.p_offset & ~uint64_t(0xfff);
            if (!(ph.p_flags & PF_X) || m.file_offset < seg_off ||
                m.file_offset >= ph.p_offset + ph.p_filesz)
                continue;
            Module mod;
            mod.start = m.start;
            mod.end = m.end;
            mod.bias = m.start + (ph.p_offset - m.file_offset) - ph.p_vaddr;
            mod.file = f;
            modules.push_back(std::move(mod));
            break;
        }
    }
    std::sort(modules.begin(), modules.end(),
              [](const Module &a, const Module &b) { return a.start < b.start; });
    p->modules = std::move(modules);
    p->index.modules.clear();
    for (const Module &m : p->modules) {
        m.file->build_rows();
        if (!m.file->rows.empty())
            p->index.modules.push_back({m.start, m.end, m.bias, m.file->rows.data(),
                                        m.file->pcs.data(), uint32_t(m.file->rows.size())});
    }
    if (p->as != nullptr)
        unw_flush_cache(p->as, 0, 0);
}

void CopiedStackUnwinder::forget(pid_t pid) {
    procs_.erase(pid);
}

namespace {

// libunwind's remote walk of the copy (the rows' fallback, and the
// whole walk where the rows are not used).
bool libunwind_walk(Process &p, const uint64_t *regs, uint64_t regs_mask, const void *stack,
                    uint64_t stack_size, int max_depth, std::vector<uint64_t> *frames) {
    if (p.as == nullptr)
        return false;
    Walk w{&p, regs, regs_mask, static_cast<const unsigned char *>(stack), stack_size, 0};
    uint64_t sp = 0, ip = 0;
    if (!reg_value(w, 7, &sp) || !reg_value(w, 8, &ip))
        return false;
    w.sp = sp;
    p.walk = &w;
    // Stopped inside the signal trampoline's rt_sigreturn (a sample in
    // the kernel as a handler returns): libunwind knows the trampoline by
    // its first byte only, as a return address.  The context to go on
    // from is the ucontext at sp, in the copy.
    uint64_t interrupted[17];
    if (stack_size >= kGregsAt + 23 * 8 && in_sigreturn(p, ip)) {
        const unsigned char *g = w.stack + kGregsAt;
        // perf_regs order (AX..IP, R8..R15) from the ucontext's gregs.
        constexpr int kFrom[17] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
                                   REG_RBP, REG_RSP, REG_RIP, REG_R8,  REG_R9,  REG_R10,
                                   REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
        for (int i = 0; i < 17; ++i)
            std::memcpy(&interrupted[i], g + size_t(kFrom[i]) * 8, 8);
        frames->push_back(ip);
        if (--max_depth <= 0) {
            p.walk = nullptr;
            return false;
        }
        w.regs = interrupted;
        w.regs_mask = kAllRegs;
    }
    unw_cursor_t c;
    bool complete = false;
    if (unw_init_remote(&c, p.as, &w) == 0) {
        for (int depth = 0; depth < max_depth; ++depth) {
            unw_word_t pc = 0;
            if (unw_get_reg(&c, UNW_REG_IP, &pc) != 0 || pc == 0)
                break;
            frames->push_back(pc);
            int step = unw_step(&c);
            if (step == 0) {
                complete = true; // the outermost frame: nothing called it
                break;
            }
            if (step < 0)
                break;
        }
    }
    p.walk = nullptr;
    if (frames->empty())
        frames->push_back(ip);
    return complete;
}

// The rows walk's view of a process (agent/cfi_walk.h): its modules'
// rows, its code read from their files, no code of the profiler's.
struct CopyEnv {
    Process &p;
    const agent::CfiRow *find(uintptr_t pc, uintptr_t *bias) const {
        return agent::find_cfi_in(p.index, pc, bias);
    }
    // pc starts the trampoline, or follows its syscall: a sample in the
    // kernel's rt_sigreturn as a handler returns (the kernel's copy then
    // starts at the ucontext, as after the handler's return).
    bool restore_rt(uintptr_t pc) const {
        return trampoline_at(pc) ||
               (pc > sizeof kRestoreRt && trampoline_at(pc - sizeof kRestoreRt));
    }
    bool trampoline_at(uintptr_t pc) const {
        Module *m = p.module_at(pc);
        const unsigned char *code =
            m != nullptr && pc >= m->bias ? m->file->at(pc - m->bias, sizeof kRestoreRt) : nullptr;
        return code != nullptr && std::memcmp(code, kRestoreRt, sizeof kRestoreRt) == 0;
    }
    static bool own(uintptr_t) { return false; }
};

} // namespace

bool CopiedStackUnwinder::unwind(pid_t pid, const uint64_t *regs, uint64_t regs_mask,
                                 const void *stack, uint64_t stack_size, int max_depth,
                                 std::vector<uint64_t> *frames) {
    auto it = procs_.find(pid);
    if (it == procs_.end() || regs == nullptr || max_depth <= 0)
        return false;
    Process &p = *it->second;
    if (method_ == Method::libunwind || (regs_mask & kAllRegs) != kAllRegs)
        return libunwind_walk(p, regs, regs_mask, stack, stack_size, max_depth, frames);
    // The ucontext's registers, from perf_regs' (AX..IP, R8..R15).
    constexpr int kTo[17] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
                             REG_RBP, REG_RSP, REG_RIP, REG_R8,  REG_R9,  REG_R10,
                             REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    const Walk w{&p, regs, regs_mask, nullptr, 0, 0};
    greg_t gregs[NGREG] = {};
    for (int i = 0, bit = 0; bit < 24; ++bit) {
        uint64_t v = 0;
        if (((kAllRegs >> bit) & 1) != 0 && reg_value(w, bit, &v))
            gregs[kTo[i++]] = greg_t(v);
    }
    agent::walk::Frame f;
    f.interrupted(gregs);
    const uintptr_t sp = f.sp, delta = uintptr_t(stack) - sp;
    const size_t first = frames->size();
    frames->resize(first + size_t(max_depth));
    bool complete = false;
    int n = agent::walk::dwarf(f, {sp, sp + stack_size, sp, delta}, CopyEnv{p},
                               frames->data() + first, max_depth, &complete);
    frames->resize(first + size_t(n));
    if (complete || method_ == Method::rows)
        return complete;
    // Short of the first frame: libunwind's walk (it knows modules
    // without .eh_frame_hdr and a few rules the rows do not keep), kept
    // when it goes further.
    std::vector<uint64_t> other;
    bool other_complete = libunwind_walk(p, regs, regs_mask, stack, stack_size, max_depth, &other);
    if (other_complete || other.size() > size_t(n)) {
        frames->resize(first);
        frames->insert(frames->end(), other.begin(), other.end());
        return other_complete;
    }
    return false;
}

} // namespace cpcprof::record
