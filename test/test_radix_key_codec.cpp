// The codec is the contract for ordering: check it against the reference order on the host.
#include <gtest/gtest.h>

#include <hipflashsort/thread/radix_key_codec.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using hipflashsort::order;

template <class Key>
class KeyCodec : public ::testing::Test {};

using key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                   std::int16_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(KeyCodec, key_types);

template <class Key>
std::vector<Key> sample_keys()
{
    std::mt19937_64 rng(12345);
    std::vector<Key> keys;
    using codec = hipflashsort::radix_key_codec<Key>;
    for(int i = 0; i < 2000; i++)
    {
        keys.push_back(codec::from_bits(static_cast<typename codec::bit_key_type>(rng())));
    }
    keys.push_back(std::numeric_limits<Key>::lowest());
    keys.push_back(std::numeric_limits<Key>::max());
    keys.push_back(Key(0));
    keys.push_back(Key(1));
    return keys;
}

TYPED_TEST(KeyCodec, LosslessRoundTripsEveryOrder)
{
    using Key = TypeParam;
    using codec = hipflashsort::radix_key_codec<Key>;
    for(const Key k : sample_keys<Key>())
    {
        for(const order ord : {order::ascending, order::descending})
        {
            const Key back = codec::decode_lossless(codec::lossless_image(k, ord), ord);
            EXPECT_EQ(codec::to_bits(back), codec::to_bits(k));
        }
    }
}

TYPED_TEST(KeyCodec, ImagesFollowNumericOrder)
{
    using Key = TypeParam;
    using codec = hipflashsort::radix_key_codec<Key>;
    const std::vector<Key> keys = sample_keys<Key>();
    for(size_t i = 0; i + 1 < keys.size(); i++)
    {
        const Key a = keys[i];
        const Key b = keys[i + 1];
        if(codec::is_float && (std::isnan(double(a)) || std::isnan(double(b)))) continue;
        const auto ia = codec::order_image(a);
        const auto ib = codec::order_image(b);
        EXPECT_EQ(a < b, ia < ib) << +a << " vs " << +b;
        EXPECT_EQ(a == b, ia == ib) << +a << " vs " << +b;
        EXPECT_EQ(a < b, codec::order_image(a, order::descending) > codec::order_image(b, order::descending));
    }
}

template <class Float>
void check_special_float_order()
{
    using codec = hipflashsort::radix_key_codec<Float>;
    using bits = typename codec::bit_key_type;
    const Float inf = std::numeric_limits<Float>::infinity();
    const Float pos_nan = codec::from_bits(codec::to_bits(std::numeric_limits<Float>::quiet_NaN()) & bits(~codec::sign_bit));
    const Float neg_nan = codec::from_bits(codec::to_bits(pos_nan) | codec::sign_bit);
    const Float denorm = std::numeric_limits<Float>::denorm_min();
    // Ascending order as CUB's radix sort: -NaN < -inf < -max < -denorm < -0 = +0 < denorm < max < inf < +NaN.
    const std::vector<Float> ascending = {neg_nan, -inf, std::numeric_limits<Float>::lowest(), Float(-1), -denorm,
                                          Float(0), denorm, Float(1), std::numeric_limits<Float>::max(), inf, pos_nan};
    for(size_t i = 0; i + 1 < ascending.size(); i++)
    {
        EXPECT_LT(codec::order_image(ascending[i]), codec::order_image(ascending[i + 1])) << i;
        EXPECT_LT(codec::lossless_image(ascending[i]), codec::lossless_image(ascending[i + 1])) << i;
        EXPECT_GT(codec::order_image(ascending[i], order::descending),
                  codec::order_image(ascending[i + 1], order::descending)) << i;
    }
    const Float neg_zero = -Float(0);
    EXPECT_EQ(codec::order_image(neg_zero), codec::order_image(Float(0)));
    EXPECT_EQ(codec::lossless_image(neg_zero) + 1, codec::lossless_image(Float(0)));
}

TEST(KeyCodecFloat, SpecialValuesFloat) { check_special_float_order<float>(); }
TEST(KeyCodecFloat, SpecialValuesDouble) { check_special_float_order<double>(); }

} // namespace
