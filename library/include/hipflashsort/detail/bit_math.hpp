// Power-of-two arithmetic shared by the networks and the flash sort (compile time and host).
#ifndef HIPFLASHSORT_DETAIL_BIT_MATH_HPP_
#define HIPFLASHSORT_DETAIL_BIT_MATH_HPP_

#include "../config.hpp"

namespace hipflashsort {
namespace detail {

/// Smallest l with 2^l >= v (0 for v <= 1).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int log2_ceil(unsigned int v)
{
    unsigned int l = 0;
    while((1u << l) < v) l++;
    return l;
}

/// Smallest power of two >= v (1 for v <= 1).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int ceil_pow2(unsigned int v) { return 1u << log2_ceil(v); }

/// Largest power of two <= v (1 for v <= 1).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int pow2_floor(unsigned int v)
{
    unsigned int p = 1;
    while(p * 2 <= v) p *= 2;
    return p;
}

HIPFLASHSORT_HOST_DEVICE constexpr unsigned int max_u(unsigned int a, unsigned int b) { return a < b ? b : a; }

} // namespace detail
} // namespace hipflashsort

#endif
