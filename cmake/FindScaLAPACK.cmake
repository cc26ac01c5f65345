# FindScaLAPACK: ScaLAPACK (with its BLACS) built for the MPI that FindMPI found.
#   ScaLAPACK_FOUND, ScaLAPACK_LIBRARY, ScaLAPACK_VERSION (from pkg-config, else from the
#   library's file name, else empty), imported target ScaLAPACK::ScaLAPACK.
# Debian/Ubuntu ship one build per MPI (libscalapack-openmpi-dev, libscalapack-mpich-dev):
# set ScaLAPACK_MPI_FLAVOR to openmpi or mpich to pick the matching one. Their CMake package
# files point at /usr/lib/ rather than the multiarch directory, so this module does not use
# them; it asks pkg-config (for the version) and then looks the library up itself.
# ScaLAPACK has no C header: the prototypes live in the source that calls it.
set(_sb_scalapack_names scalapack)
if(ScaLAPACK_MPI_FLAVOR)
  list(PREPEND _sb_scalapack_names scalapack-${ScaLAPACK_MPI_FLAVOR})
endif()

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_search_module(PC_ScaLAPACK QUIET ${_sb_scalapack_names})
endif()
find_library(ScaLAPACK_LIBRARY NAMES ${_sb_scalapack_names} HINTS ${PC_ScaLAPACK_LIBRARY_DIRS})
set(ScaLAPACK_VERSION "${PC_ScaLAPACK_VERSION}")
if(NOT ScaLAPACK_VERSION AND ScaLAPACK_LIBRARY)
  # Without pkg-config, the version the shared object's real name carries (.so.2.2.1).
  get_filename_component(_sb_scalapack_real "${ScaLAPACK_LIBRARY}" REALPATH)
  if(_sb_scalapack_real MATCHES "\\.so\\.([0-9]+\\.[0-9]+\\.[0-9]+)$")
    set(ScaLAPACK_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ScaLAPACK REQUIRED_VARS ScaLAPACK_LIBRARY
                                  VERSION_VAR ScaLAPACK_VERSION)

if(ScaLAPACK_FOUND AND NOT TARGET ScaLAPACK::ScaLAPACK)
  add_library(ScaLAPACK::ScaLAPACK UNKNOWN IMPORTED)
  set_target_properties(ScaLAPACK::ScaLAPACK PROPERTIES IMPORTED_LOCATION "${ScaLAPACK_LIBRARY}")
  # A static libscalapack needs these on the link line; the shared one records them itself.
  foreach(_dep MPI::MPI_C LAPACK::LAPACK)
    if(TARGET ${_dep})
      set_property(TARGET ScaLAPACK::ScaLAPACK APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${_dep})
    endif()
  endforeach()
endif()
mark_as_advanced(ScaLAPACK_LIBRARY)
unset(_sb_scalapack_names)
unset(_sb_scalapack_real)
