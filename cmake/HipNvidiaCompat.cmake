# Configure-time compatibility step for HIP's NVIDIA headers (hip/nvidia_detail).
#
# Older HIP releases (Debian's 5.2.3, for one) wrap CUDA APIs that CUDA 12/13 removed. This step
# compiles a probe against the HIP headers found; if that fails, it writes an edited copy of
# hip/nvidia_detail/nvidia_hip_runtime_api.h (see hip_nvidia_compat/edits.cmake) into the build
# tree, to be searched before HIP's own include directory, and probes again. When the headers
# already compile, it does nothing.
#
# hipflashsort_hip_nvidia_compat(<hip-include-dir> <out-include-dir-var>)
#   sets <out-include-dir-var> to the overlay directory, or to "" when none is needed.
include(${CMAKE_CURRENT_LIST_DIR}/hip_nvidia_compat/edits.cmake)

function(_hipflashsort_probe_hip result_var log_var)
  set(probe_dir ${CMAKE_BINARY_DIR}/hipflashsort-compat/probe-${ARGN})
  # A distinct result name per probe: try_compile results are cache entries, which a caller's
  # normal variable of the same name would hide.
  set(result HIPFLASHSORT_HIP_PROBE_${ARGN})
  unset(${result})
  unset(${result} CACHE)
  try_compile(${result} ${probe_dir}
    SOURCES ${PROJECT_SOURCE_DIR}/cmake/hip_nvidia_compat/probe.cu
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${_hfs_probe_includes}"
                "-DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}"
    COMPILE_DEFINITIONS -D__HIP_PLATFORM_NVIDIA__ -D__HIP_PLATFORM_NVCC__
    CUDA_STANDARD 17
    OUTPUT_VARIABLE log)
  set(${result_var} ${${result}} PARENT_SCOPE)
  set(${log_var} "${log}" PARENT_SCOPE)
endfunction()

function(hipflashsort_hip_nvidia_compat hip_include_dir out_var)
  set(header hip/nvidia_detail/nvidia_hip_runtime_api.h)
  set(overlay ${CMAKE_BINARY_DIR}/hipflashsort-compat/include)
  set(_hfs_probe_includes ${hip_include_dir})
  _hipflashsort_probe_hip(ok log original)
  if(ok)
    message(STATUS "hipflashsort: HIP NVIDIA headers compile with CUDA ${CMAKE_CUDA_COMPILER_VERSION}: no compatibility overlay")
    file(REMOVE_RECURSE ${overlay})
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  if(NOT EXISTS ${hip_include_dir}/${header})
    message(FATAL_ERROR "hipflashsort: HIP headers in ${hip_include_dir} do not compile with CUDA "
      "${CMAKE_CUDA_COMPILER_VERSION}, and ${header} is missing:\n${log}")
  endif()
  file(READ ${hip_include_dir}/${header} content)
  hipflashsort_compat_edit(content applied)
  file(WRITE ${overlay}/${header} "${content}")
  set(_hfs_probe_includes ${overlay} ${hip_include_dir})
  _hipflashsort_probe_hip(ok log edited)
  if(NOT ok)
    message(FATAL_ERROR "hipflashsort: HIP headers in ${hip_include_dir} do not compile with CUDA "
      "${CMAKE_CUDA_COMPILER_VERSION}, even after ${applied} compatibility edits:\n${log}")
  endif()
  message(STATUS "hipflashsort: HIP NVIDIA headers needed ${applied} compatibility edits for CUDA "
    "${CMAKE_CUDA_COMPILER_VERSION}: overlay in ${overlay}")
  set(${out_var} ${overlay} PARENT_SCOPE)
endfunction()
