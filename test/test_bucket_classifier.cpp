// The flash classifier's scale without a GPU: floor(buckets * 2^bits / (range + 1)) exactly, for
// 32- and 64-bit images (a 64-bit reference in 128-bit arithmetic), and buckets that stay
// monotone in the image and below the bucket count at the ends of the range. Also the
// logarithmic classifier for keys crowded near their smallest one, and which segments take it.
// And the composites' float words of the block pair network (polarity_network.hpp).
#include <gtest/gtest.h>

#include <hipflashsort/device/detail/bucket_classifier.hpp>
#include <hipflashsort/device/detail/partition_kernels.hpp>
#include <hipflashsort/device/detail/polarity_network.hpp>

#include "common/sort_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using hipflashsort::detail::bucket_classifier;

template <class Word>
Word exact_scale(unsigned int buckets, Word range)
{
    using wide = std::conditional_t<sizeof(Word) == 4, std::uint64_t, unsigned __int128>;
    return static_cast<Word>((wide(buckets) << (8 * sizeof(Word))) / (wide(range) + 1));
}

template <class Word>
void check_range(unsigned int buckets, Word lo, Word range)
{
    const auto c = bucket_classifier<Word>::make(lo, static_cast<Word>(lo + range), buckets);
    if(range < Word(buckets))
    {
        EXPECT_TRUE(c.direct);
        return;
    }
    ASSERT_FALSE(c.direct);
    if(range != ~Word(0)) ASSERT_EQ(c.scale, exact_scale<Word>(buckets, range)) << buckets << " " << range;
    EXPECT_EQ(c(lo), 0u);
    EXPECT_LT(c(static_cast<Word>(lo + range)), buckets);
    EXPECT_LE(c(static_cast<Word>(lo + range / 2)), c(static_cast<Word>(lo + range / 2 + 1)));
}

