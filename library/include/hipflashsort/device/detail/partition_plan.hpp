// The plan of a partition round: how many buckets each large segment gets, the chunks (one
// scatter block each) and where each segment's count matrix and next-round buckets start. The
// rules are plain functions of the sizes (partition_planner, host and device); the plan itself is
// built on the GPU from the large segments where binning left them (plan_partition_kernel), so a
// round needs neither a read-back of the large list nor an upload of the plan.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_PARTITION_PLAN_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_PARTITION_PLAN_HPP_

#include <cstdint>

#include "../../block/detail/block_primitives.hpp"
#include "../../config.hpp"
#include "partition_kernels.hpp"
#include "segmented_config.hpp"
#include "segmented_kernels.hpp"

namespace hipflashsort {
namespace detail {

/// A round's large segments as binning left them: the large list, then the wide lists whose
/// classes were not launched (too few segments), each with the count the host read back; or
/// the whole input as one segment (a device-level sort too large for every class).
struct round_segments
{
    static constexpr unsigned int lists = 1 + wide_classes;
    const segment_range* list[lists];
    unsigned int count[lists];
    std::uint64_t single; // nonzero: the only segment, [0, single)

    HIPFLASHSORT_HOST_DEVICE std::uint64_t size() const
    {
        if(single != 0) return 1;
        std::uint64_t n = 0;
        for(unsigned int l = 0; l < lists; l++) n += count[l];
        return n;
    }

    HIPFLASHSORT_HOST_DEVICE segment_range operator()(std::uint64_t i) const
    {
        if(single != 0) return segment_range{0, single};
        unsigned int l = 0;
        while(i >= count[l]) i -= count[l++];
        return list[l][i];
    }
};

/// The partition's sizing rules for one device and one set of granted classes: a plain value,
/// so that the GPU plans with the same functions the host tests.
template <class Key, class Value>
struct partition_planner
{
    using config = segmented_config<Key, Value>;
    static_assert(config::partition_max_buckets <= 0xffff && config::partition_wide_buckets <= 0xffff,
                  "bucket counts fit partition_segment::buckets");

    std::uint64_t largest_small; // largest segment of the classes on packed lists
    unsigned int multiprocessors;
    unsigned int scatter_blocks; // scatter blocks the GPU holds at once
    bool flash_network;          // whether the flash network class took its LDS
    bool late = false;           // a round after those that uniform keys take (buckets_for)

    /// Largest segment that one round cuts into buckets averaging at most 3/4 of the largest
    /// small class: uniform keys then land every bucket in a small class. (At half the class,
    /// 2^28 u32 keys cut into 256 buckets of 2^20 ± noise sent half of them through a third
    /// round, for a fifth of the sort's time.)
    HIPFLASHSORT_HOST_DEVICE std::uint64_t one_round_limit() const
    {
        return one_round_limit(config::partition_max_buckets);
    }

    /// As one_round_limit, with at most `most` buckets.
    HIPFLASHSORT_HOST_DEVICE std::uint64_t one_round_limit(std::uint64_t most) const
    {
        return most * (largest_small / 4 * 3);
    }

