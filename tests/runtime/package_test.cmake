# Installs the `runtime` component of BUILD_DIR into WORK_DIR/prefix, configures and builds
# CONSUMER_DIR against it with find_package(gemmtune), and runs the consumer.
# Usage: cmake -DBUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -P package_test.cmake
foreach(v BUILD_DIR CONSUMER_DIR WORK_DIR)
  if(NOT ${v})
    message(FATAL_ERROR "package_test.cmake: -D${v}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${name}: ok\n${out}")
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component runtime)
foreach(f include/gemmtune/runtime.hpp include/gemmtune/src/core/precision.hpp share/doc/gemmtune/LICENSE)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install did not put ${f} under ${prefix}")
  endif()
endforeach()
step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run consumer" ${WORK_DIR}/build/consumer)
