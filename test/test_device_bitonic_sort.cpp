// Device-level bitonic sort against the host reference. The sort is not stable and orders -0
// before +0 (ascending), so each case compares the output's order images with the stable
// reference's, and checks that the multiset of raw key bits survived.
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"

#include <hipflashsort/device/device_bitonic_sort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using hipflashsort::order;
using test_utils::device_buffer;
using test_utils::distribution;

template <class Key>
using codec_of = hipflashsort::radix_key_codec<Key>;

template <class Key>
constexpr std::size_t tile_of = hipflashsort::detail::device_bitonic_config<Key>::tile;

/// Sorts `input` on the device (in place or into a separate, poisoned buffer) and returns keys_out.
template <class Key>
void run_bitonic(const std::vector<Key>& input, std::vector<Key>& got, order ord, bool in_place)
{
    const std::size_t n = input.size();
    device_buffer<Key> d_in(n), d_out(n);
    if(n) HIP_CHECK(d_in.upload(input));
    if(n && !in_place) HIP_CHECK(d_out.poison());
    Key* out = in_place ? d_in.ptr : d_out.ptr;
    std::size_t bytes = 0;
    HIP_CHECK(hipflashsort::bitonic_sort_keys(nullptr, bytes, d_in.ptr, out, n, ord));
    ASSERT_GT(bytes, 0u);
    device_buffer<char> temp(bytes);
    HIP_CHECK(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, d_in.ptr, out, n, ord));
    HIP_CHECK(hipDeviceSynchronize());
    got.resize(n);
    if(n) HIP_CHECK(hipMemcpy(got.data(), out, n * sizeof(Key), hipMemcpyDeviceToHost));
}

/// Index of the first position whose order image differs from the reference's, or -1.
template <class Key>
long long first_order_mismatch(const std::vector<Key>& got, const std::vector<Key>& expected, order ord)
{
    if(got.size() != expected.size()) return 0;
    for(std::size_t i = 0; i < got.size(); i++)
        if(codec_of<Key>::order_image(got[i], ord) != codec_of<Key>::order_image(expected[i], ord))
            return static_cast<long long>(i);
    return -1;
}

template <class Key>
bool same_bit_multiset(const std::vector<Key>& a, const std::vector<Key>& b)
{
    using bits = typename codec_of<Key>::bit_key_type;
    auto sorted_bits = [](const std::vector<Key>& v) {
        std::vector<bits> out(v.size());
        std::transform(v.begin(), v.end(), out.begin(), [](Key k) { return codec_of<Key>::to_bits(k); });
        std::sort(out.begin(), out.end());
        return out;
    };
    return sorted_bits(a) == sorted_bits(b);
}

template <class Key>
void check_case(std::size_t n, distribution d, order ord, bool in_place, std::uint64_t seed)
{
    const std::vector<Key> input = test_utils::generate<Key>(n, d, seed);
    std::vector<Key> expected = input;
    test_utils::reference_sort<Key, int>(expected, nullptr, 0, n, ord);
    std::vector<Key> got;
    run_bitonic(input, got, ord, in_place);
    const long long bad = first_order_mismatch(got, expected, ord);
    ASSERT_EQ(bad, -1) << "n=" << n << " dist=" << test_utils::name_of(d) << " desc=" << (ord == order::descending)
                       << " in_place=" << in_place << " at " << bad;
    ASSERT_TRUE(same_bit_multiset(got, input)) << "key bits lost: n=" << n << " dist=" << test_utils::name_of(d);
}

template <class Key>
class DeviceBitonicSort : public ::testing::Test {};
using key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                   std::int16_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(DeviceBitonicSort, key_types);

TYPED_TEST(DeviceBitonicSort, MatchesReferenceOrder)
{
    HIPFLASHSORT_REQUIRE_GPU();
    using Key = TypeParam;
    constexpr std::size_t t = tile_of<Key>;
    const std::vector<std::size_t> sizes = {0, 1, 2, 3, 5, 100, 1000, t - 1, t, t + 1, 2 * t + 3, 3 * t, 4 * t,
                                            5 * t - 7, 100000};
    const std::vector<distribution> dists = {distribution::uniform_bits, distribution::all_equal,
                                             distribution::few_unique, distribution::sorted, distribution::reverse,
                                             distribution::special_floats};
    std::uint64_t seed = 1;
    for(const std::size_t n : sizes)
        for(const distribution d : dists)
            for(const order ord : {order::ascending, order::descending})
            {
                check_case<Key>(n, d, ord, seed % 3 == 0, seed);
                if(::testing::Test::HasFatalFailure()) return;
                seed++;
            }
}

