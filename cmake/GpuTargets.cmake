# AMD code-object targets: GPU_TARGETS (AMDGPU_TARGETS accepted), default gfx906;gfx90a;gfx942.
# gfx906 is the Hygon DCU Z100 class (wave64). gfx926/gfx928/gfx936 (newer DCUs) need Hygon's DTK
# compiler. Targets the compiler in use rejects are dropped with a message, so that one default
# works from HIP 5.2 (no gfx942) to current ROCm.
set(_hfs_default_targets "gfx906;gfx90a;gfx942")
if(NOT GPU_TARGETS AND AMDGPU_TARGETS)
  set(GPU_TARGETS "${AMDGPU_TARGETS}")
endif()
set(GPU_TARGETS "${_hfs_default_targets}" CACHE STRING "AMD GPU targets to compile for")

set(HIPFLASHSORT_GPU_TARGETS "")
set(HIPFLASHSORT_GPU_TARGETS_DROPPED "")
foreach(target IN LISTS GPU_TARGETS)
  string(MAKE_C_IDENTIFIER "${target}" target_id)
  set(check_var HIPFLASHSORT_COMPILER_HAS_${target_id})
  if(NOT DEFINED ${check_var})
    set(probe ${CMAKE_BINARY_DIR}/hipflashsort-target-probe.cpp)
    file(WRITE ${probe} "")
    execute_process(
      COMMAND ${CMAKE_CXX_COMPILER} --offload-arch=${target} -c ${probe} -o /dev/null
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(${check_var} ON CACHE INTERNAL "")
    else()
      set(${check_var} OFF CACHE INTERNAL "")
    endif()
  endif()
  if(${check_var})
    list(APPEND HIPFLASHSORT_GPU_TARGETS ${target})
  else()
    list(APPEND HIPFLASHSORT_GPU_TARGETS_DROPPED ${target})
  endif()
endforeach()
if(HIPFLASHSORT_GPU_TARGETS_DROPPED)
  message(STATUS "hipflashsort: the compiler does not support ${HIPFLASHSORT_GPU_TARGETS_DROPPED}; not built for it")
endif()
if(NOT HIPFLASHSORT_GPU_TARGETS)
  message(FATAL_ERROR "hipflashsort: none of GPU_TARGETS (${GPU_TARGETS}) is supported by ${CMAKE_CXX_COMPILER}")
endif()
