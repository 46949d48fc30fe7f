# Edits that make HIP's NVIDIA runtime-API header compile against newer CUDA releases.
#
# HIP 5.x wraps CUDA APIs that CUDA 12 and 13 removed or changed. Every edit keeps the
# original text in an `#else` branch behind a CUDART_VERSION test, so the edited header still
# compiles with the CUDA it was written for. An edit whose text is absent (another HIP release)
# is skipped; the configure-time probe that follows decides whether the result is usable.
#
# Entry point: hipflashsort_compat_edit(<content-var> <applied-count-var>).

set(HIPFLASHSORT_COMPAT_MARKER "hipflashsort-compat")

# Replace the whole lines OLD with NEW when CUDART_VERSION >= MIN_CUDART.
macro(_hfs_guarded_edit min_cudart old new)
  string(FIND "${_hfs_text}" "${old}" _hfs_pos)
  if(NOT _hfs_pos EQUAL -1)
    string(REPLACE "${old}"
      "#if CUDART_VERSION >= ${min_cudart} /* ${HIPFLASHSORT_COMPAT_MARKER} */\n${new}#else\n${old}#endif\n"
      _hfs_text "${_hfs_text}")
    math(EXPR _hfs_applied "${_hfs_applied} + 1")
  endif()
endmacro()

# Keep the text from the first BEGIN to the end of the last END only when CUDART_VERSION < MAX.
macro(_hfs_guard_range max_cudart begin end)
  string(FIND "${_hfs_text}" "${begin}" _hfs_b)
  string(FIND "${_hfs_text}" "${end}" _hfs_e REVERSE)
  if(NOT _hfs_b EQUAL -1 AND _hfs_e GREATER _hfs_b)
    string(LENGTH "${end}" _hfs_end_len)
    math(EXPR _hfs_e "${_hfs_e} + ${_hfs_end_len}")
    math(EXPR _hfs_mid_len "${_hfs_e} - ${_hfs_b}")
    string(SUBSTRING "${_hfs_text}" 0 ${_hfs_b} _hfs_head)
    string(SUBSTRING "${_hfs_text}" ${_hfs_b} ${_hfs_mid_len} _hfs_mid)
    string(SUBSTRING "${_hfs_text}" ${_hfs_e} -1 _hfs_tail)
    set(_hfs_text "${_hfs_head}#if CUDART_VERSION < ${max_cudart} /* ${HIPFLASHSORT_COMPAT_MARKER} */\n${_hfs_mid}#endif\n${_hfs_tail}")
    math(EXPR _hfs_applied "${_hfs_applied} + 1")
  endif()
endmacro()