template <class Word>
void check_many(std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    for(int i = 0; i < 200000; i++)
    {
        const unsigned int buckets = 1u << (random() % 16);
        const Word wide = static_cast<Word>(random() >> (random() % 64));
        const Word near = static_cast<Word>(buckets + random() % 1000);
        const Word top = static_cast<Word>(~Word(0) - random() % 4);
        const Word half = static_cast<Word>((Word(1) << (8 * sizeof(Word) - 1)) - 2 + random() % 4);
        for(const Word range : {wide, near, top, half})
        {
            check_range<Word>(buckets, static_cast<Word>(random() % 1000), range);
            if(::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(BucketClassifier, Scale32) { check_many<std::uint32_t>(1); }

TEST(BucketClassifier, Scale64) { check_many<std::uint64_t>(2); }

// The tests' heavy_tail keys, negative ones only where `signs`.
template <class Key>
std::vector<Key> heavy_keys(std::size_t n, bool signs, std::mt19937_64& random)
{
    std::vector<Key> v(n);
    for(auto& k : v) k = test_utils::heavy_tail_key<Key>(random, signs);
    return v;
}

template <class Key>
std::vector<Key> uniform_keys(std::size_t n, std::mt19937_64& random)
{
    std::vector<Key> v(n);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for(auto& k : v)
    {
        if constexpr(std::is_floating_point<Key>::value)
            k = static_cast<Key>(unit(random));
        else
            k = static_cast<Key>(random());
    }
    return v;
}

template <class Key>
bool crowds(const std::vector<Key>& keys, hipflashsort::order ord)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    word lo = ~word(0), hi = 0;
    std::uint64_t sum = 0;
    for(const Key& k : keys)
    {
        const auto image = static_cast<word>(codec::order_image(k, ord));
        lo = std::min(lo, image);
        hi = std::max(hi, image);
        sum += hipflashsort::detail::magnitude_bits(k);
    }
    return hipflashsort::detail::crowds_low<Key>(lo, hi, sum, keys.size(), ord);
}

// Buckets of the logarithmic classifier: monotone in the key's order, from 0 at the smallest
// image to below the bucket count, and for keys of one sign spread: no bucket holds more than a
// quarter of heavy-tailed keys, where equal-width buckets put nearly all of them into one.
template <class Key>
void check_logarithmic(std::uint64_t seed, bool signs)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    using classifier = hipflashsort::detail::flash_classifier<Key>;
    std::mt19937_64 random(seed);
    for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
    {
        std::vector<Key> keys = heavy_keys<Key>(1 << 16, signs, random);
        std::vector<word> images;
        for(const Key& k : keys) images.push_back(static_cast<word>(codec::order_image(k, ord)));
        std::sort(images.begin(), images.end());
        for(const unsigned int buckets : {2u, 256u, 512u})
        {
            const classifier log = classifier::make_logarithmic(images.front(), images.back(), buckets, ord);
            const classifier even = classifier::make(images.front(), images.back(), buckets, ord);
            std::vector<std::size_t> log_counts(buckets), even_counts(buckets);
            unsigned int previous = 0;
            for(const word image : images)
            {
                const Key key = codec::decode_lossless(static_cast<typename codec::bit_key_type>(image), ord);
                const unsigned int b = log(key, image);
                ASSERT_LT(b, log.buckets);
                ASSERT_LE(previous, b) << "not monotone";
                previous = b;
                log_counts[b]++;
                even_counts[even(key, image)]++;
            }
            EXPECT_EQ(log(codec::decode_lossless(static_cast<typename codec::bit_key_type>(images.front()), ord),
                          images.front()),
                      0u);
            if(buckets >= 256 && !signs)
            {
                const std::size_t log_most = *std::max_element(log_counts.begin(), log_counts.end());
                const std::size_t even_most = *std::max_element(even_counts.begin(), even_counts.end());
                EXPECT_LT(log_most, images.size() / 4) << buckets << " buckets";
                EXPECT_GT(even_most, images.size() / 2) << buckets << " buckets";
            }
        }
    }
}

TEST(BucketClassifier, LogarithmicU32) { check_logarithmic<std::uint32_t>(3, false); }
TEST(BucketClassifier, LogarithmicI64) { check_logarithmic<std::int64_t>(4, false); }
TEST(BucketClassifier, LogarithmicF32) { check_logarithmic<float>(5, false); }
TEST(BucketClassifier, LogarithmicF64) { check_logarithmic<double>(6, false); }
TEST(BucketClassifier, LogarithmicSignedMonotone)
{
    check_logarithmic<std::int32_t>(11, true);
    check_logarithmic<std::int64_t>(12, true);
    check_logarithmic<float>(13, true);
    check_logarithmic<double>(14, true);
}

// Heavy tails take the logarithmic classifier; uniform keys, and a narrow cluster far from zero,
// keep equal widths.
template <class Key>
void check_crowding(std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
    {
        EXPECT_TRUE(crowds(heavy_keys<Key>(100000, false, random), ord));
        EXPECT_FALSE(crowds(uniform_keys<Key>(100000, random), ord));
        if constexpr(!std::is_floating_point<Key>::value)
        {
            std::vector<Key> cluster = heavy_keys<Key>(100000, false, random);
            for(Key& k : cluster) k = static_cast<Key>(std::numeric_limits<Key>::max() / 2 + k % Key(1000));
            EXPECT_FALSE(crowds(cluster, ord));
        }
    }
}

// Zero has no bits (leading_zeros is undefined there; host compilers differ).
TEST(BucketClassifier, MagnitudeBits)
{
    using hipflashsort::detail::magnitude_bits;
    EXPECT_EQ(magnitude_bits(std::uint32_t(0)), 0u);
    EXPECT_EQ(magnitude_bits(std::uint32_t(1)), 1u);
    EXPECT_EQ(magnitude_bits(std::uint32_t(0xffffffffu)), 32u);
    EXPECT_EQ(magnitude_bits(std::int16_t(0)), 0u);
    EXPECT_EQ(magnitude_bits(std::int16_t(-4)), 3u);
    EXPECT_EQ(magnitude_bits(std::uint64_t(0)), 0u);
    EXPECT_EQ(magnitude_bits(std::uint64_t(1) << 40), 41u);
    EXPECT_EQ(magnitude_bits(1.0f), 127u);
    EXPECT_EQ(magnitude_bits(-2.0), 1024u);
}

TEST(BucketClassifier, CrowdingU32) { check_crowding<std::uint32_t>(7); }
TEST(BucketClassifier, CrowdingU64) { check_crowding<std::uint64_t>(8); }
TEST(BucketClassifier, CrowdingF32) { check_crowding<float>(9); }
TEST(BucketClassifier, CrowdingF64) { check_crowding<double>(10); }

// Floats classified by value keep the order's sign in the scale: each key's bucket is the floor of
// its distance from the origin in the sort order times the scale's magnitude, (origin - k) * |s|
// descending, the same bits as (k - origin) * s.
template <class Key>
void check_value_buckets(std::uint64_t seed)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> value(-1000.0, 1000.0);
    for(int trial = 0; trial < 50; trial++)
    {
        std::vector<Key> keys(2000);
        for(auto& k : keys) k = static_cast<Key>(trial % 2 ? value(random) : value(random) * 1e-30);
        for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
        {
            const bool ascending = ord == hipflashsort::order::ascending;
            word lo = ~word(0), hi = 0;
            for(const Key& k : keys)
            {
                lo = std::min(lo, static_cast<word>(codec::order_image(k, ord)));
                hi = std::max(hi, static_cast<word>(codec::order_image(k, ord)));
            }
            const unsigned int buckets = 256;
            const auto c = hipflashsort::detail::flash_classifier<Key>::make(lo, hi, buckets, ord);
            ASSERT_TRUE(c.by_value);
            ASSERT_EQ(c.scale > 0, ascending);
            for(const Key& k : keys)
            {
                const Key position = (ascending ? k - c.origin : c.origin - k) * (ascending ? c.scale : -c.scale);
                const unsigned int expected
                    = position < Key(buckets) ? static_cast<unsigned int>(position) : buckets - 1;
                ASSERT_EQ(c.value_bucket(k), expected) << k;
            }
        }
    }
}

TEST(BucketClassifier, ValueBucketsF32) { check_value_buckets<float>(11); }
TEST(BucketClassifier, ValueBucketsF64) { check_value_buckets<double>(12); }

// The first partition round's sampling: strides, and the widened range's ends.
TEST(PartitionClassifier, SampleStrides)
{
    using hipflashsort::detail::sample_stride;
    EXPECT_EQ(sample_stride<std::uint32_t>(128 * 128 - 1), 1u); // fewer than 128 samples: read whole
    EXPECT_EQ(sample_stride<std::uint32_t>(128 * 128), 128u);
    EXPECT_EQ(sample_stride<std::uint32_t>(65536), 128u);
    EXPECT_EQ(sample_stride<std::uint64_t>(65536), 64u);
    EXPECT_EQ(sample_stride<std::uint8_t>(65536), 512u);
    EXPECT_EQ(sample_stride<std::uint32_t>(std::uint64_t(1) << 28), std::uint64_t(1) << 17); // about 2048 samples
}

TEST(PartitionClassifier, SampledBoundsWidenWithinTheWord)
{
    using hipflashsort::detail::sampled_bounds;
    std::uint32_t lo = 1000, hi = 1000 + 128 * 100;
    sampled_bounds(lo, hi, 128);
    EXPECT_EQ(lo, 800u);
    EXPECT_EQ(hi, 1000u + 128 * 100 + 200);
    lo = 10, hi = 0xfffffff0u;
    sampled_bounds(lo, hi, 128);
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 0xffffffffu);
    lo = 5, hi = 100;
    sampled_bounds(lo, hi, 128); // a gap below one image: one image
    EXPECT_EQ(lo, 4u);
    EXPECT_EQ(hi, 101u);
    lo = hi = 7;
    sampled_bounds(lo, hi, 128); // all samples equal
    EXPECT_EQ(lo, 6u);
    EXPECT_EQ(hi, 8u);
    lo = 0, hi = 0xffffffffu - 3;
    sampled_bounds(lo, hi, std::uint64_t(1) << 40); // gap 0 at the word's ends
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 0xffffffffu - 2);
    std::uint64_t wide_lo = 1, wide_hi = ~std::uint64_t(0) - 1;
    sampled_bounds(wide_lo, wide_hi, 2); // gaps larger than a quarter of the word
    EXPECT_EQ(wide_lo, 0u);
    EXPECT_EQ(wide_hi, ~std::uint64_t(0));
}