    /// Buckets for a segment of `size` keys in a round of `round_keys` keys.
    /// - Up to one_round_limit (the last round): with the flash network class, buckets of 9/10
    ///   of its capacity (flash_network_goal) when that makes 64 or more (fewer buckets scatter
    ///   faster) and the round gives two such blocks per multiprocessor. Otherwise buckets
    ///   averaging 4/5 of the smallest class limit (powers of two from partition_bucket_keys, or
    ///   from a smaller one down to partition_fill_keys where the round would not give two blocks
    ///   per multiprocessor) that partition_buckets reach, so that few buckets spill into the next
    ///   class (fuller for pairs' network classes: last_round_goal), up to half the largest
    ///   small class; beyond that, partition_buckets, or up to partition_max_buckets where
    ///   partition_buckets would leave the segment to two rounds.
    ///   Pairs start one class higher where the first would leave short runs (short_runs) and
    ///   the round still fills the GPU with the larger buckets.
    /// - Larger: enough buckets that the next round is the last one and lands its buckets in
    ///   half the largest small class, within [partition_round_buckets, partition_wide_buckets].
    /// H100, one run against powers of two (buckets of up to one class limit, which sent about
    /// half of them into the next class): u32 2^28 23.7 -> 26.0 Gkeys/s, 2^24 25.3 -> 27.2;
    /// segments of 16384 f32 47.3 -> 55.8, of 16384 u32+u32 26.2 -> 28.0. Flash network buckets
    /// in the last round (with partition_bucket_keys 512): u32 2^28 27.4 -> 33.7, f32 normal
    /// 2^28 24.8 -> 28.2; at 2^20 (80 such buckets) 12.9 -> 10.5, hence the fill condition.
    /// - In a late round (after those that uniform keys take, uniform_rounds, and never before the
    ///   third), up to one_round_limit: the most buckets, at most one per partition_bucket_target
    ///   keys. What is left then is skewed (2^28 reduced-entropy keys took six rounds where
    ///   uniform ones take two), and finer buckets split it in fewer.
    ///   H200, 2^28, two A/Bs of three rotated rounds: u32 / f32 reduced-entropy +4.6 / +5.5% and
    ///   +4.8 / +5.6%, exponential -1.4 / -0.7% and -1.1 / -0.6% (its third round, about 17% of
    ///   its keys, in finer buckets), every other case within 0.6% (fifty-fourth session).
    ///   A round is late also after one that met a segment of crowded integer keys (crowds_low,
    ///   flagged by chunk_histogram_kernel, read by plan_partition_kernel): their segments resist
    ///   equal-width buckets too. H200, 2^28, three rotated rounds each: u32 reduced-entropy
    ///   +3.3% (fifty-fourth session) and +3.2% (fifty-fifth), u32 zipf -0.9% and -1.0%, every
    ///   other u32 and f32 case within 0.2%. Not for floats: f32 zipf lost 22% (its second round
    ///   lost the buckets aimed at the flash network class), and f32 reduced-entropy gained
    ///   nothing.
    HIPFLASHSORT_HOST_DEVICE unsigned int buckets_for(std::uint64_t size, std::uint64_t round_keys) const
    {
        const std::uint64_t most = size > one_round_limit(config::partition_buckets) ? config::partition_max_buckets
                                                                                    : config::partition_buckets;
        if(late && size <= one_round_limit())
            return static_cast<unsigned int>(
                max_of<std::uint64_t>(min_of<std::uint64_t>(most, size / config::partition_bucket_target), 2));
        if(size > one_round_limit())
        {
            const std::uint64_t next = next_round_goal();
            const std::uint64_t wanted = (size + next - 1) / next;
            return static_cast<unsigned int>(
                min_of<std::uint64_t>(max_of<std::uint64_t>(wanted, config::partition_round_buckets),
                                      config::partition_wide_buckets));
        }
        if(aims_at_flash_network(size, round_keys))
        {
            const std::uint64_t goal = flash_network_goal();
            return static_cast<unsigned int>(min_of((size + goal - 1) / goal, most));
        }
        std::uint64_t limit = min_of<std::uint64_t>(config::partition_bucket_keys, largest_small / 2);
        while(limit > config::partition_fill_keys && !fills_gpu(round_keys, bucket_goal(limit))) limit /= 2;
        if(short_runs(size, limit) && aims_within(2 * limit) && fills_gpu(round_keys, bucket_goal(2 * limit)))
            limit *= 2;
        for(;; limit *= 2)
        {
            if(size <= most * bucket_goal(limit)) // at most `most` buckets of bucket_goal(limit)
            {
                const std::uint64_t goal = last_round_goal(limit, round_keys);
                return static_cast<unsigned int>(max_of<std::uint64_t>((size + goal - 1) / goal, 2));
            }
            if(!aims_within(2 * limit)) return static_cast<unsigned int>(most);
        }
    }

