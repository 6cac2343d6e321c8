# actorflow_header_check(TARGET): builds TARGET (not part of `all`), which compiles every
# public header of every module on its own, once per translation unit and included twice,
# with only its module's usage requirements. A header that leans on another header's
# includes, or on an include its module does not declare, fails to compile there.
function(actorflow_header_check target)
  add_custom_target(${target})
  foreach(module ops kernels actors devices queues data net train saved_model formats)
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS
         "${PROJECT_SOURCE_DIR}/${module}/include/actorflow/*.hpp")
    set(sources "")
    foreach(header ${headers})
      file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}/${module}/include" "${header}")
      string(REGEX REPLACE "[/.]" "_" stem "${rel}")
      set(source "${CMAKE_CURRENT_BINARY_DIR}/header_check/${stem}.cpp")
      file(CONFIGURE OUTPUT "${source}" CONTENT "#include <${rel}>\n#include <${rel}>\n" @ONLY)
      list(APPEND sources "${source}")
    endforeach()
    add_library(${target}_${module} OBJECT EXCLUDE_FROM_ALL ${sources})
    target_link_libraries(${target}_${module} PRIVATE actorflow::${module} actorflow_warnings)
    target_compile_options(${target}_${module} PRIVATE -O0 -g0)  # parsed, not run: no codegen
    add_dependencies(${target} ${target}_${module})
  endforeach()
  set(umbrella "${CMAKE_CURRENT_BINARY_DIR}/header_check/actorflow_hpp.cpp")
  file(CONFIGURE OUTPUT "${umbrella}" CONTENT "#include <actorflow/actorflow.hpp>\n" @ONLY)
  add_library(${target}_umbrella OBJECT EXCLUDE_FROM_ALL "${umbrella}")
  target_link_libraries(${target}_umbrella PRIVATE actorflow::actorflow actorflow_warnings)
  target_compile_options(${target}_umbrella PRIVATE -O0 -g0)
  add_dependencies(${target} ${target}_umbrella)
endfunction()
