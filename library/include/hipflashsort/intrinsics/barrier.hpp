// Barriers at block and wavefront scope.
#ifndef HIPFLASHSORT_INTRINSICS_BARRIER_HPP_
#define HIPFLASHSORT_INTRINSICS_BARRIER_HPP_

#include "../config.hpp"

namespace hipflashsort {

/// Block-wide barrier that also orders shared-memory accesses.
HIPFLASHSORT_DEVICE void syncthreads() { __syncthreads(); }

/// syncthreads() that also tells every thread whether `predicate` held in any thread of the block.
HIPFLASHSORT_DEVICE bool syncthreads_or(bool predicate) { return __syncthreads_or(predicate) != 0; }

/// Wavefront-wide barrier that orders shared-memory accesses among the lanes of one wavefront:
/// needed between an LDS write by one lane and a read by another (NVIDIA lanes are independently
/// scheduled; AMD needs the fence so the compiler keeps the order).
HIPFLASHSORT_DEVICE void wave_barrier()
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    __syncwarp();
#else
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
}

} // namespace hipflashsort

#endif
