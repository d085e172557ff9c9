# The kernel variants generated from the X-macro lists of src/lists.h (docs/ARCHITECTURE.md,
# "Adding a dtype or an operator"): the CUDA translation units, one per element type and family
# (src/cuda/gen/*.cu.in), and the CPU's list of scan pairs (src/cpu/gen/scan_pairs.h.in). The
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

# For a value type of kind `kind`: in `out_stamps`, `stamp` included once per operator of
# PSCAN_OPS that applies to the type (integer-only operators skip floats), with OP_E defined;
# in `out_ops`, every operator in list order as X(op) (stamped) or N(op) (not offered), the
# argument list of the launcher table that the family's table header reads.
function(pscan_op_stamps kind stamp out_stamps out_ops)
  set(stamps "")
  set(ops "")
  set(items ${PSCAN_LIST_OPS})
  while(items)
    list(POP_FRONT items op name int_only)
    if(int_only AND kind STREQUAL "FLOAT")
      string(APPEND ops " N(${op})")
    else()
      string(APPEND stamps "#define OP_E ${op}\n#include \"${stamp}\"\n#undef OP_E\n")
      string(APPEND ops " X(${op})")
    endif()
  endwhile()
  set(${out_stamps} "${stamps}" PARENT_SCOPE)
  set(${out_ops} "${ops}" PARENT_SCOPE)
endfunction()

# The CUDA units of every element type: scan_<t>.cu and axis_<t>.cu (every pair with input type
# t, every operator) and compact_<t>.cu (the keys kernel with t items, the by-key kernels with t
# values).
# Appends their paths to `out_sources`.
function(pscan_generate_cuda root outdir out_sources)
  set(sources ${${out_sources}})
  set(types ${PSCAN_LIST_TYPES})
  while(types)
    list(POP_FRONT types PSCAN_GEN_TYPE PSCAN_GEN_NAME kind)
    set(PSCAN_GEN_PAIRS "")
    set(PSCAN_GEN_AXIS_PAIRS "")
    set(pairs ${PSCAN_LIST_PAIRS})
    while(pairs)
      list(POP_FRONT pairs in out)
      if(in STREQUAL PSCAN_GEN_TYPE)
        foreach(family scan axis)
          if(family STREQUAL "scan")
            set(stamp "cuda/scan/stamp.cuh")
            set(table "cuda/scan/pair.cuh")
            set(var PSCAN_GEN_PAIRS)
          else()
            set(stamp "cuda/axis_stamp.cuh")
            set(table "cuda/axis_pair.cuh")
            set(var PSCAN_GEN_AXIS_PAIRS)
          endif()
          pscan_op_stamps(${PSCAN_KIND_${out}} ${stamp} stamps ops)
          string(APPEND ${var} "\n/* ${in} -> ${out} */\n"
            "#define PAIR_IN ${in}\n#define PAIR_OUT ${out}\n${stamps}"
            "#define PAIR_OPS(X, N)${ops}\n#include \"${table}\"\n"
            "#undef PAIR_OPS\n#undef PAIR_IN\n#undef PAIR_OUT\n")
        endforeach()
      endif()
    endwhile()
    configure_file(${root}/src/cuda/gen/scan_type.cu.in ${outdir}/scan_${PSCAN_GEN_NAME}.cu @ONLY)
    configure_file(${root}/src/cuda/gen/axis_type.cu.in ${outdir}/axis_${PSCAN_GEN_NAME}.cu @ONLY)
    pscan_op_stamps(${kind} "cuda/compact/by_key_stamp.cuh"
                    PSCAN_GEN_BY_KEY_STAMPS PSCAN_GEN_BY_KEY_OPS)
    configure_file(${root}/src/cuda/gen/compact_type.cu.in ${outdir}/compact_${PSCAN_GEN_NAME}.cu
                   @ONLY)
    list(APPEND sources ${outdir}/scan_${PSCAN_GEN_NAME}.cu ${outdir}/compact_${PSCAN_GEN_NAME}.cu
         ${outdir}/axis_${PSCAN_GEN_NAME}.cu)
  endwhile()
  set(${out_sources} ${sources} PARENT_SCOPE)
endfunction()

# The header cpu_scan_pairs.h: an include-template (PSCAN_PAIR_TEMPLATE) stamped once per pair of
# PSCAN_SCAN_PAIRS; src/cpu/kernels.c stamps kernel_body.h with it, src/cpu/axis_kernels.c
# axis_pair.h. And cpu_types.h, one (PSCAN_TYPE_TEMPLATE) per type of PSCAN_TYPES: src/cpu/compact.c
# stamps compact_body.h with it.
function(pscan_generate_cpu root outdir)
  set(PSCAN_GEN_PAIRS "")
  set(pairs ${PSCAN_LIST_PAIRS})
  while(pairs)
    list(POP_FRONT pairs in out)
    string(APPEND PSCAN_GEN_PAIRS
      "#define PAIR_IN ${in}\n#define PAIR_OUT ${out}\n#include PSCAN_PAIR_TEMPLATE\n")
  endwhile()
  configure_file(${root}/src/cpu/gen/scan_pairs.h.in ${outdir}/cpu_scan_pairs.h @ONLY)
  set(PSCAN_GEN_TYPES "")
  set(types ${PSCAN_LIST_TYPES})
  while(types)
    list(POP_FRONT types e name kind)
    string(APPEND PSCAN_GEN_TYPES "#define ELEM ${e}\n#include PSCAN_TYPE_TEMPLATE\n")
  endwhile()
  configure_file(${root}/src/cpu/gen/types.h.in ${outdir}/cpu_types.h @ONLY)
endfunction()
