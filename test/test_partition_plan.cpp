// The partition round's plan, without a GPU: the rules plan_partition_kernel applies to every
// large segment (partition_planner), composed as the kernel composes them. The chunks of every
// large segment cover it exactly in whole tiles, one segment gets at most one chunk per resident
// scatter block, the buckets are in range, no round takes more chunks than the partition
// kernels' grids (most_chunks), and every list, the count matrix and the next round's segment
// list stay inside the temporary storage that segmented_plan reserved from the sizes alone (the
// bounds the device kernels rely on and never check).
#include <gtest/gtest.h>

#include <hipflashsort/hipflashsort.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using hipflashsort::detail::partition_chunk;
using hipflashsort::detail::partition_segment;
using hipflashsort::detail::round_segments;
using hipflashsort::detail::segment_range;

template <class Key, class Value>
struct plan_check
{
    using config = hipflashsort::detail::segmented_config<Key, Value>;
    using plan_type = hipflashsort::detail::segmented_plan<Key, Value>;
    using runner_type = hipflashsort::detail::segmented_runner<Key, Value>;
    using planner_type = hipflashsort::detail::partition_planner<Key, Value>;

    /// Stands in for a dynamic-LDS kernel: the plan only asks whether the GPU granted one.
    static void granted_kernel(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*,
                               hipflashsort::order)
    {
    }

    /// Stands in for the flash network class's kernel.
    static void network_kernel(const std::uint64_t*, unsigned int, const std::uint64_t*, unsigned int, const Key*,
                               Key*, const Value*, Value*, Value*, segment_range*, unsigned int*, hipflashsort::order)
    {
    }

    /// The rules of a runner for a GPU of `multiprocessors` that granted the dynamic flash
    /// classes or none, holds `resident` scatter blocks at once, and granted the flash network
    /// class where `network`.
    static planner_type make_planner(const plan_type& plan, int multiprocessors, bool granted,
                                     unsigned int resident = 0, bool network = false)
    {
        runner_type runner{plan, nullptr, nullptr, nullptr, hipflashsort::order::ascending, 0, multiprocessors};
        std::fill_n(runner.dynamic_flash, config::dynamic_flash_classes, granted ? &granted_kernel : nullptr);
        runner.scatter_blocks = resident;
        if(network) runner.flash_network = &network_kernel;
        return runner.planner();
    }

    /// Plans one round over `large` (segments of a sort of `size` keys in `segments` segments)
    /// with `resident` scatter blocks, and checks it, with and without the dynamic flash classes.
    static void round(const std::vector<segment_range>& large, std::uint64_t size, std::uint64_t segments,
                      unsigned int resident)
    {
        round(large, size, segments, resident, false);
        round(large, size, segments, resident, true);
    }

    static void round(const std::vector<segment_range>& large, std::uint64_t size, std::uint64_t segments,
                      unsigned int resident, bool granted)
    {
        const plan_type plan(size, segments);
        const planner_type rules
            = make_planner(plan, static_cast<int>(std::max(1u, resident / 3)), granted, resident);
        std::uint64_t tiles = 0, round_keys = 0;
        for(const segment_range& r : large)
        {
            tiles += rules.tiles_in(r.end - r.begin);
            round_keys += r.end - r.begin;
        }
        const std::uint64_t chunk_tiles = rules.chunk_tiles(tiles, large.size());
        EXPECT_LE(large.size(), plan.large_capacity);
        std::uint64_t chunks = 0, matrix = 0, buckets = 0;
        for(std::size_t i = 0; i < large.size(); i++)
        {
            const std::uint64_t keys = large[i].end - large[i].begin;
            const partition_segment p = rules.plan_segment(large[i], round_keys, chunk_tiles);
            EXPECT_GE(p.buckets, 2u);
            EXPECT_LE(p.buckets, config::partition_max_buckets);
            if(keys <= std::uint64_t(config::partition_buckets) * (rules.largest_small / 2))
                EXPECT_LE(keys / p.buckets, rules.largest_small / 2) << "one round must land small buckets";
            if(keys <= rules.one_round_limit())
            {
                EXPECT_LE(keys / p.buckets, rules.largest_small / 4 * 3) << "one round must land small buckets";
                EXPECT_EQ(p.group_keys, 0u) << "a last round's buckets are the final segments";
            }
            else
            {
                expect_next_round_lands(keys, p.buckets, rules);
                EXPECT_GT(p.group_keys, 0u);
                EXPECT_LE(p.group_keys, rules.one_round_limit()) << "groups add no round";
            }
            if(large.size() == 1 && resident <= config::max_round_chunks) EXPECT_LE(p.chunks, resident);
            EXPECT_EQ(p.range.begin, large[i].begin);
            EXPECT_EQ(p.range.end, large[i].end);
            expect_cover(p, static_cast<unsigned int>(i));
            if(large.size() == 1 && large[i].begin == 0)
            {
                // The host sizes a lone segment's grids with plan_lone: it must match the round's plan.
                const partition_segment lone = rules.plan_lone(keys);
                EXPECT_EQ(lone.chunks, p.chunks);
                EXPECT_EQ(lone.buckets, p.buckets);
            }
            chunks += p.chunks;
            matrix += std::uint64_t(p.chunks) * p.buckets;
            buckets += p.buckets;
        }
        EXPECT_LE(chunks, rules.most_chunks(large.size())) << "size " << size << ", resident " << resident;
        EXPECT_LE(chunks, plan.chunk_capacity) << "size " << size << ", resident " << resident;
        EXPECT_LE(buckets, plan.next_capacity);
        EXPECT_LE(matrix, plan.matrix_capacity) << "size " << size << ", resident " << resident;
    }

