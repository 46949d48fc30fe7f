// Device-level and segmented flash sort against the host reference, bitwise.
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"

#include <hipflashsort/device/device_flash_sort.hpp>
#include <hipflashsort/device/device_segmented_sort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using hipflashsort::order;
using test_utils::device_buffer;
using test_utils::distribution;

struct payload16
{
    std::uint32_t a, b, c, d;
};

template <class Key, class Value>
struct sort_case
{
    std::vector<Key> keys;
    std::vector<Value> values;
};

// Runs sort_keys / sort_pairs (Offset = void) or the segmented variants and returns the outputs.
// The values' arrays start `value_shift` values into their buffers (the keys' at the start).
template <class Key, class Value, bool Pairs, class Offset>
void run_device(const std::vector<Key>& keys, const std::vector<Value>& values, std::vector<Key>& keys_out,
                std::vector<Value>& values_out, order ord, bool in_place, const std::vector<Offset>* begins = nullptr,
                const std::vector<Offset>* ends = nullptr, std::size_t value_shift = 0)
{
    const std::size_t n = keys.size();
    device_buffer<Key> d_in(n), d_out(n);
    device_buffer<Value> v_in_buffer(Pairs ? n + value_shift : 0), v_out_buffer(Pairs ? n + value_shift : 0);
    HIP_CHECK(d_in.upload(keys));
    Key* out = in_place ? d_in.ptr : d_out.ptr;
    if(!in_place && n) HIP_CHECK(hipMemcpy(d_out.ptr, keys.data(), n * sizeof(Key), hipMemcpyHostToDevice));
    Value* v_in = nullptr;
    Value* vout = nullptr;
    if constexpr(Pairs)
    {
        v_in = v_in_buffer.ptr + value_shift;
        if(n) HIP_CHECK(hipMemcpy(v_in, values.data(), n * sizeof(Value), hipMemcpyHostToDevice));
        vout = in_place ? v_in : v_out_buffer.ptr + value_shift;
        if(!in_place && n) HIP_CHECK(v_out_buffer.poison());
    }
    const std::size_t segments = begins ? begins->size() : 1;
    device_buffer<Offset> d_begins(begins ? segments : 0), d_ends(begins ? segments : 0);
    if(begins)
    {
        HIP_CHECK(d_begins.upload(*begins));
        HIP_CHECK(d_ends.upload(*ends));
    }
    std::size_t bytes = 0;
    auto call = [&](void* temp) {
        if(begins)
        {
            if constexpr(Pairs)
                return hipflashsort::segmented_sort_pairs(temp, bytes, d_in.ptr, out, v_in, vout, n, segments,
                                                          d_begins.ptr, d_ends.ptr, ord);
            else
                return hipflashsort::segmented_sort_keys(temp, bytes, d_in.ptr, out, n, segments, d_begins.ptr,
                                                         d_ends.ptr, ord);
        }
        if constexpr(Pairs)
            return hipflashsort::sort_pairs(temp, bytes, d_in.ptr, out, v_in, vout, n, ord);
        else
            return hipflashsort::sort_keys(temp, bytes, d_in.ptr, out, n, ord);
    };
    HIP_CHECK(call(nullptr));
    device_buffer<char> temp(bytes);
    HIP_CHECK(call(temp.ptr));
    HIP_CHECK(hipDeviceSynchronize());
    keys_out.resize(n);
    if(n) HIP_CHECK(hipMemcpy(keys_out.data(), out, n * sizeof(Key), hipMemcpyDeviceToHost));
    if constexpr(Pairs)
    {
        values_out.resize(n);
        if(n) HIP_CHECK(hipMemcpy(values_out.data(), vout, n * sizeof(Value), hipMemcpyDeviceToHost));
    }
}

template <class Key>
class DeviceSortKeys : public ::testing::Test {};
using key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                   std::int16_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(DeviceSortKeys, key_types);

const std::vector<std::size_t> sizes = {0, 1, 2, 3, 16, 17, 63, 64, 65, 128, 129, 255, 256, 257, 511, 513, 1023,
                                        1025, 2047, 2048, 2049, 4096, 16385, 70001};
const std::vector<distribution> dists = {distribution::uniform_bits, distribution::all_equal,
                                         distribution::two_values,   distribution::few_unique,
                                         distribution::sorted,       distribution::reverse,
                                         distribution::special_floats, distribution::outlier,
                                         distribution::small_range,  distribution::heavy_tail};

TYPED_TEST(DeviceSortKeys, MatchesStableReference)
{
    HIPFLASHSORT_REQUIRE_GPU();
    using Key = TypeParam;
    std::uint64_t seed = 1;
    for(const std::size_t n : sizes)
    {
        for(const distribution d : dists)
        {
            for(const order ord : {order::ascending, order::descending})
            {
                const std::vector<Key> input = test_utils::generate<Key>(n, d, seed++);
                std::vector<Key> expected = input;
                test_utils::reference_sort<Key, int>(expected, nullptr, 0, n, ord);
                std::vector<Key> got;
                std::vector<int> unused;
                run_device<Key, int, false, int>(input, {}, got, unused, ord, seed % 3 == 0);
                const long long bad = test_utils::first_mismatch(got, expected);
                ASSERT_EQ(bad, -1) << "n=" << n << " dist=" << test_utils::name_of(d)
                                   << " desc=" << (ord == order::descending) << " at " << bad;
            }
        }
    }
}

template <class Key, class Value>
void check_pairs_stable(std::size_t n, distribution d, order ord, bool in_place, std::uint64_t seed)
{
    const std::vector<Key> keys = test_utils::generate<Key>(n, d, seed);
    std::vector<Value> values(n);
    for(std::size_t i = 0; i < n; i++)
    {
        if constexpr(std::is_same<Value, payload16>::value)
            values[i] = payload16{std::uint32_t(i), std::uint32_t(i * 3), std::uint32_t(~i), 7u};
        else
            values[i] = static_cast<Value>(i);
    }
    std::vector<Key> ek = keys;
    std::vector<Value> ev = values;
    test_utils::reference_sort(ek, &ev, 0, n, ord);
    std::vector<Key> gk;
    std::vector<Value> gv;
    run_device<Key, Value, true, int>(keys, values, gk, gv, ord, in_place);
    ASSERT_EQ(test_utils::first_mismatch(gk, ek), -1) << "keys n=" << n << " " << test_utils::name_of(d);
    ASSERT_EQ(test_utils::first_mismatch(gv, ev), -1) << "values n=" << n << " " << test_utils::name_of(d);
}

TEST(DeviceSortPairs, StableWithIndexValues)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::uint64_t seed = 100;
    for(const std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(2048), std::size_t(3000),
                               std::size_t(100000), std::size_t(1) << 20})
    {
        for(const distribution d : {distribution::uniform_bits, distribution::few_unique, distribution::all_equal,
                                    distribution::outlier, distribution::special_floats})
        {
            for(const order ord : {order::ascending, order::descending})
            {
                check_pairs_stable<std::uint32_t, std::uint32_t>(n, d, ord, false, seed++);
                const bool in_place = seed % 2 == 0;
                check_pairs_stable<float, std::uint64_t>(n, d, ord, in_place, seed++);
                check_pairs_stable<double, payload16>(n, d, ord, false, seed++);
                check_pairs_stable<std::int16_t, std::uint32_t>(n, d, ord, true, seed++);
            }
        }
    }
}

// Pairs of 16 bytes between 512 and 768 buckets' one-round limits (786432 and 1179648 pairs,
// their largest small class being 2048) take one partition round of up to 768 buckets.
TEST(DeviceSortPairs, WideItemsInOneRoundOfMoreBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::uint64_t seed = 700;
    for(const std::size_t n : {std::size_t(786433), std::size_t(1) << 20, std::size_t(1179648)})
    {
        for(const distribution d : {distribution::uniform_bits, distribution::few_unique, distribution::outlier})
        {
            for(const order ord : {order::ascending, order::descending})
            {
                const bool in_place = seed % 3 == 0;
                check_pairs_stable<std::uint64_t, std::uint64_t>(n, d, ord, in_place, seed++);
            }
        }
    }
}

TEST(DeviceSortKeysLarge, MillionsAndDeterminism)
{
    HIPFLASHSORT_REQUIRE_GPU();
    for(const std::size_t n : {std::size_t(1) << 20, (std::size_t(1) << 22) + 3})
    {
        for(const distribution d : {distribution::uniform_bits, distribution::outlier, distribution::few_unique})
        {
            const std::vector<float> input = test_utils::generate<float>(n, d, n + 7);
            std::vector<float> expected = input;
            test_utils::reference_sort<float, int>(expected, nullptr, 0, n, order::ascending);
            std::vector<float> first, second;
            std::vector<int> unused;
            run_device<float, int, false, int>(input, {}, first, unused, order::ascending, false);
            run_device<float, int, false, int>(input, {}, second, unused, order::ascending, false);
            ASSERT_EQ(test_utils::first_mismatch(first, expected), -1) << n << " " << test_utils::name_of(d);
            ASSERT_EQ(test_utils::first_mismatch(first, second), -1) << "not deterministic";
        }
    }
}

/// Sorts `input` twice, the first run in place where `in_place` (the second the other way), and
/// checks the first against the host reference and the second against the first.
template <class Key>
void check_keys_twice(const std::vector<Key>& input, order ord, bool in_place, const std::string& what)
{
    std::vector<Key> expected = input;
    test_utils::reference_sort<Key, int>(expected, nullptr, 0, input.size(), ord);
    std::vector<Key> first, second;
    std::vector<int> unused;
    run_device<Key, int, false, int>(input, {}, first, unused, ord, in_place);
    run_device<Key, int, false, int>(input, {}, second, unused, ord, !in_place);
    ASSERT_EQ(test_utils::first_mismatch(first, expected), -1)
        << what << " desc=" << (ord == order::descending) << " in_place=" << in_place;
    ASSERT_EQ(test_utils::first_mismatch(first, second), -1) << what << " not deterministic";
}

/// As above, for n keys of distribution d.
template <class Key>
void check_keys_twice(std::size_t n, distribution d, order ord, bool in_place, std::uint64_t seed)
{
    check_keys_twice(test_utils::generate<Key>(n, d, seed), ord, in_place,
                     std::to_string(n) + " " + test_utils::name_of(d));
}

// Heavy-tailed keys (zipf-like magnitudes) take logarithmic buckets in the partition rounds:
// every key type, both orders, sizes of one and two rounds, keys and stable pairs, in place too.
TEST(DeviceSortKeysLarge, HeavyTails)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::uint64_t seed = 900;
    for(const std::size_t n : {std::size_t(300000), std::size_t(1) << 21, (std::size_t(1) << 23) + 5})
    {
        for(const order ord : {order::ascending, order::descending})
        {
            const bool in_place = seed % 2 == 0;
            check_keys_twice<std::uint32_t>(n, distribution::heavy_tail, ord, in_place, seed++);
            check_keys_twice<std::int32_t>(n, distribution::heavy_tail, ord, !in_place, seed++);
            check_keys_twice<float>(n, distribution::heavy_tail, ord, in_place, seed++);
            check_keys_twice<std::uint64_t>(n, distribution::heavy_tail, ord, !in_place, seed++);
            check_keys_twice<double>(n, distribution::heavy_tail, ord, in_place, seed++);
            check_keys_twice<std::uint16_t>(n, distribution::heavy_tail, ord, !in_place, seed++);
            check_pairs_stable<std::uint32_t, std::uint32_t>(n, distribution::heavy_tail, ord, in_place, seed++);
            check_pairs_stable<float, std::uint64_t>(n, distribution::heavy_tail, ord, !in_place, seed++);
        }
    }
}