TYPED_TEST(DeviceBitonicSort, MillionPlusSeven)
{
    HIPFLASHSORT_REQUIRE_GPU();
    using Key = TypeParam;
    const std::size_t n = (std::size_t(1) << 20) + 7;
    check_case<Key>(n, distribution::uniform_bits, order::ascending, false, 11);
    if(::testing::Test::HasFatalFailure()) return;
    check_case<Key>(n, distribution::special_floats, order::descending, true, 12);
}

// Keys that do not start on a 16-byte boundary: the first and last passes load and store them one
// by one instead of as vectors. Nothing before keys_out is written.
TYPED_TEST(DeviceBitonicSort, UnalignedKeys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    using Key = TypeParam;
    constexpr std::size_t t = tile_of<Key>;
    for(const std::size_t n : {std::size_t(1000), t + 1, 3 * t + 7})
    {
        const std::vector<Key> input = test_utils::generate<Key>(n, distribution::uniform_bits, n);
        std::vector<Key> expected = input;
        test_utils::reference_sort<Key, int>(expected, nullptr, 0, n, order::ascending);
        constexpr std::size_t in_shift = 1, out_shift = 3;
        device_buffer<Key> d_in(n + in_shift), d_out(n + out_shift);
        HIP_CHECK(d_out.poison());
        HIP_CHECK(hipMemcpy(d_in.ptr + in_shift, input.data(), n * sizeof(Key), hipMemcpyHostToDevice));
        std::size_t bytes = 0;
        HIP_CHECK(hipflashsort::bitonic_sort_keys(nullptr, bytes, d_in.ptr + in_shift, d_out.ptr + out_shift, n));
        device_buffer<char> temp(bytes);
        HIP_CHECK(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, d_in.ptr + in_shift, d_out.ptr + out_shift, n));
        HIP_CHECK(hipDeviceSynchronize());
        std::vector<Key> all(n + out_shift);
        HIP_CHECK(hipMemcpy(all.data(), d_out.ptr, all.size() * sizeof(Key), hipMemcpyDeviceToHost));
        const std::vector<unsigned char> poison(out_shift * sizeof(Key), 0xA5);
        ASSERT_EQ(std::memcmp(all.data(), poison.data(), poison.size()), 0) << "written before keys_out, n=" << n;
        const std::vector<Key> got(all.begin() + out_shift, all.end());
        ASSERT_EQ(first_order_mismatch(got, expected, order::ascending), -1) << "n=" << n;
        ASSERT_TRUE(same_bit_multiset(got, input)) << "key bits lost: n=" << n;
    }
}

// Merges with more global strides than one pass fuses (two global passes per merge). On a GPU
// whose half L2 holds fewer images than these sizes pad to (an H100's: 2^22 of 4 bytes), the
// smaller merges also run chunk by chunk, and a chunk of padding only is skipped (the u32 case).
TEST(DeviceBitonicSortLarge, SeveralGlobalPassesPerMerge)
{
    HIPFLASHSORT_REQUIRE_GPU();
    check_case<std::uint32_t>((std::size_t(1) << 23) + 5, distribution::uniform_bits, order::ascending, false, 21);
    if(HasFatalFailure()) return;
    check_case<double>((std::size_t(1) << 22) + 3, distribution::special_floats, order::descending, true, 22);
    if(HasFatalFailure()) return;
    check_case<float>(std::size_t(1) << 24, distribution::uniform_bits, order::ascending, false, 23);
}

TEST(DeviceBitonicSortLarge, Deterministic)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::vector<float> input = test_utils::generate<float>(300001, distribution::special_floats, 5);
    std::vector<float> first, second;
    run_bitonic(input, first, order::ascending, false);
    run_bitonic(input, second, order::ascending, true);
    ASSERT_EQ(test_utils::first_mismatch(first, second), -1) << "not deterministic";
}