    /// Partition rounds that uniform keys of a sort of `size` keys take: one for each time its
    /// segments are larger than one_round_limit (cut by buckets_for's rule for them), then the
    /// last. Two up to about 2^31 keys of 4 bytes.
    HIPFLASHSORT_HOST_DEVICE unsigned int uniform_rounds(std::uint64_t size) const
    {
        unsigned int rounds = 1;
        for(; size > one_round_limit(); rounds++)
        {
            const std::uint64_t b = buckets_for(size, size);
            size = (size + b - 1) / b;
        }
        return rounds;
    }

    /// Whether a segment of `size` keys, its round's last, aims its buckets at the flash network
    /// class (buckets_for).
    HIPFLASHSORT_HOST_DEVICE bool aims_at_flash_network(std::uint64_t size, std::uint64_t round_keys) const
    {
        const std::uint64_t goal = flash_network_goal();
        return flash_network && size <= one_round_limit() && size >= 64 * goal && fills_gpu(round_keys, goal);
    }

    /// Sample gaps of margin for a segment of `size` keys in `buckets` buckets, should its round
    /// be sampled (sampled_margin_gaps): up to eight where its buckets aim at the flash network
    /// class, the largest small class of keys of up to 4 bytes, whose overflowing end buckets cost
    /// another partition round; two elsewhere, where an end bucket that overflows its class
    /// spills into the next small class.
    /// H200, 2^28 keys, two gaps -> up to eight: the third round of a few segments left every
    /// uniform u32 / f32 sort (ncu: seven kernels, about 55 us, and the read-back); medians of 3
    /// and 5 rotated rounds, Gkeys/s: u32 50.30 / 50.06 -> 50.75 / 50.51 (+0.9 / +0.9%), f32 45.68 /
    /// 45.44 -> 46.01 / 45.80 (+0.7 / +0.8%), u32+u32 22.41 / 22.26 -> 22.50 / 22.37 (+0.4 /
    /// +0.5%) (fifty-first session).
    HIPFLASHSORT_HOST_DEVICE unsigned int margin_gaps_for(std::uint64_t size, std::uint64_t round_keys,
                                                          unsigned int buckets) const
    {
        if(!aims_at_flash_network(size, round_keys)) return 2;
        return sampled_margin_gaps(size / sample_stride<Key>(size), buckets, 8);
    }

