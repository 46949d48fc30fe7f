// Block-wide helpers of the flash sort: min/max reduction, exclusive scan of an LDS array, and the
// stable per-wavefront bucket ranking that makes every scatter stable and deterministic.
#ifndef HIPFLASHSORT_BLOCK_DETAIL_BLOCK_PRIMITIVES_HPP_
#define HIPFLASHSORT_BLOCK_DETAIL_BLOCK_PRIMITIVES_HPP_

#include <cstdint>
#include <type_traits>

#include "../../intrinsics/intrinsics.hpp"
#include "../../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

template <unsigned int BlockSize>
struct block_shape
{
    static constexpr unsigned int wave = device_wavefront_size();
    static constexpr unsigned int waves = BlockSize / wave;
    static_assert(BlockSize % wave == 0, "block size must be a whole number of wavefronts");
};

template <class T>
HIPFLASHSORT_HOST_DEVICE T min_of(T a, T b) { return b < a ? b : a; }
template <class T>
HIPFLASHSORT_HOST_DEVICE T max_of(T a, T b) { return a < b ? b : a; }

/// Min and max over a logical wavefront of Width lanes (a power of two); every lane gets both.
/// 32-bit words over a whole hardware wavefront take wave_min / wave_max: on NVIDIA one
/// instruction each instead of ten shuffles, which the pairs' network classes feel most (their
/// L1 is busy with shuffles and LDS). H200, 2^26 pairs, medians of six rotated rounds, Gkeys/s,
/// u32+u32 / f32+u32 segments of 256 pairs 184.3 / 172.4 -> 189.4 / 177.2, 1000 115.1 / 105.9 ->
/// 116.6 / 107.9, 1024 121.2 / 112.1 -> 123.4 / 114.6, 4096 81.5 / 79.6 -> 82.4 / 80.3, 65536
/// 43.5 / 43.4 -> 43.9 / 43.7; keys alone and the device sorts within their spread.
template <unsigned int Width, class Word>
HIPFLASHSORT_DEVICE void logical_wave_min_max(Word& lo, Word& hi)
{
    if constexpr(Width == device_wavefront_size() && std::is_same<Word, std::uint32_t>::value)
    {
        lo = wave_min(lo);
        hi = wave_max(hi);
    }
    else
    {
#pragma unroll
        for(unsigned int offset = Width / 2; offset > 0; offset /= 2)
        {
            lo = min_of(lo, shuffle_xor(lo, int(offset), int(Width)));
            hi = max_of(hi, shuffle_xor(hi, int(offset), int(Width)));
        }
    }
}

/// Block-wide min and max; every thread gets both. `scratch` holds 2 * waves words.
template <unsigned int BlockSize, class Word>
HIPFLASHSORT_DEVICE void block_min_max(Word& lo, Word& hi, Word* scratch)
{
    using shape = block_shape<BlockSize>;
    logical_wave_min_max<shape::wave>(lo, hi);
    const unsigned int wave_id = threadIdx.x / shape::wave;
    if(lane_id() == 0)
    {
        scratch[wave_id] = lo;
        scratch[shape::waves + wave_id] = hi;
    }
    syncthreads();
    lo = scratch[0];
    hi = scratch[shape::waves];
#pragma unroll
    for(unsigned int w = 1; w < shape::waves; w++)
    {
        lo = min_of(lo, scratch[w]);
        hi = max_of(hi, scratch[shape::waves + w]);
    }
    syncthreads();
}

/// Merges (b1, b2) into (a1, a2), each the smallest and the second smallest distinct value of a set
/// (the second the largest word where the set has one value): the pair of their union.
template <class Word>
HIPFLASHSORT_HOST_DEVICE void merge_two_least(Word& a1, Word& a2, Word b1, Word b2)
{
    const Word least = min_of(a1, b1);
    a2 = min_of(a1 == least ? a2 : a1, b1 == least ? b2 : b1);
    a1 = least;
}