// A sampled round's margin (partition_segment::margin_gaps): up to the most gaps the planner
// allows, at most half a bucket's, and two at least; eight gaps widen the range within the word,
// up to half the word of margin where the sample holds fewer than sixteen keys.
TEST(PartitionClassifier, SampledMarginsOfAtMostHalfABucket)
{
    using hipflashsort::detail::sampled_bounds;
    using hipflashsort::detail::sampled_margin_gaps;
    EXPECT_EQ(sampled_margin_gaps(2048, 161, 8), 6u);  // 2^28 u32 keys' second round: 12.7 gaps a bucket
    EXPECT_EQ(sampled_margin_gaps(2048, 101, 8), 8u);  // 2^26: 20.3 gaps a bucket
    EXPECT_EQ(sampled_margin_gaps(2048, 402, 8), 2u);  // 5.1 gaps a bucket: still two
    EXPECT_EQ(sampled_margin_gaps(2048, 161, 2), 2u);  // a round aimed at another class
    EXPECT_EQ(sampled_margin_gaps(2048, 0, 8), 2u);
    std::uint32_t lo = 1000, hi = 1000 + 128 * 100;
    sampled_bounds(lo, hi, 128, 8);
    EXPECT_EQ(lo, 200u);
    EXPECT_EQ(hi, 1000u + 128 * 100 + 800);
    lo = 0x10000000u, hi = 0xf0000000u;
    sampled_bounds(lo, hi, 4, 8); // a gap above a sixteenth of the word: half the word of margin
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 0xffffffffu);
    lo = 0x10000000u, hi = 0x20000000u;
    sampled_bounds(lo, hi, 4, 8); // four samples, but their gap is small: eight gaps
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 0x40000000u);
    lo = 0x7fff0000u, hi = 0x8000ffffu;
    sampled_bounds(lo, hi, 16, 8); // sixteen samples: eight gaps span at most half the word
    EXPECT_EQ(lo, 0x7fff0000u - 8 * (0x1ffffu / 16));
    EXPECT_EQ(hi, 0x8000ffffu + 8 * (0x1ffffu / 16));
    std::uint16_t narrow_lo = 1000, narrow_hi = 1000 + 64 * 10;
    sampled_bounds(narrow_lo, narrow_hi, 64, 8);
    EXPECT_EQ(narrow_lo, 920u);
    EXPECT_EQ(narrow_hi, 1000u + 64 * 10 + 80);
}