    /// A segment of several rounds gets [partition_round_buckets, partition_wide_buckets] buckets,
    /// and where those reach, buckets that the next round cuts to 4/5 of half the largest class.
    static void expect_next_round_lands(std::uint64_t keys, unsigned int buckets, const planner_type& rules)
    {
        EXPECT_GE(buckets, config::partition_round_buckets);
        EXPECT_LE(buckets, config::partition_wide_buckets);
        if(buckets < config::partition_wide_buckets)
        {
            const std::uint64_t next = keys / buckets + 1;
            EXPECT_LE(next, rules.one_round_limit()) << keys << " keys";
            EXPECT_LE(next / rules.buckets_for(next, next), rules.largest_small / 2 / 5 * 4) << keys << " keys";
        }
    }

    /// The segment's chunks (chunk_of, as the kernel writes them) follow each other from its begin
    /// to its end, whole tiles but the last.
    static void expect_cover(const partition_segment& s, unsigned int index)
    {
        std::uint64_t at = s.range.begin;
        for(unsigned int c = 0; c < s.chunks; c++)
        {
            const partition_chunk k = hipflashsort::detail::chunk_of(s, index, c);
            EXPECT_EQ(k.segment, index);
            EXPECT_EQ(k.index, c);
            EXPECT_EQ(k.begin, at);
            EXPECT_GT(k.end, k.begin);
            if(c + 1 < s.chunks) EXPECT_EQ((k.end - k.begin) % config::partition_tile, 0u);
            at = k.end;
        }
        EXPECT_EQ(at, s.range.end);
    }

    /// One array of each size (the device sort's first round).
    static void single_segments()
    {
        for(const std::uint64_t size : {std::uint64_t(4097), std::uint64_t(65536), std::uint64_t(1) << 20,
                                        (std::uint64_t(1) << 24) + 3, std::uint64_t(1) << 28,
                                        (std::uint64_t(1) << 34) + 12345})
        {
            for(const unsigned int resident : {1u, 396u, 1024u, 8192u, 100000u})
                round({segment_range{0, size}}, size, 1, resident);
        }
    }

    /// Random sets of large segments with gaps, as later rounds (buckets) or users list them.
    static void many_segments(unsigned int seed)
    {
        std::mt19937_64 rng(seed);
        for(int trial = 0; trial < 40; trial++)
        {
            const std::uint64_t top = std::uint64_t(1) << (13 + rng() % 14);
            std::vector<segment_range> large;
            std::uint64_t at = 0;
            const unsigned int count = 1 + static_cast<unsigned int>(rng() % 300);
            for(unsigned int i = 0; i < count; i++)
            {
                at += rng() % 3 == 0 ? rng() % 5000 : 0;
                const std::uint64_t keys = 4097 + rng() % top;
                large.push_back(segment_range{at, at + keys});
                at += keys;
            }
            const unsigned int resident = 1 + static_cast<unsigned int>(rng() % 2000);
            round(large, at, count + rng() % 1000, resident);
        }
    }
};

template <class T>
class PartitionPlan : public ::testing::Test
{
};

template <class Key, class Value>
struct types
{
    using key = Key;
    using value = Value;
};

using plan_types = ::testing::Types<types<std::uint32_t, hipflashsort::empty_type>,
                                    types<std::uint32_t, std::uint32_t>, types<std::uint64_t, std::uint64_t>,
                                    types<std::uint64_t, hipflashsort::empty_type>,
                                    types<std::uint8_t, hipflashsort::empty_type>, types<double, std::uint16_t>>;
TYPED_TEST_SUITE(PartitionPlan, plan_types);

TYPED_TEST(PartitionPlan, OneArrayFitsTheReservedStorage)
{
    plan_check<typename TypeParam::key, typename TypeParam::value>::single_segments();
}

TYPED_TEST(PartitionPlan, ManySegmentsFitTheReservedStorage)
{
    plan_check<typename TypeParam::key, typename TypeParam::value>::many_segments(20261122);
}

/// Buckets averaging at most 4/5 of a class limit.
unsigned int buckets(std::uint64_t keys, std::uint64_t limit)
{
    const std::uint64_t goal = limit / 5 * 4;
    return static_cast<unsigned int>((keys + goal - 1) / goal);
}

/// Buckets averaging at most 9/10 of a class limit (pairs aimed at a network class by a round
/// that gives two blocks per multiprocessor).
unsigned int fuller_buckets(std::uint64_t keys, std::uint64_t limit)
{
    const std::uint64_t goal = limit / 10 * 9;
    return static_cast<unsigned int>((keys + goal - 1) / goal);
}