// Arrays beyond one round's reach (one_round_limit: about 6.3 million 4-byte keys or pairs on an
// H100, 786432 8-byte keys, 1179648 16-byte pairs) take a first round whose adjacent buckets
// share next-round segments (bucket groups): every distribution's groups must cover the array
// in order, in place too, pairs stable, and the same groups every run.
TEST(DeviceSortKeysLarge, GroupedBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::uint64_t seed = 1300;
    const std::size_t large = (std::size_t(1) << 23) + 5;
    for(const distribution d : {distribution::uniform_bits, distribution::few_unique, distribution::sorted,
                                distribution::outlier, distribution::small_range, distribution::coarse_and_fine})
    {
        const order ord = seed % 2 == 0 ? order::ascending : order::descending;
        check_keys_twice<std::uint32_t>(large, d, ord, seed % 3 == 0, seed);
        seed++;
        check_keys_twice<float>(large, d, ord, seed % 3 == 0, seed);
        seed++;
        check_keys_twice<std::uint64_t>((std::size_t(1) << 21) + 3, d, ord, seed % 3 == 0, seed);
        seed++;
    }
    for(const distribution d : {distribution::uniform_bits, distribution::two_values, distribution::reverse})
    {
        for(const order ord : {order::ascending, order::descending})
        {
            check_pairs_stable<std::uint32_t, std::uint32_t>(large, d, ord, seed % 2 == 0, seed);
            seed++;
            check_pairs_stable<double, std::uint64_t>((std::size_t(1) << 21) + 9, d, ord, seed % 2 == 0, seed);
            seed++;
        }
    }
}

// ---- segmented

template <class Offset>
void make_layout(std::size_t n, const std::vector<std::size_t>& seg_sizes, std::size_t gap,
                 std::vector<Offset>& begins, std::vector<Offset>& ends, std::size_t& total)
{
    std::size_t at = 0;
    for(const std::size_t s : seg_sizes)
    {
        begins.push_back(static_cast<Offset>(at));
        ends.push_back(static_cast<Offset>(at + s));
        at += s + gap;
    }
    total = std::max(n, at);
}

/// Value of input element `index`: the index, or a 16-byte value holding it four ways.
template <class Value>
Value value_at(std::uint32_t index)
{
    if constexpr(std::is_same<Value, payload16>::value)
        return payload16{index, ~index, index * 2654435761u, index ^ 0x5A5A5A5Au};
    else
        return static_cast<Value>(index);
}

/// Sorts the segments [begins[s], ends[s]) of `keys` (values: value_at(index)) on the GPU and
/// compares keys and values bitwise with a host stable sort; the rest must stay untouched.
template <class Key, class Offset, bool Pairs, class Value = std::uint32_t>
void check_segmented_input(const std::vector<Key>& keys, const std::vector<Offset>& begins,
                           const std::vector<Offset>& ends, order ord, bool in_place, std::size_t value_shift = 0)
{
    const std::size_t n = keys.size();
    std::vector<std::uint32_t> index(n);
    std::vector<Value> values(n);
    for(std::size_t i = 0; i < n; i++)
    {
        index[i] = static_cast<std::uint32_t>(i);
        values[i] = value_at<Value>(index[i]);
    }
    std::vector<Key> ek = keys;
    std::vector<std::uint32_t> ev = index;
    for(std::size_t s = 0; s < begins.size(); s++)
        test_utils::reference_sort(ek, Pairs ? &ev : nullptr, std::size_t(begins[s]), std::size_t(ends[s]), ord);
    // Gaps: the output buffer starts as a copy of the input, so untouched gaps equal the input.
    std::vector<Key> gk;
    std::vector<Value> gv;
    run_device<Key, Value, Pairs, Offset>(keys, values, gk, gv, ord, in_place, &begins, &ends, value_shift);
    ASSERT_EQ(test_utils::first_mismatch(gk, ek), -1) << "segments=" << begins.size() << " n=" << n;
    if(Pairs)
    {
        for(std::size_t s = 0; s < begins.size(); s++)
            for(std::size_t i = std::size_t(begins[s]); i < std::size_t(ends[s]); i++)
            {
                const Value want = value_at<Value>(ev[i]);
                ASSERT_EQ(std::memcmp(&gv[i], &want, sizeof(Value)), 0) << "value at " << i;
            }
    }
}

/// Segments given key by key, back to back, for check_segmented_input.
template <class Key = std::uint32_t>
struct segment_list
{
    std::vector<Key> keys;
    std::vector<int> begins, ends;

    void add(const std::vector<Key>& segment)
    {
        begins.push_back(static_cast<int>(keys.size()));
        keys.insert(keys.end(), segment.begin(), segment.end());
        ends.push_back(static_cast<int>(keys.size()));
    }
    /// The keys' complements: in descending order they have the keys' ascending order images.
    std::vector<std::uint32_t> complements() const
    {
        std::vector<std::uint32_t> c(keys.size());
        for(std::size_t i = 0; i < keys.size(); i++) c[i] = ~keys[i];
        return c;
    }
};

template <class Key, class Offset, bool Pairs, class Value = std::uint32_t>
void check_segmented(const std::vector<std::size_t>& seg_sizes, std::size_t gap, distribution d, order ord,
                     bool in_place, std::uint64_t seed, std::size_t value_shift = 0)
{
    std::vector<Offset> begins, ends;
    std::size_t n = 0;
    make_layout(0, seg_sizes, gap, begins, ends, n);
    check_segmented_input<Key, Offset, Pairs, Value>(test_utils::generate<Key>(n, d, seed), begins, ends, ord,
                                                     in_place, value_shift);
}

TEST(SegmentedSort, ClassBoundariesAndLayouts)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::vector<std::size_t> boundaries;
    for(const std::size_t b : {1, 2, 3, 16, 32, 64, 112, 113, 128, 256, 512, 1024, 2048, 4096, 16384})
    {
        for(const long long delta : {-1, 0, 1})
            if(static_cast<long long>(b) + delta >= 0) boundaries.push_back(std::size_t(static_cast<long long>(b) + delta));
    }
    std::uint64_t seed = 1000;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(boundaries, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<float, long long, true>(boundaries, 5, distribution::special_floats, ord, false, seed++);
        // Keys only: the network classes sort bare images and put -0/+0 back in input order.
        check_segmented<float, int, false>(boundaries, 2, distribution::special_floats, ord, false, seed++);
        // In place: the zeros' input order is read back from the input before the output is written.
        check_segmented<float, int, false>(boundaries, 0, distribution::special_floats, ord, true, seed++);
        check_segmented<std::int16_t, int, false>(boundaries, 0, distribution::few_unique, ord, true, seed++);
        check_segmented<std::uint64_t, unsigned int, true>(boundaries, 0, distribution::few_unique, ord, true, seed++);
        // 8-byte keys alone: networks up to 512, a flash class of 1024 in static LDS, 2048 and 4096
        // in dynamic LDS.
        check_segmented<std::uint64_t, int, false>(boundaries, 1, distribution::uniform_bits, ord, false, seed++);
        check_segmented<double, long long, false>(boundaries, 0, distribution::special_floats, ord, true, seed++);
        check_segmented<std::int8_t, std::int64_t, false>(boundaries, 3, distribution::uniform_bits, ord, false, seed++);
        // Pairs whose network keeps only the images' high bits must find the keys that differ below.
        check_segmented<std::uint32_t, int, true>(boundaries, 0, distribution::extremes_and_small, ord, false, seed++);
        check_segmented<float, int, true>(boundaries, 1, distribution::extremes_and_small, ord, true, seed++);
        check_segmented<double, int, true>(boundaries, 1, distribution::outlier, ord, false, seed++);
    }
}

/// A segment of `size` keys for the block flash classes whose interpolated buckets overflow
/// rank_limit: the range's two ends, then a cluster of `cluster` keys drawn from 256 neighbouring
/// values near the middle (one bucket, with ties), the rest spread over the range.
template <class Key>
std::vector<Key> clustered_segment(std::size_t size, std::size_t cluster, std::mt19937_64& rng)
{
    const auto at = [](double f) {
        if constexpr(std::is_floating_point<Key>::value)
            return static_cast<Key>(f * 1e6);
        else
            return static_cast<Key>(f * static_cast<double>(std::numeric_limits<Key>::max() / 2) * 1.9);
    };
    std::vector<Key> keys{at(0.0), at(1.0)};
    for(std::size_t i = 0; i < cluster; i++)
    {
        const Key step = std::is_floating_point<Key>::value ? Key(1e-6) : Key(1);
        keys.push_back(static_cast<Key>(at(0.5) + step * static_cast<Key>(rng() % 256)));
    }
    while(keys.size() < size) keys.push_back(at(static_cast<double>(rng() % 1000000) / 1e6));
    keys.resize(size);
    std::shuffle(keys.begin(), keys.end(), rng);
    return keys;
}

// Block flash classes (segments above the networks of their item type, up to 8192 items, or a
// partition's buckets) whose buckets overflow the rank sort: buckets of up to 8 keys per lane go
// to one wavefront's network each, all wavefronts at once, larger ones to the block's; ties keep
// input order (stability with index values).
TEST(SegmentedSort, BlockFlashSkewedBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(2026);
    unsigned int wave = 0;
    ASSERT_EQ(hipflashsort::wavefront_size(wave), hipSuccess);
    const std::vector<std::size_t> clusters{65, 100, 8 * std::size_t(wave), 8 * std::size_t(wave) + 1, 700, 1500};
    segment_list<std::uint64_t> u64;
    segment_list<double> f64;
    segment_list<std::uint32_t> u32;
    for(const std::size_t size : {1000, 2048, 3000, 4096, 8192})
    {
        for(const std::size_t c : clusters)
        {
            u64.add(clustered_segment<std::uint64_t>(size, c, rng));
            f64.add(clustered_segment<double>(size, c, rng));
            u32.add(clustered_segment<std::uint32_t>(size, c, rng));
        }
    }
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented_input<std::uint64_t, int, false>(u64.keys, u64.begins, u64.ends, ord, false);
        check_segmented_input<std::uint64_t, int, true>(u64.keys, u64.begins, u64.ends, ord, true);
        check_segmented_input<double, int, true>(f64.keys, f64.begins, f64.ends, ord, false);
        check_segmented_input<std::uint32_t, int, true>(u32.keys, u32.begins, u32.ends, ord, false);
    }
}

/// A segment of `size` keys of AND-ed random bits (each bit set with probability 1/8), for
/// floats a value in [0, 1) from such bits: crowded towards the low end at every scale, so that
/// some equal-width bucket of the block flash sort holds about a quarter of the keys.
template <class Key>
std::vector<Key> and_bits_segment(std::size_t size, std::mt19937_64& rng)
{
    std::vector<Key> keys(size);
    for(Key& k : keys)
    {
        const std::uint64_t bits = rng() & rng() & rng();
        if constexpr(std::is_floating_point<Key>::value)
            k = static_cast<Key>(static_cast<double>(bits >> 11) / 9007199254740992.0);
        else
            __builtin_memcpy(&k, &bits, sizeof(Key));
    }
    return keys;
}

// Block flash classes whose equal-width buckets overflow skew_limit: 8-byte keys classify again
// between sorted samples, 4-byte keys keep their buckets. AND-ed random bits (long runs of equal
// keys for 4-byte keys, few for 8-byte ones) and segments whose samples are nearly all one
// value; ties keep input order.
TEST(SegmentedSort, BlockFlashSampledBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(2027);
    segment_list<std::uint64_t> u64;
    segment_list<double> f64;
    segment_list<std::uint32_t> u32;
    for(const std::size_t size : {700, 1000, 1025, 2048, 3000, 4096})
    {
        u64.add(and_bits_segment<std::uint64_t>(size, rng));
        f64.add(and_bits_segment<double>(size, rng));
        u32.add(and_bits_segment<std::uint32_t>(size, rng));
        // One value but for a few keys spread over the range.
        std::vector<std::uint64_t> one(size, 0x123456789ull);
        for(std::size_t i = 0; i < size; i += 97) one[i] = rng();
        u64.add(one);
    }
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented_input<std::uint64_t, int, false>(u64.keys, u64.begins, u64.ends, ord, false);
        check_segmented_input<std::uint64_t, int, true>(u64.keys, u64.begins, u64.ends, ord, true);
        check_segmented_input<double, int, true>(f64.keys, f64.begins, f64.ends, ord, false);
        check_segmented_input<std::uint32_t, int, true>(u32.keys, u32.begins, u32.ends, ord, false);
    }
}

