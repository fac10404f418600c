# Finds Kokkos and KokkosKernels, for this build and for consumers of the
# installed package. A modern Kokkos is used through its own config when the
# user names one (Kokkos_ROOT / Kokkos_DIR); otherwise the Debian/Trilinos
# install through FindKokkosTrilinos (its shipped config is broken).
include(CMakeFindDependencyMacro)
macro(rsh_find_dependency)
  if(RSH_FROM_PACKAGE_CONFIG)
    find_dependency(${ARGN})
  else()
    find_package(${ARGN} REQUIRED)
  endif()
endmacro()

if(DEFINED Kokkos_ROOT OR DEFINED ENV{Kokkos_ROOT} OR DEFINED Kokkos_DIR)
  rsh_find_dependency(Kokkos CONFIG)
  # KokkosKernels beside that Kokkos first: its prefix's config directory is searched before the system
  # prefixes, where Debian's KokkosKernels 3.4 config (broken, and for another Kokkos) would be found.
  rsh_find_dependency(KokkosKernels CONFIG HINTS "${Kokkos_DIR}/../KokkosKernels")
else()
  list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")
  rsh_find_dependency(KokkosTrilinos)
endif()