    /// Average keys per bucket of a last round aimed at the class of `limit` keys: bucket_goal,
    /// but fuller for pairs whose class is a network (keys of up to 4 bytes, up to the block
    /// network): a network sorts a padded power of two whatever the segment's size, so fuller
    /// buckets take fewer networks per key. 61/64 of the class where the round gives four blocks
    /// per multiprocessor, 9/10 where it gives two, else bucket_goal: fewer, longer buckets in
    /// a small round lengthen its slowest block, and the buckets that spill into the next class
    /// add a launch bound by one block's latency.
    /// - H100, 2^26 pairs, Gkeys/s, medians of three rounds, 4/5 -> 9/10: segments of 65536
    ///   u32+u32 / f32+u32 33.6 / 34.2 -> 35.2 / 36.3, the power-law mix 32.3 / 32.3 -> 33.5 /
    ///   33.3. 9/10 everywhere lost a device sort of 2^16 u32+u32 pairs 6% (142 buckets aimed at
    ///   the 512 class instead of 160), and gained nothing for keys alone (segments of 65536 u32 /
    ///   f32 76.9 / 72.4 -> 76.5 / 71.8).
    /// - 9/10 -> 31/32 (forty-fifth session, medians of 5-12 rotated rounds): segments of 65536
    ///   u32+u32 / f32+u32 +2.2 / +2.9% on an H100, +1.7 / +2.1% on an H200, the power-law mix
    ///   +2.0 / +1.3% and +1.4 / +0.5%, device sorts of 2^24 u32+u32 +1.7% and +1.2%. A device
    ///   sort of 2^18 pairs (264 such buckets on 132 multiprocessors) read 5-10% lower with 31/32
    ///   in runs that spread 15-30%, hence the four blocks.
    /// - 31/32 -> 61/64 (sixty-seventh session, H200, 2^26 pairs, medians of five and four
    ///   rotated rounds in two calls): a segment of 65536 pairs takes 68 buckets instead of 67,
    ///   u32+u32 51.09 -> 51.41 and 51.20 -> 51.50 Gkeys/s (+0.6 / +0.6%), f32+u32 +0.4 / +0.1%;
    ///   the power-law mix u32+u32 +0.6 / +0.1%, f32+u32 +1.0 / +0.8%; other segment sizes
    ///   within 0.3%, device sorts of 2^20-2^28 pairs within 0.5% (2^16 and 2^18, which this
    ///   goal does not reach, read -1.4%: their spread). 66, 69 and 71 buckets (1000/1024,
    ///   15/16, 29/32) read -0.3, -0.7 and -2.3% for u32+u32. By our reading, with fewer
    ///   buckets more of them overflow the 1024 class (a bucket holds about 964 +- 31 pairs with
    ///   68, 978 +- 31 with 67), and with more, more networks run. (On an H100, forty-sixth
    ///   session, 61/64 had read +0.2 / 0.0% there, and 31/32 stayed.)
    HIPFLASHSORT_HOST_DEVICE std::uint64_t last_round_goal(std::uint64_t limit, std::uint64_t round_keys) const
    {
        if(config::networks && has_values<Value> && limit <= config::wave_and_network_top)
        {
            const std::uint64_t fullest = limit / 64 * 61, fuller = limit / 10 * 9;
            if(fills_gpu(round_keys, fullest, 4)) return fullest;
            if(fills_gpu(round_keys, fuller)) return fuller;
        }
        return bucket_goal(limit);
    }

    /// Keys per segment that a round which is not the last aims to leave to the next one: as many
    /// as partition_buckets buckets of 3/4 of half the largest small class hold.
    HIPFLASHSORT_HOST_DEVICE std::uint64_t next_round_goal() const
    {
        return std::uint64_t(config::partition_buckets) * (largest_small / 2) / 4 * 3;
    }

    /// Most keys per bucket group (partition_segment::group_keys) for a segment of `size` keys: in
    /// a round that is not the last, adjacent, evenly filled buckets holding together up to this
    /// share one next-round segment (list_groups), so that the scatter writes longer runs to fewer
    /// places. Up to 1/48 of the segment (uniform keys in 256 buckets make 64 groups of four) and
    /// 3/4 of the next round's goal (2^28 u32 keys: 128 groups of two), within one_round_limit,
    /// so grouping adds no round. H100, Gkeys/s, medians of four rounds, ungrouped -> grouped:
    /// u32 2^24 / 2^26 / 2^28 28.9 / 31.7 / 35.9 -> 29.1 / 38.0 / 37.5, f32 2^26 31.4 -> 34.7,
    /// u32+u32 2^26 / 2^28 14.34 / 13.93 -> 16.45 / 14.41, u64 2^24 17.0 -> 18.1. Groups of about the
    /// next round's goal did worse at 2^26 (u32 36.7, 32 groups) and 2^24 (u32+u32 14.7 against
    /// 16.1 ungrouped); the goal's half left 2^28 ungrouped.
    HIPFLASHSORT_HOST_DEVICE unsigned int group_keys_for(std::uint64_t size) const
    {
        if(size <= one_round_limit()) return 0;
        return static_cast<unsigned int>(min_of(next_round_goal() / 4 * 3, size / 48));
    }

    /// Whether a last round may aim at the class of `limit` keys: up to half the largest small class.
    HIPFLASHSORT_HOST_DEVICE bool aims_within(std::uint64_t limit) const { return limit <= largest_small / 2; }

    /// Whether buckets aimed at the class of `limit` keys would leave runs shorter than
    /// partition_min_run per tile (pairs of keys of up to 4 bytes only).
    HIPFLASHSORT_HOST_DEVICE static bool short_runs(std::uint64_t size, std::uint64_t limit)
    {
        if constexpr(config::partition_min_run == 0)
            return false;
        else // no division by a zero run length where none applies
            return size > config::partition_tile / config::partition_min_run * bucket_goal(limit);
    }