// Segments between the block networks and the partition (flash_network_sort; 4097-8192 through
// the flash network class's kernel here, too few for the small class's launch): buckets by
// interpolation sorted by wavefront networks; skewed keys (outliers, few values, infinities and
// NaNs) overflow a bucket and go through a partition round instead; zeros keep input order.
TEST(SegmentedSort, FlashNetworkClass)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::vector<std::size_t> sizes = {4097, 5000, 8191, 8192, 8193, 12345, 16383, 16384, 16385, 4097};
    std::uint64_t seed = 3000;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 1, distribution::outlier, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::few_unique, ord, false, seed++);
        check_segmented<float, int, false>(sizes, 2, distribution::special_floats, ord, false, seed++);
        check_segmented<float, int, false>(sizes, 0, distribution::special_floats, ord, true, seed++);
        check_segmented<float, int, false>(sizes, 0, distribution::two_values, ord, true, seed++);
        check_segmented<std::uint8_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::int16_t, int, false>(sizes, 3, distribution::small_range, ord, true, seed++);
    }
}

// The user's segments of 2049-4096 keys alone of 4-byte integers, in a call with several: on
// NVIDIA the flash network sorter of 4096 keys with 128 threads, which hands a segment with a
// bucket too large (an outlier, few values, small ranges) on to the partition; floats and other
// widths keep the block network.
TEST(SegmentedSort, IntegerFlashNetwork4096)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::vector<std::size_t> sizes = {2049, 2050, 3000, 3333, 4095, 4096, 2049, 4096, 2100};
    std::uint64_t seed = 3100;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 1, distribution::outlier, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::few_unique, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 2, distribution::coarse_and_fine, ord, true, seed++);
        check_segmented<std::int32_t, long long, false>(sizes, 2, distribution::uniform_bits, ord, true, seed++);
        check_segmented<std::int32_t, int, false>(sizes, 0, distribution::small_range, ord, false, seed++);
        check_segmented<float, int, false>(sizes, 0, distribution::special_floats, ord, true, seed++);
    }
}

/// Segments the wide flash network class takes when a call has this many of them: two per
/// multiprocessor (fewer go to the partition).
std::size_t wide_class_segments()
{
    int device = 0, multiprocessors = 0;
    if(hipGetDevice(&device) != hipSuccess
       || hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
        ADD_FAILURE() << "no multiprocessor count";
    return 2 * static_cast<std::size_t>(multiprocessors);
}

/// `count` segment sizes taken from `pattern` in turn.
template <std::size_t N>
std::vector<std::size_t> cycled_sizes(const std::size_t (&pattern)[N], std::size_t count)
{
    std::vector<std::size_t> sizes;
    for(std::size_t i = 0; i < count; i++) sizes.push_back(pattern[i % N]);
    return sizes;
}

/// Segments of 4097-8192 keys alone that get the small flash network class's own launch: four
/// per multiprocessor (fewer are sorted by the flash network class's kernel).
std::size_t small_class_segments() { return 2 * wide_class_segments(); }

// Keys alone of 4097-8192 in a call that lists enough of them for the small flash network class
// (NVIDIA: 256 threads, its own launch), and in one that lists fewer (sorted with the flash
// network class's segments); segments with a bucket too large (an outlier, few values, two
// values) are handed to the partition, float zeros keep input order.
TEST(SegmentedSort, SmallFlashNetworkClass)
{
    HIPFLASHSORT_REQUIRE_GPU();
    // Six of each seven sizes are the small class's: (n / 6 + 2) cycles list more than n.
    const std::size_t pattern[] = {4097, 8192, 5000, 6001, 8191, 12000, 4500};
    const std::vector<std::size_t> own = cycled_sizes(pattern, (small_class_segments() / 6 + 2) * 7);
    const std::vector<std::size_t> joined = cycled_sizes(pattern, 20);
    std::uint64_t seed = 3600;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(own, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(own, 1, distribution::outlier, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(own, 0, distribution::few_unique, ord, false, seed++);
        check_segmented<float, int, false>(own, 2, distribution::special_floats, ord, false, seed++);
        check_segmented<float, long long, false>(own, 0, distribution::two_values, ord, true, seed++);
        check_segmented<std::int16_t, int, false>(own, 3, distribution::small_range, ord, true, seed++);
        check_segmented<std::uint8_t, int, false>(own, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(joined, 1, distribution::uniform_bits, ord, false, seed++);
        check_segmented<float, int, false>(joined, 0, distribution::special_floats, ord, true, seed++);
    }
}

// Keys alone of up to 4 bytes in segments of 2-16 keys: one thread sorts each segment, a
// wavefront's segments pass through its transposed LDS tile. Enough segments that every lane of
// many wavefronts holds one and the grid loops; sizes of every count from 2 to 16 side by side,
// and a list whose end leaves some lanes without a segment.
TEST(SegmentedSort, ThreadNetworkClass)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10, 8, 9, 16, 1, 0, 16, 17};
    const std::vector<std::size_t> sizes = cycled_sizes(pattern, 40000 + 13);
    std::uint64_t seed = 3300;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::int32_t, long long, false>(sizes, 3, distribution::few_unique, ord, true, seed++);
        // Zeros of both signs keep their input order; NaNs and infinities by bit pattern.
        check_segmented<float, int, false>(sizes, 0, distribution::special_floats, ord, false, seed++);
        check_segmented<float, int, false>(sizes, 1, distribution::special_floats, ord, true, seed++);
        check_segmented<std::uint8_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::int16_t, int, false>(sizes, 2, distribution::extremes_and_small, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::extremes_and_small, ord, false, seed++);
    }
    // Fewer segments than one wavefront's lanes.
    check_segmented<float, int, false>({5, 16, 2}, 0, distribution::special_floats, order::ascending, false, 3399);
}

// Forty segments of 16385-100000 keys without values: too few for the wide flash network class
// (one block per segment), so one partition round takes all of them (chunks of several segments
// side by side), with buckets that land in the network classes and, for skewed keys (an outlier,
// few values), further rounds; all-equal segments are finished by their scatter. With five
// segments the round is cut into chunks differently.
TEST(SegmentedSort, ManyMediumSegments)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {16385, 24577, 32769, 50000, 65535, 65536, 65537, 100000};
    const std::vector<std::size_t> many = cycled_sizes(pattern, 40);
    const std::vector<std::size_t> few = {65537, 16385, 40000, 65536, 131072};
    std::uint64_t seed = 3500;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(many, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::int32_t, long long, false>(many, 3, distribution::uniform_bits, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(many, 1, distribution::outlier, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(many, 0, distribution::few_unique, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(many, 0, distribution::sorted, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(many, 2, distribution::reverse, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(many, 0, distribution::all_equal, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(many, 0, distribution::coarse_and_fine, ord, true, seed++);
        check_segmented<std::int16_t, int, false>(many, 1, distribution::small_range, ord, false, seed++);
        check_segmented<std::uint8_t, int, false>(many, 0, distribution::uniform_bits, ord, true, seed++);
        check_segmented<std::uint32_t, int, false>(few, 1, distribution::uniform_bits, ord, false, seed++);
        check_segmented<float, int, false>(many, 0, distribution::special_floats, ord, true, seed++);
        check_segmented<float, int, false>(many, 2, distribution::two_values, ord, false, seed++);
        check_segmented<float, long long, false>(many, 0, distribution::coarse_and_fine, ord, true, seed++);
    }
}

// Enough segments of 16385-65536 keys for the two wide flash network classes: one block each, in
// up to four windows of buckets (f32 segments with a zero have a row shorter by the zero masks);
// 65537 and above go to the partition, as do segments with a bucket over 512 keys (outliers, few
// values), which the classes hand back. On an H100 or H200 the 512-thread class takes segments up
// to about 22000 keys (16385 here), the 1024-thread class the others.
TEST(SegmentedSort, WideFlashNetworkClass)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {16385, 24577, 65536, 32769, 50000, 65535, 40000, 65537};
    const std::vector<std::size_t> sizes = cycled_sizes(pattern, wide_class_segments() + 8);
    std::uint64_t seed = 3700;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::uniform_bits, ord, ord == order::ascending, seed++);
        check_segmented<float, int, false>(sizes, 1, distribution::special_floats, ord, true, seed++);
        check_segmented<float, long long, false>(sizes, 0, distribution::coarse_and_fine, ord, false, seed++);
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::outlier, ord, false, seed++);
        check_segmented<std::int16_t, int, false>(sizes, 2, distribution::few_unique, ord, true, seed++);
        check_segmented<std::uint8_t, int, false>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
    }
}

/// A multiprocessor's LDS bytes.
unsigned int lds_per_multiprocessor()
{
    int device = 0, per_sm = 0;
    if(hipGetDevice(&device) != hipSuccess
       || hipDeviceGetAttribute(&per_sm, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, device) != hipSuccess)
        ADD_FAILURE() << "no LDS size";
    return static_cast<unsigned int>(per_sm);
}

/// The staged rows (slots) of the 512-thread and the 1024-thread wide class, as the runner sizes
/// them: half a multiprocessor's LDS and all of it.
template <class Key>
std::pair<unsigned int, unsigned int> wide_rows()
{
    using runner = hipflashsort::detail::segmented_runner<Key, hipflashsort::empty_type>;
    using wide = typename runner::config::wide_flash_network_sorter;
    using full = typename runner::config::wide_full_flash_network_sorter;
    return {runner::template wide_row_in<wide>(lds_per_multiprocessor() / 2).slots,
            runner::template wide_row_in<full>(lds_per_multiprocessor()).slots};
}

/// The largest segment the 512-thread wide class keeps, as the runner computes it: what its row
/// takes in one window without a float zero (about 22000 keys on an H100 or H200).
template <class Key>
std::size_t wide_split_size()
{
    using sorter = typename hipflashsort::detail::segmented_config<Key, hipflashsort::empty_type>::wide_flash_network_sorter;
    return sorter::zero_free_one_window(wide_rows<Key>().first);
}

// Segments on both sides of the split between the two wide classes (where the device has both;
// elsewhere these sizes take one class or the partition, and are still checked).
TEST(SegmentedSort, WideFlashNetworkSplit)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t split = std::max<std::size_t>(wide_split_size<std::uint32_t>(), 16386);
    ASSERT_EQ(split, std::max<std::size_t>(wide_split_size<float>(), 16386));
    const std::size_t pattern[] = {split - 1, split, split + 1, split + 2, split - 1000, split + 1000};
    const std::vector<std::size_t> sizes = cycled_sizes(pattern, wide_class_segments() + 6);
    std::uint64_t seed = 3800;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, false>(sizes, 0, distribution::uniform_bits, ord, ord == order::ascending, seed++);
        check_segmented<float, int, false>(sizes, 1, distribution::special_floats, ord, true, seed++);
        check_segmented<std::uint32_t, long long, false>(sizes, 2, distribution::coarse_and_fine, ord, false, seed++);
    }
}

