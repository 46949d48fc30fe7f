// Bitonic networks over composites carried as floats, whose stages between lanes take one
// min per item instead of a min and a max.
//
// In a stage between lanes, the lane at the lower position keeps the smaller word and its partner
// the larger. Integer min and max are separate instructions (sm_90 has no min/max with a run-time
// selector), so each lane computed both. Floats negate an operand for free: a lane whose words are
// held negated (its polarity) keeps -max(a, b) = min(-a, -b). With the upper lane of every pair
// negated, both lanes of a stage run the same min(own, -partner's), and a stage costs one min
// per item plus one multiplication by +-1 where a lane's polarity changes between stages, which
// runs on the FMA pipe instead of the integer ALU that the network's min/max saturate.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_POLARITY_NETWORK_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_POLARITY_NETWORK_HPP_

#include <cstdint>

#include "../../detail/empty_type.hpp"
#include "../../intrinsics/intrinsics.hpp"
#include "../../thread/thread_sorting_network.hpp"

namespace hipflashsort {
namespace detail {

/// Composites below this many map onto floats (composite_float_bits): the normal ones, 2^31 - 2^24
/// of each sign.
inline constexpr std::uint32_t float_composites = 0xfe000000u;

/// Float bits of a composite below float_composites, in the composites' order: negative normal
/// floats, then positive ones. No word is zero, subnormal, infinite or NaN, so code built to flush
/// subnormals (fast math) orders them the same, and a multiplication by -1 is exact.
HIPFLASHSORT_HOST_DEVICE constexpr std::uint32_t composite_float_bits(std::uint32_t composite)
{
    constexpr std::uint32_t negatives = float_composites / 2;
    return composite < negatives ? 0xff7fffffu - composite : composite - negatives + 0x00800000u;
}

/// The composite's bits under `mask` (below 2^23) from its float bits: the low bits of a positive
/// word's, the complement of a negative one's (2^23 divides every offset above).
HIPFLASHSORT_HOST_DEVICE constexpr std::uint32_t composite_low_bits(std::uint32_t bits, std::uint32_t mask)
{
    return (bits ^ std::uint32_t(int(bits) >> 31)) & mask;
}

/// Padding after every composite: +inf.
inline constexpr std::uint32_t composite_float_padding = 0x7f800000u;

/// Float order on words without NaNs or negative zeros: equal words are equal bits.
struct float_word_less
{
    HIPFLASHSORT_DEVICE bool operator()(float a, float b) const { return a < b; }
};

template <>
struct is_natural_less<float_word_less> : std::true_type
{
};

/// The network of one logical wavefront of Lanes lanes, Items (a power of two) words per lane,
/// blocked, ascending (+ polarity in and out).
template <unsigned int Lanes, unsigned int Items>
struct polarity_wave_network
{
    static_assert((Items & (Items - 1)) == 0, "a power of two of items per lane");

    /// -1 for a lane whose bit `bit` is set (the upper lane of a stage of that lane stride).
    HIPFLASHSORT_DEVICE static float sign(unsigned int lane, unsigned int bit)
    {
        return (lane & bit) != 0 ? -1.0f : 1.0f;
    }

    HIPFLASHSORT_DEVICE static void scale(float (&x)[Items], float by)
    {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++) x[j] *= by;
    }

    /// Flip stage against lane ^ mask: item j meets the partner's item Items - 1 - j.
    HIPFLASHSORT_DEVICE static void flip_stage(float (&x)[Items], unsigned int mask)
    {
#pragma unroll
        for(unsigned int j = 0; j < Items / 2; j++)
        {
            const unsigned int m = Items - 1 - j;
            const float into_j = shuffle_xor(x[m], int(mask), int(Lanes));
            const float into_m = shuffle_xor(x[j], int(mask), int(Lanes));
            x[j] = fminf(x[j], -into_j);
            x[m] = fminf(x[m], -into_m);
        }
    }

    HIPFLASHSORT_DEVICE static void stage(float (&x)[Items], unsigned int stride)
    {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++)
        {
            const float partner = shuffle_xor(x[j], int(stride), int(Lanes));
            x[j] = fminf(x[j], -partner);
        }
    }

    /// Half-cleaners across lanes at lane strides Stride ... 1, the words held at `polarity`;
    /// they end at + polarity.
    template <unsigned int Stride>
    HIPFLASHSORT_DEVICE static void half_clean(float (&x)[Items], unsigned int lane, float polarity)
    {
        if constexpr(Stride == 0)
        {
            scale(x, polarity);
        }
        else
        {
            const float next = sign(lane, Stride);
            scale(x, polarity * next);
            stage(x, Stride);
            half_clean<Stride / 2>(x, lane, next);
        }
    }

    HIPFLASHSORT_DEVICE static void thread_half_clean(float (&x)[Items])
    {
        empty_type none[Items];
        thread_network_half_cleaners<Items, Items / 2>(x, none, float_word_less{});
    }

    /// Merges groups of L lanes whose halves are sorted, then groups twice as large.
    template <unsigned int L>
    HIPFLASHSORT_DEVICE static void merge_levels(float (&x)[Items], unsigned int lane)
    {
        if constexpr(L <= Lanes)
        {
            const float polarity = sign(lane, L / 2);
            scale(x, polarity);
            flip_stage(x, L - 1);
            half_clean<L / 4>(x, lane, polarity);
            thread_half_clean(x);
            merge_levels<L * 2>(x, lane);
        }
    }

    HIPFLASHSORT_DEVICE static void sort(float (&x)[Items], unsigned int lane)
    {
        empty_type none[Items];
        thread_network_sort<Items>(x, none, float_word_less{});
        merge_levels<2>(x, lane);
    }

    /// The wavefront's words form a bitonic sequence (flip form): its half-cleaners.
    HIPFLASHSORT_DEVICE static void merge_bitonic(float (&x)[Items], unsigned int lane)
    {
        half_clean<Lanes / 2>(x, lane, 1.0f);
        thread_half_clean(x);
    }
};

} // namespace detail
} // namespace hipflashsort

#endif