// A partition classifier built from a sample (every 128th key, as chunk_min_max_kernel measures
// it) puts every key, special values outside the sample's range included (floats: classified by
// value, NaNs by image), into a bucket below the count, monotone in the key's order; built from
// all keys it is the flash classifier itself. Uniform keys fill the end buckets about as much as
// the others.

// Statistics as chunk_min_max_kernel leaves them, from the keys at positions that `take` accepts;
// `inner`: with the nearest other images inside the ends (a sampled round's, as one chunk).
template <class Key, class Take>
void measure(const std::vector<Key>& keys, hipflashsort::order ord, bool inner, Take take,
             std::uint64_t (&stats)[hipflashsort::detail::segment_stat_words])
{
    namespace d = hipflashsort::detail;
    for(unsigned int w = 0; w < d::segment_stat_words; w++) stats[w] = d::stat_is_minimum(w) ? ~std::uint64_t(0) : 0;
    std::vector<std::uint64_t> images;
    for(std::size_t i = 0; i < keys.size(); i++)
    {
        if(!take(i)) continue;
        const std::uint64_t image = hipflashsort::radix_key_codec<Key>::order_image(keys[i], ord);
        stats[d::stat_lo] = std::min(stats[d::stat_lo], image);
        stats[d::stat_hi] = std::max(stats[d::stat_hi], image);
        stats[d::stat_magnitudes] += d::magnitude_bits(keys[i]);
        stats[d::stat_read]++;
        images.push_back(image);
    }
    if(!inner) return;
    for(const std::uint64_t image : images)
    {
        if(image > stats[d::stat_lo]) stats[d::stat_inner_lo] = std::min(stats[d::stat_inner_lo], image);
        if(image < stats[d::stat_hi]) stats[d::stat_inner_hi] = std::max(stats[d::stat_inner_hi], image);
    }
}

