# Script mode: cmake -DINPUT=<header> -DOUTPUT=<header> [-DEXPECT_EDITS=ON] -P apply.cmake
# Applies the compatibility edits to one header (used by the configure step's tests).
include(${CMAKE_CURRENT_LIST_DIR}/edits.cmake)
file(READ "${INPUT}" content)
hipflashsort_compat_edit(content applied)
file(WRITE "${OUTPUT}" "${content}")
message(STATUS "hipflashsort compat: ${applied} edits applied to ${INPUT}")
if(EXPECT_EDITS AND applied EQUAL 0)
  message(FATAL_ERROR "expected edits, none applied")
endif()
