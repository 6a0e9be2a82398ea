# ctest driver: installs the built project into a scratch prefix, then configures, builds
# and runs tests/embed against it with find_package(appell).
set(prefix ${BUILD_DIR}/install-test/prefix)
set(embed_build ${BUILD_DIR}/install-test/embed)
file(REMOVE_RECURSE ${BUILD_DIR}/install-test)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/embed -B ${embed_build}
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the embedding project failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${embed_build} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the embedding project failed: ${rc}")
endif()
execute_process(COMMAND ${embed_build}/embed RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the embedding program failed: ${rc}")
endif()