/// Buckets averaging at most 61/64 of a class limit (the same, where the round gives four).
unsigned int fullest_buckets(std::uint64_t keys, std::uint64_t limit)
{
    const std::uint64_t goal = limit / 64 * 61;
    return static_cast<unsigned int>((keys + goal - 1) / goal);
}

// Keys wider than 4 bytes aim the last round at their largest flash classes (buckets of 4/5 of
// 2048 keys where a 4096 class exists, as on NVIDIA, of 1024 where 2048 is the largest, as on
// gfx9) where the round gives two blocks per multiprocessor, else at smaller buckets; keys of up
// to 4 bytes keep buckets of 4/5 of 512 (the 512 network class).
TEST(PartitionPlan, WideKeysAimAtLargeBucketsWhereTheRoundFillsTheGpu)
{
    using wide = plan_check<std::uint64_t, hipflashsort::empty_type>;
    using narrow = plan_check<std::uint32_t, hipflashsort::empty_type>;
    const std::uint64_t round_keys = std::uint64_t(1) << 24;
    const wide::plan_type wide_plan(round_keys, 256);
    const narrow::plan_type narrow_plan(round_keys, 256);
    const auto gpu = wide::make_planner(wide_plan, 132, true);
    const std::uint64_t aim = std::min<std::uint64_t>(2048, gpu.largest_small / 2);
    ASSERT_GE(aim, 1024u) << "u64 keys have a dynamic flash class of 2048 or more";
    EXPECT_EQ(gpu.buckets_for(65536, round_keys), buckets(65536, aim));   // round 2 of 2^24 keys
    EXPECT_EQ(gpu.buckets_for(65536, 65536), buckets(65536, 512));        // a sort of 2^16 keys
    EXPECT_EQ(gpu.buckets_for(1 << 18, 1 << 18), buckets(1 << 18, 1024)); // 322 blocks fill 132 SMs
    const auto refused = wide::make_planner(wide_plan, 132, false);        // no dynamic classes
    EXPECT_EQ(refused.buckets_for(65536, round_keys), buckets(65536, 512));
    const auto small_keys = narrow::make_planner(narrow_plan, 132, true);
    EXPECT_EQ(small_keys.buckets_for(65536, round_keys), buckets(65536, 512));
}

// Items of 16 bytes take more than partition_buckets buckets only where that spares a round: a
// sort of 2^20 u64+u64 pairs, whose largest small class is 2048, is one round of 768 buckets,
// and a last round that partition_buckets reach keeps at most partition_buckets.
TEST(PartitionPlan, WideItemsTakeMoreBucketsOnlyToSpareARound)
{
    using pairs = plan_check<std::uint64_t, std::uint64_t>;
    using config = pairs::config;
    ASSERT_GT(config::partition_max_buckets, config::partition_buckets);
    const std::uint64_t size = std::uint64_t(1) << 20;
    const pairs::plan_type plan(size, 1);
    const auto gpu = pairs::make_planner(plan, 132, true);
    ASSERT_LE(size, gpu.one_round_limit());
    ASSERT_GT(size, gpu.one_round_limit(config::partition_buckets));
    EXPECT_EQ(gpu.buckets_for(size, size), config::partition_max_buckets);
    EXPECT_LE(size / config::partition_max_buckets, gpu.largest_small / 4 * 3);
    // The second round of 2^27 pairs: 256 buckets of 2^19, each cut into partition_buckets.
    EXPECT_EQ(gpu.buckets_for(std::uint64_t(1) << 19, std::uint64_t(1) << 27), config::partition_buckets);
    // Narrower items keep one bucket count.
    using keys = hipflashsort::detail::segmented_config<std::uint64_t, hipflashsort::empty_type>;
    EXPECT_EQ(keys::partition_max_buckets, keys::partition_buckets);
}

