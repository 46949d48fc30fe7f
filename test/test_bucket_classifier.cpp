// The flash classifier's scale without a GPU: floor(buckets * 2^bits / (range + 1)) exactly, for
// 32- and 64-bit images (a 64-bit reference in 128-bit arithmetic), and buckets that stay
// monotone in the image and below the bucket count at the ends of the range.
#include <gtest/gtest.h>

#include <hipflashsort/device/detail/bucket_classifier.hpp>

#include <cstdint>
#include <random>

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

} // namespace
