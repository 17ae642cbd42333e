# SPDX-License-Identifier: MIT
# Debian packages (CPack DEB, one per component): libcpc1 (libcpc.so.1,
# libpctx.so.1), libcpc-dev (headers, .pc files, .so links, section-3 man
# pages), cpcprof (the command, its agent, cputrack, cpustat, section-1/8
# man pages), cpcprof-gui (the viewer, its desktop integration).
# Dependencies on Debian's libraries come from dpkg-shlibdeps.
# Build them with packaging/build-debs.sh, which configures for /usr.
set(CPCPROF_DEB_MAINTAINER "cpcprof maintainers <maintainers@users.noreply.a-seed-86b60e1f.example>"
    CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cpcprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR cpcprof)
set(CPACK_PACKAGE_CONTACT ${CPCPROF_DEB_MAINTAINER})
# The .pc files name CMAKE_INSTALL_PREFIX, which must be /usr, not the
# staging directory: stage with DESTDIR.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Stripped as Debian ships them (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL libs dev cpcprof)
if(CPCPROF_ENABLE_GUI)
  list(APPEND CPACK_COMPONENTS_ALL gui)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPCPROF_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# cpcprof's programs need libcpc.so.1 and libpctx.so.1, which no installed
# package provides yet: dpkg-shlibdeps reads them in libcpc1's staging
# directory (CPack's layout under CPACK_PACKAGE_DIRECTORY), and the
# component dependency makes cpcprof depend on libcpc1 (= version).
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/cpack)
set(CPACK_PACKAGE_FILE_NAME cpcprof-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    "${CPACK_PACKAGE_DIRECTORY}/_CPack_Packages/${CMAKE_SYSTEM_NAME}/DEB/${CPACK_PACKAGE_FILE_NAME}/libs${CMAKE_INSTALL_FULL_LIBDIR}")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)

set(CPACK_DEBIAN_LIBS_PACKAGE_NAME libcpc1)
# libcpc loads libpfm4 with dlopen (at the first native event), which
# dpkg-shlibdeps cannot see.
set(CPACK_DEBIAN_LIBS_PACKAGE_DEPENDS "libpfm4")
set(CPACK_DEBIAN_LIBS_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_LIBS_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/libcpc1/triggers)
set(CPACK_COMPONENT_LIBS_DESCRIPTION
    "illumos libcpc and libpctx over Linux perf_event
libcpc(3LIB), the illumos interface to the CPU performance counters,
implemented over perf_event_open, and libpctx(3LIB), the process
context library it binds counters through.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libcpc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS libs)
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "illumos libcpc and libpctx over Linux perf_event (development files)
Headers, pkg-config files (libcpc, libpctx), the .so links and the
section-3 manual pages of libcpc(3LIB) and libpctx(3LIB).")

set(CPACK_DEBIAN_CPCPROF_PACKAGE_NAME cpcprof)
set(CPACK_DEBIAN_CPCPROF_PACKAGE_SECTION devel)
# The debuginfod client is loaded with dlopen when a server is asked
# (record, symbolize and annotate; the viewer's sources), which
# dpkg-shlibdeps cannot see; without it they say so and go on.
set(CPACK_DEBIAN_CPCPROF_PACKAGE_RECOMMENDS "libdebuginfod1")
set(CPACK_COMPONENT_CPCPROF_DEPENDS libs)
set(CPACK_COMPONENT_CPCPROF_DESCRIPTION
    "sampling profiler on hardware performance counters
cpcprof records a program's samples on libcpc's counter overflows
(record) and reports them (report, flamegraph, diff, export); cputrack
and cpustat count events per process and per CPU as on illumos.")

set(CPACK_DEBIAN_GUI_PACKAGE_NAME cpcprof-gui)
set(CPACK_DEBIAN_GUI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_GUI_PACKAGE_RECOMMENDS "libdebuginfod1")
set(CPACK_COMPONENT_GUI_DESCRIPTION
    "viewer of cpcprof profiles (Qt)
cpcprof-gui opens the profiles cpcprof record writes: a flame graph
that zooms and searches, top-down, bottom-up and caller/callee trees
and a hotspots table, with every recorded event's costs and the ratios
derived from them.")

include(CPack)