// Pairs of 4-byte keys aim at the 512 class while a segment's buckets keep runs of at least
// partition_min_run pairs per tile, and at the 1024 class once they would not, where the round
// still fills the GPU. Their buckets then average 61/64 of the class (last_round_goal) where the
// round gives four such blocks per multiprocessor, 9/10 where it gives two.
TEST(PartitionPlan, PairsStepUpWhereTheirRunsWouldBeShort)
{
    using pairs = plan_check<std::uint32_t, std::uint32_t>;
    using config = pairs::config;
    ASSERT_GT(config::partition_min_run, 0u);
    const std::uint64_t round_keys = std::uint64_t(1) << 26;
    const pairs::plan_type plan(round_keys, round_keys / 16384);
    const auto gpu = pairs::make_planner(plan, 132, true);
    ASSERT_GE(gpu.largest_small / 2, 1024u);
    const unsigned int most = config::partition_tile / config::partition_min_run;
    EXPECT_EQ(gpu.buckets_for(16384, round_keys), fullest_buckets(16384, 512));
    EXPECT_LE(gpu.buckets_for(16384, round_keys), most);
    EXPECT_GT(buckets(65536, 512), most);
    EXPECT_EQ(gpu.buckets_for(65536, round_keys), fullest_buckets(65536, 1024));
    EXPECT_LT(fullest_buckets(65536, 1024), fuller_buckets(65536, 1024));
    EXPECT_LT(fuller_buckets(65536, 1024), buckets(65536, 1024));
    // A sort of 2^18 pairs: 269 buckets of 61/64 of the 1024 class would give two blocks per
    // multiprocessor, not four, so the buckets average 9/10 of it.
    const std::uint64_t quarter = std::uint64_t(1) << 18;
    const pairs::plan_type small_plan(quarter, 1);
    const auto small_gpu = pairs::make_planner(small_plan, 132, true);
    EXPECT_EQ(small_gpu.buckets_for(quarter, quarter), fuller_buckets(quarter, 1024));
    // A sort of 2^16 pairs: 80 buckets of the 1024 class would not give two blocks per
    // multiprocessor, so it keeps the 512 class, and 142 fuller buckets would not either, so
    // it keeps 4/5 of it.
    EXPECT_EQ(gpu.buckets_for(65536, 65536), buckets(65536, 512));
    // Keys alone keep the 512 class.
    using keys = plan_check<std::uint32_t, hipflashsort::empty_type>;
    const keys::plan_type key_plan(round_keys, round_keys / 65536);
    EXPECT_EQ(keys::make_planner(key_plan, 132, true).buckets_for(65536, round_keys), buckets(65536, 512));
}

// A segment's margin (sampled_margin_gaps) may take up to eight sample gaps, half a bucket's, only
// where its round is the last and aims its buckets at the flash network class: the second round
// of 2^28 u32 keys (segments of two first-round buckets, 2^21 keys, 2048 samples), and 2^22
// keys' only round where it is the last. With a class of 16384 keys (NVIDIA) those take 7 and 3
// gaps (buckets of 9/10 of the class); with 8192 (gfx9) the second round's buckets are half as
// large. Rounds that are not the last, rounds aimed at smaller classes (2^24 keys' second,
// segments of 327680) and runners without the class keep two.
TEST(PartitionPlan, WideMarginsOnlyWhereBucketsAimAtTheFlashNetwork)
{
    using hipflashsort::detail::sampled_margin_gaps;
    using keys = plan_check<std::uint32_t, hipflashsort::empty_type>;
    ASSERT_TRUE(keys::config::has_flash_network);
    const bool wide_class = keys::config::flash_network_capacity == 16384;
    const std::uint64_t huge = std::uint64_t(1) << 28, large = std::uint64_t(1) << 24, small = std::uint64_t(1) << 22;
    const keys::plan_type plan(huge, 1);
    const auto gpu = keys::make_planner(plan, 132, true, 396, true); // as on an H200
    ASSERT_TRUE(gpu.flash_network);
    EXPECT_EQ(gpu.plan_lone(huge).margin_gaps, 2u);
    EXPECT_NE(gpu.plan_lone(huge).group_keys, 0u);
    const auto second = gpu.plan_segment(segment_range{0, std::uint64_t(1) << 21}, huge, 2);
    EXPECT_EQ(second.group_keys, 0u);
    EXPECT_EQ(second.margin_gaps, sampled_margin_gaps(2048, second.buckets, 8));
    EXPECT_GT(second.margin_gaps, 2u);
    if(wide_class) EXPECT_EQ(second.margin_gaps, 7u);
    const auto only = gpu.plan_lone(small);
    EXPECT_EQ(only.margin_gaps, gpu.aims_at_flash_network(small, small) ? sampled_margin_gaps(2048, only.buckets, 8) : 2u);
    if(wide_class) EXPECT_EQ(only.margin_gaps, 3u);
    EXPECT_EQ(gpu.plan_segment(segment_range{0, 327680}, large, 2).margin_gaps, 2u);
    const auto refused = keys::make_planner(plan, 132, true, 396); // no flash network class
    EXPECT_EQ(refused.plan_segment(segment_range{0, std::uint64_t(1) << 21}, huge, 2).margin_gaps, 2u);
}

