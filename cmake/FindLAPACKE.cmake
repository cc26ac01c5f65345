# FindLAPACKE: the C interface to LAPACK (Debian/Ubuntu: liblapacke-dev).
#   LAPACKE_FOUND, LAPACKE_INCLUDE_DIR, LAPACKE_LIBRARY, imported target LAPACKE::LAPACKE.
# OpenBLAS may carry LAPACKE itself; we still link liblapacke when it exists, since that
# is what lapacke.h from liblapacke-dev declares. Either way the LAPACK underneath is
# LAPACK::LAPACK (OpenBLAS when BLA_VENDOR=OpenBLAS).
find_path(LAPACKE_INCLUDE_DIR NAMES lapacke.h PATH_SUFFIXES openblas lapacke)
find_library(LAPACKE_LIBRARY NAMES lapacke)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LAPACKE REQUIRED_VARS LAPACKE_LIBRARY LAPACKE_INCLUDE_DIR)

if(LAPACKE_FOUND AND NOT TARGET LAPACKE::LAPACKE)
  add_library(LAPACKE::LAPACKE UNKNOWN IMPORTED)
  set_target_properties(LAPACKE::LAPACKE PROPERTIES
    IMPORTED_LOCATION "${LAPACKE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LAPACKE_INCLUDE_DIR}")
  if(TARGET LAPACK::LAPACK)
    set_property(TARGET LAPACKE::LAPACKE APPEND PROPERTY INTERFACE_LINK_LIBRARIES LAPACK::LAPACK)
  endif()
endif()
mark_as_advanced(LAPACKE_INCLUDE_DIR LAPACKE_LIBRARY)
