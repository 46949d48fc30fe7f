// Kernels of one partition round over the large segments, before its scatter
// (partition_scatter.hpp): min/max of each segment's images, a bucket histogram per chunk, and the
// scan of the counts into output positions, which also lists the next round's segments.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_PARTITION_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_PARTITION_KERNELS_HPP_

#include <cstdint>
#include <limits>

#include "../../block/detail/block_primitives.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "bucket_classifier.hpp"
#include "count_mailbox.hpp"
#include "partition_segments.hpp"
#include "segmented_config.hpp"

namespace hipflashsort {
namespace detail {

/// Reads a chunk's tile of Items items per thread, item r of a thread at `first + r * Stride`
/// of the tile, every load issued before any is used (so a wavefront has Items loads in flight,
/// not one); only a partial tile tests positions.
template <unsigned int Items, unsigned int Stride, class T>
HIPFLASHSORT_DEVICE void load_tile(const T* in, unsigned int first, unsigned int size, unsigned int tile,
                                   T (&items)[Items])
{
    const T* from = in + first;
    if(size == tile)
    {
#pragma unroll
        for(unsigned int r = 0; r < Items; r++) items[r] = from[r * Stride];
    }
    else
    {
#pragma unroll
        for(unsigned int r = 0; r < Items; r++)
        {
            if(first + r * Stride < size) items[r] = from[r * Stride];
        }
    }
}

/// Items of chunk `c` from `at` on that one tile of `tile` items holds.
HIPFLASHSORT_DEVICE unsigned int tile_size(const partition_chunk& c, std::uint64_t at, unsigned int tile)
{
    return static_cast<unsigned int>(c.end - at < tile ? c.end - at : tile);
}

/// Calls f(key) for every key of chunk `c`, tile by tile, each tile's loads issued first; Ahead,
/// the next tile's loads are issued before this tile's keys are used, so that a wavefront's loads
/// stay in flight while it counts (its registers twice the tile's keys).
template <unsigned int BlockSize, unsigned int ItemsPerThread, bool Ahead = false, class Key, class F>
HIPFLASHSORT_DEVICE void for_each_chunk_key(const Key* keys, const partition_chunk& c, F f)
{
    constexpr unsigned int tile = BlockSize * ItemsPerThread;
    Key next[ItemsPerThread];
    if(Ahead && c.begin < c.end)
        load_tile<ItemsPerThread, BlockSize>(keys + c.begin, threadIdx.x, tile_size(c, c.begin, tile), tile, next);
    for(std::uint64_t tile_begin = c.begin; tile_begin < c.end; tile_begin += tile)
    {
        const unsigned int size = tile_size(c, tile_begin, tile);
        Key k[ItemsPerThread];
        if constexpr(Ahead)
        {
#pragma unroll
            for(unsigned int r = 0; r < ItemsPerThread; r++) k[r] = next[r];
            const std::uint64_t later = tile_begin + tile;
            if(later < c.end)
                load_tile<ItemsPerThread, BlockSize>(keys + later, threadIdx.x, tile_size(c, later, tile), tile, next);
        }
        else
        {
            load_tile<ItemsPerThread, BlockSize>(keys + tile_begin, threadIdx.x, size, tile, k);
        }
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            if(threadIdx.x + r * BlockSize < size) f(k[r]);
        }
    }
}

/// Merges a block's image range into the statistics' words `first` (min) and `first + 1` (max).
HIPFLASHSORT_DEVICE void merge_range(std::uint64_t* mine, unsigned int first, std::uint64_t lo, std::uint64_t hi)
{
    atomicMin(reinterpret_cast<unsigned long long*>(&mine[first]), static_cast<unsigned long long>(lo));
    atomicMax(reinterpret_cast<unsigned long long*>(&mine[first + 1]), static_cast<unsigned long long>(hi));
}

HIPFLASHSORT_DEVICE void add_to_stat(std::uint64_t* mine, unsigned int word, std::uint64_t amount)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(&mine[word]), static_cast<unsigned long long>(amount));
}