// A late round (after those that uniform keys take: two for 2^28 keys, three for 2^34) gives
// each segment up to one_round_limit the most buckets, at most one per partition_bucket_target
// keys and at least two; larger segments keep their rule.
TEST(PartitionPlan, LateRoundsTakeTheMostBuckets)
{
    using keys = plan_check<std::uint32_t, hipflashsort::empty_type>;
    using pairs = plan_check<std::uint64_t, std::uint64_t>;
    const std::uint64_t huge = std::uint64_t(1) << 28;
    const keys::plan_type key_plan(huge, 1);
    const pairs::plan_type pair_plan(huge, 1);
    auto key_rules = keys::make_planner(key_plan, 132, true, 396, true);
    auto pair_rules = pairs::make_planner(pair_plan, 132, true, 396);
    const std::uint64_t target = keys::config::partition_bucket_target;
    const std::uint64_t sizes[] = {65536, 20000, 3 * target, 100};
    std::vector<unsigned int> early;
    for(const std::uint64_t size : sizes) early.push_back(key_rules.buckets_for(size, huge));
    const std::uint64_t beyond = key_rules.one_round_limit() + 1;
    const unsigned int beyond_early = key_rules.buckets_for(beyond, huge);
    EXPECT_EQ(key_rules.uniform_rounds(key_rules.one_round_limit()), 1u);
    EXPECT_EQ(key_rules.uniform_rounds(beyond), 2u);
    EXPECT_EQ(key_rules.uniform_rounds(huge), 2u);
    EXPECT_EQ(key_rules.uniform_rounds(std::uint64_t(1) << 34), 3u);
    key_rules.late = pair_rules.late = true;
    EXPECT_EQ(key_rules.buckets_for(65536, huge), keys::config::partition_buckets);
    EXPECT_NE(key_rules.buckets_for(65536, huge), early[0]);
    EXPECT_EQ(key_rules.buckets_for(20000, huge), 20000 / target);
    EXPECT_EQ(key_rules.buckets_for(3 * target, huge), 3u);
    EXPECT_EQ(key_rules.buckets_for(100, huge), 2u);
    EXPECT_EQ(key_rules.buckets_for(beyond, huge), beyond_early);
    const std::uint64_t pair_large = pair_rules.one_round_limit(pairs::config::partition_buckets) + 1;
    if(pair_large <= pair_rules.one_round_limit())
        EXPECT_EQ(pair_rules.buckets_for(pair_large, huge), pairs::config::partition_max_buckets);
    for(const std::uint64_t size : sizes)
        EXPECT_LE(std::uint64_t(key_rules.buckets_for(size, huge)), std::max<std::uint64_t>(size / target, 2));
}

// Chunks of a round of several segments: 16 per resident scatter block for 8-byte items, 8 for
// other items, and at least two tiles in rounds of more than 8 tiles per resident block; a lone
// segment takes one chunk per resident block.
TEST(PartitionPlan, ChunksPerBlockByItemSizeWithTwoTilesInLongRounds)
{
    using pairs = plan_check<std::uint32_t, std::uint32_t>;
    using keys = plan_check<std::uint32_t, hipflashsort::empty_type>;
    const std::uint64_t size = std::uint64_t(1) << 26;
    const pairs::plan_type pair_plan(size, size / 65536);
    const keys::plan_type key_plan(size, size / 65536);
    const unsigned int resident = 396;
    const auto pair_rules = pairs::make_planner(pair_plan, 132, true, resident);
    const auto key_rules = keys::make_planner(key_plan, 132, true, resident);
    ASSERT_EQ(pairs::config::round_chunks_per_block, 16u);
    ASSERT_EQ(keys::config::round_chunks_per_block, 8u);
    // 1024 segments of 65536 pairs (22 tiles each on NVIDIA): chunks of 4 tiles, not 8.
    const std::uint64_t pair_tiles = 1024 * pair_rules.tiles_in(65536);
    EXPECT_EQ(pair_rules.chunk_tiles(pair_tiles, 1024), (pair_tiles + 16 * resident - 1) / (16 * resident));
    // Rounds of 8 to 16 tiles per resident block: two tiles, where 16 per block would give one.
    EXPECT_EQ(pair_rules.chunk_tiles(8 * resident, 341), 1u);
    EXPECT_EQ(pair_rules.chunk_tiles(8 * resident + 1, 341), 2u);
    EXPECT_EQ(pair_rules.chunk_tiles(16 * resident, 341), 2u);
    EXPECT_EQ(pair_rules.chunk_tiles(16 * resident + 1, 341), 2u);
    EXPECT_EQ(pair_rules.chunk_tiles(48 * resident + 1, 341), 4u);
    // Keys of 4 bytes: a tile more per chunk for every 8 tiles per resident block.
    EXPECT_EQ(key_rules.chunk_tiles(8 * resident, 341), 1u);
    EXPECT_EQ(key_rules.chunk_tiles(8 * resident + 1, 341), 2u);
    EXPECT_EQ(key_rules.chunk_tiles(24 * resident + 1, 341), 4u);
    // A lone segment: one chunk per resident block.
    EXPECT_EQ(pair_rules.chunk_tiles(40 * resident, 1), 40u);
    EXPECT_EQ(key_rules.chunk_tiles(3 * resident, 1), 3u);
}

