// Cross-lane data exchange for any trivially copyable type, word by word. Every lane of the
// hardware wavefront must call these together (on NVIDIA they use the full-warp _sync forms).
// `width` (a power of two up to the wavefront size) splits the wavefront into logical groups, as
// __shfl's width does.
#ifndef HIPFLASHSORT_INTRINSICS_SHUFFLE_HPP_
#define HIPFLASHSORT_INTRINSICS_SHUFFLE_HPP_

#include <cstdint>
#include <type_traits>

#include "wavefront.hpp"

namespace hipflashsort {
namespace detail {

HIPFLASHSORT_DEVICE int shfl_word(int v, int src, int width)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_sync(0xffffffffu, v, src, width);
#else
    return __shfl(v, src, width);
#endif
}

HIPFLASHSORT_DEVICE int shfl_xor_word(int v, int mask, int width)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_xor_sync(0xffffffffu, v, mask, width);
#else
    return __shfl_xor(v, mask, width);
#endif
}

HIPFLASHSORT_DEVICE int shfl_up_word(int v, unsigned int delta, int width)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_up_sync(0xffffffffu, v, delta, width);
#else
    return __shfl_up(v, delta, width);
#endif
}

HIPFLASHSORT_DEVICE int shfl_down_word(int v, unsigned int delta, int width)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_down_sync(0xffffffffu, v, delta, width);
#else
    return __shfl_down(v, delta, width);
#endif
}

// Applies `op` to each 4-byte word of `value` (padded up to whole words).
template <class T, class Op>
HIPFLASHSORT_DEVICE T shuffle_words(const T& value, Op op)
{
    static_assert(std::is_trivially_copyable<T>::value, "shuffled types must be trivially copyable");
    constexpr unsigned int words = (sizeof(T) + sizeof(int) - 1) / sizeof(int);
    union storage
    {
        T value;
        int words[words];
        HIPFLASHSORT_DEVICE storage() {}
    } in, out;
    in.value = value;
#pragma unroll
    for(unsigned int i = 0; i < words; i++)
    {
        out.words[i] = op(in.words[i]);
    }
    return out.value;
}

} // namespace detail

/// Value of `value` held by lane `src_lane` of the caller's logical group of `width` lanes.
template <class T>
HIPFLASHSORT_DEVICE T shuffle(const T& value, int src_lane, int width = HIPFLASHSORT_WAVEFRONT_SIZE)
{
    return detail::shuffle_words(value, [=](int w) { return detail::shfl_word(w, src_lane, width); });
}

/// Value of `value` held by lane (lane_id ^ lane_mask) within the logical group.
template <class T>
HIPFLASHSORT_DEVICE T shuffle_xor(const T& value, int lane_mask, int width = HIPFLASHSORT_WAVEFRONT_SIZE)
{
    return detail::shuffle_words(value, [=](int w) { return detail::shfl_xor_word(w, lane_mask, width); });
}

/// Value from lane (lane - delta); lanes below delta keep their own.
template <class T>
HIPFLASHSORT_DEVICE T shuffle_up(const T& value, unsigned int delta, int width = HIPFLASHSORT_WAVEFRONT_SIZE)
{
    return detail::shuffle_words(value, [=](int w) { return detail::shfl_up_word(w, delta, width); });
}

/// Value from lane (lane + delta); lanes past the group's end keep their own.
template <class T>
HIPFLASHSORT_DEVICE T shuffle_down(const T& value, unsigned int delta, int width = HIPFLASHSORT_WAVEFRONT_SIZE)
{
    return detail::shuffle_words(value, [=](int w) { return detail::shfl_down_word(w, delta, width); });
}

namespace detail {

/// The shuffle butterfly behind wave_min / wave_max: each step keeps keep(own, partner's).
template <class Keep>
HIPFLASHSORT_DEVICE std::uint32_t wave_butterfly(std::uint32_t value, Keep keep)
{
#pragma unroll
    for(unsigned int offset = device_wavefront_size() / 2; offset > 0; offset /= 2)
        value = keep(value, shuffle_xor(value, int(offset)));
    return value;
}

} // namespace detail

/// Smallest and largest of a 32-bit word over the whole hardware wavefront; every lane gets it.
/// One redux instruction each on NVIDIA from sm_80 on, else a butterfly of shuffles.
HIPFLASHSORT_DEVICE std::uint32_t wave_min(std::uint32_t value)
{
#if defined(__HIP_PLATFORM_NVIDIA__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(0xffffffffu, value);
#else
    return detail::wave_butterfly(value, [](std::uint32_t a, std::uint32_t b) { return b < a ? b : a; });
#endif
}

HIPFLASHSORT_DEVICE std::uint32_t wave_max(std::uint32_t value)
{
#if defined(__HIP_PLATFORM_NVIDIA__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, value);
#else
    return detail::wave_butterfly(value, [](std::uint32_t a, std::uint32_t b) { return a < b ? b : a; });
#endif
}

/// Sum over a logical wavefront of Width lanes (a power of two); every lane gets it.
template <unsigned int Width, class T>
HIPFLASHSORT_DEVICE T logical_wave_sum(T value)
{
#pragma unroll
    for(unsigned int offset = Width / 2; offset > 0; offset /= 2)
    {
        value += shuffle_xor(value, int(offset), int(Width));
    }
    return value;
}

} // namespace hipflashsort

#endif