/// Zeroes the totals of segment `s`'s buckets, which the histogram accumulates in the next
/// round's ranges; thread `thread` of `threads` does its share.
HIPFLASHSORT_DEVICE void clear_bucket_totals(const partition_segment& s, segment_range* next, unsigned int thread,
                                             unsigned int threads)
{
    for(unsigned int b = thread; b < s.buckets; b += threads) next[s.next_first + b].end = 0;
}

/// Keys of chunk `c` at the positions s.begin + i * stride of its segment `s`.
HIPFLASHSORT_DEVICE std::uint64_t samples_in(const partition_chunk& c, const partition_segment& s,
                                             std::uint64_t stride)
{
    const std::uint64_t from = c.begin - s.range.begin, to = c.end - s.range.begin;
    return (to + stride - 1) / stride - (from + stride - 1) / stride;
}

/// Min and max image and the sum of magnitude_bits of every key of chunk `c`, by the whole
/// block, merged into the segment's statistics `mine`. `scratch` holds 2 * waves words.
template <unsigned int BlockSize, unsigned int ItemsPerThread, class Key>
HIPFLASHSORT_DEVICE void measure_chunk_keys(const Key* keys, const partition_chunk& c, std::uint64_t* mine,
                                            order ord, std::uint64_t* scratch)
{
    std::uint64_t lo = ~std::uint64_t(0), hi = 0, magnitudes = 0;
    for_each_chunk_key<BlockSize, ItemsPerThread>(keys, c, [&](const Key& k) {
        const std::uint64_t v = wide_image(k, ord);
        lo = min_of(lo, v);
        hi = max_of(hi, v);
        magnitudes += magnitude_bits(k);
    });
    // One addition per wavefront: a block-wide sum would add two barriers to a pass bound by
    // bandwidth.
    magnitudes = logical_wave_sum<block_shape<BlockSize>::wave>(magnitudes);
    if(lane_id() == 0) add_to_stat(mine, stat_magnitudes, magnitudes);
    block_min_max<BlockSize>(lo, hi, scratch);
    if(threadIdx.x == 0)
    {
        add_to_stat(mine, stat_read, c.end - c.begin);
        merge_range(mine, stat_lo, lo, hi);
    }
}

/// As measure_chunk_keys for the keys of chunk `c` at every `stride`-th position of its segment
/// `s`, by one wavefront, which also keeps the nearest sample inside each end (distinct images,
/// for trim_outlying_samples). Each lane issues up to `batch` loads before it uses one (a chunk
/// holds at most about 2048 samples, mostly far fewer).
template <class Key>
HIPFLASHSORT_DEVICE void measure_chunk_samples(const Key* keys, const partition_chunk& c, const partition_segment& s,
                                               std::uint64_t stride, std::uint64_t* mine, order ord)
{
    constexpr unsigned int lanes = device_wavefront_size();
    constexpr unsigned int batch = 8;
    std::uint64_t lo = ~std::uint64_t(0), hi = 0, next_lo = ~std::uint64_t(0), next_hi = 0, magnitudes = 0;
    const std::uint64_t first = s.range.begin + (c.begin - s.range.begin + stride - 1) / stride * stride;
    for(std::uint64_t at = first + lane_id() * stride; at < c.end; at += batch * lanes * stride)
    {
        Key k[batch];
#pragma unroll
        for(unsigned int r = 0; r < batch; r++)
        {
            if(at + r * lanes * stride < c.end) k[r] = keys[at + r * lanes * stride];
        }
#pragma unroll
        for(unsigned int r = 0; r < batch; r++)
        {
            if(at + r * lanes * stride < c.end)
            {
                const std::uint64_t v = wide_image(k[r], ord);
                next_lo = v < lo ? lo : v > lo ? min_of(next_lo, v) : next_lo;
                next_hi = v > hi ? hi : v < hi ? max_of(next_hi, v) : next_hi;
                lo = min_of(lo, v);
                hi = max_of(hi, v);
                magnitudes += magnitude_bits(k[r]);
            }
        }
    }
    magnitudes = logical_wave_sum<lanes>(magnitudes);
    std::uint64_t top = ~hi, top2 = ~next_hi;
    wave_two_least(lo, next_lo, top, top2);
    if(lane_id() == 0)
    {
        add_to_stat(mine, stat_magnitudes, magnitudes);
        add_to_stat(mine, stat_read, samples_in(c, s, stride));
        merge_range(mine, stat_lo, lo, ~top);
        merge_range(mine, stat_inner_lo, next_lo, ~top2);
    }
}