    /// Average keys per bucket aimed at for a class of `limit` keys: 4/5 of it, so that few
    /// buckets spill into the next class.
    HIPFLASHSORT_HOST_DEVICE static std::uint64_t bucket_goal(std::uint64_t limit) { return limit / 5 * 4; }

    /// Average keys per bucket of a last round aimed at the flash network class: 9/10 of its
    /// capacity. Fewer, fuller buckets scatter faster and leave the class fewer segments; the
    /// tenth left is for the spread of a round's buckets (normal keys' density changes by about
    /// 8% across a second-round segment two standard deviations out, by our estimate).
    /// H200, 2^28 keys, three rotated rounds, Gkeys/s, 4/5 -> 9/10 -> 19/20 (fifty-ninth
    /// session): u32 / f32 uniform 55.49 / 59.60 -> 56.76 / 61.16 -> 57.38 / 61.54, normal 52.43
    /// / 50.48 -> 53.47 / 51.34 -> 53.58 / 51.15, exponential 48.50 / 48.52 -> 49.43 / 49.01 ->
    /// 49.77 / 48.96, f32 outlier 58.54 -> 60.04 -> 60.39; 2^26 uniform +1.0 / +1.8% (9/10), 2^24
    /// within 0.3%. At the whole capacity and above (buckets that overflow it) u32 uniform lost
    /// 19-29%, sorted keys 49%.
    HIPFLASHSORT_HOST_DEVICE static std::uint64_t flash_network_goal()
    {
        return std::uint64_t(config::flash_network_capacity) / 10 * 9;
    }

    /// Whether a round of `round_keys` keys in buckets of `goal` keys gives `blocks` blocks per
    /// multiprocessor. (The rules compare products, not quotients: each thread of the plan's one
    /// block runs them, and its 64-bit divisions were about a quarter of the plan's instructions.)
    HIPFLASHSORT_HOST_DEVICE bool fills_gpu(std::uint64_t round_keys, std::uint64_t goal, unsigned int blocks = 2) const
    {
        return round_keys >= blocks * std::uint64_t(multiprocessors) * goal;
    }

    /// Chunks a round of `segments` segments aims at: one segment is cut into `scatter_blocks`
    /// equal chunks (one full wave), several segments into about round_chunks_per_block chunks
    /// per resident block.
    HIPFLASHSORT_HOST_DEVICE std::uint64_t chunk_target(std::uint64_t segments) const
    {
        return min_of<std::uint64_t>(
            max_of<std::uint64_t>(scatter_blocks, 1) * (segments == 1 ? 1 : config::round_chunks_per_block),
            config::max_round_chunks);
    }

    /// Whole tiles per chunk, for a round of `tiles` tiles in `segments` segments: the target's
    /// share, but at least round_chunk_tiles where the round holds more than 8 tiles per resident
    /// block (a lone segment's chunks are longer there anyway).
    HIPFLASHSORT_HOST_DEVICE std::uint64_t chunk_tiles(std::uint64_t tiles, std::uint64_t segments) const
    {
        const std::uint64_t target = chunk_target(segments);
        const std::uint64_t long_round = 8 * max_of<std::uint64_t>(scatter_blocks, 1);
        const std::uint64_t fewest = tiles > long_round ? config::round_chunk_tiles : 1;
        return max_of<std::uint64_t>((tiles + target - 1) / target, fewest);
    }

    /// Most chunks a round of `segments` segments takes, whatever their sizes: each segment's
    /// chunks are at most its tiles / chunk_tiles rounded up, so the sum is at most the target
    /// plus one per segment. The partition kernels' grids.
    HIPFLASHSORT_HOST_DEVICE std::uint64_t most_chunks(std::uint64_t segments) const
    {
        return chunk_target(segments) + segments;
    }