function(hipflashsort_compat_edit content_var applied_var)
  set(_hfs_text "${${content_var}}")
  set(_hfs_applied 0)
  string(FIND "${_hfs_text}" "${HIPFLASHSORT_COMPAT_MARKER}" _already)
  if(NOT _already EQUAL -1)
    # Already edited: applying the edits again would nest the guards.
    set(${applied_var} 0 PARENT_SCOPE)
    return()
  endif()

  # CUDA 12 removed texture references: the templates taking texture<> cannot even be parsed.
  _hfs_guard_range(12000
    "template <class T, int dim, enum cudaTextureReadMode readMode>\n"
    "cudaBindTextureToArray(tex, array));\n}\n")
  _hfs_guarded_edit(12000
    "    return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));\n"
    "    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)size;\n    return hipErrorNotSupported;\n")
  _hfs_guarded_edit(12000
    "    return hipCUDAErrorTohipError(cudaBindTexture2D(offset, tex, devPtr, desc, width, height, pitch));\n"
    "    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)width; (void)height; (void)pitch;\n    return hipErrorNotSupported;\n")
  _hfs_guarded_edit(12000
    "    return hipCUDAErrorTohipError(cudaGetTextureAlignmentOffset(offset,texref));\n"
    "    (void)offset; (void)texref;\n    return hipErrorNotSupported;\n")

  # CUDA 13: managed-memory hints take a cudaMemLocation instead of a device ordinal.
  _hfs_guarded_edit(13000
    "inline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,\n"
    "static inline struct cudaMemLocation hipflashsort_compat_mem_location(int device) {\n    struct cudaMemLocation loc;\n    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;\n    loc.id = device == cudaCpuDeviceId ? 0 : device;\n    return loc;\n}\ninline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,\n")
  _hfs_guarded_edit(13000
    "        hipMemoryAdviseTocudaMemoryAdvise(advice), device));\n"
    "        hipMemoryAdviseTocudaMemoryAdvise(advice), hipflashsort_compat_mem_location(device)));\n")
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaMemPrefetchAsync(dev_ptr, count, device, stream));\n"
    "    return hipCUDAErrorTohipError(\n        cudaMemPrefetchAsync(dev_ptr, count, hipflashsort_compat_mem_location(device), 0, stream));\n")

  # CUDA 13 removed these cudaDeviceProp fields; the values remain device attributes.
  foreach(field clockRate computeMode memoryClockRate)
    _hfs_guarded_edit(13000 "    cdprop.${field} = prop->${field};\n" "")
  endforeach()
  _hfs_guarded_edit(13000
    "    p_prop->clockRate = cdprop.clockRate;\n"
    "    cudaDeviceGetAttribute(&p_prop->clockRate, cudaDevAttrClockRate, device);\n")
  _hfs_guarded_edit(13000
    "    p_prop->memoryClockRate = cdprop.memoryClockRate;\n"
    "    cudaDeviceGetAttribute(&p_prop->memoryClockRate, cudaDevAttrMemoryClockRate, device);\n")
  _hfs_guarded_edit(13000
    "    p_prop->computeMode = cdprop.computeMode;\n"
    "    cudaDeviceGetAttribute(&p_prop->computeMode, cudaDevAttrComputeMode, device);\n")
  _hfs_guarded_edit(13000
    "    p_prop->clockInstructionRate = cdprop.clockRate; // Same as clock-rate:\n"
    "    p_prop->clockInstructionRate = p_prop->clockRate;\n")
  _hfs_guarded_edit(13000
    "    p_prop->kernelExecTimeoutEnabled = cdprop.kernelExecTimeoutEnabled;\n"
    "    cudaDeviceGetAttribute(&p_prop->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout, device);\n")
  # Multi-device cooperative launch is gone in CUDA 13, so it is reported unsupported.
  _hfs_guarded_edit(13000
    "    p_prop->cooperativeMultiDeviceLaunch = cdprop.cooperativeMultiDeviceLaunch;\n"
    "    p_prop->cooperativeMultiDeviceLaunch = 0;\n")
  _hfs_guarded_edit(13000
    "            cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;\n"
    "            *pi = 0;\n            return hipSuccess;\n")
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, numDevices, flags));\n"
    "    (void)launchParamsList; (void)numDevices; (void)flags;\n    return hipErrorNotSupported;\n")

  # CUDA 13: cuCtxCreate takes creation parameters (NULL = defaults).
  _hfs_guarded_edit(13000
    "    return hipCUResultTohipError(cuCtxCreate(ctx, flags, device));\n"
    "    return hipCUResultTohipError(cuCtxCreate(ctx, NULL, flags, device));\n")

  # CUDA 13: graph-edge APIs take optional edge data (NULL = default edges).
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaGraphAddDependencies(graph, from, to, numDependencies));\n"
    "    return hipCUDAErrorTohipError(cudaGraphAddDependencies(graph, from, to, NULL, numDependencies));\n")
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaGraphRemoveDependencies(graph, from, to, numDependencies));\n"
    "    return hipCUDAErrorTohipError(cudaGraphRemoveDependencies(graph, from, to, NULL, numDependencies));\n")
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaGraphGetEdges(graph, from, to, numEdges));\n"
    "    return hipCUDAErrorTohipError(cudaGraphGetEdges(graph, from, to, NULL, numEdges));\n")
  _hfs_guarded_edit(13000
    "        cudaGraphNodeGetDependencies(node, pDependencies, pNumDependencies));\n"
    "        cudaGraphNodeGetDependencies(node, pDependencies, NULL, pNumDependencies));\n")
  _hfs_guarded_edit(13000
    "        cudaGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes));\n"
    "        cudaGraphNodeGetDependentNodes(node, pDependentNodes, NULL, pNumDependentNodes));\n")
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaStreamUpdateCaptureDependencies(stream, dependencies,\n                                                                      numDependencies, flags));\n"
    "    return hipCUDAErrorTohipError(\n        cudaStreamUpdateCaptureDependencies(stream, dependencies, NULL, numDependencies, flags));\n")
  # CUDA 13 folded cudaStreamGetCaptureInfo_v2 into cudaStreamGetCaptureInfo (with edge data).
  _hfs_guarded_edit(13000
    "    return hipCUDAErrorTohipError(cudaStreamGetCaptureInfo_v2(\n        stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out));\n"
    "    return hipCUDAErrorTohipError(cudaStreamGetCaptureInfo(\n        stream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out));\n")

  if(_hfs_applied GREATER 0)
    set(_hfs_text "/* Edited by hipflashsort (${HIPFLASHSORT_COMPAT_MARKER}): ${_hfs_applied} edits that keep HIP's NVIDIA\n * wrappers compiling with CUDA 12/13. Each edit keeps the original behind CUDART_VERSION. */\n${_hfs_text}")
  endif()
  set(${content_var} "${_hfs_text}" PARENT_SCOPE)
  set(${applied_var} ${_hfs_applied} PARENT_SCOPE)
endfunction()
