// The flash classifier's scale without a GPU: floor(buckets * 2^bits / (range + 1)) exactly, for
// 32- and 64-bit images (a 64-bit reference in 128-bit arithmetic), and buckets that stay
// monotone in the image and below the bucket count at the ends of the range. Also the
// logarithmic classifier for keys crowded near their smallest one, and which segments take it.
#include <gtest/gtest.h>

#include <hipflashsort/device/detail/bucket_classifier.hpp>
#include <hipflashsort/device/detail/partition_kernels.hpp>

#include "common/sort_reference.hpp"

#include <algorithm>
#include <cstdint>
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

} // namespace
