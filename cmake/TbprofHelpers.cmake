# One helper for libraries and one for tests, used by every folder.
#
#   tbprof_cc_library(NAME foo SRCS a.cc b.cc HDRS a.h DEPS tbprof_base absl::status)
#   tbprof_cc_test(NAME foo_test SRCS foo_test.cc DEPS foo [LABELS slow])
#
# Libraries are static and named as given; tests link GoogleTest's main and are
# registered with CTest under their NAME, run from the source directory.

function(tbprof_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;HDRS;DEPS;DEFINES" ${ARGN})
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