/// Smallest and second smallest distinct values of two sets at once over the hardware
/// wavefront, (lo, lo2) and (top, top2) (pass complements for the largest two); every lane gets
/// them.
template <class Word>
HIPFLASHSORT_DEVICE void wave_two_least(Word& lo, Word& lo2, Word& top, Word& top2)
{
#pragma unroll
    for(unsigned int offset = device_wavefront_size() / 2; offset > 0; offset /= 2)
    {
        merge_two_least(lo, lo2, shuffle_xor(lo, int(offset)), shuffle_xor(lo2, int(offset)));
        merge_two_least(top, top2, shuffle_xor(top, int(offset)), shuffle_xor(top2, int(offset)));
    }
}

/// Inclusive scan of one value per lane across the hardware wavefront.
template <class T>
HIPFLASHSORT_DEVICE T wave_inclusive_scan(T value)
{
    constexpr unsigned int wave = device_wavefront_size();
    const unsigned int lane = lane_id();
#pragma unroll
    for(unsigned int offset = 1; offset < wave; offset *= 2)
    {
        const T other = shuffle_up(value, offset);
        if(lane >= offset) value += other;
    }
    return value;
}

/// Inclusive scan of one value per thread across the block; `scratch` holds `waves` words.
/// Returns the inclusive prefix; `total` receives the block's sum. GuardScratch = false leaves
/// out the closing barrier, for callers that pass another barrier before `scratch` is written
/// again.
template <unsigned int BlockSize, class T, bool GuardScratch = true>
HIPFLASHSORT_DEVICE T block_inclusive_scan(T value, T& total, T* scratch)
{
    using shape = block_shape<BlockSize>;
    value = wave_inclusive_scan(value);
    const unsigned int wave_id = threadIdx.x / shape::wave;
    if(lane_id() == shape::wave - 1) scratch[wave_id] = value;
    syncthreads();
    T before = 0;
    total = 0;
#pragma unroll
    for(unsigned int w = 0; w < shape::waves; w++)
    {
        const T s = scratch[w];
        if(w < wave_id) before += s;
        total += s;
    }
    if constexpr(GuardScratch) syncthreads();
    return value + before;
}

/// Exclusive scan, in place, of the n values at(j) for j in [0, n) (an accessor returning a
/// reference, so callers can scan a transposed layout; narrower element types are fine when the
/// prefixes fit them). Returns the total to every thread.
template <unsigned int BlockSize, class T, class Accessor>
HIPFLASHSORT_DEVICE T block_exclusive_scan_lds(Accessor at, unsigned int n, T* scratch)
{
    const unsigned int per_thread = (n + BlockSize - 1) / BlockSize;
    const unsigned int first = threadIdx.x * per_thread;
    T sum = 0;
    for(unsigned int i = 0; i < per_thread; i++)
    {
        if(first + i < n) sum += at(first + i);
    }
    T total;
    T running = block_inclusive_scan<BlockSize>(sum, total, scratch) - sum;
    for(unsigned int i = 0; i < per_thread; i++)
    {
        if(first + i < n)
        {
            auto& slot = at(first + i);
            const T v = slot;
            slot = static_cast<std::remove_reference_t<decltype(slot)>>(running);
            running += v;
        }
    }
    syncthreads();
    return total;
}

/// Adds `amount` to a wave's 16-bit counter of `bucket` (two per 32-bit word, 4-byte aligned;
/// counts stay below 2^16, so the low half never carries into the high one) and returns the
/// counter's previous value.
HIPFLASHSORT_DEVICE unsigned int add_to_counter(std::uint16_t* wave_counters, unsigned int bucket, unsigned int amount)
{
    const unsigned int shift = 16 * (bucket & 1u);
    auto* word = reinterpret_cast<unsigned int*>(wave_counters) + bucket / 2;
    return (atomicAdd(word, amount << shift) >> shift) & 0xffffu;
}

/// Adds `amount` to a wave's 32-bit counter of `bucket` and returns its previous value.
HIPFLASHSORT_DEVICE unsigned int add_to_counter(std::uint32_t* wave_counters, unsigned int bucket, unsigned int amount)
{
    return atomicAdd(wave_counters + bucket, amount);
}

