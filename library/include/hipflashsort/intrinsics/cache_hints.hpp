// Cache hints for global memory: prefetches into L2 and stores that L2 evicts first.
#ifndef HIPFLASHSORT_INTRINSICS_CACHE_HINTS_HPP_
#define HIPFLASHSORT_INTRINSICS_CACHE_HINTS_HPP_

#include <type_traits>

#include "../config.hpp"

namespace hipflashsort {

/// Asks for the global-memory line holding `p` to be brought into L2, without waiting for it and
/// without a register to receive it. gfx9 has no such instruction: there it does nothing.
HIPFLASHSORT_DEVICE void prefetch_l2(const void* p)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}

/// *p = v, marked as data not read again soon, so that caches evict it before other lines
/// (arithmetic types; others are stored plainly).
template <class T>
HIPFLASHSORT_DEVICE void store_streaming(T* p, const T& v)
{
    if constexpr(std::is_arithmetic_v<T>)
    {
#if defined(__HIP_PLATFORM_NVIDIA__)
        __stcs(p, v);
#else
        __builtin_nontemporal_store(v, p);
#endif
    }
    else
        *p = v;
}

} // namespace hipflashsort

#endif
