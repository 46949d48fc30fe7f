// The wavefront (AMD) / warp (NVIDIA) abstraction: its size, lane masks of the right width,
// the lane id, and a host-side query. Device code uses the compile-time size of the target being
// compiled; host code must ask the device (wavefront_size()).
#ifndef HIPFLASHSORT_INTRINSICS_WAVEFRONT_HPP_
#define HIPFLASHSORT_INTRINSICS_WAVEFRONT_HPP_

#include <cstdint>
#include <type_traits>

#include "../config.hpp"

#if defined(__HIP_PLATFORM_NVIDIA__)
    #define HIPFLASHSORT_WAVEFRONT_SIZE 32
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
    #define HIPFLASHSORT_WAVEFRONT_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
    // AMD host pass: every target this library is built for (gfx9 GCN/CDNA, Hygon DCU) runs wave64.
    #define HIPFLASHSORT_WAVEFRONT_SIZE 64
#endif

namespace hipflashsort {

/// Hardware wavefront size of the target being compiled (32 on NVIDIA, 64 on gfx9/DCU).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int device_wavefront_size()
{
    return HIPFLASHSORT_WAVEFRONT_SIZE;
}

/// LDS of one multiprocessor on the targets this build is for, at least: 64 KiB per CU on gfx9
/// and DCU; on NVIDIA 100 KiB, the least of any GPU from sm_80 on (228 KiB on sm_90).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int multiprocessor_lds()
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return 100 * 1024;
#else
    return 64 * 1024;
#endif
}

/// LDS of one multiprocessor of the architecture that this device compilation pass targets: 164
/// KiB on sm_80 and sm_87, 228 KiB on sm_90 and sm_100; multiprocessor_lds() for other
/// architectures, on AMD, and in host passes. Only for the layout of LDS that kernels alone
/// declare (no host code takes its size), which may then differ between architectures.
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int target_multiprocessor_lds()
{
#if defined(__HIP_PLATFORM_NVIDIA__) && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870)
    return 164 * 1024;
#elif defined(__HIP_PLATFORM_NVIDIA__) && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
    return 228 * 1024;
#else
    return multiprocessor_lds();
#endif
}

/// Most dynamic LDS one block may opt in to on the targets this build is for: a multiprocessor's
/// LDS less 1 KiB. On NVIDIA that is the reserve the hardware keeps per block (99 KiB, what every
/// GPU from sm_80 on grants; 227 KiB on sm_90), so that an opt-in the device refuses (sm_70: 96
/// KiB) is found at run time; on gfx9 and DCU 63 of the 64 KiB per workgroup.
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int dynamic_lds_limit()
{
    return multiprocessor_lds() - 1024;
}

/// Second argument of __launch_bounds__ for a register cap measured on NVIDIA: `blocks` resident
/// blocks per multiprocessor there; none (0) on AMD, where that argument counts waves per SIMD
/// and the 64 KiB of gfx9 LDS, not registers, bounds such kernels' residency (gfx906: the block
/// pair network takes 91-97 VGPRs at two waves per SIMD uncapped, and spilled 32 capped at 64).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int register_cap_blocks(unsigned int blocks)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return blocks;
#else
    (void)blocks;
    return 0;
#endif
}

/// LDS a multiprocessor keeps per resident block beyond what the block asks for: 1 KiB on NVIDIA
/// from sm_80 on, none on AMD. Two blocks share a multiprocessor's LDS when each takes at most
/// half of it less this.
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int lds_reserved_per_block()
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return 1024;
#else
    return 0;
#endif
}

/// Unsigned integer with one bit per lane of a wavefront of Width lanes.
template <unsigned int Width>
using lane_mask_t = std::conditional_t<(Width > 32), std::uint64_t, std::uint32_t>;

/// Lane mask of the hardware wavefront.
using lane_mask_type = lane_mask_t<HIPFLASHSORT_WAVEFRONT_SIZE>;

/// Index of the calling thread within its hardware wavefront.
HIPFLASHSORT_DEVICE unsigned int lane_id()
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
#else
    return __lane_id();
#endif
}

/// The hardware lanes of the caller's logical wavefront of Width lanes (a power of two), where
/// `hardware_lane` is the caller's lane_id().
template <unsigned int Width>
HIPFLASHSORT_DEVICE lane_mask_type logical_wave_mask(unsigned int hardware_lane)
{
    if constexpr(Width >= device_wavefront_size())
    {
        return ~lane_mask_type(0);
    }
    else
    {
        const lane_mask_type ones = (lane_mask_type(1) << Width) - 1;
        return ones << (hardware_lane & ~(Width - 1));
    }
}

/// Host: wavefront size of device `device` (or of the current device when device < 0).
inline hipError_t wavefront_size(unsigned int& size, int device = -1)
{
    if(device < 0) HIPFLASHSORT_RETURN_IF_ERROR(hipGetDevice(&device));
    int value = 0;
    HIPFLASHSORT_RETURN_IF_ERROR(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, device));
    size = static_cast<unsigned int>(value);
    return hipSuccess;
}

} // namespace hipflashsort

#endif