/// Rank of a valid item within its peer group (the valid lanes of this round that share its
/// bucket, `peers`) after the counter's earlier items: the lowest peer adds the group's size to
/// the counter with one atomic and passes the counter's previous value on.
template <class Counter>
HIPFLASHSORT_DEVICE unsigned int rank_in_peer_group(unsigned int bucket, bool valid, lane_mask_type peers,
                                                    Counter* wave_counters)
{
    const unsigned int lane = lane_id();
    const unsigned int leader = valid ? static_cast<unsigned int>(__ffsll(static_cast<unsigned long long>(peers)) - 1) : lane;
    unsigned int before = 0;
    if(valid && lane == leader) before = add_to_counter(wave_counters, bucket, popcount(peers));
    before = shuffle(before, static_cast<int>(leader));
    return before + popcount(peers & lanemask_lt());
}

/// Stable rank of one item among the items of its wavefront's range that share its bucket.
/// Lanes call this in position order (lane order within a round, rounds in order); the wave's
/// counters (one per bucket, in LDS: 32-bit, or 16-bit ones 4-byte aligned as add_to_counter
/// takes them) carry the counts of earlier rounds.
/// Returns the number of earlier items of the same bucket. All lanes of the wavefront must call
/// it together.
///
/// The leader of each peer group adds the group's size with one LDS atomic (rank_in_peer_group).
/// A wavefront's atomics to one address complete in issue order, so rounds stay ordered
/// without a read → shuffle → write chain per round. (With the scatter's lower register use this
/// left u32 2^28 unchanged and made f32 normal 2^28 and 4096-65536-key segments 7-9% faster on
/// an H100; the scatter is bound by its instruction count, about 150 per key.)
template <unsigned int BucketBits, class Counter>
HIPFLASHSORT_DEVICE unsigned int wave_stable_rank(unsigned int bucket, bool valid, Counter* wave_counters)
{
    const lane_mask_type active = ballot(valid);
    return rank_in_peer_group(bucket, valid, match_any<BucketBits>(bucket) & active, wave_counters);
}

/// Rank of one item among its wavefront's items of the same bucket, like wave_stable_rank but in
/// an order the hardware picks among the lanes of one round (rounds stay in order). For keys
/// without values whose equal images are equal bits, that order never shows in the result, which
/// stays deterministic. One LDS atomic per lane instead of BucketBits ballots; a round whose
/// lanes all share a bucket (runs, hot values) is one peer group with one atomic, as LDS atomics
/// to one address serialize. All lanes of the wavefront must call it together.
template <unsigned int BucketBits, class Counter>
HIPFLASHSORT_DEVICE unsigned int wave_unordered_rank(unsigned int bucket, bool valid, Counter* wave_counters)
{
    const unsigned int first = shuffle(bucket, 0);
    if(ballot(valid && bucket != first) == 0) return rank_in_peer_group(bucket, valid, ballot(valid), wave_counters);
    return valid ? add_to_counter(wave_counters, bucket, 1) : 0u;
}

/// Rank of an item among its wavefront's items of the same bucket: in input order where that
/// order can show in the result (Ordered: pairs; or a float zero in the round, as -0 and +0 keep
/// their input order), in the hardware's order elsewhere.
template <unsigned int BucketBits, bool Ordered, class Key, class Counter>
HIPFLASHSORT_DEVICE unsigned int wave_rank(unsigned int bucket, bool valid, const Key& key, Counter* wave_counters)
{
    using codec = radix_key_codec<Key>;
    const bool ordered = Ordered || (codec::is_float && ballot(valid && codec::shares_image(key)) != 0);
    return ordered ? wave_stable_rank<BucketBits>(bucket, valid, wave_counters)
                   : wave_unordered_rank<BucketBits>(bucket, valid, wave_counters);
}

} // namespace detail
} // namespace hipflashsort

#endif