/// A float segment of `size` values of [-1, 1), none zero (a drawn zero becomes 0.5), then,
/// where zero_every is not 0, a zero of either sign every zero_every keys from a random start.
std::vector<float> spread_floats(std::size_t size, std::size_t zero_every, std::mt19937& rng)
{
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> seg;
    for(std::size_t i = 0; i < size; i++)
    {
        const float v = value(rng);
        seg.push_back(v == 0.0f ? 0.5f : v);
    }
    if(zero_every != 0)
        for(std::size_t i = rng() % zero_every; i < size; i += zero_every) seg[i] = rng() % 2 ? -0.0f : 0.0f;
    return seg;
}

// The wide classes' windows. Their rows are tight, so a segment without a float zero takes one
// window up to its class's row and two just above it, and a float segment with a zero has the row
// less the zero masks. Sizes about both classes' rows (above the 512-thread class's row the
// 1024-thread class takes the segment), u32 keys and f32 keys with zeros in every other segment;
// in place (where several windows read a copy of the segment) and not.
TEST(SegmentedSort, WideFlashNetworkWindows)
{
    HIPFLASHSORT_REQUIRE_GPU();
    using sorter = hipflashsort::detail::segmented_config<float, hipflashsort::empty_type>::wide_flash_network_sorter;
    const auto [wide, full] = wide_rows<float>();
    const std::size_t masks = sorter::mask_slots;
    const auto clamp = [](std::size_t n) { return std::min<std::size_t>(std::max<std::size_t>(n, 16385), 65536); };
    const std::size_t pattern[] = {clamp(wide - 1), clamp(wide), clamp(wide + 1), clamp(wide - masks + 1),
                                   clamp(full), clamp(full + 1), clamp(full - masks + 1), 65536};
    std::mt19937 rng(91);
    segment_list<std::uint32_t> u;
    segment_list<float> f;
    for(std::size_t segment = 0; segment < wide_class_segments() + 8; segment++)
    {
        const std::size_t size = pattern[segment % std::size(pattern)];
        std::vector<std::uint32_t> us(size);
        for(auto& k : us) k = static_cast<std::uint32_t>(rng());
        u.add(us);
        f.add(spread_floats(size, segment / std::size(pattern) % 2 == 1 ? 50 : 0, rng));
    }
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool in_place : {false, true})
        {
            check_segmented_input<std::uint32_t, int, false>(u.keys, u.begins, u.ends, ord, in_place);
            check_segmented_input<float, int, false>(f.keys, f.begins, f.ends, ord, in_place);
        }
    }
}

// Float segments in the wide flash network class keep their zero masks at the staged row's end:
// a segment with a zero (every other one here, from one zero to one key in 40, either sign) has
// the shorter row and may take one window more than a zero-free one of the same size. Finite
// values in [-1, 1), interpolated by value, so that the buckets stay under 512 keys.
TEST(SegmentedSort, WideFlashNetworkFloatZeros)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {24577, 65536, 40000, 65536, 30000, 50001};
    std::mt19937 rng(93);
    segment_list<float> l;
    for(std::size_t segment = 0; segment < wide_class_segments() + 2; segment++)
    {
        const std::size_t size = pattern[segment % 6];
        const std::size_t every = segment % 4 == 1 ? 40 : size; // many zeros, or just one
        l.add(spread_floats(size, segment % 2 == 1 ? every : 0, rng));
    }
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented_input<float, int, false>(l.keys, l.begins, l.ends, ord, false);
        check_segmented_input<float, int, false>(l.keys, l.begins, l.ends, ord, true);
    }
}

// Float zeros in the flash network classes, which classify by lossless images (-0 below +0): the
// buckets can part the -0 / +0 run, and the sort must still give it in input order. Segments of
// zeros alone (two images, a bucket each), and zeros among other keys between the two extreme
// NaNs: the full image range, whose middle bucket boundary falls between -0 and +0 where the
// bucket count is even (size / 20 buckets: 480, 1440, 820, 2400). Half the segments take the wide
// classes.
TEST(SegmentedSort, FlashNetworkZerosAcrossBuckets)
{
    using codec = hipflashsort::radix_key_codec<float>;
    for(const order ord : {order::ascending, order::descending})
    {
        const auto c = hipflashsort::detail::flash_classifier<float>::make(0u, ~0u, 100, ord);
        EXPECT_NE(c(-0.0f, codec::lossless_image(-0.0f, ord)), c(0.0f, codec::lossless_image(0.0f, ord)));
    }
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {4097, 9600, 24577, 28800, 16384, 48000};
    std::mt19937 rng(94);
    segment_list<float> l;
    for(std::size_t segment = 0; segment < 2 * wide_class_segments() + 12; segment++)
    {
        const std::size_t size = pattern[segment % 6];
        std::vector<float> seg;
        for(std::size_t i = 0; i < size; i++) seg.push_back(rng() % 2 ? -0.0f : 0.0f);
        if(segment % 2 == 1)
        {
            for(std::size_t i = rng() % 7; i < size; i += 7) seg[i] = float(rng() % 1000) - 500.0f;
            const std::size_t at = rng() % (size - 1);
            seg[at] = codec::from_bits(0xffffffffu);     // -NaN, the smallest image
            seg[at + 1] = codec::from_bits(0x7fffffffu); // +NaN, the largest
        }
        l.add(seg);
    }
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented_input<float, int, false>(l.keys, l.begins, l.ends, ord, false);
        check_segmented_input<float, int, false>(l.keys, l.begins, l.ends, ord, true);
    }
}

/// A segment of n keys for FlashNetworkHeavyValues: spread over [0, range), except that `heavy`
/// values (up to three, each about a quarter of the keys: about the networks' 1024 at 4097 keys,
/// well above it in the larger segments) take the positions drawn for them.
template <class Key>
std::vector<Key> heavy_segment(std::size_t n, std::uint32_t range, const std::vector<Key>& heavy, std::mt19937& rng)
{
    std::vector<Key> seg(n);
    for(std::size_t i = 0; i < n; i++)
    {
        const std::uint32_t pick = static_cast<std::uint32_t>(rng());
        seg[i] = pick % 8 < 2 * heavy.size() ? heavy[pick % 8 / 2] : static_cast<Key>(pick % range);
    }
    return seg;
}

// Heavy values in the flash network class (segments of 4097-16384 keys): each fills its bucket
// beyond the networks' 1024 keys, so the segment goes back to the partition, whose rounds split
// it until the heavy values' segments are constant. Their buckets span few images, or many (the
// lone far key). Floats: ±0 heavy among denormals (consecutive lossless images about zero), and a
// NaN that widens the range by image. Narrow keys: 16 and 8 bits, whose buckets span fewer
// images.
// (Written for the fifty-third session's counted buckets, whose first two forms passed it;
// data/session53_counted_buckets.patch.)
TEST(SegmentedSort, FlashNetworkHeavyValues)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t sizes[] = {4097, 8192, 12345, 16383, 16384, 6000};
    using codec = hipflashsort::radix_key_codec<float>;
    std::mt19937 rng(95);
    segment_list<std::uint32_t> u;
    segment_list<float> f;
    segment_list<std::uint16_t> h;
    segment_list<std::int8_t> c;
    for(std::size_t segment = 0; segment < 18; segment++)
    {
        const std::size_t n = sizes[segment % 6];
        std::vector<std::uint32_t> us = heavy_segment<std::uint32_t>(n, 60000, {17, 30000, 59999}, rng);
        if(segment % 3 == 2) us[rng() % n] = 0xfffffff0u; // buckets of about 2^25 images
        u.add(us);
        // Denormals of either sign: consecutive images about zero, and in value.
        std::vector<float> fs;
        for(std::uint32_t bits : heavy_segment<std::uint32_t>(n, 30000, {0, 0x80000000u, 1234}, rng))
            fs.push_back(codec::from_bits(bits % 2 == 1 && segment % 2 == 0 ? bits | 0x80000000u : bits));
        if(segment % 3 == 1) fs[rng() % n] = std::numeric_limits<float>::quiet_NaN();
        f.add(fs);
        h.add(heavy_segment<std::uint16_t>(n, 65536, {0, 40000, 65535}, rng));
        c.add(heavy_segment<std::int8_t>(n, 256, {-128, 3, 127}, rng));
    }
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool in_place : {false, true})
        {
            check_segmented_input<std::uint32_t, int, false>(u.keys, u.begins, u.ends, ord, in_place);
            check_segmented_input<float, int, false>(f.keys, f.begins, f.ends, ord, in_place);
            check_segmented_input<std::uint16_t, int, false>(h.keys, h.begins, h.ends, ord, in_place);
            check_segmented_input<std::int8_t, int, false>(c.keys, c.begins, c.ends, ord, in_place);
        }
    }
}

/// A segment of n distinct-ish keys spread over [0, 2^24), but for a cluster of `cluster`
/// consecutive images from a random start, in random positions: inside one or two of the flash
/// network class's tight buckets (about 20 keys each, 2^24 / (n / 20) images wide).
std::vector<std::uint32_t> clustered_segment(std::size_t n, std::size_t cluster, std::mt19937& rng)
{
    std::vector<std::uint32_t> seg(n);
    const std::uint32_t start = static_cast<std::uint32_t>(rng() % ((1u << 24) - cluster));
    for(std::size_t i = 0; i < n; i++)
        seg[i] = i < cluster ? start + static_cast<std::uint32_t>(i) : static_cast<std::uint32_t>(rng() % (1u << 24));
    std::shuffle(seg.begin(), seg.end(), rng);
    return seg;
}

/// Segments of sizes[i % N] with clusters[i % M] (clustered_segment), `segments` of them, as u32,
/// i32 and f32 keys (positive floats of one binade, interpolated by value), and as many u32
/// segments of a range of 2000 or 3000 images; sorted in both orders, in place and not.
template <std::size_t N, std::size_t M>
void check_clustered_segments(const std::size_t (&sizes)[N], const std::size_t (&clusters)[M], std::size_t segments,
                              std::uint32_t seed)
{
    std::mt19937 rng(seed);
    segment_list<std::uint32_t> u;
    segment_list<std::int32_t> i;
    segment_list<float> f;
    using codec = hipflashsort::radix_key_codec<float>;
    for(std::size_t segment = 0; segment < segments; segment++)
    {
        const std::size_t n = sizes[segment % N];
        const std::vector<std::uint32_t> seg = clustered_segment(n, clusters[segment % M], rng);
        u.add(seg);
        std::vector<std::int32_t> is;
        std::vector<float> fs;
        for(const std::uint32_t k : seg)
        {
            is.push_back(static_cast<std::int32_t>(k) - (1 << 23));
            fs.push_back(codec::from_bits(0x3f800000u + (k >> 1))); // [1, 2): linear in the image
        }
        i.add(is);
        f.add(fs);
        // A range of 2000 images: a bucket per image; of 3000: tight buckets of a few images.
        std::vector<std::uint32_t> narrow(n);
        const std::uint32_t span = segment % 2 == 0 ? 2000u : 3000u;
        for(auto& k : narrow) k = 77777u + static_cast<std::uint32_t>(rng() % span);
        u.add(narrow);
    }
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool in_place : {false, true})
        {
            check_segmented_input<std::uint32_t, int, false>(u.keys, u.begins, u.ends, ord, in_place);
            check_segmented_input<std::int32_t, int, false>(i.keys, i.begins, i.ends, ord, in_place);
            check_segmented_input<float, int, false>(f.keys, f.begins, f.ends, ord, in_place);
        }
    }
}

// The clusters of the tight-bucket tests: none, or filling one or two buckets to 33-64, 65-128,
// 129-256 or 257-512 keys, so that each of a wavefront's larger networks sorts them, or past 512
// (in one bucket) handing the segment back to the partition.
constexpr std::size_t tight_clusters[] = {0, 40, 64, 65, 100, 128, 129, 200, 256, 257, 400, 512, 513, 700, 1500};

