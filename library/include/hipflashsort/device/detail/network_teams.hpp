// The threads that run one bitonic network together: a logical wavefront, whose stages are
// registers and shuffles, or a block of logical wavefronts, whose largest strides go through LDS.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_NETWORK_TEAMS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_NETWORK_TEAMS_HPP_

#include <cstdint>
#include <type_traits>

#include "../../block/detail/block_primitives.hpp"
#include "../../intrinsics/intrinsics.hpp"
#include "../../warp/warp_bitonic_sort.hpp"
#include "lds_rows.hpp"
#include "polarity_network.hpp"

namespace hipflashsort {
namespace detail {

/// Lanes of the block networks' logical wavefronts (a hardware wavefront of 64 holds two); the
/// block of Waves of them has Waves * block_network_lanes threads.
inline constexpr unsigned int block_network_lanes = 32;

/// One stage of a block network between wavefronts: position p (this lane's item j at
/// first + j) meets p ^ mask through the swizzled LDS row, and the lower position keeps the
/// smaller image. mask = level - 1 is a level's flip stage, a single bit from a wavefront's span
/// (Lanes * Items) on one of its half-cleaners; either way the partner lies in another wavefront.
/// Fresh: no thread has read the row since the last block barrier, so the stage stores at once.
/// FloatWords: the words are float composites (polarity_network.hpp), compared as floats.
template <bool Fresh, unsigned int Items, bool FloatWords = false>
HIPFLASHSORT_DEVICE void exchange_across_waves(std::uint32_t* row, std::uint32_t (&images)[Items], unsigned int first,
                                               unsigned int mask)
{
    using slots = swizzled_row<std::uint32_t, Items>;
    constexpr unsigned int n = slots::chunk_items;
    if constexpr(!Fresh) syncthreads(); // the row's previous readers are done
    slots::store(row, first, images);
    syncthreads();
    // The highest bit of the mask tells the lower position from the upper: it is a wavefront bit,
    // the same for all of this lane's items. A flip stage (mask = level - 1) pairs item j with the
    // partner lane's item Items - 1 - j, so each partner chunk is read reversed.
    const unsigned int top = 1u << (31 - leading_zeros(mask));
    const bool flip = (mask & 1u) != 0;
    const auto keep = [&](auto lower_side) {
        constexpr bool lower = decltype(lower_side)::value; // not its operator bool: a host function
#pragma unroll
        for(unsigned int c = 0; c < slots::lane_chunks; c++)
        {
            const auto partners = slots::load_chunk(row, ((first + c * n) ^ mask) & ~(n - 1));
#pragma unroll
            for(unsigned int i = 0; i < n; i++)
            {
                const std::uint32_t partner = partners.items[flip ? n - 1 - i : i];
                std::uint32_t& image = images[c * n + i];
                if constexpr(FloatWords)
                    image = __float_as_uint(lower ? fminf(__uint_as_float(image), __uint_as_float(partner))
                                                  : fmaxf(__uint_as_float(image), __uint_as_float(partner)));
                else
                    image = lower ? min_of(image, partner) : max_of(image, partner);
            }
        }
    };
    // A branch, not a select per item: the side is the same for the whole wavefront, and the
    // select made the compiler issue both a min and a max for every item.
    if((first & top) == 0)
        keep(std::true_type{});
    else
        keep(std::false_type{});
}

/// Exchange rows of a block network of `waves` logical wavefronts (block_network_sort): two in
/// turn where a block may take more LDS than gfx9's 64 KiB per workgroup, which bounds these
/// kernels' residency there; one for two wavefronts, whose networks have one exchange stage.
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int block_network_rows(unsigned int waves)
{
    return waves >= 4 && dynamic_lds_limit() > 64 * 1024 ? 2 : 1;
}

/// The steps inside one logical wavefront of block_network_sort: its words sorted as integers
/// (warp_bitonic_sort), or as floats (FloatWords: polarity_wave_network, the words being
/// composites that rank_by_bits mapped onto floats). `lane`: the lane within the wavefront.
template <unsigned int Lanes, unsigned int Items, bool FloatWords>
struct wave_network_steps
{
    template <class Step>
    HIPFLASHSORT_DEVICE static void on_floats(std::uint32_t (&words)[Items], Step step)
    {
        float x[Items];
#pragma unroll
        for(unsigned int j = 0; j < Items; j++) x[j] = __uint_as_float(words[j]);
        step(x);
#pragma unroll
        for(unsigned int j = 0; j < Items; j++) words[j] = __float_as_uint(x[j]);
    }
    HIPFLASHSORT_DEVICE static void sort(std::uint32_t (&words)[Items], unsigned int lane)
    {
        if constexpr(FloatWords)
            on_floats(words, [&](float(&x)[Items]) { polarity_wave_network<Lanes, Items>::sort(x, lane); });
        else
            warp_bitonic_sort<std::uint32_t, Lanes, Items>().sort(words);
    }
    HIPFLASHSORT_DEVICE static void merge_bitonic(std::uint32_t (&words)[Items], unsigned int lane)
    {
        if constexpr(FloatWords)
            on_floats(words, [&](float(&x)[Items]) { polarity_wave_network<Lanes, Items>::merge_bitonic(x, lane); });
        else
            warp_bitonic_sort<std::uint32_t, Lanes, Items>().merge_bitonic(words);
    }
};

/// Ascending bitonic network over a block of Waves logical wavefronts of Lanes, Items 32-bit
/// words per lane, blocked: the lane whose first position is `first` holds first ... first +
/// Items - 1. Each wavefront sorts its span in registers and shuffles; each merge level above it
/// runs its strides of a span and more between wavefronts through `row` (Rows * Waves * Lanes *
/// Items words of LDS) and the smaller ones inside each wavefront. With two rows the stages
/// alternate between them, so that a stage need not wait for the previous one's readers: one
/// block barrier per stage instead of two, after the first. FloatWords: the words are float
/// composites (polarity_network.hpp), in float order.
template <unsigned int Waves, unsigned int Lanes, unsigned int Items, unsigned int Rows = 1, bool FloatWords = false>
HIPFLASHSORT_DEVICE void block_network_sort(std::uint32_t* row, std::uint32_t (&words)[Items], unsigned int first)
{
    static_assert(Rows == 1 || Rows == 2, "one row, or two in turn");
    using steps = wave_network_steps<Lanes, Items, FloatWords>;
    constexpr unsigned int span = Lanes * Items, capacity = Waves * span;
    const unsigned int lane = first / Items % Lanes;
    steps::sort(words, lane);
    unsigned int stage = 0;
    const auto exchange = [&](unsigned int mask) {
        if(Rows == 2 && stage > 0)
            exchange_across_waves<true, Items, FloatWords>(row + stage % 2 * capacity, words, first, mask);
        else
            exchange_across_waves<false, Items, FloatWords>(row, words, first, mask);
        stage++;
    };
#pragma unroll
    for(unsigned int level = 2 * span; level <= capacity; level *= 2)
    {
        exchange(level - 1);
#pragma unroll
        for(unsigned int stride = level / 4; stride >= span; stride /= 2) exchange(stride);
        steps::merge_bitonic(words, lane);
    }
}

// A team is the group of threads that sorts one LDS row together (sort_composites): `size`
// members, member m holding the row's blocked positions m * Items ... . It orders its members'
// LDS accesses (barrier), votes (any, and any_uniform where all members agree), reduces
// (min_max), sorts 32-bit words with one network (sort) and shows each member the next member's
// first word (above_next). Every member calls each of these, in the same order. Its members are
// logical wavefronts of `lanes`, in order.

/// A logical wavefront of Lanes as a team. Its votes are ballots of the whole hardware wavefront,
/// which may hold several teams: a team may then take a rare path that only another one needed.
template <unsigned int Lanes>
struct wave_team
{
    static constexpr unsigned int size = Lanes;
    static constexpr unsigned int lanes = Lanes; // of each logical wavefront
    static constexpr bool float_words = false;   // composites of 32 bits, sorted as integers
    unsigned int member;

