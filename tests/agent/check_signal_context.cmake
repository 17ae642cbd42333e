# SPDX-License-Identifier: MIT
# The boundary of the agent's signal-context code, checked on its sources
# (ctest agent.signal_context_files):
#   cmake -DAGENT_DIR=profiler/agent -DSIGNAL_FILES=a.cpp,b.h -P this
# SIGNAL_FILES is profiler/agent's AGENT_SIGNAL_CONTEXT_SOURCES (the
# target's SIGNAL_CONTEXT_SOURCES property).
#   - a .cpp file says "// Signal context" on its first line (after the
#     SPDX licence line) exactly when
#     it is listed, and every listed file says "signal context" in its
#     opening comment: the set in CMakeLists is the set the files claim;
#   - no listed file includes or names what allocates, locks or prints,
#     or the loader's lock (comments aside).
cmake_minimum_required(VERSION 3.20)
if(NOT AGENT_DIR OR NOT SIGNAL_FILES)
  message(FATAL_ERROR "usage: cmake -DAGENT_DIR=DIR -DSIGNAL_FILES=LIST -P ${CMAKE_CURRENT_LIST_FILE}")
endif()

set(forbidden_includes string vector map unordered_map set deque list mutex shared_mutex
    memory functional cstdio stdio.h fstream iostream sstream thread condition_variable)
set(forbidden_code
    "std::(string|vector|map|unordered_map|set|deque|list|mutex|lock_guard|unique_lock|function|make_unique|make_shared|thread)[^A-Za-z_]"
    "[^A-Za-z_](malloc|calloc|realloc|free|posix_memalign|strdup)[ ]*\\("
    "[^A-Za-z_:.>]new[ ]+[A-Za-z_(]"
    "[^A-Za-z_](printf|fprintf|snprintf|vsnprintf|fopen|fputs|puts|perror)[ ]*\\("
    "std::(cout|cerr|clog)"
    "[^A-Za-z_](pthread_mutex_lock|pthread_rwlock_[a-z]+|dl_iterate_phdr|dlsym|dlopen|dladdr)[ ]*\\(")

get_filename_component(AGENT_DIR "${AGENT_DIR}" ABSOLUTE)
string(REPLACE "," ";" SIGNAL_FILES "${SIGNAL_FILES}")
set(failures "")
file(GLOB sources RELATIVE ${AGENT_DIR} ${AGENT_DIR}/*.cpp ${AGENT_DIR}/*.h)
if(NOT sources)
  message(FATAL_ERROR "no sources in ${AGENT_DIR}")
endif()
foreach(listed IN LISTS SIGNAL_FILES)
  if(NOT EXISTS ${AGENT_DIR}/${listed})
    string(APPEND failures "\n  ${listed}: listed, but no such file")
  endif()
endforeach()

foreach(f IN LISTS sources)
  file(STRINGS ${AGENT_DIR}/${f} lines)
  list(GET lines 0 first)
  if(first MATCHES "SPDX-License-Identifier")
    list(GET lines 1 first)
  endif()
  list(FIND SIGNAL_FILES ${f} index)
  if(f MATCHES "\\.cpp$" AND first MATCHES "^// Signal context" AND index EQUAL -1)
    string(APPEND failures "\n  ${f}: says \"Signal context\" but is not in AGENT_SIGNAL_CONTEXT_SOURCES")
  endif()
  if(index EQUAL -1)
    continue()
  endif()
  if(f MATCHES "\\.cpp$" AND NOT first MATCHES "^// Signal context")
    string(APPEND failures "\n  ${f}: listed, but its first line (after the SPDX line) is not \"// Signal context...\"")
  endif()
  # The opening comment, and the code without comments.
  set(opening "")
  set(code "")
  set(in_opening TRUE)
  foreach(line IN LISTS lines)
    if(in_opening AND line MATCHES "^//")
      string(APPEND opening "${line}\n")
      continue()
    endif()
    set(in_opening FALSE)
    string(REGEX REPLACE "//.*$" "" line "${line}")
    string(APPEND code " ${line}\n")
  endforeach()
  string(TOLOWER "${opening}" opening)
  if(NOT opening MATCHES "signal context")
    string(APPEND failures "\n  ${f}: listed, but its opening comment does not say \"signal context\"")
  endif()
  foreach(inc IN LISTS forbidden_includes)
    string(REPLACE "." "\\." pattern "${inc}")
    if(code MATCHES "#include[ ]*<${pattern}>")
      string(APPEND failures "\n  ${f}: includes <${inc}>")
    endif()
  endforeach()
  foreach(pattern IN LISTS forbidden_code)
    if(code MATCHES "${pattern}")
      string(APPEND failures "\n  ${f}: uses '${CMAKE_MATCH_0}' (matches ${pattern})")
    endif()
  endforeach()
endforeach()

if(failures)
  message(FATAL_ERROR "signal-context files of ${AGENT_DIR}:${failures}")
endif()
list(LENGTH SIGNAL_FILES n)
message(STATUS "${n} signal-context files checked")