// The size classes of each key and value type: limits strictly increasing (a segment has one
// class), the static classes within 16384, each dynamic class in the dynamic LDS limit of this
// platform, and the flash network above every dynamic flash class.
template <class Key, class Value>
void check_classes()
{
    using config = hipflashsort::detail::segmented_config<Key, Value>;
    for(unsigned int c = 1; c < config::classes; c++)
        EXPECT_LT(config::class_limit(c - 1), config::class_limit(c)) << "class " << c;
    EXPECT_LE(config::largest_static, 16384u);
    EXPECT_LE(config::dynamic_flash_classes, config::max_dynamic_flash_classes);
    if constexpr(config::dynamic_flash_classes > 0)
    {
        EXPECT_LE(config::template dynamic_flash<0>::lds, hipflashsort::dynamic_lds_limit());
        EXPECT_EQ(config::class_limit(config::first_dynamic_flash_class), config::template dynamic_flash<0>::capacity);
    }
    if constexpr(config::dynamic_flash_classes > 1)
    {
        EXPECT_LE(config::template dynamic_flash<1>::lds, hipflashsort::dynamic_lds_limit());
        EXPECT_EQ(config::template dynamic_flash<1>::capacity, 2 * config::template dynamic_flash<0>::capacity);
    }
    if constexpr(config::has_flash_network)
    {
        EXPECT_LE(config::flash_network_lds, hipflashsort::dynamic_lds_limit());
        EXPECT_GT(config::flash_network_capacity, config::dynamic_flash_top);
        EXPECT_EQ(config::flash_network_class, config::classes - 1);
    }
    // A class's list holds every segment the class may take, with or without the small class.
    for(unsigned int c = 1; c < config::classes; c++)
        EXPECT_LE(config::smallest_listed(c), config::class_limit(c - 1) + 1) << "class " << c;
    if constexpr(config::has_small_flash_network)
    {
        EXPECT_LE(config::small_flash_network_lds(), hipflashsort::dynamic_lds_limit());
        EXPECT_EQ(config::class_limit(config::small_flash_network_class), config::small_flash_network_capacity);
        EXPECT_EQ(config::small_flash_network_class + 1, config::flash_network_class);
        EXPECT_EQ(config::smallest_listed(config::flash_network_class),
                  config::class_limit(config::small_flash_network_class - 1) + 1);
    }
    // Keys alone of up to 4 bytes take the small class wherever the flash network class holds
    // 16384 keys (NVIDIA), never with values.
    constexpr bool small_expected = config::has_flash_network && !hipflashsort::detail::has_values<Value>
                                    && config::flash_network_capacity == 16384;
    EXPECT_EQ(config::has_small_flash_network, small_expected);
}

TEST(SegmentedConfig, ClassesIncreaseAndFitTheirLds)
{
    check_classes<std::uint8_t, hipflashsort::empty_type>();
    check_classes<std::uint16_t, std::uint64_t>();
    check_classes<std::uint32_t, hipflashsort::empty_type>();
    check_classes<std::uint32_t, std::uint32_t>();
    check_classes<float, std::uint64_t>();
    check_classes<float, hipflashsort::empty_type>();
    check_classes<std::int16_t, hipflashsort::empty_type>();
    check_classes<std::uint64_t, hipflashsort::empty_type>();
    check_classes<double, std::uint32_t>();
    check_classes<std::uint64_t, std::uint64_t>();
}

/// The windows that Sorter::cut_windows cuts buckets of these sizes into for a row (0: too many).
template <class Sorter>
unsigned int windows_of(const std::vector<unsigned int>& sizes, unsigned int row)
{
    std::vector<unsigned int> out_first(sizes.size() + 1, 0), window_first(Sorter::max_windows + 1);
    for(std::size_t b = 0; b < sizes.size(); b++) out_first[b + 1] = out_first[b] + sizes[b];
    const unsigned int windows = Sorter::cut_windows(out_first.data(), static_cast<unsigned int>(sizes.size()), row,
                                                     window_first.data());
    if(windows == 0) return 0;
    // Every window starts after the last, holds at most the row, and the last ends the segment.
    for(unsigned int w = 0; w < windows; w++)
    {
        EXPECT_LT(window_first[w], window_first[w + 1]) << row << " " << w;
        EXPECT_LE(out_first[window_first[w + 1]] - out_first[window_first[w]], row) << row << " " << w;
    }
    EXPECT_EQ(window_first[0], 0u);
    EXPECT_EQ(window_first[windows], sizes.size());
    return windows;
}

/// Bucket sizes of n keys that leave cut_windows' windows as short as they can be in a row of
/// `slots` (at least 2 * largest_bucket - 1): each window holds slots - largest_bucket + 1 keys,
/// one bucket of largest_bucket keys and one-key buckets, so that the next window's largest
/// bucket does not fit it.
template <class Sorter>
std::vector<unsigned int> short_window_buckets(std::uint64_t n, unsigned int slots)
{
    const unsigned int fill = slots - Sorter::largest_bucket + 1;
    std::vector<unsigned int> sizes;
    std::uint64_t in_window = 0;
    for(std::uint64_t left = n; left > 0;)
    {
        const unsigned int b = in_window == 0 ? static_cast<unsigned int>(std::min<std::uint64_t>(Sorter::largest_bucket, left)) : 1u;
        sizes.push_back(b);
        left -= b;
        in_window += b;
        if(in_window == fill) in_window = 0;
    }
    return sizes;
}