// The flash network class's tight buckets (segments of 4097-16384 keys). Ranges of at most 2048
// images take a bucket per image and no network (2000 here; 3000 do not). Signed and float keys
// with a cluster each, too.
TEST(SegmentedSort, FlashNetworkTightBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t sizes[] = {16384, 12345, 8192, 4097, 16000, 9999};
    check_clustered_segments(sizes, tight_clusters, 2 * std::size(tight_clusters), 96);
}

// The same in the wide classes (segments of 16385-65536 keys, enough of them for the classes):
// their buckets, about 20 keys each, are sorted in windows of the staged row, and a cluster may
// fill a bucket at a window's end.
TEST(SegmentedSort, WideFlashNetworkTightBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t sizes[] = {65536, 24577, 50000, 16385, 40000, 30001};
    check_clustered_segments(sizes, tight_clusters, wide_class_segments() + 4, 97);
}

// Pairs between the wavefront networks and the partition: the block network on composites up to
// 1024, block_flash_sort, then flash_network_pair_sort (keys staged with their input positions
// by atomics, composites sorted per bucket, values read by position). Equal keys (few unique,
// two values, ±0) must keep input order although staging scrambles them; skewed keys hand the
// segment back to the partition; values of 4, 8 and 16 bytes; in place, the values go through
// the round buffer.
TEST(SegmentedSort, FlashNetworkPairs)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::vector<std::size_t> sizes = {513,  700,  1023, 1024, 1025,  2047,  2049,  4095,  4096, 4097,
                                            6000, 8191, 8192, 8193, 12000, 16383, 16384, 16385, 600};
    std::uint64_t seed = 4000;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, true>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<std::uint32_t, int, true>(sizes, 1, distribution::outlier, ord, true, seed++);
        check_segmented<std::uint32_t, int, true>(sizes, 0, distribution::few_unique, ord, false, seed++);
        check_segmented<std::uint32_t, int, true>(sizes, 0, distribution::extremes_and_small, ord, false, seed++);
        check_segmented<std::uint32_t, int, true>(sizes, 0, distribution::coarse_and_fine, ord, false, seed++);
        check_segmented<float, int, true>(sizes, 1, distribution::coarse_and_fine, ord, true, seed++);
        check_segmented<float, int, true>(sizes, 2, distribution::special_floats, ord, false, seed++);
        check_segmented<float, int, true>(sizes, 0, distribution::two_values, ord, true, seed++);
        check_segmented<std::int16_t, int, true, std::uint64_t>(sizes, 3, distribution::small_range, ord, true, seed++);
        check_segmented<std::uint8_t, int, true, payload16>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<float, int, true, payload16>(sizes, 0, distribution::uniform_bits, ord, true, seed++);
        // Values narrower than the keys wait in the keys' rows too, in place or not.
        check_segmented<std::uint32_t, int, true, std::uint16_t>(sizes, 0, distribution::uniform_bits, ord,
                                                                 ord == order::descending, seed++);
    }
}

/// A segment of about n keys in runs that tie in the flash network pair class's composites: run
/// lengths 1 to 12 (most 1, some past the 8 that are settled in place), each run's keys equal or
/// differing only in their two lowest bits (equal in the image bits kept), shuffled.
std::vector<std::uint32_t> tie_runs_segment(unsigned int n, std::mt19937& rng)
{
    std::vector<std::uint32_t> seg;
    while(seg.size() < n)
    {
        const std::uint32_t base = static_cast<std::uint32_t>(rng()) & ~63u;
        const unsigned int length = rng() % 4 != 0 ? 1u : 2u + static_cast<unsigned int>(rng() % 11);
        const bool equal = rng() % 2 == 0;
        for(unsigned int i = 0; i < length && seg.size() < n; i++)
            seg.push_back(base | (equal ? 0u : static_cast<std::uint32_t>(rng() % 4)));
    }
    std::shuffle(seg.begin(), seg.end(), rng);
    return seg;
}

// The flash network pair class stages each bucket's keys in the hardware's order, so keys that tie
// in the composites' kept bits (equal keys, keys differing only in bits dropped, float zeros of
// either sign) come out of the first pass in that order: runs of up to 8 are put into (image,
// input position) order in place, longer ones take the passes by input position. Runs of 1 to 12
// of either kind, duplicated floats of [0, 1) and zero runs mixing -0 and +0.
TEST(SegmentedSort, FlashNetworkPairsTieRuns)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937 rng(4100);
    segment_list<> l;
    for(const unsigned int n : {4097u, 5000u, 8192u, 12000u, 16383u, 16384u})
    {
        for(int r = 0; r < 3; r++) l.add(tie_runs_segment(n, rng));
    }
    for(const bool in_place : {false, true})
    {
        check_segmented_input<std::uint32_t, int, true>(l.keys, l.begins, l.ends, order::ascending, in_place);
        check_segmented_input<std::uint32_t, int, true>(l.complements(), l.begins, l.ends, order::descending, in_place);
    }
    segment_list<float> f;
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for(const unsigned int n : {4097u, 8192u, 16384u})
    {
        // One run of zeros per segment, of 3, 8 (settled) or 12 (the passes), -0 and +0 mixed:
        // few enough that the first bucket keeps under the class's 512 keys.
        for(const unsigned int zeros : {3u, 8u, 12u})
        {
            std::vector<float> seg;
            for(unsigned int i = 0; i < zeros; i++) seg.push_back(rng() % 2 == 0 ? -0.0f : 0.0f);
            while(seg.size() < n)
            {
                const float key = unit(rng);
                const unsigned int length = rng() % 3 != 0 ? 1u : 2u + static_cast<unsigned int>(rng() % 11);
                for(unsigned int i = 0; i < length && seg.size() < n; i++) seg.push_back(key == 0.0f ? 0.5f : key);
            }
            std::shuffle(seg.begin(), seg.end(), rng);
            f.add(seg);
        }
    }
    for(const order ord : {order::ascending, order::descending})
        check_segmented_input<float, int, true>(f.keys, f.begins, f.ends, ord, ord == order::descending);
}

// Pairs of 16385 keys and more take a partition round whose buckets average 9/10 of the 512 or
// 1024 network class (96 segments fill the GPU's blocks), so some buckets pass the class and
// take the next one; skewed keys (an outlier, few values, coarse and fine) leave uneven buckets
// and further rounds. Values of 4, 8 and 16 bytes, in place too.
TEST(SegmentedSort, PartitionedPairsInFullerBuckets)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {16385, 20000, 30001, 50000, 65536, 65537, 100000, 24577};
    const std::vector<std::size_t> sizes = cycled_sizes(pattern, 96);
    std::uint64_t seed = 4200;
    for(const order ord : {order::ascending, order::descending})
    {
        check_segmented<std::uint32_t, int, true>(sizes, 0, distribution::uniform_bits, ord, false, seed++);
        check_segmented<float, int, true>(sizes, 1, distribution::coarse_and_fine, ord, true, seed++);
        check_segmented<std::uint32_t, long long, true>(sizes, 0, distribution::outlier, ord, false, seed++);
        check_segmented<std::int16_t, int, true, std::uint64_t>(sizes, 2, distribution::few_unique, ord, true, seed++);
        check_segmented<float, int, true, payload16>(sizes, 0, distribution::special_floats, ord, false, seed++);
    }
}

/// Keys whose every 32nd key (from the start) lies in a narrow band while the others spread over
/// the whole range, special values among them: a first partition round that measures a segment's
/// range from a sample of its keys (every 128th or sparser) sees only the band, so nearly every
/// key lies outside the range it classifies by and must reach the end buckets in order.
template <class Key>
std::vector<Key> band_at_samples(std::size_t n, std::uint64_t seed)
{
    std::vector<Key> keys = test_utils::generate<Key>(n, distribution::special_floats, seed);
    std::mt19937_64 rng(seed);
    for(std::size_t i = 0; i < n; i += 32)
    {
        if constexpr(std::is_floating_point<Key>::value)
            keys[i] = static_cast<Key>(1.0 + static_cast<double>(rng() % 1000) / 1e6);
        else
            keys[i] = static_cast<Key>(std::numeric_limits<Key>::max() / 2 + static_cast<Key>(rng() % 1000));
    }
    return keys;
}

/// A device sort of `keys` with index values, against the stable reference.
template <class Key>
void check_device_pairs(const std::vector<Key>& keys, order ord, const char* what)
{
    const std::size_t n = keys.size();
    std::vector<std::uint32_t> index(n), expected_index(n);
    for(std::size_t i = 0; i < n; i++) index[i] = expected_index[i] = static_cast<std::uint32_t>(i);
    std::vector<Key> expected = keys;
    test_utils::reference_sort(expected, &expected_index, 0, n, ord);
    std::vector<Key> got;
    std::vector<std::uint32_t> got_index;
    run_device<Key, std::uint32_t, true, int>(keys, index, got, got_index, ord, false);
    ASSERT_EQ(test_utils::first_mismatch(got, expected), -1) << what << ", n=" << n;
    ASSERT_EQ(test_utils::first_mismatch(got_index, expected_index), -1) << what << ", n=" << n;
}

// Ranges measured from a sample in the first partition rounds (sampled_rounds, inputs of
// sampled_round_keys keys and more): segments and device sorts whose sampled keys miss nearly
// every other key's range, segments whose samples are all equal while their other keys differ
// (the round splits them at the sampled value), and device sorts of one value with rare others,
// whose second round samples that value alone.
TEST(SegmentedSort, SampledRangesMissTheKeys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::uint64_t seed = 9100;
    const std::size_t sampled_from = hipflashsort::detail::segmented_config<float, int>::sampled_round_keys;
    for(const order ord : {order::ascending, order::descending})
    {
        segment_list<std::uint32_t> u;
        segment_list<float> f;
        segment_list<std::int64_t> w;
        while(f.keys.size() < sampled_from)
        {
            for(const std::size_t n : {16385u, 40000u, 65536u, 100000u, 300000u})
            {
                u.add(band_at_samples<std::uint32_t>(n, seed++));
                f.add(band_at_samples<float>(n, seed++));
                w.add(band_at_samples<std::int64_t>(n, seed++));
            }
        }
        std::vector<std::uint32_t> equal_samples(65536);
        for(std::size_t i = 0; i < equal_samples.size(); i++)
            equal_samples[i] = i % 32 == 0 ? 0xffffffffu : static_cast<std::uint32_t>(i * 2654435761u >> 1);
        u.add(equal_samples);
        check_segmented_input<std::uint32_t, int, true>(u.keys, u.begins, u.ends, ord, false);
        check_segmented_input<float, int, true, payload16>(f.keys, f.begins, f.ends, ord, true);
        check_segmented_input<std::int64_t, int, false>(w.keys, w.begins, w.ends, ord, false);
        for(const std::size_t n : {sampled_from, sampled_from + (sampled_from >> 2)})
            check_device_pairs(band_at_samples<float>(n, seed++), ord, "band at the samples");
        std::mt19937_64 rng(seed++);
        std::vector<std::uint32_t> keys(2 * sampled_from);
        for(std::uint32_t& k : keys) k = rng() % 1024 == 0 ? static_cast<std::uint32_t>(rng()) : 0x9e3779b9u;
        check_device_pairs(keys, ord, "one value");
    }
}