template <class Key>
void check_sampled(std::uint64_t seed)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    namespace d = hipflashsort::detail;
    std::mt19937_64 random(seed);
    for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
    {
        for(const bool specials : {false, true})
        {
            std::vector<Key> keys = uniform_keys<Key>(1 << 17, random);
            const std::uint64_t stride = d::sample_stride<Key>(keys.size());
            ASSERT_GT(stride, 1u);
            if(specials) // never at a sampled position: the sample keeps uniform keys' range
            {
                const std::vector<Key> s = test_utils::special_values<Key>();
                for(std::size_t i = 1; i < keys.size(); i += 7)
                    if(i % stride != 0) keys[i] = s[random() % s.size()];
            }
            std::uint64_t sample[d::segment_stat_words], all[d::segment_stat_words];
            measure(keys, ord, true, [&](std::size_t i) { return i % stride == 0; }, sample);
            measure(keys, ord, false, [](std::size_t) { return true; }, all);
            const unsigned int buckets = 64;
            const auto sampled = d::partition_classifier_for<Key>(sample, keys.size(), buckets, ord);
            const auto exact = d::partition_classifier_for<Key>(all, keys.size(), buckets, ord);
            const auto plain = d::flash_classifier<Key>::make(static_cast<word>(all[d::stat_lo]),
                                                              static_cast<word>(all[d::stat_hi]), buckets, ord);
            std::vector<std::pair<word, unsigned int>> by_image;
            std::vector<std::size_t> counts(buckets);
            for(const Key& k : keys)
            {
                const auto image = static_cast<word>(codec::order_image(k, ord));
                const unsigned int b = sampled(k, image);
                ASSERT_LT(b, sampled.buckets());
                if(!d::crowds_low<Key>(static_cast<word>(all[d::stat_lo]), static_cast<word>(all[d::stat_hi]),
                                       all[d::stat_magnitudes], all[d::stat_read], ord))
                    ASSERT_EQ(exact(k, image), plain(k, image));
                by_image.emplace_back(image, b);
                counts[b]++;
            }
            std::sort(by_image.begin(), by_image.end());
            for(std::size_t i = 1; i < by_image.size(); i++)
                ASSERT_LE(by_image[i - 1].second, by_image[i].second) << "not monotone at " << i;
            if(!specials && sampled.buckets() == buckets)
            {
                const std::size_t mean = keys.size() / buckets;
                EXPECT_LT(counts.front(), mean * 5 / 4);
                EXPECT_LT(counts.back(), mean * 5 / 4);
            }
        }
    }
}

// A sample whose keys are all one value (or span fewer images than buckets) leaves the keys below
// and above it buckets of their own: the round splits the segment wherever its keys differ.
template <class Key>
void check_narrow_sample(const std::vector<Key>& keys, const Key& value)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    namespace d = hipflashsort::detail;
    for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
    {
        const std::uint64_t image = codec::order_image(value, ord);
        const std::uint64_t sample[d::segment_stat_words]
            = {image, image, 1000 * std::uint64_t(d::magnitude_bits(value)), 1000, 0, 0};
        const auto c = d::partition_classifier_for<Key>(sample, 1u << 20, 64, ord);
        ASSERT_EQ(c.buckets(), 3u);
        for(const Key& k : keys)
        {
            const auto i = static_cast<word>(codec::order_image(k, ord));
            const unsigned int expected = i < image ? 0u : i == image ? 1u : 2u;
            EXPECT_EQ(c(k, i), expected)
                << +k << (ord == hipflashsort::order::ascending ? " ascending" : " descending");
        }
    }
}

TEST(PartitionClassifier, NarrowSampleSplitsTheKeys)
{
    check_narrow_sample<std::uint32_t>({0u, 6u, 7u, 8u, 1000u, 0xffffffffu}, 7u);
    check_narrow_sample<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -8, -7, -6, 0, 5}, -7);
    std::vector<float> with_value = test_utils::special_values<float>();
    with_value.push_back(1.5f);
    with_value.push_back(std::nextafter(1.5f, 2.0f));
    with_value.push_back(std::nextafter(1.5f, 1.0f));
    check_narrow_sample<float>(with_value, 1.5f);
}