    /// Partition tiles a segment of `size` keys spans.
    HIPFLASHSORT_HOST_DEVICE static std::uint64_t tiles_in(std::uint64_t size)
    {
        return (size + config::partition_tile - 1) / config::partition_tile;
    }

    /// Segment `r` of a round of `round_keys` keys cut `chunk_tiles` tiles at a time: its
    /// buckets, group bound and chunks, made equal (as many as chunks of chunk_tiles would make,
    /// then evened out, whole tiles each but the last). The round places it (matrix_offset,
    /// next_first, first_chunk).
    HIPFLASHSORT_HOST_DEVICE partition_segment plan_segment(const segment_range& r, std::uint64_t round_keys,
                                                            std::uint64_t chunk_tiles) const
    {
        constexpr std::uint64_t tile = config::partition_tile;
        const std::uint64_t size = r.end - r.begin;
        const std::uint64_t wanted_chunks = (size + chunk_tiles * tile - 1) / (chunk_tiles * tile);
        partition_segment s{};
        s.range = r;
        s.chunk_items = ((size + wanted_chunks - 1) / wanted_chunks + tile - 1) / tile * tile;
        s.buckets = static_cast<std::uint16_t>(buckets_for(size, round_keys));
        s.chunks = static_cast<unsigned int>((size + s.chunk_items - 1) / s.chunk_items);
        s.group_keys = group_keys_for(size);
        s.margin_gaps = static_cast<std::uint16_t>(margin_gaps_for(size, round_keys, s.buckets));
        return s;
    }

