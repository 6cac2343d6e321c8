# Installs the build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it with find_package(actorflow), and once more built by the C++
# compiler alone with the flags of the installed actorflow.pc.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${WORK_DIR}/build"
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        # The build's own flags (a sanitizer build's runtime, say) apply here too.
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j2 RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer build failed: ${rc}")
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer said: ${out}")
if(rc)
  message(FATAL_ERROR "consumer failed: ${rc}")
endif()
# The same program built with the flags of the installed pkg-config file (actorflow.pc).
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK_DIR}/prefix/lib/pkgconfig
                        pkg-config --define-variable=prefix=${WORK_DIR}/prefix --cflags --libs actorflow
                RESULT_VARIABLE rc OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "pkg-config --cflags --libs actorflow failed: ${rc}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(own_flags UNIX_COMMAND "${CXX_FLAGS} ${EXE_LINKER_FLAGS}")
execute_process(COMMAND ${CXX} ${own_flags} "${SOURCE_DIR}/tests/consumer/main.cpp" -o "${WORK_DIR}/consumer_pc"
                        ${pc_flags}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer build with pkg-config's flags failed: ${rc}")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer_pc" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer (pkg-config) said: ${out}")
if(rc)
  message(FATAL_ERROR "consumer built with pkg-config's flags failed: ${rc}")
endif()