// One extreme key on the sample grid (the benchmarks' outlier) is left out of the sampled range:
// the other keys spread over the buckets as without it, and the outlier takes the end bucket of
// its side.
template <class Key>
void check_outlying_sample(Key outlier, Key scale, std::uint64_t seed)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using word = hipflashsort::detail::image_word_t<Key>;
    namespace d = hipflashsort::detail;
    std::mt19937_64 random(seed);
    std::vector<Key> keys = uniform_keys<Key>(1 << 17, random);
    for(Key& k : keys)
    {
        if constexpr(std::is_floating_point<Key>::value) k *= scale;
        else k %= scale;
    }
    const std::uint64_t stride = d::sample_stride<Key>(keys.size());
    keys[keys.size() / 2 / stride * stride] = outlier;
    const auto sampled = [&](std::size_t i) { return i % stride == 0; };
    const unsigned int buckets = 64;
    for(const hipflashsort::order ord : {hipflashsort::order::ascending, hipflashsort::order::descending})
    {
        std::uint64_t sample[d::segment_stat_words];
        measure(keys, ord, true, sampled, sample);
        const auto c = d::partition_classifier_for<Key>(sample, keys.size(), buckets, ord);
        ASSERT_EQ(c.buckets(), buckets);
        std::vector<std::size_t> counts(buckets);
        for(const Key& k : keys)
        {
            const unsigned int b = c(k, static_cast<word>(codec::order_image(k, ord)));
            if(k == outlier)
                EXPECT_EQ(b, (ord == hipflashsort::order::ascending) == (outlier > Key(0)) ? buckets - 1 : 0u);
            counts[b]++;
        }
        const std::size_t mean = keys.size() / buckets;
        for(unsigned int b = 0; b < buckets; b++) EXPECT_LT(counts[b], mean * 5 / 4) << "bucket " << b;
    }
}

TEST(PartitionClassifier, OutlyingSampleLeftOut)
{
    check_outlying_sample<float>(std::numeric_limits<float>::max(), 1000.0f, 31);
    check_outlying_sample<float>(-std::numeric_limits<float>::infinity(), 1.0f, 32);
    check_outlying_sample<double>(1e300, 5.0, 33);
    check_outlying_sample<std::uint32_t>(0xffffffffu, 1u << 20, 34);
    check_outlying_sample<std::int64_t>(std::numeric_limits<std::int64_t>::min(), std::int64_t(1) << 40, 35);
}

// trim_outlying_samples leaves a range alone unless an end lies farther from the inner bounds
// than they spread, and never without inner bounds inside the range.
TEST(PartitionClassifier, TrimOnlyFarEnds)
{
    namespace d = hipflashsort::detail;
    const auto trimmed = [](std::uint32_t lo, std::uint32_t hi, std::uint32_t ilo, std::uint32_t ihi) {
        d::trim_outlying_samples<std::uint32_t>(lo, hi, ilo, ihi, hipflashsort::order::ascending);
        return std::make_pair(lo, hi);
    };
    EXPECT_EQ(trimmed(0, 100, 1, 99), std::make_pair(0u, 100u));
    EXPECT_EQ(trimmed(0, 1000, 10, 20), std::make_pair(0u, 20u)); // the low end: 10 > 10 is not
    EXPECT_EQ(trimmed(0, 1000, 11, 20), std::make_pair(11u, 20u));
    EXPECT_EQ(trimmed(0, 1000, 20, 25), std::make_pair(20u, 25u));
    EXPECT_EQ(trimmed(5, 5, 5, 5), std::make_pair(5u, 5u));            // one value
    EXPECT_EQ(trimmed(0, 1000, ~0u, 0), std::make_pair(0u, 1000u));     // no inner bounds
    EXPECT_EQ(trimmed(0, 1000, 1000, 0), std::make_pair(0u, 1000u));    // two values
}