    /// The plan of a round whose only segment is the whole input of `size` keys.
    HIPFLASHSORT_HOST_DEVICE partition_segment plan_lone(std::uint64_t size) const
    {
        return plan_segment(segment_range{0, size}, size, chunk_tiles(tiles_in(size), 1));
    }
};

/// Chunk `index` of segment `s`, the round's segment `segment`.
HIPFLASHSORT_HOST_DEVICE partition_chunk chunk_of(const partition_segment& s, unsigned int segment,
                                                  unsigned int index)
{
    const std::uint64_t begin = s.range.begin + index * s.chunk_items;
    const std::uint64_t end = s.range.end - begin < s.chunk_items ? s.range.end : begin + s.chunk_items;
    return partition_chunk{begin, end, segment, index};
}

/// Copies a batch of `count` planned segments from LDS to `segments` and seeds their statistics
/// (`stats`) for chunk_min_max_kernel, consecutive threads writing consecutive words. (A thread
/// per segment, storing its 56 bytes and its statistics' 64, kept the plan's one multiprocessor
/// busy with scattered stores: 28 us for 1024 segments, H100.)
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void store_batch(const partition_segment* batch, unsigned int count, partition_segment* segments,
                                     std::uint64_t* stats)
{
    constexpr unsigned int words = sizeof(partition_segment) / sizeof(std::uint64_t);
    static_assert(sizeof(partition_segment) % sizeof(std::uint64_t) == 0, "whole words");
    const auto* from = reinterpret_cast<const std::uint64_t*>(batch);
    auto* to = reinterpret_cast<std::uint64_t*>(segments);
    for(unsigned int w = threadIdx.x; w < count * words; w += BlockSize) to[w] = from[w];
    for(unsigned int w = threadIdx.x; w < count * segment_stat_words; w += BlockSize)
        stats[w] = stat_is_minimum(w % segment_stat_words) ? ~std::uint64_t(0) : 0;
}

/// The round's plan, by one block: the round's tiles and keys, then batches of BlockSize
/// segments, each planned by one thread and placed by block scans (first chunk, first matrix
/// entry, first next-round bucket), the batch and its chunks written by the whole block. Also
/// seeds each segment's statistics for chunk_min_max_kernel and clears the class counters (and
/// the count of listing blocks and the crowded flag) for the next round's binning
/// (round_binning). `crowded`, null in a sort's first round: the previous round met crowded
/// integer keys, and this round is late (partition_planner::buckets_for). One block suffices: a
/// round has at most a few thousand large segments per 2^26 keys.
template <class Key, class Value, unsigned int BlockSize>
__global__ __launch_bounds__(BlockSize) void plan_partition_kernel(partition_planner<Key, Value> planner,
                                                                  round_segments large, std::uint64_t* stats,
                                                                  partition_segment* segments,
                                                                  partition_chunk* chunks, round_totals* totals,
                                                                  unsigned int* counters, unsigned int counter_count,
                                                                  const unsigned int* crowded)
{
    // Read before the counters, the flag among them, are cleared at the end (after barriers).
    if(crowded != nullptr && *crowded != 0) planner.late = true;
    __shared__ std::uint64_t scratch[block_shape<BlockSize>::waves];
    __shared__ partition_segment batch[BlockSize];
    const std::uint64_t n = large.size();
    std::uint64_t tiles = 0, keys = 0;
    for(std::uint64_t i = threadIdx.x; i < n; i += BlockSize)
    {
        const segment_range r = large(i);
        tiles += planner.tiles_in(r.end - r.begin);
        keys += r.end - r.begin;
    }
    std::uint64_t round_tiles = 0, round_keys = 0;
    block_inclusive_scan<BlockSize>(tiles, round_tiles, scratch);
    block_inclusive_scan<BlockSize>(keys, round_keys, scratch);
    const std::uint64_t chunk_tiles = planner.chunk_tiles(round_tiles, n);
    std::uint64_t chunk_at = 0, matrix_at = 0, next_at = 0;
    for(std::uint64_t first = 0; first < n; first += BlockSize) // block-uniform trip count
    {
        const std::uint64_t i = first + threadIdx.x;
        partition_segment s{};
        if(i < n) s = planner.plan_segment(large(i), round_keys, chunk_tiles);
        // Chunks in the high half, buckets in the low: a batch holds far fewer than 2^32 of either.
        const std::uint64_t counts = std::uint64_t(s.chunks) << 32 | s.buckets;
        const std::uint64_t entries = std::uint64_t(s.chunks) * s.buckets;
        std::uint64_t batch_counts = 0, batch_entries = 0;
        const std::uint64_t counts_before = block_inclusive_scan<BlockSize>(counts, batch_counts, scratch) - counts;
        const std::uint64_t entries_before
            = block_inclusive_scan<BlockSize>(entries, batch_entries, scratch) - entries;
        s.first_chunk = static_cast<unsigned int>(chunk_at + (counts_before >> 32));
        s.next_first = next_at + (counts_before & 0xffffffffu);
        s.matrix_offset = matrix_at + entries_before;
        batch[threadIdx.x] = s;
        syncthreads();
        const unsigned int in_batch = static_cast<unsigned int>(n - first < BlockSize ? n - first : BlockSize);
        store_batch<BlockSize>(batch, in_batch, segments + first, stats + segment_stat_words * first);
        const std::uint64_t batch_chunks = batch_counts >> 32;
        for(std::uint64_t c = threadIdx.x; c < batch_chunks; c += BlockSize)
        {
            // The batch's last segment whose chunks start at or before c.
            const std::uint64_t at = chunk_at + c;
            unsigned int lo = 0, hi = in_batch - 1;
            while(lo < hi)
            {
                const unsigned int mid = (lo + hi + 1) / 2;
                if(batch[mid].first_chunk <= at) lo = mid;
                else hi = mid - 1;
            }
            chunks[at] = chunk_of(batch[lo], static_cast<unsigned int>(first + lo),
                                  static_cast<unsigned int>(at - batch[lo].first_chunk));
        }
        chunk_at += batch_chunks;
        next_at += batch_counts & 0xffffffffu;
        matrix_at += batch_entries;
        syncthreads(); // the batch is read before the next one is written
    }
    for(unsigned int c = threadIdx.x; c < counter_count; c += BlockSize) counters[c] = 0;
    if(threadIdx.x == 0) *totals = round_totals{chunk_at};
}

} // namespace detail
} // namespace hipflashsort

#endif