// Direct segments (an image per bucket) of a sampled round are final in that round where its
// scatter does not read keys_out: a cluster of 300 values, an extreme key and a few random ones
// (the cluster's bucket of the first round is a direct segment of the second), and a few keys
// just outside the cluster, which the sample misses and the end buckets take with other images
// (such a segment is not final). Keys twice and in place, pairs with their input positions.
TEST(DeviceSort, DirectSegmentsFinalInTheirRound)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = (std::size_t(1) << 23) + 7;
    std::uint64_t seed = 5200;
    for(const bool spill : {false, true})
    {
        std::mt19937_64 rng(seed++);
        std::vector<std::uint32_t> keys(n);
        for(std::uint32_t& k : keys) k = rng() % 4096 == 0 ? static_cast<std::uint32_t>(rng()) : 1000u + rng() % 300;
        keys[n / 2] = 0xffffffffu;
        if(spill)
        {
            for(int i = 0; i < 40; i++) keys[rng() % n] = i % 2 ? 999u - rng() % 3 : 1300u + rng() % 3;
        }
        const std::string what = spill ? "cluster with keys outside the sample" : "cluster";
        for(const order ord : {order::ascending, order::descending})
        {
            for(const bool in_place : {false, true}) check_keys_twice(keys, ord, in_place, what);
            check_device_pairs(keys, ord, what.c_str());
        }
    }
    for(const order ord : {order::ascending, order::descending})
        check_keys_twice<std::uint32_t>(n, distribution::outlier, ord, false, seed++);
}

// Extreme keys on the sample grid of a sampled round (trim_outlying_samples leaves them out of
// the sampled range): f32 keys of [0, 1000) with FLT_MAX at the middle, -inf first and a few
// NaNs; u32 keys below 2^20 with the largest key at the middle and in a few other places.
TEST(DeviceSort, OutlyingSamplesLeftOut)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = hipflashsort::detail::segmented_config<float, int>::sampled_round_keys;
    std::mt19937_64 rng(9300);
    std::uniform_real_distribution<float> unit(0.0f, 1000.0f);
    std::vector<float> f(n);
    std::vector<std::uint32_t> u(n);
    for(std::size_t i = 0; i < n; i++)
    {
        f[i] = unit(rng);
        u[i] = static_cast<std::uint32_t>(rng() % (1u << 20));
    }
    f[n / 2] = std::numeric_limits<float>::max();
    f[0] = -std::numeric_limits<float>::infinity();
    for(const std::size_t i : {std::size_t(7), n / 3, n - 1}) f[i] = std::numeric_limits<float>::quiet_NaN();
    for(const std::size_t i : {n / 2, std::size_t(12345), n - 2}) u[i] = 0xffffffffu;
    for(const order ord : {order::ascending, order::descending})
    {
        check_device_pairs(f, ord, "f32 outliers");
        check_device_pairs(u, ord, "u32 outliers");
    }
}

// Keys of few set bits (the AND of three random words: most of them share values of hundreds of
// copies or more) stay in large segments for several partition rounds, whose first four
// (sampled_rounds) measure their ranges from samples: u32 and f32 keys of twice
// sampled_round_keys, stable pairs with index values, and keys alone twice (in place, then not;
// the same bits each run), both orders.
TEST(DeviceSort, FewSetBitsOverSampledRounds)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = 2 * hipflashsort::detail::segmented_config<float, int>::sampled_round_keys + 7;
    std::mt19937_64 rng(9500);
    std::vector<std::uint32_t> u(n);
    std::vector<float> f(n);
    for(std::size_t i = 0; i < n; i++)
    {
        const std::uint64_t bits = rng() & rng() & rng();
        u[i] = static_cast<std::uint32_t>(bits);
        f[i] = static_cast<float>(static_cast<double>(bits >> 11) / 9007199254740992.0);
    }
    for(const order ord : {order::ascending, order::descending})
    {
        check_device_pairs(u, ord, "u32, few set bits");
        check_device_pairs(f, ord, "f32, few set bits");
        check_keys_twice(u, ord, true, "u32, few set bits");
        check_keys_twice(f, ord, true, "f32, few set bits");
    }
}

/// Sorts pairs whose values are their input positions with the keys in place, and the values in
/// place or into a poisoned buffer, and checks both against the stable reference.
template <class Key>
void check_pairs_keys_in_place(const std::vector<Key>& keys, order ord, bool values_in_place, const char* what)
{
    const std::size_t n = keys.size();
    std::vector<std::uint32_t> index(n), expected_index(n);
    for(std::size_t i = 0; i < n; i++) index[i] = expected_index[i] = static_cast<std::uint32_t>(i);
    std::vector<Key> expected = keys;
    test_utils::reference_sort(expected, &expected_index, 0, n, ord);
    device_buffer<Key> d_keys(n);
    device_buffer<std::uint32_t> d_values(n), d_moved(n);
    HIP_CHECK(d_keys.upload(keys));
    HIP_CHECK(d_values.upload(index));
    HIP_CHECK(d_moved.poison());
    std::uint32_t* values_out = values_in_place ? d_values.ptr : d_moved.ptr;
    std::size_t bytes = 0;
    HIP_CHECK(hipflashsort::sort_pairs(nullptr, bytes, d_keys.ptr, d_keys.ptr, d_values.ptr, values_out, n, ord));
    device_buffer<char> temp(bytes);
    HIP_CHECK(hipflashsort::sort_pairs(temp.ptr, bytes, d_keys.ptr, d_keys.ptr, d_values.ptr, values_out, n, ord));
    HIP_CHECK(hipDeviceSynchronize());
    std::vector<Key> got;
    std::vector<std::uint32_t> got_index;
    HIP_CHECK(d_keys.download(got));
    HIP_CHECK((values_in_place ? d_values : d_moved).download(got_index));
    const bool desc = ord == order::descending;
    ASSERT_EQ(test_utils::first_mismatch(got, expected), -1) << what << " desc=" << desc;
    ASSERT_EQ(test_utils::first_mismatch(got_index, expected_index), -1) << what << " desc=" << desc;
}

// A partition round that reads keys_out (and values_out) leaves its constant segments where they
// lie, as their scatter would copy each item onto itself. Keys of few set bits and one value with
// rare others, which give constant segments in later rounds, and one value alone, constant in the
// first round (which reads keys_out in place). Pairs with the keys in place and the values in
// place or moved (then the values must still be copied), keys alone in place; u32, and f32 with
// zeros of both signs (their input order must survive).
TEST(DeviceSort, ConstantSegmentsLeftInPlace)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = 2 * hipflashsort::detail::segmented_config<float, int>::sampled_round_keys + 3;
    std::mt19937_64 rng(9700);
    std::vector<std::uint32_t> u(n), one(n, 0x9e3779b9u), same(n, 0x9e3779b9u);
    std::vector<float> f(n);
    for(std::size_t i = 0; i < n; i++)
    {
        const std::uint64_t bits = rng() & rng() & rng();
        u[i] = static_cast<std::uint32_t>(bits);
        const float magnitude = static_cast<float>(static_cast<double>(bits >> 11) / 9007199254740992.0);
        f[i] = rng() % 4 == 0 ? -magnitude : magnitude;
        if(rng() % 65536 == 0) one[i] = static_cast<std::uint32_t>(rng());
    }
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool values_in_place : {true, false})
        {
            check_pairs_keys_in_place(u, ord, values_in_place, "u32, few set bits");
            check_pairs_keys_in_place(f, ord, values_in_place, "f32, few set bits, signed");
            check_pairs_keys_in_place(one, ord, values_in_place, "one value, rare others");
            check_pairs_keys_in_place(same, ord, values_in_place, "one value");
        }
        check_keys_twice(u, ord, true, "u32, few set bits");
        check_keys_twice(f, ord, true, "f32, few set bits, signed");
        check_keys_twice(one, ord, true, "one value, rare others");
        check_keys_twice(same, ord, true, "one value");
    }
}

// A partition round lists its buckets by class before its scatter has moved them, so a bucket of
// one key is sorted by the smallest class instead of being copied by the binning: two clusters at
// the ends of the range (partitioned again) with 60 single keys spread between them, whose
// buckets hold one key or none. Device sorts of keys with values (stable) and in place of keys
// alone, 4- and 8-byte keys.
TEST(DeviceSort, SingleKeyBucketsListedBeforeTheScatter)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(9400);
    const std::size_t cluster = 20000, singles = 60;
    std::vector<std::uint32_t> u;
    std::vector<double> d;
    for(std::size_t i = 0; i < cluster; i++)
    {
        u.push_back(static_cast<std::uint32_t>(rng() % 1000));
        u.push_back(0xffffffffu - static_cast<std::uint32_t>(rng() % 1000));
        d.push_back(-1e9 + static_cast<double>(rng() % 1000));
        d.push_back(1e9 - static_cast<double>(rng() % 1000));
    }
    for(std::size_t i = 1; i <= singles; i++)
    {
        u.push_back(static_cast<std::uint32_t>(i * (0xffffffffull / (singles + 1))));
        d.push_back(-1e9 + 2e9 * static_cast<double>(i) / (singles + 1));
    }
    std::shuffle(u.begin(), u.end(), rng);
    std::shuffle(d.begin(), d.end(), rng);
    for(const order ord : {order::ascending, order::descending})
    {
        check_device_pairs(u, ord, "u32 single-key buckets");
        check_device_pairs(d, ord, "f64 single-key buckets");
        check_keys_twice(u, ord, true, "u32 single-key buckets");
    }
}

/// Keys 0, 3, 6, ... (n of them) in order, with `swap` > 0 exchanging the pair at swap - 1 and
/// swap: a run whose first and last keys are its extremes, broken at one place.
std::vector<std::uint32_t> spaced_run(std::size_t n, std::size_t swap)
{
    std::vector<std::uint32_t> keys(n);
    for(std::size_t i = 0; i < n; i++) keys[i] = static_cast<std::uint32_t>(3 * i);
    if(swap > 0) std::swap(keys[swap - 1], keys[swap]);
    return keys;
}

/// Presorted segments of n keys for the run checks: random keys with ties (n / 3 values), sorted,
/// and reversed; spaced_run(n, swap) for each swap, and reversed; floats holding -0 and +0 among
/// small integers, stably sorted, and reversed.
void add_presorted_runs(std::size_t n, const std::vector<std::size_t>& swaps, std::mt19937_64& rng,
                        segment_list<std::uint32_t>& u, segment_list<float>& f)
{
    std::vector<std::uint32_t> ties(n);
    for(std::uint32_t& k : ties) k = static_cast<std::uint32_t>(rng() % (n / 3));
    std::sort(ties.begin(), ties.end());
    u.add(ties);
    u.add(std::vector<std::uint32_t>(ties.rbegin(), ties.rend()));
    for(const std::size_t swap : swaps)
    {
        const std::vector<std::uint32_t> run = spaced_run(n, swap);
        u.add(run);
        u.add(std::vector<std::uint32_t>(run.rbegin(), run.rend()));
    }
    std::vector<float> zeros(n);
    for(std::size_t i = 0; i < n; i++)
    {
        const std::uint64_t r = rng() % 8;
        zeros[i] = r == 0 ? -0.0f : r == 1 ? 0.0f : static_cast<float>(static_cast<int>(rng() % 2001) - 1000);
    }
    std::stable_sort(zeros.begin(), zeros.end());
    f.add(zeros);
    f.add(std::vector<float>(zeros.rbegin(), zeros.rend()));
}

// Segments of the flash network classes (4097-16384 keys, and the wide class above) that arrive in
// order or in reverse order are copied or reversed instead of sorted: runs with ties, rising and
// falling in both orders; float runs holding -0 and +0 (a falling one is sorted, as reversing
// would turn the zeros' input order); runs whose first and last keys are their extremes but
// broken in the middle or next to the end (sorted). In place too, and device sorts of sorted and
// reverse-sorted keys, whose last round's segments arrive so.
TEST(SegmentedSort, PresortedRuns)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(9500);
    for(const order ord : {order::ascending, order::descending})
    {
        segment_list<std::uint32_t> u;
        segment_list<float> f;
        for(const std::size_t n : {std::size_t(5000), std::size_t(16384), std::size_t(40000), std::size_t(65536)})
        {
            add_presorted_runs(n, {n / 2, n - 2}, rng, u, f);
        }
        check_segmented_input<std::uint32_t, int, false>(u.keys, u.begins, u.ends, ord, false);
        check_segmented_input<std::uint32_t, int, false>(u.keys, u.begins, u.ends, ord, true);
        check_segmented_input<float, int, false>(f.keys, f.begins, f.ends, ord, false);
        check_segmented_input<float, int, false>(f.keys, f.begins, f.ends, ord, true);
        const std::size_t n = (std::size_t(1) << 22) + 77;
        check_keys_twice<std::uint32_t>(n, distribution::sorted, ord, false, 9501);
        check_keys_twice<std::uint32_t>(n, distribution::reverse, ord, true, 9502);
        check_keys_twice<float>(n, distribution::reverse, ord, false, 9503);
    }
}