    HIPFLASHSORT_DEVICE void barrier() const { wave_barrier(); }
    HIPFLASHSORT_DEVICE bool any(bool predicate) const { return ballot(predicate) != 0; }
    /// any() of a predicate the same for all members: still a ballot, since the other teams of the
    /// hardware wavefront may differ, and every lane must go on to the shuffles that follow.
    HIPFLASHSORT_DEVICE bool any_uniform(bool predicate) const { return any(predicate); }
    HIPFLASHSORT_DEVICE void min_max(std::uint32_t& low, std::uint32_t& high) const
    {
        logical_wave_min_max<Lanes>(low, high);
    }
    template <unsigned int Items>
    HIPFLASHSORT_DEVICE void sort(std::uint32_t (&words)[Items]) const
    {
        warp_bitonic_sort<std::uint32_t, Lanes, Items>().sort(words);
    }
    /// Whether `last` is above the next member's `first` (never for the last member).
    HIPFLASHSORT_DEVICE bool above_next(std::uint32_t last, std::uint32_t first) const
    {
        const std::uint32_t next = shuffle_down(first, 1u, int(Lanes));
        return member + 1 < Lanes && last > next;
    }
};

/// A block of Waves logical wavefronts of Lanes as a team (member = thread index): its network is
/// block_network_sort, its barriers and votes the block's. `row` holds the network's exchanges
/// (Rows * Waves * Lanes * Items words: see block_network_sort); `storage` the wavefronts' partial
/// results. A min_max and the next min_max or above_next are at least one block barrier apart (a
/// network sort has several). FloatWords: its network sorts the composites as floats, which
/// rank_by_bits builds for it.
template <unsigned int Waves, unsigned int Lanes, unsigned int Rows = 1, bool FloatWords = false>
struct block_team
{
    static constexpr unsigned int size = Waves * Lanes;
    static constexpr unsigned int lanes = Lanes; // of each logical wavefront
    static constexpr bool float_words = FloatWords; // composites of 31 bits as floats (polarity_network.hpp)
    struct storage_type
    {
        std::uint32_t low[Waves];
        std::uint32_t high[Waves];
        std::uint32_t first[Waves];
    };
    unsigned int member;
    std::uint32_t* row;
    storage_type& storage;

