# SPDX-License-Identifier: MIT
# The folders' rules (docs/architecture.md), checked over the source tree:
#  - every quoted #include is written from a root: a library's public
#    include/ folder ("storage/reader.h") or the repository's root
#    ("profiler/analysis/query.h"); none climbs with "../";
#  - nothing under gui/ includes or links anything of profiler/ but
#    profiler/analysis/ (cpcprof_analysis);
#  - profiler/analysis/ uses storage/, symbolize/ and base/ only;
#  - base/, libcpc/, storage/ and symbolize/ use nothing of profiler/ or
#    gui/, and profiler/ nothing of gui/.
# Run as: cmake -DROOT=<source dir> -P check_layering.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_layering: -DROOT=<source dir> is required")
endif()
set(public_roots base/include storage/include symbolize/include libcpc/include)
set(problems "")
file(GLOB_RECURSE sources RELATIVE ${ROOT}
     ${ROOT}/base/*.[ch] ${ROOT}/base/*.cpp ${ROOT}/libcpc/*.[ch] ${ROOT}/libcpc/*.cpp
     ${ROOT}/storage/*.[ch] ${ROOT}/storage/*.cpp ${ROOT}/symbolize/*.[ch]
     ${ROOT}/symbolize/*.cpp ${ROOT}/profiler/*.[ch] ${ROOT}/profiler/*.cpp
     ${ROOT}/gui/*.[ch] ${ROOT}/gui/*.cpp ${ROOT}/tests/*.[ch] ${ROOT}/tests/*.cpp)
foreach(src ${sources})
  file(STRINGS ${ROOT}/${src} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" inc "${line}")
    if(inc MATCHES "^\\.\\./" OR inc MATCHES "/\\.\\./")
      string(APPEND problems "${src}: \"${inc}\" climbs with ../\n")
      continue()
    endif()
    set(found "")
    if(EXISTS ${ROOT}/${inc} AND inc MATCHES "/")
      set(found ${inc})
    else()
      foreach(r ${public_roots})
        if(EXISTS ${ROOT}/${r}/${inc})
          set(found ${r}/${inc})
          break()
        endif()
      endforeach()
    endif()
    if(NOT found)
      string(APPEND problems "${src}: \"${inc}\" is not written from a root\n")
      continue()
    endif()
    if(src MATCHES "^gui/" AND found MATCHES "^profiler/" AND NOT found MATCHES "^profiler/analysis/")
      string(APPEND problems "${src}: \"${inc}\": gui/ may use profiler/analysis/ only\n")
    endif()
    if(src MATCHES "^(base|libcpc|storage|symbolize)/" AND found MATCHES "^(profiler|gui)/")
      string(APPEND problems "${src}: \"${inc}\": base, libcpc, storage and symbolize use nothing of profiler/ or gui/\n")
    endif()
    if(src MATCHES "^profiler/" AND found MATCHES "^gui/")
      string(APPEND problems "${src}: \"${inc}\": profiler/ may not use gui/\n")
    endif()
    if(src MATCHES "^profiler/analysis/" AND NOT found MATCHES "^(profiler/analysis|storage|symbolize|base)/")
      string(APPEND problems "${src}: \"${inc}\": profiler/analysis/ may use storage/, symbolize/ and base/ only\n")
    endif()
  endforeach()
endforeach()
# What gui/ links: its own targets, cpcprof_analysis, storage, Qt.
file(GLOB_RECURSE gui_lists RELATIVE ${ROOT} ${ROOT}/gui/CMakeLists.txt ${ROOT}/gui/*/CMakeLists.txt)
foreach(list ${gui_lists})
  file(READ ${ROOT}/${list} text)
  string(REGEX MATCHALL "cpcprof_[a-z_]+|cpc_tools" names "${text}")
  foreach(name ${names})
    if(NOT name MATCHES "^cpcprof_(gui_[a-z_]+|analysis|storage)$")
      string(APPEND problems "${list}: links ${name}: gui/ may link cpcprof_analysis only of profiler/\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "check_layering: the folders' rules are broken:\n${problems}")
endif()
list(LENGTH sources n)
message(STATUS "check_layering: ${n} files, every include from a root, gui/ on profiler/analysis/ only")
