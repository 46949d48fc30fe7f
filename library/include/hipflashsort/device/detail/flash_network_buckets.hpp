// What the flash network classes' two sorters (keys alone, and keys with values) share: the
// batched loads of a segment, the LDS rows of their buckets, and the wavefront networks' turns
// over those buckets.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_BUCKETS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_BUCKETS_HPP_

#include <type_traits>

#include "../../block/detail/block_primitives.hpp"

namespace hipflashsort {
namespace detail {

/// Calls f(p, in[p]) for p = p0 + j * BlockSize, j < N, all below the segment's size: every load
/// first, at constant offsets from one address, into keys[0, N), then every call.
template <unsigned int BlockSize, unsigned int N, class Key, class F>
HIPFLASHSORT_DEVICE void for_each_whole(const Key* in, unsigned int p0, Key* keys, F& f)
{
    const Key* const from = in + p0;
#pragma unroll
    for(unsigned int j = 0; j < N; j++) keys[j] = from[j * BlockSize];
#pragma unroll
    for(unsigned int j = 0; j < N; j++) f(p0 + j * BlockSize, keys[j]);
}

/// Calls f(p, in[p]) for the thread's positions p = j * BlockSize + threadIdx.x < size, j <
/// Items, the loads of Batch items at a time issued before they are used.
/// A whole batch (every position below size; the block's alike) takes a path of its own: its
/// loads at constant offsets from one address, without a bound test per key (with them the
/// compiler kept a predicate and an address computation per key, reloaded the pointer, and
/// branched around each key's use). The last batch runs in rolled steps of 8, with the tests
/// where a step is not whole.
/// H100, 2^26 keys, Gkeys/s, medians of three rounds:
/// - whole batches, where a thread had several: u32 segments of 16385 / 24577 / 65536 keys 91.8
///   / 92.8 / 78.4 -> 99.6 / 100.1 / 86.1, f32 82.7 / 83.1 / 75.3 -> 91.3 / 93.1 / 83.8 (the wide
///   classes); pairs of 8192 / 16384 u32+u32 57.6 / 59.0 -> 61.0 / 61.8, f32+u32 55.4 / 57.3 ->
///   58.0 / 59.9.
/// - then the flash network class for keys alone, whose threads loaded their 32 keys in one
///   batch, in two of 16, the last one in steps of 8: u32 segments of 8192 / 12000 / 16384 keys
///   94.2 / 109.5 / 116.4 -> 108.3 / 110.1 / 121.0, f32 82.3 / 95.8 / 100.2 -> 98.2 / 102.3 /
///   109.4; pairs of 12000 / 16384 u32+u32 60.9 / 61.9 -> 63.3 / 63.7, f32+u32 58.0 / 59.6 ->
///   60.3 / 61.0. Batches of 16 with the last one unrolled lost segments of 12000 u32 keys 9%
///   (many of their positions are in the last batch); steps of 4 instead of 8 gained less at
///   most sizes.
/// - then whole steps of the last batch without the tests too (WholeSteps, medians of five
///   rounds): u32 segments of 4097 / 6000 / 8191 / 14000 keys 72.6 / 84.8 / 92.1 / 103.5 -> 78.9
///   / 90.4 / 97.0 / 107.9, f32 68.4 / 81.8 / 86.9 / 96.1 -> 72.7 / 85.9 / 90.2 / 98.7. Pairs
///   gained 1-5% from 4097 to 8191 but lost 1-1.6% at 8192 / 12000 / 16384 (u32+u32 62.3 / 63.6
///   / 63.9 -> 61.3 / 62.7 / 62.9), so the pair class passes WholeSteps = false.
template <unsigned int BlockSize, unsigned int Items, unsigned int Batch = (Items < 16 ? Items : 16),
          bool WholeSteps = true, class Key, class F>
HIPFLASHSORT_DEVICE void for_each_striped(const Key* in, unsigned int size, F f)
{
    constexpr unsigned int unroll = Batch;
    constexpr unsigned int step = unroll < 8 ? unroll : 8;
    static_assert(Items % unroll == 0 && unroll % step == 0, "whole batches of loads");
    for(unsigned int j0 = 0; j0 < Items && j0 * BlockSize < size; j0 += unroll)
    {
        // Every load of the batch before any use: with each use inside its load's bound test,
        // the compiler issued the loads one by one, each just before its use, and the block
        // waited for every key (ncu, f32 segments of 16384: 39% of the stall samples waited on
        // a load, nearly all at a key's first use). H100, 2^26 keys, segments of 16384 / 24576,
        // Gkeys/s: u32 99.6-100.9 / 77.7-78.0 -> 111.7-111.9 / 87.6, f32 71.9 / 55.8-56.7 ->
        // 96.7 / 72.9.
        Key keys[unroll];
        if constexpr(unroll < Items)
        {
            if((j0 + unroll) * BlockSize <= size)
            {
                for_each_whole<BlockSize, unroll>(in, j0 * BlockSize + threadIdx.x, keys, f);
                continue;
            }
        }
#pragma unroll 1
        for(unsigned int t0 = j0; t0 < j0 + unroll && t0 * BlockSize < size; t0 += step)
        {
            if constexpr(WholeSteps)
            {
                if((t0 + step) * BlockSize <= size)
                {
                    for_each_whole<BlockSize, step>(in, t0 * BlockSize + threadIdx.x, keys, f);
                    continue;
                }
            }
#pragma unroll
            for(unsigned int j = 0; j < step; j++)
            {
                const unsigned int p = (t0 + j) * BlockSize + threadIdx.x;
                if(p < size) keys[j] = in[p];
            }
#pragma unroll
            for(unsigned int j = 0; j < step; j++)
            {
                const unsigned int p = (t0 + j) * BlockSize + threadIdx.x;
                if(p < size) f(p, keys[j]);
            }
        }
    }
}

/// Hands every bucket of [first, last) to a logical wavefront network: sort(lanes, items, b, n,
/// member) with lanes and items as std::integral_constant. Groups of 16 lanes take the buckets in
/// turn; a hardware wavefront whose groups all hold buckets of up to 256 keys sorts them side by
/// side (16 lanes x 16 keys); otherwise each 32-lane half runs its two groups' buckets one after
/// the other through 32 lanes x 16 keys, or x 32 where Largest allows buckets above 512. A group
/// without a bucket calls with n = 0 (and b = first), so that whole wavefronts run the shuffles;
/// a wavefront without any bucket skips its turn.
/// out_first[b] is bucket b's first output position, out_first[last] the end of bucket last - 1.
template <unsigned int BlockSize, unsigned int Largest, class Sort>
HIPFLASHSORT_DEVICE void sort_bucket_rows(unsigned int first, unsigned int last, const unsigned int* out_first,
                                          Sort sort)
{
    using c16 = std::integral_constant<unsigned int, 16>;
    using c32 = std::integral_constant<unsigned int, 32>;
    constexpr unsigned int lanes = 16, groups = BlockSize / lanes;
    static_assert(BlockSize % 32 == 0 && Largest <= 1024, "32-lane halves, networks of up to 1024 keys");
    const unsigned int group = threadIdx.x / lanes;
    for(unsigned int base = first; base < last; base += groups)
    {
        const unsigned int b = base + group;
        const unsigned int n = b < last ? out_first[b + 1] - out_first[b] : 0u;
        if(ballot(n != 0) == 0) continue; // a wavefront without buckets skips the network
        if(ballot(n > lanes * 16) == 0)
        {
            sort(c16{}, c16{}, b < last ? b : first, n, threadIdx.x % lanes);
            continue;
        }
        const unsigned int member = threadIdx.x % 32;
        for(unsigned int half = 0; half < 2; half++)
        {
            const unsigned int hb = shuffle(b, int(half * lanes), 32);
            const unsigned int hn = shuffle(n, int(half * lanes), 32);
            if(Largest <= 512 || ballot(hn > 512) == 0) sort(c32{}, c16{}, hn != 0 ? hb : first, hn, member);
            else if constexpr(Largest > 512) sort(c32{}, c32{}, hn != 0 ? hb : first, hn, member);
        }
    }
}

/// Tight rows, side by side in bucket order: each bucket's first slot, which is also its output
/// offset, out_first[b] from the counts in cursor[b], the cursors set to those slots and
/// out_first[buckets] = size. Returns false, having planned nothing, when a bucket holds more
/// than Largest keys. All threads call it together; ends with a barrier.
template <unsigned int BlockSize, unsigned int Largest>
HIPFLASHSORT_DEVICE bool plan_tight_rows(unsigned int buckets, unsigned int size, unsigned int* cursor,
                                         unsigned int* out_first, unsigned int* scan)
{
    bool too_large = false;
    for(unsigned int b = threadIdx.x; b < buckets; b += BlockSize)
    {
        const unsigned int n = cursor[b];
        too_large |= n > Largest;
        out_first[b] = n;
    }
    if(syncthreads_or(too_large)) return false;
    block_exclusive_scan_lds<BlockSize, unsigned int>([&](unsigned int j) -> unsigned int& { return out_first[j]; },
                                                      buckets, scan);
    for(unsigned int b = threadIdx.x; b < buckets; b += BlockSize) cursor[b] = out_first[b];
    if(threadIdx.x == 0) out_first[buckets] = size;
    syncthreads();
    return true;
}

/// Hands tight buckets (rows side by side, each starting at out_first[b]) of [first, last) to
/// logical wavefront networks: sort(lanes, items, b, n, member) as sort_bucket_rows calls it, up
/// to `Largest` keys (at most 512). Each wavefront takes wave / 4 consecutive buckets at a turn,
/// one per group of 4 lanes x 8 keys (the 32-key network), or, where one of them holds more than
/// 32, all of them in turns of the smallest network that takes the largest (8, 16 or 32 lanes x 8
/// keys, 32 x 16). A group stores only inside its bucket's keys, so rows need no padding.
template <unsigned int BlockSize, unsigned int Largest, class Sort>
HIPFLASHSORT_DEVICE void sort_tight_bucket_rows(unsigned int first, unsigned int last, const unsigned int* out_first,
                                                Sort sort)
{
    using shape = block_shape<BlockSize>;
    static_assert(Largest <= 512 && shape::wave % 32 == 0, "networks of up to 32 lanes x 16 keys");
    constexpr unsigned int batch = shape::wave / 4;
    const auto size_of = [&](unsigned int b, unsigned int end) { return b < end ? out_first[b + 1] - out_first[b] : 0u; };
    const auto turns = [&](auto lanes, auto items, unsigned int from, unsigned int to) {
        constexpr unsigned int group = decltype(lanes)::value;
        for(unsigned int base = from; base < to; base += shape::wave / group)
        {
            const unsigned int b = base + lane_id() / group;
            sort(lanes, items, b < to ? b : from, size_of(b, to), lane_id() % group);
        }
    };
    using c4 = std::integral_constant<unsigned int, 4>;
    using c8 = std::integral_constant<unsigned int, 8>;
    using c16 = std::integral_constant<unsigned int, 16>;
    using c32 = std::integral_constant<unsigned int, 32>;
    for(unsigned int from = first + threadIdx.x / shape::wave * batch; from < last; from += shape::waves * batch)
    {
        const unsigned int to = min_of(from + batch, last);
        const unsigned int b = from + lane_id() / 4;
        const unsigned int n = size_of(b, to);
        if(ballot(n > 32) == 0) sort(c4{}, c8{}, b < to ? b : from, n, lane_id() % 4);
        else if(ballot(n > 64) == 0) turns(c8{}, c8{}, from, to);
        else if(ballot(n > 128) == 0) turns(c16{}, c8{}, from, to);
        else if(ballot(n > 256) == 0) turns(c32{}, c8{}, from, to);
        else turns(c32{}, c16{}, from, to);
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