// The chunk's nearest samples inside its ends come from one block reduction of (smallest,
// second smallest distinct) pairs: merged in any grouping, pairs of parts give the whole's.
TEST(PartitionClassifier, TwoLeastMergeInAnyGrouping)
{
    namespace d = hipflashsort::detail;
    std::mt19937_64 random(34);
    for(int trial = 0; trial < 200; trial++)
    {
        const std::uint64_t range = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 50 : ~std::uint64_t(0);
        std::vector<std::uint64_t> values(1 + random() % 64);
        for(std::uint64_t& v : values) v = random() % range;
        // One part per value, as a thread holds it after one sample, and empty parts (the largest
        // word twice) between them; neighbours merged in a random order, as the shuffles and the
        // waves' scratch merge them.
        constexpr std::uint64_t none = ~std::uint64_t(0);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
        for(const std::uint64_t v : values)
        {
            pairs.emplace_back(v, none);
            if(random() % 4 == 0) pairs.emplace_back(none, none);
        }
        while(pairs.size() > 1)
        {
            const std::size_t i = random() % (pairs.size() - 1);
            d::merge_two_least(pairs[i].first, pairs[i].second, pairs[i + 1].first, pairs[i + 1].second);
            pairs.erase(pairs.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        }
        std::vector<std::uint64_t> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        EXPECT_EQ(pairs[0].first, sorted[0]);
        EXPECT_EQ(pairs[0].second, sorted.size() > 1 ? sorted[1] : none);
    }
}

TEST(PartitionClassifier, SampledU32) { check_sampled<std::uint32_t>(21); }
TEST(PartitionClassifier, SampledI64) { check_sampled<std::int64_t>(22); }
TEST(PartitionClassifier, SampledF32) { check_sampled<float>(23); }
TEST(PartitionClassifier, SampledF64) { check_sampled<double>(24); }

float float_of(std::uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

// Every composite below float_composites maps to a normal float, in order, around the change of
// sign and at both ends; its position bits come back from the word; padding (+inf) sorts after
// the largest; and the value pass's largest composite (float_composites >> position bits buckets,
// 1024 positions) is below float_composites.
TEST(FloatComposites, NormalFloatsInOrder)
{
    using namespace hipflashsort::detail;
    constexpr std::uint32_t half = float_composites / 2;
    std::vector<std::uint32_t> composites = {0u, 1u, 2u, 1023u, 1024u, half - 1025u, half - 2u, half - 1u, half,
                                             half + 1u, half + 1024u, float_composites - 1024u,
                                             float_composites - 2u, float_composites - 1u};
    std::mt19937 rng(404);
    for(int i = 0; i < 100000; i++) composites.push_back(static_cast<std::uint32_t>(rng() % float_composites));
    std::sort(composites.begin(), composites.end());
    composites.erase(std::unique(composites.begin(), composites.end()), composites.end());
    for(std::size_t i = 0; i < composites.size(); i++)
    {
        const std::uint32_t c = composites[i];
        const std::uint32_t bits = composite_float_bits(c);
        ASSERT_TRUE(std::isnormal(float_of(bits))) << c;
        for(const std::uint32_t mask : {1u, 1023u, (1u << 23) - 1})
            ASSERT_EQ(composite_low_bits(bits, mask), c & mask) << c;
        if(i > 0) ASSERT_LT(float_of(composite_float_bits(composites[i - 1])), float_of(bits)) << c;
    }
    EXPECT_EQ(composite_float_bits(0), 0xff7fffffu);                    // -FLT_MAX
    EXPECT_EQ(composite_float_bits(half - 1), 0x80800000u);             // -FLT_MIN
    EXPECT_EQ(composite_float_bits(half), 0x00800000u);                 // FLT_MIN
    EXPECT_EQ(composite_float_bits(float_composites - 1), 0x7f7fffffu); // FLT_MAX
    EXPECT_LT(float_of(composite_float_bits(float_composites - 1)), float_of(composite_float_padding));
    constexpr unsigned int position_bits = 10;
    constexpr std::uint32_t value_buckets = float_composites >> position_bits;
    EXPECT_LT(std::uint64_t(value_buckets - 1) << position_bits | 1023u, std::uint64_t(float_composites));
    EXPECT_EQ(value_buckets, (1u << 22) - (1u << 15));
}

} // namespace
