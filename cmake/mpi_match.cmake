# SPDX-License-Identifier: BSD-3-Clause
# Whether a library (a .so path) links the MPI library sonde builds with: a library built for
# another MPI loads both MPIs into one process (Debian's PnetCDF and parallel HDF5 are built for
# Open MPI; an MPICH build must not use them).
function(sonde_links_our_mpi library result)
  execute_process(COMMAND ldd ${library} OUTPUT_VARIABLE ldd_out ERROR_QUIET)
  set(matches OFF)
  foreach(lib ${MPI_C_LIBRARIES})
    get_filename_component(stem ${lib} NAME_WE)
    if(stem MATCHES "^libmpi" AND ldd_out MATCHES "${stem}\\.so")
      set(matches ON)
    endif()
  endforeach()
  set(${result} ${matches} PARENT_SCOPE)
endfunction()
