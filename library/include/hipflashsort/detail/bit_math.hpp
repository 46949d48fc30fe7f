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
    // Smearing the top bit down takes no loop: blocks compute this at run time before sorting.
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    return v <= 1 ? 1u : v - (v >> 1);
}

HIPFLASHSORT_HOST_DEVICE constexpr unsigned int max_u(unsigned int a, unsigned int b) { return a < b ? b : a; }

} // namespace detail
} // namespace hipflashsort

#endif
