# Compilers and packages per platform. Sets:
#   HIPFLASHSORT_GPU_LANGUAGE      CXX (amd: hipcc compiles .cpp as HIP) or CUDA (nvidia)
#   HIPFLASHSORT_HIP_INCLUDE_DIR   nvidia: where hip/hip_runtime.h was found
#   HIPFLASHSORT_COMPAT_INCLUDE_DIR nvidia: the compatibility overlay, or empty
if(HIPFLASHSORT_PLATFORM STREQUAL "amd")
  set(HIPFLASHSORT_GPU_LANGUAGE CXX)
  include(${CMAKE_CURRENT_LIST_DIR}/GpuTargets.cmake)
  # hip-config turns GPU_TARGETS into --offload-arch flags of hip::device: hand it the supported ones.
  set(GPU_TARGETS ${HIPFLASHSORT_GPU_TARGETS})
  find_package(hip REQUIRED CONFIG PATHS ENV ROCM_PATH /opt/rocm /opt/dtk)
  if(BUILD_TEST OR BUILD_BENCHMARK OR BUILD_CLIENTS)
    # rocPRIM is the AMD-side peer in tests, benchmarks and the tool; the library does not need it.
    find_package(rocprim REQUIRED CONFIG PATHS ENV ROCM_PATH /opt/rocm /opt/dtk)
  endif()
else()
  set(HIPFLASHSORT_GPU_LANGUAGE CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (90 = H100/H200)")
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  find_path(HIPFLASHSORT_HIP_INCLUDE_DIR hip/hip_runtime.h
    HINTS ${HIP_PATH} ENV HIP_PATH
    PATH_SUFFIXES include
    DOC "Directory holding the HIP headers (hip/hip_runtime.h) used on NVIDIA")
  if(NOT HIPFLASHSORT_HIP_INCLUDE_DIR)
    message(FATAL_ERROR "hipflashsort: HIP headers not found for the nvidia platform: set HIP_PATH or "
      "CMAKE_PREFIX_PATH to a prefix with include/hip/hip_runtime.h (e.g. Debian's libamdhip64-dev)")
  endif()
  include(${CMAKE_CURRENT_LIST_DIR}/HipNvidiaCompat.cmake)
  hipflashsort_hip_nvidia_compat(${HIPFLASHSORT_HIP_INCLUDE_DIR} HIPFLASHSORT_COMPAT_INCLUDE_DIR)
endif()

# Marks SOURCES of TARGET as GPU code for the platform (CUDA language on nvidia).
function(hipflashsort_gpu_sources target)
  get_target_property(sources ${target} SOURCES)
  if(HIPFLASHSORT_PLATFORM STREQUAL "nvidia")
    set_source_files_properties(${sources} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda -Xcudafe --diag_suppress=2810>)
  else()
    target_link_libraries(${target} PRIVATE hip::device)
  endif()
endfunction()
