# run(WHAT COMMAND...), for the install tests (test_install.cmake, mpi/test_install_mpi.cmake):
# runs COMMAND; fails the test with its output unless it succeeds, else prints "WHAT: ok" and
# leaves what it printed on stdout in run_output.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()