/// Min and max image, the sum of magnitude_bits and the number of keys read of each chunk,
/// merged into its segment's statistics: every key, or in a sampled round every
/// sample_stride-th key of the segment. A segment's first chunk also zeroes its buckets' totals.
/// A sampled round gives each wavefront a chunk (a block per `waves` chunks): with a block per
/// chunk, most of its threads idle for a chunk's few samples, 2^26 pairs in segments of 65536
/// (3072 chunks) took 30 us, now 25 (H100, ncu; DRAM fetches about 70 bytes per 4-byte sample).
/// Chunks of segments too small to sample are then read by the whole block, one after another.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread>
__global__ __launch_bounds__(BlockSize) void chunk_min_max_kernel(const round_totals* totals,
                                                                 const partition_chunk* chunks,
                                                                 const partition_segment* segments, const Key* keys,
                                                                 std::uint64_t* stats, segment_range* next, order ord,
                                                                 bool sampled)
{
    using shape = block_shape<BlockSize>;
    __shared__ std::uint64_t scratch[2 * shape::waves];
    __shared__ bool whole[shape::waves];
    const unsigned int per_block = sampled ? shape::waves : 1;
    const std::uint64_t first = std::uint64_t(blockIdx.x) * per_block;
    const std::uint64_t round_chunks = totals->chunks;
    if(first >= round_chunks) return;
    const unsigned int wave_id = threadIdx.x / shape::wave;
    if(wave_id < per_block)
    {
        bool read_all = false;
        if(first + wave_id < round_chunks)
        {
            const partition_chunk c = chunks[first + wave_id];
            const partition_segment s = segments[c.segment];
            if(c.index == 0) clear_bucket_totals(s, next, lane_id(), shape::wave);
            const std::uint64_t stride = sampled ? sample_stride<Key>(s.range.end - s.range.begin) : 1;
            read_all = stride == 1;
            if(!read_all) measure_chunk_samples(keys, c, s, stride, stats + segment_stat_words * c.segment, ord);
        }
        if(lane_id() == 0) whole[wave_id] = read_all;
    }
    __syncthreads();
    for(unsigned int w = 0; w < per_block; w++) // block-uniform
    {
        if(!whole[w]) continue;
        const partition_chunk c = chunks[first + w];
        measure_chunk_keys<BlockSize, ItemsPerThread>(keys, c, stats + segment_stat_words * c.segment, ord, scratch);
    }
}

