// Word arithmetic that host and device code share, each pass with its own instruction: the high
// half of a product and the count of leading zero bits.
#ifndef HIPFLASHSORT_INTRINSICS_BITS_HPP_
#define HIPFLASHSORT_INTRINSICS_BITS_HPP_

#include <cstdint>

#include "../config.hpp"

namespace hipflashsort {

/// High 32 bits of a * b.
HIPFLASHSORT_HOST_DEVICE std::uint32_t mul_hi(std::uint32_t a, std::uint32_t b)
{
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
}

/// High 64 bits of a * b.
HIPFLASHSORT_HOST_DEVICE std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __umul64hi(a, b);
#else
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// Zero bits above the highest set bit of v (v != 0).
HIPFLASHSORT_HOST_DEVICE unsigned int leading_zeros(std::uint32_t v)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return static_cast<unsigned int>(__clz(static_cast<int>(v)));
#else
    return static_cast<unsigned int>(__builtin_clz(v));
#endif
}

/// Zero bits above the highest set bit of v (v != 0).
HIPFLASHSORT_HOST_DEVICE unsigned int leading_zeros(std::uint64_t v)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return static_cast<unsigned int>(__clzll(static_cast<long long>(v)));
#else
    return static_cast<unsigned int>(__builtin_clzll(v));
#endif
}

} // namespace hipflashsort

#endif
