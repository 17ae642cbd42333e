// SPDX-License-Identifier: MIT
// A function's machine code as binutils' objdump shows it, with the source
// line of each instruction, for `cpcprof annotate --disassemble` and the
// viewer's disassembly pane (both call disassemble(): same instructions,
// same costs).  objdump and nm run as child processes (tool_run.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cpcprof::symbolize {
class DebuginfodClient;
}

namespace cpcprof::analysis {

struct Instruction {
    uint64_t address = 0; // as objdump prints it (the ELF virtual address)
    uint64_t offset = 0;  // the module file offset: the profile's key
    std::string text;     // "mov    %eax,%esi"
    // The function's own source line for it: for code inlined into the
    // function, the line of the inlined call ("inlined by").
    std::string file;
    uint32_t line = 0; // 0 = unknown
    // The innermost location when the code was inlined ("" otherwise):
    // "square() m.h:3", and its file and line apart.
    std::string inlined_from;
    std::string inner_file;
    uint32_t inner_line = 0;
};

struct Disassembly {
    std::string module; // the file disassembled
    // The separate debug file whose symbols and lines named it ("" = the
    // module's own), and where it came from ("" = this machine's debug
    // directories; "from debuginfod's cache"; "fetched from URL").
    std::string debug_file, debug_from;
    std::string symbol;                    // the ELF symbol whose code it is
    uint64_t start = 0, end = 0;           // [start, end) virtual addresses
    std::vector<Instruction> instructions; // by address
    std::string error;                     // "" when instructions hold the symbol's code
};

struct DisassemblyOptions {
    // Searched for separate debug files before /usr/lib/debug (by build-id
    // and .gnu_debuglink), as symbolize searches.
    std::vector<std::string> debug_dirs;
    // Asked for the debug file when none is on this machine nor in
    // libdebuginfod's cache (may be null: then no server is asked).
    symbolize::DebuginfodClient *debuginfod = nullptr;
};

// The code of the symbol of module that holds file offset `offset` (an
// address samples reached in the function).  The module must be a regular
// file (a FIFO or device named by a hostile profile is refused, not read).
// A module without its own DWARF is named from its separate debug file
// wherever it is (DisassemblyOptions): its symbol table for the extent,
// its lines and inline chains per instruction (libdwfl, as symbolize
// names the profile's addresses).
Disassembly disassemble(const std::string &module, uint64_t offset,
                        const DisassemblyOptions &options = {});

// Parses `objdump -d -l --inlines` text (exposed for tests).  file
// offsets are filled by the caller.
std::vector<Instruction> parse_objdump(const std::string &text);

// An instruction of a function known only by its call-frame extent
// [start, end), its objdump text with the targets renamed: objdump names
// a target after the nearest symbol before it, in a stripped file some
// unrelated exported function ("jle 5af45d <_Py_read@@Base+0x79d>").  A
// target inside the function becomes "<+0xOFFSET>" from its start, one
// elsewhere keeps only an exact symbol ("<PyObject_Malloc@@Base>").
// name_of, when given, names a target outside the function ("" when it
// cannot): the symbols of a separate debug file, which objdump does not
// read ("call 1139 <spin_inner>", "<memcpy+0x10>").
std::string rename_targets(const std::string &text, uint64_t start, uint64_t end,
                           const std::function<std::string(uint64_t)> &name_of = {});

} // namespace cpcprof::analysis