/// Bucket counts of one chunk (LDS atomics), one column entry of its segment's matrix each, and
/// added to the bucket's total, parked in its next-round range until partition_offsets_kernel.
/// Where a sampled round needs it (needs_exact_range), also the segment's exact range. Sets
/// `crowded` where the segment's integer keys crowd low (plan_partition_kernel).
///
/// Where a thread's tile is at most 64 bytes (keys of up to 4 bytes: 16 items, or 12 where
/// 4-byte values ride along in the scatter), the next tile's loads are issued before this tile's
/// keys are counted (for_each_chunk_key's Ahead). Every instantiation's registers are capped for
/// three blocks per multiprocessor, not four: uncapped, ptxas took 64 for the loads ahead and
/// spilled 20 bytes (u32); the u64 histogram, not ahead, takes 72 instead of 64 under the cap.
/// H200, three rotated rounds against the tile-by-tile loads (fifty-seventh session): 2^28 u32 /
/// f32 uniform +1.1 / +0.9%, normal +1.1 / +0.8%, reduced-entropy +0.6 / +0.5%, few-unique +2.9
/// / +2.3%, all-equal +6.6 / +4.4%; u32+u32 pairs +0.6%; 2^24 u32 / f32 -0.4 / -0.7%; u64 2^27
/// -0.3%. Ahead at 64 registers: 2^28 u32 +0.8%; with u64 histograms ahead too, u64 2^27 -1.6%.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize, register_cap_blocks(3)) void chunk_histogram_kernel(
    const round_totals* totals, const partition_chunk* chunks, const partition_segment* segments, std::uint64_t* stats,
    const Key* keys, std::uint64_t* matrix, segment_range* next, unsigned int* crowded, order ord)
{
    using word = image_word_t<Key>;
    constexpr bool ahead = ItemsPerThread * sizeof(Key) <= 64;
    __shared__ unsigned int counts[MaxBuckets];
    __shared__ word scratch[2 * block_shape<BlockSize>::waves];
    if(blockIdx.x >= totals->chunks) return;
    const partition_chunk c = chunks[blockIdx.x];
    const partition_segment s = segments[c.segment];
    const auto classify = segment_classifier<Key>(stats, s, c.segment, s.buckets, ord);
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) counts[b] = 0;
    __syncthreads();
    const auto count = [&](const Key& k, word image) { atomicAdd(&counts[classify(k, image)], 1u); };
    std::uint64_t* const mine = stats + segment_stat_words * c.segment;
    const std::uint64_t size = s.range.end - s.range.begin;
    const bool exact = needs_exact_range(mine, size, s.buckets);
    // Direct buckets count only where the keys outside the classifier's range are looked for:
    // a sample's range trimmed of outlying samples can be direct while the sample spans the
    // buckets, and then no exact range is measured.
    const bool direct
        = classify.inner.by_image.direct && !classify.inner.by_value && (exact || mine[stat_read] >= size);
    if(exact)
    {
        word lo = ~word(0), hi = 0;
        for_each_chunk_key<BlockSize, ItemsPerThread, ahead>(keys, c, [&](const Key& k) {
            const auto image = static_cast<word>(wide_image(k, ord));
            lo = min_of(lo, image);
            hi = max_of(hi, image);
            count(k, image);
        });
        block_min_max<BlockSize>(lo, hi, scratch);
        if(threadIdx.x == 0)
        {
            merge_range(mine, stat_exact_lo, lo, hi);
            if(direct && (lo < classify.lo || hi > classify.hi))
                atomicOr(reinterpret_cast<unsigned long long*>(mine + stat_direct), stat_direct_spill);
        }
    }
    else
    {
        for_each_chunk_key<BlockSize, ItemsPerThread, ahead>(
            keys, c, [&](const Key& k) { count(k, static_cast<word>(wide_image(k, ord))); });
    }
    if(direct && c.index == 0 && threadIdx.x == 0)
        atomicOr(reinterpret_cast<unsigned long long*>(mine + stat_direct), stat_direct_buckets);
    if constexpr(!radix_key_codec<Key>::is_float)
    {
        if(classify.crowded && c.index == 0 && threadIdx.x == 0) atomicOr(crowded, 1u);
    }
    __syncthreads();
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        *matrix_entry(matrix, s, b, c.index) = counts[b];
        if(counts[b] != 0)
        {
            atomicAdd(reinterpret_cast<unsigned long long*>(&next[s.next_first + b].end),
                      static_cast<unsigned long long>(counts[b]));
        }
    }
}

/// One wavefront per (segment, bucket) column: the column's counts become exclusive prefixes over
/// the chunks, where each chunk's share of the bucket starts inside the bucket. `groups` blocks
/// of the segment share its columns.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void scan_columns(const partition_segment& s, std::uint64_t* matrix, unsigned int group,
                                      unsigned int groups)
{
    using shape = block_shape<BlockSize>;
    const unsigned int lane = lane_id();
    for(unsigned int b = group * shape::waves + threadIdx.x / shape::wave; b < s.buckets; b += groups * shape::waves)
    {
        std::uint64_t* column = matrix_entry(matrix, s, b, 0);
        std::uint64_t running = 0;
        for(unsigned int first = 0; first < s.chunks; first += shape::wave)
        {
            const unsigned int i = first + lane;
            const std::uint64_t count = i < s.chunks ? column[i] : 0;
            const std::uint64_t inclusive = wave_inclusive_scan(count);
            if(i < s.chunks) column[i] = running + inclusive - count;
            running += shuffle(inclusive, static_cast<int>(shape::wave - 1));
        }
    }
}

