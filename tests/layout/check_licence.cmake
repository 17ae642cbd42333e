# SPDX-License-Identifier: MIT
# Every source file names its licence (LICENSE: MIT) in an SPDX line within
# its first three lines: C, C++, Rust and Go sources, Python and shell
# scripts, CMake files, linker version scripts and the CI scripts.
# Run as: cmake -DROOT=<source dir> -P check_licence.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_licence: -DROOT=<source dir> is required")
endif()
set(globs "")
foreach(dir base libcpc storage symbolize profiler gui tests packaging)
  foreach(pattern *.c *.h *.cpp *.rs *.go *.py *.sh *.cmake *.map CMakeLists.txt)
    list(APPEND globs ${ROOT}/${dir}/${pattern})
  endforeach()
endforeach()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${globs})
list(APPEND sources CMakeLists.txt .ci/run .ci/lint)
set(missing "")
foreach(src ${sources})
  if(src MATCHES "^tests/fuzz/corpus/")
    continue()
  endif()
  file(STRINGS ${ROOT}/${src} head LIMIT_COUNT 3)
  if(NOT head MATCHES "SPDX-License-Identifier: MIT")
    string(APPEND missing "  ${src}\n")
  endif()
endforeach()
list(LENGTH sources checked)
if(missing)
  message(FATAL_ERROR "check_licence: no 'SPDX-License-Identifier: MIT' line in the "
                      "first three lines of:\n${missing}")
endif()
message(STATUS "check_licence: ${checked} files name their licence")
