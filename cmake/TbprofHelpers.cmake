# One helper for libraries and one for tests, used by every folder.
#
#   tbprof_cc_library(NAME foo SRCS a.cc b.cc HDRS a.h DEPS tbprof_base absl::status)
#   tbprof_cc_test(NAME foo_test SRCS foo_test.cc DEPS foo [LABELS slow])
#
# Libraries are static and named as given; tests link GoogleTest's main and are
# registered with CTest under their NAME, run from the source directory.

# Development aid while several people add files at once: with
# -DTBPROF_ALLOW_MISSING_SOURCES=ON a target whose sources do not exist yet is
# skipped with a warning instead of failing configuration. Off by default.
option(TBPROF_ALLOW_MISSING_SOURCES "Skip targets with missing sources (development only)" OFF)

function(tbprof_sources_present out_var)
  set(${out_var} TRUE PARENT_SCOPE)
  if(NOT TBPROF_ALLOW_MISSING_SOURCES)
    return()
  endif()
  foreach(src ${ARGN})
    if(NOT IS_ABSOLUTE ${src} AND NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${src})
      message(WARNING "skipping target: missing ${CMAKE_CURRENT_SOURCE_DIR}/${src}")
      set(${out_var} FALSE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

function(tbprof_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;HDRS;DEPS;DEFINES" ${ARGN})
  tbprof_sources_present(present ${ARG_SRCS} ${ARG_HDRS})
  if(NOT present)
    return()
  endif()
  if(ARG_SRCS)
    add_library(${ARG_NAME} STATIC ${ARG_SRCS} ${ARG_HDRS})
    target_include_directories(${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
    target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS})
    target_compile_options(${ARG_NAME} PRIVATE -Wall -Wextra -Wno-unused-parameter)
    if(ARG_DEFINES)
      target_compile_definitions(${ARG_NAME} PUBLIC ${ARG_DEFINES})
    endif()
  else()
    add_library(${ARG_NAME} INTERFACE)
    target_include_directories(${ARG_NAME} INTERFACE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
    target_link_libraries(${ARG_NAME} INTERFACE ${ARG_DEPS})
  endif()
endfunction()

function(tbprof_cc_test)
  if(NOT TBPROF_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  tbprof_sources_present(present ${ARG_SRCS})
  if(NOT present)
    return()
  endif()
  foreach(dep ${ARG_DEPS})
    if(NOT TARGET ${dep} AND NOT dep MATCHES "::" AND TBPROF_ALLOW_MISSING_SOURCES)
      message(WARNING "skipping test ${ARG_NAME}: dependency ${dep} not defined (yet)")
      return()
    endif()
  endforeach()
  add_executable(${ARG_NAME} ${ARG_SRCS})
  target_include_directories(${ARG_NAME} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_options(${ARG_NAME} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_compile_definitions(${ARG_NAME} PRIVATE
      TBPROF_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      TBPROF_SHARED_TESTDATA="${TBPROF_SHARED_TESTDATA}"
      TBPROF_BINARY_DIR="${PROJECT_BINARY_DIR}")
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  if(ARG_TIMEOUT)
    set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  else()
    set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT 600)
  endif()
  if(ARG_LABELS)
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# Links executable `target` against the static archives of its dependencies
# (cmake/link_static_deps.sh, mode TBPROF_STATIC_DEPS), with unused sections
# dropped. Nothing changes in sanitizer and fuzz builds or with OFF.
function(tbprof_link_deps_statically target)
  if(TBPROF_STATIC_DEPS STREQUAL "OFF" OR TBPROF_SANITIZE OR TBPROF_FUZZ)
    return()
  endif()
  if(NOT TBPROF_STATIC_DEPS MATCHES "^(AUTO|ON)$")
    message(FATAL_ERROR "TBPROF_STATIC_DEPS must be AUTO, ON or OFF, not '${TBPROF_STATIC_DEPS}'")
  endif()
  set_property(TARGET ${target} PROPERTY RULE_LAUNCH_LINK
               "${PROJECT_SOURCE_DIR}/cmake/link_static_deps.sh ${TBPROF_STATIC_DEPS} --")
  target_link_options(${target} PRIVATE -Wl,--gc-sections)
  # The launcher reads the link line; relink when it changes.
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
               ${PROJECT_SOURCE_DIR}/cmake/link_static_deps.sh)
endfunction()