/// Segments of at most this many chunks have their columns scanned by the block that lists their
/// buckets, a thread per column with every load issued first; their column-scan blocks return at
/// once. A wavefront per column in blocks of their own took 15.5 us for 1024 segments of 65536
/// pairs (3 chunks each), this 8.6 (H100, ncu); segments of 65536 pairs +0.6 to +0.7%.
constexpr unsigned int thread_scanned_chunks = 8;

/// As scan_columns, for a segment of at most thread_scanned_chunks chunks: a thread per column.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void scan_short_columns(const partition_segment& s, std::uint64_t* matrix)
{
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        std::uint64_t* column = matrix_entry(matrix, s, b, 0);
        std::uint64_t count[thread_scanned_chunks];
#pragma unroll
        for(unsigned int i = 0; i < thread_scanned_chunks; i++) count[i] = i < s.chunks ? column[i] : 0;
        std::uint64_t running = 0;
#pragma unroll
        for(unsigned int i = 0; i < thread_scanned_chunks; i++)
        {
            if(i < s.chunks) column[i] = running;
            running += count[i];
        }
    }
}

/// Whether `members` adjacent buckets holding `keys` keys, the fullest `fullest`, may share one
/// next-round segment: at most group_keys keys, and nearly even (the fullest within 5/4 of their
/// mean), as the next round cuts the group's range into equal widths sized for the mean.
HIPFLASHSORT_HOST_DEVICE bool may_group(std::uint64_t keys, std::uint64_t fullest, unsigned int members,
                                        std::uint64_t group_keys)
{
    return keys <= group_keys && 4 * std::uint64_t(members) * fullest <= 5 * keys;
}

/// Bucket totals of a segment, then their exclusive prefixes (start[b]) and the size (start[n]).
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void bucket_starts(const partition_segment& s, const segment_range* buckets, std::uint64_t* start)
{
    __shared__ std::uint64_t scratch[block_shape<BlockSize>::waves];
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) start[b] = buckets[b].end;
    syncthreads();
    block_exclusive_scan_lds<BlockSize, std::uint64_t>([&](unsigned int j) -> std::uint64_t& { return start[j]; },
                                                       s.buckets, scratch);
    if(threadIdx.x == 0) start[s.buckets] = s.range.end - s.range.begin;
    syncthreads();
}

/// The segment's buckets as the next round's segments, one per bucket. A segment whose keys are
/// all equal is already sorted: its buckets are listed empty, and its scatter (one bucket,
/// identity positions) writes the final output directly.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void list_buckets(const partition_segment& s, const std::uint64_t* start, bool constant,
                                      segment_range* buckets)
{
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        const std::uint64_t begin = s.range.begin + start[b];
        buckets[b] = constant ? segment_range{begin, begin} : segment_range{begin, s.range.begin + start[b + 1]};
    }
}