// The flash network pair class (4097-16384 pairs) copies segments whose keys arrive in order and
// reverses those whose keys fall strictly; a falling run with equal keys (their values must keep
// the input order), a float run holding -0 and +0 in either direction, and runs whose first and
// last keys are their extremes but broken in the middle or next to the end are sorted. In place
// too, 16-byte values, and device sorts of sorted and reverse-sorted pairs.
TEST(SegmentedSort, PresortedPairRuns)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(9600);
    for(const order ord : {order::ascending, order::descending})
    {
        segment_list<std::uint32_t> u;
        segment_list<float> f;
        for(const std::size_t n : {std::size_t(4097), std::size_t(9000), std::size_t(16384)})
        {
            add_presorted_runs(n, {std::size_t(0), n / 2, n - 2}, rng, u, f);
            std::vector<float> falling(n);
            for(std::size_t i = 0; i < n; i++) falling[i] = static_cast<float>(n / 2) - static_cast<float>(i);
            f.add(falling); // one +0, strictly falling
        }
        for(const bool in_place : {false, true})
        {
            check_segmented_input<std::uint32_t, int, true>(u.keys, u.begins, u.ends, ord, in_place);
            check_segmented_input<float, int, true>(f.keys, f.begins, f.ends, ord, in_place);
            check_segmented_input<std::uint32_t, int, true, payload16>(u.keys, u.begins, u.ends, ord, in_place);
        }
        const std::size_t n = (std::size_t(1) << 22) + 77;
        check_pairs_stable<std::uint32_t, std::uint32_t>(n, distribution::sorted, ord, false, 9601);
        check_pairs_stable<std::uint32_t, std::uint32_t>(n, distribution::reverse, ord, true, 9602);
        check_pairs_stable<float, std::uint32_t>(n, distribution::reverse, ord, false, 9603);
    }
}

/// A segment of n keys for a network of c >= n positions (c a power of two), whose composites
/// keep the 32 - log2(c) high bits of a full-range image: r << log2(c) at rank r and the largest
/// image last, but at ranks b - 1 .. b - 1 + smaller one key and `smaller` equal keys below it
/// that agree with it in every kept bit. The input is shuffled with the larger key first of them.
std::vector<std::uint32_t> dropped_bits_segment(unsigned int n, unsigned int b, unsigned int smaller,
                                                std::mt19937& rng)
{
    unsigned int bits = 0;
    while((1u << bits) < n) bits++;
    std::vector<std::uint32_t> seg(n);
    for(unsigned int r = 0; r < n; r++) seg[r] = r << bits;
    seg[n - 1] = ~0u;
    const std::uint32_t larger_key = (b - 1) << bits | 5u, smaller_key = (b - 1) << bits | 3u;
    seg[b - 1] = larger_key;
    for(unsigned int i = 0; i < smaller; i++) seg[b + i] = smaller_key;
    std::shuffle(seg.begin(), seg.end(), rng);
    const auto larger_at = std::find(seg.begin(), seg.end(), larger_key);
    const auto first = std::find_if(seg.begin(), seg.end(),
                                    [&](std::uint32_t k) { return k == larger_key || k == smaller_key; });
    std::iter_swap(larger_at, first);
    return seg;
}

// Pairs whose composites keep only the images' high bits: two keys that differ only below those
// bits, the larger first in the input, must be found wherever they meet after the first pass:
// inside a lane, between lanes, between the wavefronts of a block network (dropped_bits_segment
// with one smaller key at rank b).
TEST(SegmentedSort, CompositeDroppedBitsAtEveryBoundary)
{
    HIPFLASHSORT_REQUIRE_GPU();
    segment_list<> l;
    std::mt19937 rng(77);
    for(const unsigned int n : {64u, 100u, 128u, 256u, 512u, 1000u, 1024u})
    {
        for(const unsigned int b : {1u, 2u, 3u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 32u, 64u, 128u, 255u, 256u, 257u, 384u,
                                    512u, 513u, 768u, 999u})
        {
            if(b <= n - 2) l.add(dropped_bits_segment(n, b, 1, rng));
        }
    }
    check_segmented_input<std::uint32_t, int, true>(l.keys, l.begins, l.ends, order::ascending, false);
    check_segmented_input<std::uint32_t, int, true>(l.complements(), l.begins, l.ends, order::descending, true);
}

// As above, with runs of three keys that share the composites' kept bits, the largest first in
// the input and the other two equal (so their order is the input's): inside one member of a
// 1024-position network (settled there after the first pass), across members, and across
// wavefronts.
TEST(SegmentedSort, CompositeDroppedBitsRunsOfThree)
{
    HIPFLASHSORT_REQUIRE_GPU();
    segment_list<> l;
    std::mt19937 rng(78);
    for(const unsigned int n : {700u, 1000u, 1024u})
    {
        for(const unsigned int b : {1u, 3u, 5u, 6u, 7u, 8u, 9u, 15u, 16u, 255u, 256u, 511u, 600u, 997u})
        {
            if(b + 1 <= n - 2) l.add(dropped_bits_segment(n, b, 2, rng));
        }
    }
    check_segmented_input<std::uint32_t, int, true>(l.keys, l.begins, l.ends, order::ascending, false);
    check_segmented_input<std::uint32_t, int, true>(l.complements(), l.begins, l.ends, order::descending, true);
}

// Float pairs of 513-1024 (the block pair network) rank their first pass on fields interpolated
// from the values: uniform floats in [0, 1) (many keys equal in the 22 image bits kept), normal
// ones, duplicates, signed zeros, denormals and a narrow range (equal or crowded fields), and
// segments holding an infinity or a NaN (no finite range, so image bits instead).
TEST(SegmentedSort, FloatPairsOnValueFields)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937 rng(91);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::normal_distribution<float> normal(0.0f, 100.0f);
    std::vector<float> keys;
    std::vector<int> begins, ends;
    const auto add = [&](unsigned int n, auto make) {
        begins.push_back(static_cast<int>(keys.size()));
        for(unsigned int i = 0; i < n; i++) keys.push_back(make(i));
        ends.push_back(static_cast<int>(keys.size()));
    };
    for(const unsigned int n : {513u, 700u, 1000u, 1023u, 1024u})
    {
        for(int r = 0; r < 8; r++) add(n, [&](unsigned int) { return unit(rng); });
        for(int r = 0; r < 4; r++) add(n, [&](unsigned int) { return normal(rng); });
        add(n, [&](unsigned int) { return static_cast<float>(rng() % 50) * 0.25f; });
        add(n, [&](unsigned int i) { return i % 3 == 0 ? (i % 2 != 0 ? -0.0f : 0.0f) : unit(rng) - 0.5f; });
        add(n, [&](unsigned int) { return std::ldexp(static_cast<float>(rng() % 1000), -140); });
        add(n, [&](unsigned int) { return 1.0f + unit(rng) * 1e-6f; });
        add(n, [&](unsigned int i) { return i == n / 2 ? std::numeric_limits<float>::infinity() : unit(rng); });
        add(n, [&](unsigned int i) { return i == 7 ? std::numeric_limits<float>::quiet_NaN() : unit(rng); });
    }
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool in_place : {false, true})
            check_segmented_input<float, int, true>(keys, begins, ends, ord, in_place);
    }
}

// sort_composites writes its sorted keys and values out in 16-byte words where the outputs'
// alignment allows, item by item where it does not (networks under 256 positions), skewed to the
// keys' 16-byte grid (networks of 256 positions and more, members of up to 8 items: whole members
// in words, the lanes at the ends of each logical wavefront and segment item by item), and
// through copy_striped's words or keys (members of 16): segments of each size modulo 4 in the
// wavefront and block network classes, at every alignment (gaps of 1 to 3 keys shift them), with
// values of 4, 8 and 16 bytes, in place too. The values' arrays also start one value off the
// keys' alignment, where the skewed stores write the values item by item.
TEST(SegmentedSort, WordCopiesAtEveryAlignment)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t pattern[] = {16, 33, 64, 102, 128, 255, 256, 509, 514, 1000, 1021, 1024};
    const std::vector<std::size_t> sizes = cycled_sizes(pattern, 48);
    std::uint64_t seed = 5100;
    for(const std::size_t gap : {0, 1, 2, 3})
    {
        check_segmented<std::uint32_t, int, true>(sizes, gap, distribution::uniform_bits, order::ascending, false,
                                                  seed++);
        check_segmented<float, int, true, std::uint64_t>(sizes, gap, distribution::uniform_bits, order::descending,
                                                         true, seed++);
        check_segmented<std::int16_t, int, true, payload16>(sizes, gap, distribution::few_unique, order::ascending,
                                                            false, seed++);
        check_segmented<std::uint32_t, int, true>(sizes, gap, distribution::uniform_bits, order::descending, false,
                                                  seed++, 1);
        check_segmented<std::int32_t, int, true, std::uint64_t>(sizes, gap, distribution::uniform_bits,
                                                                order::ascending, true, seed++, 1);
    }
}

TEST(SegmentedSort, PowerLawAndEmptySegments)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::mt19937_64 rng(5);
    std::vector<std::size_t> sizes;
    for(int i = 0; i < 3000; i++)
    {
        const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        sizes.push_back(static_cast<std::size_t>(std::pow(2.0, 17.0 * u * u * u)) - 1);
    }
    for(int i = 0; i < 200000; i++) sizes.push_back(i % 7 == 0 ? 1 : 0);
    std::shuffle(sizes.begin(), sizes.end(), rng);
    check_segmented<std::uint32_t, std::uint64_t, true>(sizes, 0, distribution::uniform_bits, order::ascending,
                                                        false, 77);
    check_segmented<float, int, false>(sizes, 2, distribution::small_range, order::descending, true, 78);
    check_segmented<std::uint32_t, int, true>(sizes, 1, distribution::heavy_tail, order::descending, false, 79);
    check_segmented<double, int, false>(sizes, 0, distribution::heavy_tail, order::ascending, true, 80);
}

TEST(SegmentedSort, OneHugeSegmentAndManyTiny)
{
    HIPFLASHSORT_REQUIRE_GPU();
    std::vector<std::size_t> sizes(100000, 3);
    sizes.push_back(std::size_t(1) << 21);
    check_segmented<std::int32_t, int, true>(sizes, 0, distribution::uniform_bits, order::ascending, false, 9);
}

// The class counts come back through a mailbox in pinned memory, or by a copy where there is
// none (read_counts): both give the device's counts, and the mailbox again after its first use.
TEST(SegmentedSort, CountReadBackBothWays)
{
    HIPFLASHSORT_REQUIRE_GPU();
    namespace detail = hipflashsort::detail;
    std::vector<unsigned int> counts(detail::count_mailbox::words);
    for(std::size_t i = 0; i < counts.size(); i++) counts[i] = static_cast<unsigned int>(7 * i + 3);
    device_buffer<unsigned int> d(counts.size());
    HIP_CHECK(d.upload(counts));
    const detail::lent_count_mailbox box;
    ASSERT_TRUE(static_cast<bool>(box.get())) << "no pinned, mapped host memory";
    for(const bool mailbox : {true, true, false})
    {
        for(const unsigned int n : {1u, 20u, detail::count_mailbox::words - 1}) // the most a mailbox holds
        {
            std::vector<unsigned int> out(n, 0u);
            HIP_CHECK(detail::read_counts(mailbox ? box.get() : detail::count_mailbox{}, d.ptr + 1, n, out.data(),
                                          hipStream_t(0)));
            for(unsigned int i = 0; i < n; i++) ASSERT_EQ(out[i], counts[1 + i]) << mailbox << " " << n << " " << i;
        }
    }
}

