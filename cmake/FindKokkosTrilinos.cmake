# FindKokkosTrilinos
# ------------------
# Imported targets for the Kokkos / KokkosKernels that Debian ships inside
# Trilinos (libtrilinos-kokkos-dev, libtrilinos-kokkos-kernels-dev, 3.4.1).
# Their CMake package configs point at a non-existent include directory, so we
# locate headers and libraries ourselves.
#
# Defines:
#   Kokkos::kokkos          core + containers + algorithms (headers, libs)
#   Kokkos::kokkoskernels   KokkosKernels (links Kokkos::kokkos)
#   KokkosTrilinos_FOUND, KokkosTrilinos_VERSION

find_path(KokkosTrilinos_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos)
find_path(KokkosTrilinos_KERNELS_INCLUDE_DIR KokkosSparse_spmv.hpp PATH_SUFFIXES trilinos)
find_library(KokkosTrilinos_CORE_LIBRARY trilinos_kokkoscore)
find_library(KokkosTrilinos_CONTAINERS_LIBRARY trilinos_kokkoscontainers)
find_library(KokkosTrilinos_KERNELS_LIBRARY trilinos_kokkoskernels)

if(KokkosTrilinos_INCLUDE_DIR AND EXISTS "${KokkosTrilinos_INCLUDE_DIR}/KokkosCore_config.h")
  file(STRINGS "${KokkosTrilinos_INCLUDE_DIR}/KokkosCore_config.h" _rsh_kv REGEX "#define KOKKOS_VERSION [0-9]+")
  string(REGEX MATCH "[0-9]+" _rsh_kv "${_rsh_kv}")
  math(EXPR _rsh_major "${_rsh_kv} / 10000")
  math(EXPR _rsh_minor "${_rsh_kv} / 100 % 100")
  math(EXPR _rsh_patch "${_rsh_kv} % 100")
  set(KokkosTrilinos_VERSION "${_rsh_major}.${_rsh_minor}.${_rsh_patch}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(KokkosTrilinos
  REQUIRED_VARS KokkosTrilinos_INCLUDE_DIR KokkosTrilinos_CORE_LIBRARY KokkosTrilinos_CONTAINERS_LIBRARY
                KokkosTrilinos_KERNELS_INCLUDE_DIR KokkosTrilinos_KERNELS_LIBRARY
  VERSION_VAR KokkosTrilinos_VERSION)

if(KokkosTrilinos_FOUND AND NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkoscore UNKNOWN IMPORTED)
  set_target_properties(Kokkos::kokkoscore PROPERTIES
    IMPORTED_LOCATION "${KokkosTrilinos_CORE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${KokkosTrilinos_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}")
  add_library(Kokkos::kokkoscontainers UNKNOWN IMPORTED)
  set_target_properties(Kokkos::kokkoscontainers PROPERTIES
    IMPORTED_LOCATION "${KokkosTrilinos_CONTAINERS_LIBRARY}"
    INTERFACE_LINK_LIBRARIES Kokkos::kokkoscore)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
  set_target_properties(Kokkos::kokkos PROPERTIES
    INTERFACE_LINK_LIBRARIES "Kokkos::kokkoscore;Kokkos::kokkoscontainers")
endif()
if(KokkosTrilinos_FOUND AND NOT TARGET Kokkos::kokkoskernels)
  add_library(Kokkos::kokkoskernels UNKNOWN IMPORTED)
  set_target_properties(Kokkos::kokkoskernels PROPERTIES
    IMPORTED_LOCATION "${KokkosTrilinos_KERNELS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${KokkosTrilinos_KERNELS_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Kokkos::kokkos)
endif()
mark_as_advanced(KokkosTrilinos_INCLUDE_DIR KokkosTrilinos_KERNELS_INCLUDE_DIR KokkosTrilinos_CORE_LIBRARY
                 KokkosTrilinos_CONTAINERS_LIBRARY KokkosTrilinos_KERNELS_LIBRARY)