/// Groups are aligned runs of 2^l buckets (l = level[b] for each of their buckets): the longest
/// such run around each bucket that may_group accepts, found level by level from the pairs up.
/// Aligned runs nest, so the longest accepted one of each bucket partitions the buckets. Level 1
/// reads the buckets' sizes from `start`; each later level reads the previous one's run totals
/// and fullest buckets, kept in two buffers in turn (at most MaxBuckets / 2 runs, then / 4).
template <unsigned int BlockSize, unsigned int MaxBuckets>
HIPFLASHSORT_DEVICE void group_levels(const partition_segment& s, const std::uint64_t* start, std::uint8_t* level)
{
    __shared__ std::uint64_t sum_a[MaxBuckets / 2 + 1], most_a[MaxBuckets / 2 + 1], sum_b[MaxBuckets / 4 + 1],
        most_b[MaxBuckets / 4 + 1];
    // Whether each run of the level is accepted, in two buffers by level parity: a level's
    // buckets are marked after its barrier while the next level's runs are checked.
    __shared__ bool accepted[2][MaxBuckets / 2 + 1];
    const unsigned int n = s.buckets;
    for(unsigned int b = threadIdx.x; b < n; b += BlockSize) level[b] = 0;
    const std::uint64_t *from_sum = nullptr, *from_most = nullptr;
    std::uint64_t *to_sum = sum_a, *to_most = most_a;
    for(unsigned int l = 1, width = 2; width / 2 < n; l++, width *= 2)
    {
        const unsigned int runs = (n + width - 1) / width, below = (n + width / 2 - 1) / (width / 2);
        // Total and fullest of the previous level's run i (for level 1: bucket i).
        const auto sum_of = [&](unsigned int i) { return l == 1 ? start[i + 1] - start[i] : from_sum[i]; };
        const auto most_of = [&](unsigned int i) { return l == 1 ? start[i + 1] - start[i] : from_most[i]; };
        for(unsigned int j = threadIdx.x; j < runs; j += BlockSize)
        {
            const bool pair = 2 * j + 1 < below;
            const std::uint64_t keys = sum_of(2 * j) + (pair ? sum_of(2 * j + 1) : 0);
            const std::uint64_t fullest = max_of(most_of(2 * j), pair ? most_of(2 * j + 1) : std::uint64_t(0));
            to_sum[j] = keys;
            to_most[j] = fullest;
            accepted[l % 2][j] = may_group(keys, fullest, min_of(width, n - j * width), s.group_keys);
        }
        syncthreads();
        // Each bucket by the thread that set it to 0, so its levels are written in order.
        for(unsigned int b = threadIdx.x; b < n; b += BlockSize)
        {
            if(accepted[l % 2][b / width]) level[b] = static_cast<std::uint8_t>(l);
        }
        from_sum = to_sum;
        from_most = to_most;
        to_sum = to_sum == sum_a ? sum_b : sum_a;
        to_most = to_most == most_a ? most_b : most_a;
    }
    syncthreads(); // every level is marked
}

/// The segment's bucket groups as the next round's segments, in the first slots, the rest listed
/// empty; groups[b] receives bucket b's group, which the scatter ranks by. A round that is not
/// the last cuts fine buckets (so that skewed keys still land in segments the next round
/// finishes) and groups them: the scatter then writes fewer, longer runs.
template <unsigned int BlockSize, unsigned int MaxBuckets>
HIPFLASHSORT_DEVICE void list_groups(const partition_segment& s, const std::uint64_t* start, segment_range* buckets,
                                     std::uint16_t* groups)
{
    __shared__ std::uint8_t level[MaxBuckets];
    __shared__ std::uint32_t group[MaxBuckets];
    __shared__ std::uint64_t first[MaxBuckets];
    __shared__ std::uint32_t scratch[block_shape<BlockSize>::waves];
    group_levels<BlockSize, MaxBuckets>(s, start, level);
    const auto head = [&](unsigned int b) { return (b & ((1u << level[b]) - 1u)) == 0; };
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) group[b] = head(b);
    syncthreads();
    const unsigned int count = block_exclusive_scan_lds<BlockSize, std::uint32_t>(
        [&](unsigned int j) -> std::uint32_t& { return group[j]; }, s.buckets, scratch);
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        const unsigned int g = group[b] + head(b) - 1;
        groups[b] = static_cast<std::uint16_t>(g);
        if(head(b)) first[g] = start[b];
    }
    syncthreads();
    for(unsigned int g = threadIdx.x; g < s.buckets; g += BlockSize)
    {
        buckets[g] = g < count ? segment_range{s.range.begin + first[g],
                                               s.range.begin + (g + 1 < count ? first[g + 1] : start[s.buckets])}
                               : segment_range{s.range.end, s.range.end};
    }
}