// The wide flash network classes' size limit for a staged row and a number of windows: every
// segment up to it (buckets of at most largest_bucket keys) is cut into at most that many windows
// by cut_windows, the kernel's own planner, and at the limit + 1 the shortest windows need one
// more. Float segments with a zero have the row less the zero masks' slots.
template <class Key, class Sorter>
void check_largest_windowed(unsigned int windows)
{
    using sorter = Sorter;
    static_assert(sorter::full_slots == sorter::capacity + sorter::mask_slots, "the masks beside every bucket");
    static_assert(std::is_floating_point_v<Key> == (sorter::mask_slots > 0), "masks in the row for floats only");
    std::mt19937 rng(windows);
    // H100 / A100 / gfx9 rows of 4-byte keys, then a sweep.
    std::vector<unsigned int> rows = {27808, 23712, 19616, 7072, sorter::largest_bucket + 1, sorter::mask_slots + 1000,
                                      sorter::capacity, sorter::full_slots - 1, sorter::full_slots};
    for(unsigned int row = 1000; row < sorter::full_slots; row += 997) rows.push_back(row);
    for(const unsigned int row : rows)
    {
        const unsigned int limit = sorter::largest_windowed(row, windows);
        ASSERT_LE(limit, sorter::capacity) << row;
        const unsigned int slots = row > sorter::mask_slots ? row - sorter::mask_slots : 0; // with a zero
        if(slots <= sorter::largest_bucket) continue; // no class takes such a row
        if(slots >= sorter::capacity)
        {
            EXPECT_EQ(limit, sorter::capacity) << row; // one window takes every bucket
            continue;
        }
        const auto at_most = [&](std::uint64_t n) {
            const unsigned int w = windows_of<sorter>(short_window_buckets<sorter>(n, slots), slots);
            return w != 0 && w <= windows;
        };
        EXPECT_TRUE(at_most(limit)) << row;
        // Exact where a window's shortest fill can start with the largest bucket (all real rows).
        if(limit < sorter::capacity && slots + 1 >= 2 * sorter::largest_bucket)
            EXPECT_FALSE(at_most(limit + 1u)) << row;
        // Buckets of random sizes up to largest_bucket.
        for(int trial = 0; trial < 4; trial++)
        {
            std::vector<unsigned int> sizes;
            for(std::uint64_t left = limit; left > 0;)
            {
                const unsigned int b = static_cast<unsigned int>(std::min<std::uint64_t>(
                    left, trial % 2 ? rng() % (sorter::largest_bucket + 1) : rng() % (2 * sorter::bucket_goal)));
                sizes.push_back(b);
                left -= b;
            }
            const unsigned int w = windows_of<sorter>(sizes, slots);
            EXPECT_TRUE(w != 0 && w <= windows) << row << " " << trial;
        }
    }
}

template <class Key>
void check_wide_classes_windows()
{
    using config = hipflashsort::detail::segmented_config<Key, hipflashsort::empty_type>;
    using wide = typename config::wide_flash_network_sorter;
    using full = typename config::wide_full_flash_network_sorter;
    static_assert(wide::max_windows == full::max_windows, "one window count for both classes");
    for(const unsigned int windows : {1u, 2u, wide::max_windows})
    {
        check_largest_windowed<Key, wide>(windows);
        check_largest_windowed<Key, full>(windows);
    }
}

TEST(SegmentedConfig, WideFlashNetworkLimitFitsItsWindows)
{
    check_wide_classes_windows<std::uint32_t>();
    check_wide_classes_windows<float>();
    check_wide_classes_windows<std::uint16_t>();
    check_wide_classes_windows<std::uint8_t>();
}

// The split between the two wide classes: the largest segment without a float zero that the
// 512-thread class's row takes in one window, the whole row (tight rows), and one key more takes
// two; it grows with the row.
template <class Sorter>
void check_zero_free_one_window()
{
    unsigned int previous = 0;
    for(unsigned int row = 600; row < Sorter::full_slots + 2000; row += 499)
    {
        const unsigned int n = Sorter::zero_free_one_window(row);
        EXPECT_LE(n, Sorter::capacity) << row;
        EXPECT_GE(n, previous) << row;
        previous = n;
        std::vector<unsigned int> sizes(n / Sorter::bucket_goal, Sorter::bucket_goal);
        if(n % Sorter::bucket_goal != 0) sizes.push_back(n % Sorter::bucket_goal);
        EXPECT_EQ(windows_of<Sorter>(sizes, row), 1u) << row;
        if(n < Sorter::capacity)
        {
            sizes.push_back(1);
            EXPECT_EQ(windows_of<Sorter>(sizes, row), 2u) << row;
        }
    }
}

TEST(SegmentedConfig, WideClassesSplitAtTheOneWindowSize)
{
    using hipflashsort::empty_type;
    using hipflashsort::detail::segmented_config;
    check_zero_free_one_window<segmented_config<std::uint32_t, empty_type>::wide_flash_network_sorter>();
    check_zero_free_one_window<segmented_config<float, empty_type>::wide_flash_network_sorter>();
    check_zero_free_one_window<segmented_config<std::uint16_t, empty_type>::wide_flash_network_sorter>();
    check_zero_free_one_window<segmented_config<std::uint8_t, empty_type>::wide_flash_network_sorter>();
}

