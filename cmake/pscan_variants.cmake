# The kernel variants generated from the X-macro lists of src/lists.h (docs/ARCHITECTURE.md,
# "Adding a dtype or an operator"): the CPU's list of scan pairs (src/cpu/gen/scan_pairs.h.in). The
# lists are read through the C preprocessor (cmake/lists_dump.c), so CMake sees what C sees.
# configure_file rewrites a generated file only when its text changes: an edit of the list
# recompiles only the units it changes.

set(PSCAN_VARIANTS_DIR ${CMAKE_CURRENT_LIST_DIR})

# Sets PSCAN_LIST_TYPES (E name kind ...), PSCAN_LIST_OPS (E name int_only ...) and
# PSCAN_LIST_PAIRS (IN OUT ...), flat CMake lists of the entries' fields, and PSCAN_KIND_<E>.
macro(pscan_read_lists root)
  execute_process(
    COMMAND ${CMAKE_C_COMPILER} -E -P -x c -I${root}/src ${PSCAN_VARIANTS_DIR}/lists_dump.c
    OUTPUT_VARIABLE _pscan_lists ERROR_VARIABLE _pscan_err RESULT_VARIABLE _pscan_rc)
  if(NOT _pscan_rc EQUAL 0)
    message(FATAL_ERROR "pscan: the preprocessor could not read src/lists.h:\n${_pscan_err}")
  endif()
  foreach(_pscan_list TYPES OPS PAIRS)
    if(NOT _pscan_lists MATCHES "PSCAN_GEN_${_pscan_list}=([^\n]*)")
      message(FATAL_ERROR "pscan: no PSCAN_GEN_${_pscan_list} in the preprocessed lists")
    endif()
    string(STRIP "${CMAKE_MATCH_1}" _pscan_items)
    string(REGEX REPLACE "[ \t]+" ";" PSCAN_LIST_${_pscan_list} "${_pscan_items}")
  endforeach()
  set(_pscan_items ${PSCAN_LIST_TYPES})
  while(_pscan_items)
    list(POP_FRONT _pscan_items _pscan_e _pscan_name _pscan_kind)
    set(PSCAN_KIND_${_pscan_e} ${_pscan_kind})
  endwhile()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${root}/src/lists.h ${PSCAN_VARIANTS_DIR}/lists_dump.c)
endmacro()

# The header cpu_scan_pairs.h: an include-template (PSCAN_PAIR_TEMPLATE) stamped once per pair of
# PSCAN_SCAN_PAIRS; src/cpu/kernels.c stamps kernel_body.h with it.
function(pscan_generate_cpu root outdir)
  set(PSCAN_GEN_PAIRS "")
  set(pairs ${PSCAN_LIST_PAIRS})
  while(pairs)
    list(POP_FRONT pairs in out)
    string(APPEND PSCAN_GEN_PAIRS
      "#define PAIR_IN ${in}\n#define PAIR_OUT ${out}\n#include PSCAN_PAIR_TEMPLATE\n")
  endwhile()
  configure_file(${root}/src/cpu/gen/scan_pairs.h.in ${outdir}/cpu_scan_pairs.h @ONLY)
endfunction()