/// Whether a segment's scatter ranks by bucket groups (list_groups) rather than by buckets: where
/// its plan asks for them, unless its range spans fewer images than it has buckets. Each bucket
/// then holds one value, which the next round finds constant and done. (u32 outlier 2^28 lost
/// 13-16% grouped, 2.6% with this rule, on an H100; by our reading, not profiled, its round-2
/// segments span about 256 values in 256 buckets.) Constant segments never group.
HIPFLASHSORT_DEVICE bool segment_is_grouped(const partition_segment& s, const std::uint64_t* stats,
                                            unsigned int segment)
{
    std::uint64_t lo, hi;
    deciding_range(stats, s, segment, lo, hi);
    return s.group_keys != 0 && hi - lo >= s.buckets;
}

/// Where a round lists its next-round segments by class (bin_block), and how the host learns the
/// lists' lengths: counts[0, max_class_lists), published into `box` (where there is one) by the
/// last segment's listing block to finish, which `listed_blocks` (zeroed by the plan) counts.
struct round_binning
{
    class_limits limits;
    class_lists lists;
    unsigned int* counts;
    unsigned int* listed_blocks;
    unsigned int* box;
};

/// Lists the segment's next-round segments in their classes; the round's last listing block then
/// publishes the class counts. Segments of one element are listed in the smallest class like any
/// other: the scatter that moves them has not run yet.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void bin_next_round(const partition_segment& s, const segment_range* entries,
                                        const round_binning& bin)
{
    syncthreads(); // the entries are listed
    for(unsigned int first = 0; first < s.buckets; first += BlockSize) // block-uniform trip count
    {
        const unsigned int b = first + threadIdx.x;
        const segment_range r = b < s.buckets ? entries[b] : segment_range{0, 0};
        bin_block(r, r.end > r.begin, bin.limits, bin.lists, bin.counts);
    }
    __threadfence(); // this block's lists and counts, before its arrival is counted
    syncthreads();
    bool last = false;
    if(threadIdx.x == 0) last = atomicAdd(bin.listed_blocks, 1u) == gridDim.x - 1;
    if(syncthreads_or(last) && bin.box != nullptr)
    {
        __threadfence(); // the other blocks' counts, after their arrivals
        publish_counts(bin.counts, max_class_lists, bin.box);
    }
}

/// Where every chunk's share of every bucket goes, after the histogram: grid (segments,
/// column_groups + 1), the first column_groups blocks of a segment scan its matrix columns (for
/// a segment of few chunks the last one does), the last one turns its bucket totals into bucket
/// (or bucket group) ranges and lists them by class for the next round. One kernel instead of
/// three (offsets, binning, the counts' publication) saves launches per round, each of which at
/// 2^16 keys costs about as much as the kernel's work, and the host learns the counts while the
/// scatter runs.
template <unsigned int BlockSize, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize) void partition_offsets_kernel(const partition_segment* segments,
                                                                     const std::uint64_t* stats,
                                                                     std::uint64_t* matrix, segment_range* next,
                                                                     std::uint16_t* groups, round_binning bin,
                                                                     final_segments rule)
{
    __shared__ std::uint64_t start[MaxBuckets + 1];
    const partition_segment s = segments[blockIdx.x];
    const unsigned int column_groups = gridDim.y - 1;
    const bool short_columns = s.chunks <= thread_scanned_chunks;
    if(blockIdx.y < column_groups)
    {
        if(!short_columns) scan_columns<BlockSize>(s, matrix, blockIdx.y, column_groups);
        return;
    }
    if(short_columns) scan_short_columns<BlockSize>(s, matrix);
    const bool final = segment_is_final(stats, s, blockIdx.x, rule);
    bucket_starts<BlockSize>(s, next + s.next_first, start);
    if(segment_is_grouped(s, stats, blockIdx.x))
        list_groups<BlockSize, MaxBuckets>(s, start, next + s.next_first, groups + s.next_first);
    else
        list_buckets<BlockSize>(s, start, final, next + s.next_first);
    bin_next_round<BlockSize>(s, next + s.next_first, bin);
}

} // namespace detail
} // namespace hipflashsort

#endif