    HIPFLASHSORT_DEVICE void barrier() const { syncthreads(); }
    HIPFLASHSORT_DEVICE bool any(bool predicate) const { return syncthreads_or(predicate); }
    /// any() of a predicate the same for all members: the predicate itself, no block barrier.
    HIPFLASHSORT_DEVICE bool any_uniform(bool predicate) const { return predicate; }
    HIPFLASHSORT_DEVICE void min_max(std::uint32_t& low, std::uint32_t& high) const
    {
        logical_wave_min_max<Lanes>(low, high);
        if(member % Lanes == 0)
        {
            storage.low[member / Lanes] = low;
            storage.high[member / Lanes] = high;
        }
        syncthreads();
#pragma unroll
        for(unsigned int w = 0; w < Waves; w++)
        {
            low = min_of(low, storage.low[w]);
            high = max_of(high, storage.high[w]);
        }
    }
    template <unsigned int Items>
    HIPFLASHSORT_DEVICE void sort(std::uint32_t (&words)[Items]) const
    {
        block_network_sort<Waves, Lanes, Items, Rows, FloatWords>(row, words, member * Items);
    }
    HIPFLASHSORT_DEVICE bool above_next(std::uint32_t last, std::uint32_t first) const
    {
        const unsigned int lane = member % Lanes, wave = member / Lanes;
        if(lane == 0) storage.first[wave] = first;
        std::uint32_t next = shuffle_down(first, 1u, int(Lanes));
        syncthreads();
        if(lane + 1 == Lanes && wave + 1 < Waves) next = storage.first[wave + 1];
        return member + 1 < size && last > next;
    }
};

} // namespace detail
} // namespace hipflashsort

#endif