// Lossless images: -0 comes right before +0 ascending (after it descending), exact bits kept.
TEST(DeviceBitonicSortFloat, SignedZerosOrdered)
{
    HIPFLASHSORT_REQUIRE_GPU();
    for(const std::size_t n : {std::size_t(7), tile_of<float> * 3 + 1})
    {
        std::vector<float> input(n);
        for(std::size_t i = 0; i < n; i++) input[i] = (i * 7919) % 3 == 0 ? -0.0f : 0.0f;
        const std::size_t negatives = std::count_if(input.begin(), input.end(), [](float f) { return std::signbit(f); });
        for(const order ord : {order::ascending, order::descending})
        {
            std::vector<float> got;
            run_bitonic(input, got, ord, false);
            for(std::size_t i = 0; i < n; i++)
            {
                const bool negative_expected = ord == order::ascending ? i < negatives : i >= n - negatives;
                ASSERT_EQ(std::signbit(got[i]), negative_expected) << "n=" << n << " at " << i;
            }
        }
    }
}

TEST(DeviceBitonicSortArguments, InvalidArgumentsTouchNothing)
{
    HIPFLASHSORT_REQUIRE_GPU();
    for(const std::size_t n : {std::size_t(1000), tile_of<std::uint32_t> * 2 + 3})
    {
        device_buffer<std::uint32_t> in(n), out(n);
        HIP_CHECK(in.poison());
        HIP_CHECK(out.poison());
        std::size_t bytes = 0;
        HIP_CHECK(hipflashsort::bitonic_sort_keys(nullptr, bytes, in.ptr, out.ptr, n));
        device_buffer<char> temp(bytes);
        std::size_t small = bytes - 1;
        EXPECT_EQ(hipflashsort::bitonic_sort_keys(temp.ptr, small, in.ptr, out.ptr, n), hipErrorInvalidValue);
        EXPECT_EQ(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), out.ptr, n),
                  hipErrorInvalidValue);
        EXPECT_EQ(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, in.ptr, static_cast<std::uint32_t*>(nullptr), n),
                  hipErrorInvalidValue);
        EXPECT_EQ(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, in.ptr, out.ptr, n, static_cast<order>(7)),
                  hipErrorInvalidValue);
        std::size_t huge_bytes = bytes;
        EXPECT_EQ(hipflashsort::bitonic_sort_keys(temp.ptr, huge_bytes, in.ptr, out.ptr, (std::size_t(1) << 44) + 1),
                  hipErrorInvalidValue);
        HIP_CHECK(hipDeviceSynchronize());
        std::vector<std::uint32_t> host;
        HIP_CHECK(out.download(host));
        for(const auto v : host) ASSERT_EQ(v, 0xA5A5A5A5u);
    }
    // Nothing to sort: success with null data, and a non-zero temporary size so that the second
    // call is not mistaken for a size query.
    std::size_t zero_bytes = 0;
    HIP_CHECK(hipflashsort::bitonic_sort_keys(nullptr, zero_bytes, static_cast<const double*>(nullptr),
                                              static_cast<double*>(nullptr), 0));
    ASSERT_GT(zero_bytes, 0u);
    device_buffer<char> zero_temp(zero_bytes);
    EXPECT_EQ(hipflashsort::bitonic_sort_keys(zero_temp.ptr, zero_bytes, static_cast<const double*>(nullptr),
                                              static_cast<double*>(nullptr), 0),
              hipSuccess);
}

// keys_out beyond `size` is never written: padding lives in the temporary storage only.
TEST(DeviceBitonicSortArguments, WritesOnlySizeKeys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    for(const std::size_t n : {std::size_t(37), tile_of<std::int16_t> + 1, tile_of<std::int16_t> * 2 + 3})
    {
        const std::vector<std::int16_t> input = test_utils::generate<std::int16_t>(n, distribution::uniform_bits, n);
        device_buffer<std::int16_t> in(n), out(n + 64);
        HIP_CHECK(in.upload(input));
        HIP_CHECK(out.poison());
        std::size_t bytes = 0;
        HIP_CHECK(hipflashsort::bitonic_sort_keys(nullptr, bytes, in.ptr, out.ptr, n, order::descending));
        device_buffer<char> temp(bytes);
        HIP_CHECK(hipflashsort::bitonic_sort_keys(temp.ptr, bytes, in.ptr, out.ptr, n, order::descending));
        std::vector<std::int16_t> host;
        HIP_CHECK(out.download(host));
        std::vector<std::int16_t> expected = input;
        test_utils::reference_sort<std::int16_t, int>(expected, nullptr, 0, n, order::descending);
        for(std::size_t i = 0; i < n; i++) ASSERT_EQ(host[i], expected[i]) << "n=" << n << " at " << i;
        for(std::size_t i = n; i < n + 64; i++) ASSERT_EQ(static_cast<std::uint16_t>(host[i]), 0xA5A5u) << "at " << i;
    }
}

} // namespace