// Binning: small classes by their limits, then the first wide list up to wide_split, the second
// up to wide, the large list above; with the split at `wide` the second list gets nothing.
TEST(SegmentedConfig, WideListsSplitAtWideSplit)
{
    hipflashsort::detail::class_limits l{};
    l.classes = 3;
    l.limit[0] = 16;
    l.limit[1] = 1024;
    l.limit[2] = 16384;
    l.wide = 65536;
    l.wide_split = 26000;
    const std::pair<std::uint64_t, unsigned int> expected[]
        = {{2, 0}, {16, 0}, {17, 1}, {16384, 2}, {16385, 4}, {26000, 4}, {26001, 5}, {65536, 5}, {65537, 3}};
    for(const auto& [size, list] : expected) EXPECT_EQ(l.list_of(size), list) << size;
    l.wide_split = l.wide;
    EXPECT_EQ(l.list_of(26001), 4u);
    EXPECT_EQ(l.list_of(65536), 4u);
    EXPECT_EQ(l.list_of(65537), 3u);
    l.wide = l.wide_split = l.limit[2]; // wide classes off
    EXPECT_EQ(l.list_of(16385), 3u);
}

} // namespace

// A round that is not the last lets adjacent buckets share a next-round segment only up to
// group_keys keys and only where they are nearly even: the fullest within 5/4 of their mean.
TEST(PartitionPlan, BucketGroupsAreBoundedAndEven)
{
    using hipflashsort::detail::may_group;
    EXPECT_TRUE(may_group(4000, 1000, 4, 4000));  // four equal buckets, exactly the bound
    EXPECT_FALSE(may_group(4004, 1001, 4, 4000)); // one key too many
    EXPECT_TRUE(may_group(3600, 1125, 4, 4000));  // the fullest at 5/4 of the mean
    EXPECT_FALSE(may_group(3600, 1126, 4, 4000));
    EXPECT_FALSE(may_group(1000, 1000, 2, 4000)); // a full bucket beside an empty one
    EXPECT_TRUE(may_group(0, 0, 8, 4000));        // empty buckets hold no keys to sort
    std::mt19937_64 rng(31);
    for(int trial = 0; trial < 1000; trial++)
    {
        const unsigned int members = 1 + static_cast<unsigned int>(rng() % 512);
        const std::uint64_t fullest = rng() % 100000;
        const std::uint64_t keys = fullest * (1 + rng() % members);
        const std::uint64_t bound = 1 + rng() % 20000000;
        if(may_group(keys, fullest, members, bound))
        {
            EXPECT_LE(keys, bound);
            EXPECT_LE(4 * fullest * members, 5 * keys);
        }
    }
}

// A round's large segments, as plan_partition_kernel reads them: the large list, then the wide
// lists left to the partition, in that order, empty lists skipped; or the whole input as one.
TEST(PartitionPlan, RoundSegmentsJoinTheLists)
{
    using hipflashsort::detail::round_segments;
    using hipflashsort::detail::segment_range;
    const segment_range large[] = {{0, 5000}, {9000, 20000}};
    const segment_range wide[] = {{30000, 40000}};
    const segment_range full[] = {{50000, 90000}, {100000, 170000}};
    round_segments joined{{large, wide, full}, {2, 1, 2}, 0};
    const segment_range expected[] = {large[0], large[1], wide[0], full[0], full[1]};
    ASSERT_EQ(joined.size(), 5u);
    for(unsigned int i = 0; i < 5; i++)
    {
        EXPECT_EQ(joined(i).begin, expected[i].begin) << i;
        EXPECT_EQ(joined(i).end, expected[i].end) << i;
    }
    joined.count[1] = 0;
    ASSERT_EQ(joined.size(), 4u);
    EXPECT_EQ(joined(2).begin, full[0].begin);
    joined.count[0] = 0;
    EXPECT_EQ(joined(0).begin, full[0].begin);
    const round_segments one{{}, {}, 123456};
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one(0).begin, 0u);
    EXPECT_EQ(one(0).end, 123456u);
}

// A round finishes direct segments only where its scatter writes neither buffer it reads, and
// skips its final segments only where they already lie in both outputs.
TEST(PartitionPlan, FinalSegmentsFollowTheBuffers)
{
    using hipflashsort::detail::final_segments;
    int a = 0, b = 0, c = 0, d = 0;
    const auto rule = [](const void* ki, const void* ko, const void* vi, const void* vo, bool values)
    { return final_segments::of(ki, ko, vi, vo, values); };
    struct expected_rule
    {
        final_segments got;
        bool direct, in_place;
    };
    const expected_rule cases[] = {
        {rule(&a, &b, nullptr, nullptr, false), true, false},
        {rule(&a, &a, nullptr, nullptr, false), false, true},
        {rule(&a, &b, &c, &d, true), true, false},
        {rule(&a, &a, &c, &c, true), false, true},
        {rule(&a, &b, &c, &c, true), false, false},
        {rule(&a, &a, &c, &d, true), false, false},
    };
    for(unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
        EXPECT_EQ(cases[i].got.direct, cases[i].direct) << i;
        EXPECT_EQ(cases[i].got.in_place, cases[i].in_place) << i;
    }
}
