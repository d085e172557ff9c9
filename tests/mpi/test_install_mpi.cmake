# pscan_mpi as installed: cmake --install into WORK_DIR/prefix, then tests/mpi/consumer built with
# find_package(pscan) (shared and static) and with `cc $(pkg-config --cflags --libs pscan_mpi)`,
# each run under MPIEXEC with 2 ranks. Variables: BUILD_DIR, WORK_DIR, CONSUMER_DIR, C_COMPILER,
# GENERATOR, MPIEXEC, MPI_FLAGS (;-list), PKG_CONFIG (optional).
cmake_minimum_required(VERSION 3.25)
set(prefix "${WORK_DIR}/prefix")

include("${CMAKE_CURRENT_LIST_DIR}/../install_run.cmake") # run(WHAT COMMAND...)

file(REMOVE_RECURSE "${WORK_DIR}")
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
run("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build"
    -G "${GENERATOR}" -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
run("build the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
set(ENV{LD_LIBRARY_PATH} "${prefix}/lib:${prefix}/lib64:$ENV{LD_LIBRARY_PATH}")
foreach(exe consumer_shared consumer_static)
  run("mpirun ${exe}" ${MPIEXEC} -np 2 ${MPI_FLAGS} "${WORK_DIR}/build/${exe}")
  message(STATUS "${run_output}")
endforeach()
if(PKG_CONFIG)
  file(GLOB pcdirs "${prefix}/lib*/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pcdirs}")
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs pscan_mpi OUTPUT_VARIABLE flags
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config pscan_mpi failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("cc with pkg-config" ${C_COMPILER} "${CONSUMER_DIR}/main.c" ${flags} -o "${WORK_DIR}/pc")
  run("mpirun the pkg-config consumer" ${MPIEXEC} -np 2 ${MPI_FLAGS} "${WORK_DIR}/pc")
  message(STATUS "${run_output}")
endif()