// The classes in dynamic LDS opt in to it on every call, and a refused opt-in only moves their
// segments to another class (or the partition), so a kernel that grew some static LDS would lose
// its class silently: the forty-ninth session's handoff patch added one flag to the wide kernels,
// whose full class asks for a whole multiprocessor's LDS, and segments of 65536 keys lost 19-28%.
// Every class granted where its LDS fits: the dynamic flash classes and the flash network class
// on every device, and both wide classes where a multiprocessor has 200 KiB or more (H100, H200).
template <class Key, class Value>
void check_dynamic_classes_granted(const char* what)
{
    namespace detail = hipflashsort::detail;
    using config = detail::segmented_config<Key, Value>;
    int device = 0, sms = 0, per_sm = 0;
    HIP_CHECK(hipGetDevice(&device));
    HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
    HIP_CHECK(hipDeviceGetAttribute(&per_sm, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, device));
    const detail::segmented_plan<Key, Value> plan(std::size_t(1) << 20, 1);
    detail::segmented_runner<Key, Value> runner{plan, nullptr, nullptr, nullptr, order::ascending, hipStream_t(0),
                                                sms, device, detail::count_mailbox{}};
    runner.enable_dynamic_classes();
    for(unsigned int d = 0; d < config::dynamic_flash_classes; d++)
        EXPECT_NE(runner.dynamic_flash[d], nullptr) << what << ": dynamic flash class " << d;
    if constexpr(config::has_flash_network) EXPECT_NE(runner.flash_network, nullptr) << what << ": flash network class";
    if constexpr(config::has_small_flash_network)
        EXPECT_NE(runner.small_flash_network_kernel(), nullptr) << what << ": small flash network class";
    if constexpr(config::has_wide_flash_network)
    {
        if(per_sm >= 200 * 1024)
        {
            EXPECT_NE(runner.wide[0].kernel, nullptr) << what << ": wide class";
            EXPECT_NE(runner.wide[1].kernel, nullptr) << what << ": full wide class";
        }
    }
}

TEST(SegmentedSort, DynamicLdsClassesGranted)
{
    HIPFLASHSORT_REQUIRE_GPU();
    check_dynamic_classes_granted<std::uint32_t, hipflashsort::empty_type>("u32");
    check_dynamic_classes_granted<float, hipflashsort::empty_type>("f32");
    check_dynamic_classes_granted<std::uint32_t, std::uint32_t>("u32+u32");
    check_dynamic_classes_granted<std::uint64_t, hipflashsort::empty_type>("u64");
    check_dynamic_classes_granted<double, std::uint64_t>("f64+u64");
}

// Sorts from several host threads at once, each on a stream of its own: every call reads its
// class counts through a mailbox of its own (count_mailbox_pool). Segments of 300 to 70000 keys,
// so that each call reads counts back several times.
TEST(SegmentedSort, ConcurrentHostThreads)
{
    HIPFLASHSORT_REQUIRE_GPU();
    constexpr int threads = 6;
    std::vector<std::string> failures(threads);
    std::vector<std::thread> workers;
    for(int t = 0; t < threads; t++)
    {
        workers.emplace_back([&failures, t] {
            std::mt19937 rng(9000 + t);
            std::vector<int> begins, ends;
            std::vector<std::uint32_t> keys;
            for(const int size : {300, 70000, 1000, 5000, 17, 40000})
            {
                begins.push_back(static_cast<int>(keys.size()));
                for(int i = 0; i < size + t; i++) keys.push_back(static_cast<std::uint32_t>(rng()));
                ends.push_back(static_cast<int>(keys.size()));
            }
            std::vector<std::uint32_t> expected = keys;
            for(std::size_t s = 0; s < begins.size(); s++)
                std::sort(expected.begin() + begins[s], expected.begin() + ends[s]);
            hipStream_t stream{};
            if(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking) != hipSuccess)
            {
                failures[t] = "no stream";
                return;
            }
            // Everything on the thread's stream: the legacy stream's copies and sets would not be
            // ordered with a non-blocking one.
            const std::size_t n = keys.size();
            device_buffer<std::uint32_t> in(n), out(n);
            device_buffer<int> d_begins(begins.size()), d_ends(ends.size());
            const auto up = [&](void* to, const void* from, std::size_t b) {
                return hipMemcpyAsync(to, from, b, hipMemcpyHostToDevice, stream);
            };
            std::size_t bytes = 0;
            hipError_t e = up(in.ptr, keys.data(), n * sizeof(std::uint32_t));
            if(e == hipSuccess) e = up(d_begins.ptr, begins.data(), begins.size() * sizeof(int));
            if(e == hipSuccess) e = up(d_ends.ptr, ends.data(), ends.size() * sizeof(int));
            if(e == hipSuccess)
                e = hipflashsort::segmented_sort_keys(nullptr, bytes, in.ptr, out.ptr, n, begins.size(),
                                                      d_begins.ptr, d_ends.ptr, order::ascending, stream);
            device_buffer<char> temp(bytes);
            std::vector<std::uint32_t> got(n);
            for(int rep = 0; rep < 5 && e == hipSuccess && failures[t].empty(); rep++)
            {
                e = hipMemsetAsync(out.ptr, 0xA5, n * sizeof(std::uint32_t), stream);
                if(e == hipSuccess)
                    e = hipflashsort::segmented_sort_keys(temp.ptr, bytes, in.ptr, out.ptr, n, begins.size(),
                                                          d_begins.ptr, d_ends.ptr, order::ascending, stream);
                if(e == hipSuccess)
                    e = hipMemcpyAsync(got.data(), out.ptr, n * sizeof(std::uint32_t), hipMemcpyDeviceToHost, stream);
                if(e == hipSuccess) e = hipStreamSynchronize(stream);
                if(e == hipSuccess && got != expected) failures[t] = "wrong order, round " + std::to_string(rep);
            }
            if(e != hipSuccess) failures[t] = hipGetErrorString(e);
            (void)hipStreamDestroy(stream);
        });
    }
    for(auto& w : workers) w.join();
    for(int t = 0; t < threads; t++) EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
}

TEST(SortArguments, InvalidArgumentsTouchNothing)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = 1000;
    device_buffer<std::uint32_t> in(n), out(n);
    HIP_CHECK(out.poison());
    std::size_t bytes = 0;
    HIP_CHECK(hipflashsort::sort_keys(nullptr, bytes, in.ptr, out.ptr, n));
    device_buffer<char> temp(bytes);
    std::size_t small = bytes - 1;
    EXPECT_EQ(hipflashsort::sort_keys(temp.ptr, small, in.ptr, out.ptr, n), hipErrorInvalidValue);
    EXPECT_EQ(hipflashsort::sort_keys(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), out.ptr, n),
              hipErrorInvalidValue);
    EXPECT_EQ(hipflashsort::sort_keys(temp.ptr, bytes, in.ptr, out.ptr, n, static_cast<order>(7)),
              hipErrorInvalidValue);
    std::vector<std::uint32_t> host;
    HIP_CHECK(out.download(host));
    for(const auto v : host) ASSERT_EQ(v, 0xA5A5A5A5u);
    // Nothing to sort: success with null data.
    std::size_t zero_bytes = 0;
    HIP_CHECK(hipflashsort::sort_keys(nullptr, zero_bytes, static_cast<const float*>(nullptr),
                                        static_cast<float*>(nullptr), 0));
    device_buffer<char> zero_temp(zero_bytes);
    EXPECT_EQ(hipflashsort::sort_keys(zero_temp.ptr, zero_bytes, static_cast<const float*>(nullptr),
                                      static_cast<float*>(nullptr), 0),
              hipSuccess);
    std::size_t seg_bytes = 0;
    HIP_CHECK(hipflashsort::segmented_sort_keys(nullptr, seg_bytes, in.ptr, out.ptr, n, 0,
                                                static_cast<const int*>(nullptr), static_cast<const int*>(nullptr)));
    device_buffer<char> seg_temp(seg_bytes);
    EXPECT_EQ(hipflashsort::segmented_sort_keys(seg_temp.ptr, seg_bytes, in.ptr, out.ptr, n, 0,
                                                static_cast<const int*>(nullptr), static_cast<const int*>(nullptr)),
              hipSuccess);
}

} // namespace

// Final segments of keys alone whose buckets each hold one image (constant segments, direct
// ones) are written from their counts, without reading the keys: clusters of 300 consecutive
// images (f32 above 1, f64 above 1, f32 NaNs of either sign with payloads, i16 about zero) with
// rare far keys, u8 keys (direct from the first round), one value; and where the fill must not
// be used, as -0 and +0 share an image and keep their input order: f32 denormals about zero with
// zeros of both signs, and zeros alone. Both orders, keys in place and not.
template <class Key, class Bits>
std::vector<Key> image_cluster(std::size_t n, Bits first, unsigned int width, std::uint64_t seed, Key far)
{
    std::mt19937_64 rng(seed);
    std::vector<Key> keys(n);
    for(Key& k : keys)
    {
        const Bits bits = static_cast<Bits>(first + static_cast<Bits>(rng() % width));
        std::memcpy(&k, &bits, sizeof(Key));
        if(rng() % 4096 == 0) k = far;
    }
    keys[n / 2] = far;
    return keys;
}

TEST(DeviceSort, FinalSegmentsWrittenFromCounts)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::size_t n = (std::size_t(1) << 22) + 3;
    std::uint64_t seed = 5500;
    const float big = 1e30f;
    const std::vector<float> f32_cases[] = {
        image_cluster<float, std::uint32_t>(n, 0x3f800000u, 300, seed++, big),  // above 1
        image_cluster<float, std::uint32_t>(n, 0x7fc00000u, 300, seed++, big),  // +NaNs
        image_cluster<float, std::uint32_t>(n, 0xffc00000u, 300, seed++, -big), // -NaNs
        image_cluster<float, std::uint32_t>(n, 0x80000000u, 150, seed++, big),  // -0 and negative denormals
    };
    for(const order ord : {order::ascending, order::descending})
    {
        for(const bool in_place : {false, true})
        {
            for(const auto& keys : f32_cases) check_keys_twice(keys, ord, in_place, "f32 cluster");
            // Denormals of either sign about zero, zeros of both signs among them (the fill is refused).
            std::vector<float> about_zero = f32_cases[3];
            std::mt19937_64 rng(seed++);
            for(float& k : about_zero)
            {
                if(rng() % 2) k = -k;
                if(rng() % 8 == 0) k = rng() % 2 ? -0.0f : 0.0f;
            }
            check_keys_twice(about_zero, ord, in_place, "f32 denormals and zeros");
            std::vector<float> zeros(n);
            for(float& k : zeros) k = rng() % 2 ? -0.0f : 0.0f;
            check_keys_twice(zeros, ord, in_place, "f32 zeros of both signs");
            check_keys_twice(image_cluster<double, std::uint64_t>(n, 0x3ff0000000000000ull, 300, seed++, -1e300),
                             ord, in_place, "f64 cluster");
            check_keys_twice(image_cluster<std::int16_t, std::uint16_t>(n, std::uint16_t(65536 - 150), 300, seed++,
                                                                        std::int16_t(32767)),
                             ord, in_place, "i16 about zero");
            check_keys_twice<std::uint8_t>(n, distribution::uniform_bits, ord, in_place, seed++);
            check_keys_twice(std::vector<std::uint64_t>(n, 0x0123456789abcdefull), ord, in_place, "u64 one value");
        }
    }
}
