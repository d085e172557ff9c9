# The install test, in three steps (ctest runs "install" first, as a fixture of the other two):
#   STEP=install    cmake --install BUILD_DIR into WORK_DIR/prefix
#   STEP=cmake      build tests/consumer with find_package(pscan), shared and static, and run both
#   STEP=pkgconfig  build tests/consumer/main.c with `cc $(pkg-config ...)`, shared and --static,
#                   and run both
# Variables: STEP, BUILD_DIR, WORK_DIR, CONSUMER_DIR, C_COMPILER, GENERATOR, CONFIG,
# PKG_CONFIG (for STEP=pkgconfig).
cmake_minimum_required(VERSION 3.25)

set(prefix "${WORK_DIR}/prefix")

include("${CMAKE_CURRENT_LIST_DIR}/install_run.cmake") # run(WHAT COMMAND...)

# Runs a consumer program, which prints "ok" when its scans are right.
function(run_consumer exe)
  run("running ${exe}" ${ARGN} "${exe}")
  string(STRIP "${run_output}" line)
  message(STATUS "  ${line}")
endfunction()

# Fails unless exe needs (want_shared TRUE) or does not need libpscan.so.
function(check_pscan_dependency exe want_shared)
  # (without a search path, a libpscan.so that the program needs may be unresolved: both count)
  file(GET_RUNTIME_DEPENDENCIES EXECUTABLES "${exe}"
       RESOLVED_DEPENDENCIES_VAR resolved UNRESOLVED_DEPENDENCIES_VAR unresolved)
  set(needs FALSE)
  foreach(dep IN LISTS resolved unresolved)
    if(dep MATCHES "libpscan\\.so")
      set(needs TRUE)
    endif()
  endforeach()
  if(NOT needs STREQUAL want_shared)
    message(FATAL_ERROR "${exe}: needs libpscan.so: ${needs}, expected ${want_shared}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  set(config_args)
  if(CONFIG)
    set(config_args --config "${CONFIG}")
  endif()
  run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}"
      ${config_args})
  return()
endif()

# Where the libraries went (lib, lib64, lib/<multiarch>): next to the installed pscan.pc.
file(GLOB_RECURSE pc_files "${prefix}/*/pkgconfig/pscan.pc")
list(LENGTH pc_files pc_count)
if(NOT pc_count EQUAL 1)
  message(FATAL_ERROR "expected one installed pscan.pc under ${prefix}, found: ${pc_files}")
endif()
get_filename_component(pc_dir "${pc_files}" DIRECTORY)
get_filename_component(libdir "${pc_dir}" DIRECTORY)

if(STEP STREQUAL "cmake")
  set(b "${WORK_DIR}/cmake-consumer")
  file(REMOVE_RECURSE "${b}")
  run("configure the CMake consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${b}"
      -G "${GENERATOR}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
      "-DPSCAN_EXPECTED_PREFIX=${prefix}" -DCMAKE_BUILD_TYPE=Release)
  run("build the CMake consumer" "${CMAKE_COMMAND}" --build "${b}" --config Release)
  foreach(kind shared static)
    file(GLOB_RECURSE exe "${b}/consumer_${kind}" "${b}/consumer_${kind}.exe")
    if(NOT exe)
      message(FATAL_ERROR "consumer_${kind} was not built")
    endif()
    run_consumer("${exe}")
  endforeach()
  file(GLOB_RECURSE exe "${b}/consumer_static")
  check_pscan_dependency("${exe}" FALSE)
  file(GLOB_RECURSE exe "${b}/consumer_shared")
  check_pscan_dependency("${exe}" TRUE)
  return()
endif()

if(STEP STREQUAL "pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  set(ENV{PKG_CONFIG_LIBDIR} "${pc_dir}") # this prefix only, never a system copy
  set(b "${WORK_DIR}/pkgconfig-consumer")
  file(REMOVE_RECURSE "${b}")
  file(MAKE_DIRECTORY "${b}")
  foreach(kind shared static)
    set(static_arg)
    if(kind STREQUAL "static")
      set(static_arg --static)
    endif()
    run("pkg-config ${static_arg} pscan" "${PKG_CONFIG}" --cflags --libs ${static_arg} pscan)
    string(STRIP "${run_output}" flags)
    message(STATUS "  pkg-config ${static_arg} --cflags --libs pscan: ${flags}")
    # The flags must lead to this prefix: a pscan.pc that names another one is not relocatable.
    string(FIND "${flags}" "-I${prefix}/" has_include)
    string(FIND "${flags}" "-L${prefix}/" has_libdir)
    if(has_include EQUAL -1 OR has_libdir EQUAL -1)
      message(FATAL_ERROR "pscan.pc installed under ${prefix} points elsewhere: ${flags}\n"
              "(pscan.pc must follow `cmake --install --prefix`, e.g. prefix=\${pcfiledir}/../..)")
    endif()
    separate_arguments(flag_list UNIX_COMMAND "${flags}")
    if(kind STREQUAL "static")
      # -lpscan alone would pick libpscan.so when both are installed.
      list(TRANSFORM flag_list REPLACE "^-lpscan$" "-Wl,-Bstatic;-lpscan;-Wl,-Bdynamic")
    endif()
    set(exe "${b}/consumer_${kind}")
    run("cc consumer_${kind}" "${C_COMPILER}" "${CONSUMER_DIR}/main.c" -o "${exe}"
        "-DCONSUMER_LINKAGE=\"pkg-config, ${kind}\"" ${flag_list})
    # The shared library is found the way a user of a private prefix finds it.
    run_consumer("${exe}" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libdir}")
  endforeach()
  check_pscan_dependency("${b}/consumer_static" FALSE)
  check_pscan_dependency("${b}/consumer_shared" TRUE)
  return()
endif()

message(FATAL_ERROR "unknown STEP '${STEP}'")
