# Chooses HIPFLASHSORT_PLATFORM (amd | nvidia) before project() picks compilers.
#
# Default: a HIP compiler (hipcc, or a ROCm/DTK clang) named as CXX, or found under ROCM_PATH /
# /opt/rocm / PATH → amd; otherwise nvcc → nvidia. The choice can always be forced with
# -DHIPFLASHSORT_PLATFORM=amd|nvidia.
set(HIPFLASHSORT_PLATFORM "" CACHE STRING "Target platform: amd (hipcc/ROCm clang) or nvidia (nvcc); empty = detect")
set_property(CACHE HIPFLASHSORT_PLATFORM PROPERTY STRINGS "" amd nvidia)

if(NOT HIPFLASHSORT_PLATFORM)
  set(_hfs_cxx "${CMAKE_CXX_COMPILER}")
  if(NOT _hfs_cxx AND DEFINED ENV{CXX})
    set(_hfs_cxx "$ENV{CXX}")
  endif()
  find_program(HIPFLASHSORT_HIPCC hipcc HINTS ENV ROCM_PATH ENV HIP_PATH /opt/rocm /opt/dtk PATH_SUFFIXES bin)
  find_program(HIPFLASHSORT_NVCC nvcc HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
  if(_hfs_cxx MATCHES "hipcc|amdclang")
    set(_hfs_detected amd)
  elseif(HIPFLASHSORT_HIPCC AND NOT _hfs_cxx)
    set(_hfs_detected amd)
  elseif(HIPFLASHSORT_NVCC)
    set(_hfs_detected nvidia)
  else()
    message(FATAL_ERROR "hipflashsort: no HIP compiler (hipcc) and no nvcc found; install ROCm/DTK or CUDA, "
      "or pass -DHIPFLASHSORT_PLATFORM=amd|nvidia with the compiler on PATH")
  endif()
  set(HIPFLASHSORT_PLATFORM ${_hfs_detected} CACHE STRING "Target platform: amd (hipcc/ROCm clang) or nvidia (nvcc); empty = detect" FORCE)
endif()

if(NOT HIPFLASHSORT_PLATFORM MATCHES "^(amd|nvidia)$")
  message(FATAL_ERROR "hipflashsort: HIPFLASHSORT_PLATFORM must be amd or nvidia, not '${HIPFLASHSORT_PLATFORM}'")
endif()

if(HIPFLASHSORT_PLATFORM STREQUAL "amd" AND NOT CMAKE_CXX_COMPILER)
  find_program(HIPFLASHSORT_HIPCC hipcc HINTS ENV ROCM_PATH ENV HIP_PATH /opt/rocm /opt/dtk PATH_SUFFIXES bin)
  if(NOT HIPFLASHSORT_HIPCC)
    message(FATAL_ERROR "hipflashsort: platform amd needs hipcc (install hipcc, ROCm or DTK, or set CXX)")
  endif()
  set(CMAKE_CXX_COMPILER ${HIPFLASHSORT_HIPCC})
endif()
