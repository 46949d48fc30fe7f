// warp_bitonic_sort, warp_rank_sort and the register sorting network against std::stable_sort
// by order_image on the host.
//
// Each block is one hardware wavefront sorting (wavefront size / LogicalWaveSize) independent
// arrays into poisoned output buffers. Bitonic sort is unstable, so only the sequence of order
// images, the multiset of key bits and the key each value belongs to are compared; rank sort must
// match the stable reference bit for bit, values included.
//
// Instantiations are kept to a representative subset (every key type at one shape, a spread of
// shapes for u32 and float, 16-byte values on a few) so that the test compiles in reasonable time
// for several AMD targets; the host-side checking is instantiated per key/value pair only.
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"
#include "common/wave_sort_tests.hpp"

#include <hipflashsort/thread/thread_sorting_network.hpp>
#include <hipflashsort/warp/warp_bitonic_sort.hpp>
#include <hipflashsort/warp/warp_rank_sort.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using hipflashsort::empty_type;
using hipflashsort::order;
using namespace wave_sort_tests;

// bitonic_other_rolling: warp_bitonic_sort with RolledMerges the other way than its default.
enum class algorithm { bitonic, rank, bitonic_other_rolling };

constexpr unsigned int blocks = 8; // >= 8 arrays even at full width: every valid_items case occurs

// One hardware wavefront per block; the bound lets the compiler use the registers a single
// wavefront may have instead of assuming 1024-thread blocks (which forces spills on AMD).
template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread, algorithm Algorithm>
__global__ __launch_bounds__(hipflashsort::device_wavefront_size()) void warp_sort_kernel(
    const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, const unsigned int* valid_items,
    order ord)
{
    constexpr unsigned int hardware = hipflashsort::device_wavefront_size();
    // Logical wavefronts wider than this target's hardware one are compiled clamped and never
    // launched (the host skips them).
    constexpr unsigned int logical = LogicalWaveSize < hardware ? LogicalWaveSize : hardware;
    constexpr unsigned int waves = hardware / logical;
    constexpr bool pairs = hipflashsort::detail::has_values<Value>;
    using sorter = std::conditional_t<
        Algorithm == algorithm::rank, hipflashsort::warp_rank_sort<Key, logical, ItemsPerThread, Value>,
        std::conditional_t<Algorithm == algorithm::bitonic,
                           hipflashsort::warp_bitonic_sort<Key, logical, ItemsPerThread, Value>,
                           hipflashsort::warp_bitonic_sort<Key, logical, ItemsPerThread, Value, (ItemsPerThread <= 16)>>>;
    __shared__ typename sorter::storage_type storage[waves];

    const unsigned int wave = threadIdx.x / logical;
    const unsigned int array = blockIdx.x * waves + wave;
    const size_t offset = (size_t(blockIdx.x) * hardware + threadIdx.x) * ItemsPerThread;
    Key keys[ItemsPerThread];
    Value values[ItemsPerThread];
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        keys[j] = keys_in[offset + j];
        if constexpr(pairs) values[j] = values_in[offset + j];
    }

    sorter s;
    // valid_items is null for the whole grid or for none of it, so lanes never diverge here.
    if(valid_items == nullptr)
    {
        if constexpr(pairs) s.sort(storage[wave], keys, values, ord);
        else s.sort(storage[wave], keys, ord);
    }
    else
    {
        if constexpr(pairs) s.sort(storage[wave], keys, values, valid_items[array], ord);
        else s.sort(storage[wave], keys, valid_items[array], ord);
    }

    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        keys_out[offset + j] = keys[j];
        if constexpr(pairs) values_out[offset + j] = values[j];
    }
}

// ---- host model ----

template <class Key>
using codec_of = hipflashsort::radix_key_codec<Key>;

template <class Value>
bool index_of_value(const Value& value, unsigned int& index)
{
    if constexpr(std::is_same<Value, wide_value>::value)
    {
        index = value.index;
        const wide_value expected = value_of_index<wide_value>(value.index);
        return value.check == expected.check && value.pattern == expected.pattern;
    }
    else
    {
        index = unsigned(value);
        return true;
    }
}

enum class distribution { random_bits, all_equal, two_values, sorted, reversed, specials };

const char* name_of(distribution d)
{
    switch(d)
    {
    case distribution::random_bits: return "random_bits";
    case distribution::all_equal: return "all_equal";
    case distribution::two_values: return "two_values";
    case distribution::sorted: return "sorted";
    case distribution::reversed: return "reversed";
    case distribution::specials: return "specials";
    }
    return "?";
}

const distribution all_distributions[] = {distribution::random_bits, distribution::all_equal,
                                          distribution::two_values,  distribution::sorted,
                                          distribution::reversed,    distribution::specials};

template <class Key>
Key random_key(std::mt19937_64& rng)
{
    using bits = typename codec_of<Key>::bit_key_type;
    return codec_of<Key>::from_bits(static_cast<bits>(rng()));
}

// Floats: NaNs of both signs and several payloads (the extreme images among them), infinities,
// zeros, denormals and a few normals. Integers: the extremes, whose images are the padding's in
// one order or the other, and small values.
template <class Key>
Key special_key(std::mt19937_64& rng)
{
    using limits = std::numeric_limits<Key>;
    using codec = codec_of<Key>;
    if constexpr(!codec::is_float)
    {
        const Key specials[] = {limits::lowest(), limits::max(), Key(0), Key(1), Key(limits::max() - 1),
                                Key(limits::lowest() + 1)};
        return specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
    }
    else
    {
        using bits = typename codec::bit_key_type;
        const Key specials[] = {limits::quiet_NaN(),
                                -limits::quiet_NaN(),
                                codec::from_bits(bits(~bits(0))),
                                codec::from_bits(bits(~bits(0) >> 1)),
                                limits::infinity(),
                                -limits::infinity(),
                                Key(0),
                                -Key(0),
                                limits::denorm_min(),
                                -limits::denorm_min(),
                                limits::min() / Key(4),
                                limits::max(),
                                limits::lowest(),
                                Key(1),
                                Key(-1.5)};
        return specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
    }
}

template <class Key>
bool image_less(Key a, Key b, order ord)
{
    return codec_of<Key>::order_image(a, ord) < codec_of<Key>::order_image(b, ord);
}

template <class Key>
std::vector<Key> make_keys(size_t count, unsigned int array_size, distribution d, order ord, std::mt19937_64& rng)
{
    std::vector<Key> keys(count);
    const Key a = random_key<Key>(rng);
    const Key b = random_key<Key>(rng);
    for(Key& k : keys)
    {
        switch(d)
        {
        case distribution::all_equal: k = a; break;
        case distribution::two_values: k = (rng() & 1) ? a : b; break;
        case distribution::specials: k = (rng() % 4 == 0) ? random_key<Key>(rng) : special_key<Key>(rng); break;
        default: k = random_key<Key>(rng); break;
        }
    }
    if(d == distribution::sorted || d == distribution::reversed)
    {
        const order sort_order = (d == distribution::sorted) == (ord == order::ascending) ? order::ascending
                                                                                          : order::descending;
        for(size_t base = 0; base < count; base += array_size)
        {
            std::sort(keys.begin() + base, keys.begin() + base + array_size,
                      [&](Key x, Key y) { return image_less(x, y, sort_order); });
        }
    }
    return keys;
}

// valid_items per array: the edge cases in turn, then a random count, then one past the end (clamped).
std::vector<unsigned int> make_valid_items(unsigned int arrays, unsigned int n, std::mt19937_64& rng)
{
    std::vector<unsigned int> valid(arrays);
    for(unsigned int a = 0; a < arrays; a++)
    {
        const unsigned int choices[] = {0u, 1u, 2u, 3u, n - 1, n, unsigned(rng() % (n + 1)), n + 7};
        valid[a] = choices[a % 8];
    }
    return valid;
}

template <class Key, class Value>
void check_array(algorithm algo, const Key* in_keys, const Key* out_keys, const Value* out_values,
                 unsigned int base, unsigned int n, unsigned int valid, order ord, mismatch_log& log)
{
    using codec = codec_of<Key>;
    constexpr bool pairs = hipflashsort::detail::has_values<Value>;

    std::vector<unsigned int> reference(valid);
    for(unsigned int i = 0; i < valid; i++) reference[i] = base + i;
    std::stable_sort(reference.begin(), reference.end(),
                     [&](unsigned int x, unsigned int y) { return image_less(in_keys[x], in_keys[y], ord); });

    std::vector<typename codec::bit_key_type> in_bits, out_bits;
    std::vector<bool> seen(valid, false);
    for(unsigned int i = 0; i < valid; i++)
    {
        const Key got = out_keys[base + i];
        const Key want = in_keys[reference[i]];
        in_bits.push_back(codec::to_bits(in_keys[base + i]));
        out_bits.push_back(codec::to_bits(got));
        if(codec::order_image(got, ord) != codec::order_image(want, ord))
            log.add("array at ", base, " position ", i, ": order image of output differs from the reference");
        if(algo == algorithm::rank && codec::to_bits(got) != codec::to_bits(want))
            log.add("array at ", base, " position ", i, ": key bits differ from the stable reference");
        if constexpr(pairs)
        {
            unsigned int source = 0;
            if(!index_of_value(out_values[base + i], source) || source < base || source >= base + valid
               || seen[source - base])
            {
                log.add("array at ", base, " position ", i, ": value is not one of the valid inputs, or repeats");
                continue;
            }
            seen[source - base] = true;
            if(codec::to_bits(in_keys[source]) != codec::to_bits(got))
                log.add("array at ", base, " position ", i, ": value does not belong to its key");
            if(algo == algorithm::rank && source != reference[i])
                log.add("array at ", base, " position ", i, ": unstable (value from input ", source - base,
                        ", expected ", reference[i] - base, ")");
        }
    }
    std::sort(in_bits.begin(), in_bits.end());
    std::sort(out_bits.begin(), out_bits.end());
    if(in_bits != out_bits) log.add("array at ", base, ": output keys are not a permutation of the valid inputs");

    // Items past valid_items are documented to stay as they were.
    for(unsigned int i = valid; i < n; i++)
    {
        if(codec::to_bits(out_keys[base + i]) != codec::to_bits(in_keys[base + i]))
            log.add("array at ", base, " position ", i, ": key past valid_items was changed");
        if constexpr(pairs)
        {
            unsigned int source = 0;
            if(!index_of_value(out_values[base + i], source) || source != base + i)
                log.add("array at ", base, " position ", i, ": value past valid_items was changed");
        }
    }
}

template <class Key, class Value>
using launch_function = void (*)(unsigned int hardware, const Key*, const Value*, Key*, Value*, const unsigned int*,
                                 order);

template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread, algorithm Algorithm>
void launch_warp_sort(unsigned int hardware, const Key* keys_in, const Value* values_in, Key* keys_out,
                      Value* values_out, const unsigned int* valid_items, order ord)
{
    warp_sort_kernel<Key, Value, LogicalWaveSize, ItemsPerThread, Algorithm>
        <<<blocks, hardware>>>(keys_in, values_in, keys_out, values_out, valid_items, ord);
}

// Everything but the launch depends on Key and Value only, so the host code is compiled once per
// key/value pair rather than once per kernel.
template <class Key, class Value>
void test_sort(unsigned int logical_wave_size, unsigned int items_per_thread, algorithm algo,
               launch_function<Key, Value> launch)
{
    constexpr bool pairs = hipflashsort::detail::has_values<Value>;
    unsigned int hardware = 0;
    HIP_CHECK(hipflashsort::wavefront_size(hardware));
    // The shape lists follow the compile-time wavefront size; the device must agree with it.
    ASSERT_LE(logical_wave_size, hardware) << "device wavefront narrower than the one compiled for";

    const unsigned int n = logical_wave_size * items_per_thread;
    const unsigned int arrays = blocks * (hardware / logical_wave_size);
    const size_t count = size_t(arrays) * n;

    device_buffers<Key, Value> d;
    HIP_CHECK(d.allocate(count, arrays));

    std::vector<Value> values(count);
    if constexpr(pairs)
    {
        for(size_t i = 0; i < count; i++) values[i] = value_of_index<Value>(unsigned(i));
        HIP_CHECK(hipMemcpy(d.values_in, values.data(), count * sizeof(Value), hipMemcpyHostToDevice));
    }

    std::mt19937_64 rng(0x5eed + n * 131 + logical_wave_size);
    for(const distribution dist : all_distributions)
    {
        for(const order ord : {order::ascending, order::descending})
        {
            for(const bool partial : {false, true})
            {
                const std::vector<Key> keys = make_keys<Key>(count, n, dist, ord, rng);
                const std::vector<unsigned int> valid = make_valid_items(arrays, n, rng);
                HIP_CHECK(hipMemcpy(d.keys_in, keys.data(), count * sizeof(Key), hipMemcpyHostToDevice));
                HIP_CHECK(hipMemcpy(d.sizes, valid.data(), arrays * sizeof(unsigned int), hipMemcpyHostToDevice));
                HIP_CHECK(d.poison_outputs());

                launch(hardware, d.keys_in, d.values_in, d.keys_out, d.values_out, partial ? d.sizes : nullptr, ord);
                HIP_CHECK(hipGetLastError());
                HIP_CHECK(hipDeviceSynchronize());

                std::vector<Key> out_keys;
                std::vector<Value> out_values;
                HIP_CHECK(d.download(out_keys, out_values));

                mismatch_log log;
                for(unsigned int a = 0; a < arrays; a++)
                {
                    const unsigned int v = partial ? std::min(valid[a], n) : n;
                    check_array(algo, keys.data(), out_keys.data(), out_values.data(), a * n, n, v, ord, log);
                }
                EXPECT_EQ(log.count(), 0u) << name_of(dist) << (ord == order::ascending ? " ascending" : " descending")
                                           << (partial ? " valid_items" : " full") << "\n"
                                           << log.text();
            }
        }
    }
}

template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread, algorithm Algorithm>
void test_sort()
{
    test_sort<Key, Value>(LogicalWaveSize, ItemsPerThread, Algorithm,
                          launch_warp_sort<Key, Value, LogicalWaveSize, ItemsPerThread, Algorithm>);
}

struct shape_names
{
    template <class Shape>
    static std::string GetName(int)
    {
        return type_name<typename Shape::key_type>() + "_" + type_name<typename Shape::value_type>() + "_lws"
               + std::to_string(Shape::logical_wave_size) + "_ipt" + std::to_string(Shape::items_per_thread);
    }
};

// ---- every key type at a shape that pads (7 -> 8 slots) and redistributes across lanes ----

template <class Key>
class WarpSortKeyTypes : public ::testing::Test {};

TYPED_TEST_SUITE(WarpSortKeyTypes, key_types, key_names);

TYPED_TEST(WarpSortKeyTypes, BitonicKeys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<TypeParam, empty_type, 8, 7, algorithm::bitonic>();
}

TYPED_TEST(WarpSortKeyTypes, BitonicPairs)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<TypeParam, std::uint32_t, 8, 7, algorithm::bitonic>();
}

TYPED_TEST(WarpSortKeyTypes, RankKeys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<TypeParam, empty_type, 8, 7, algorithm::rank>();
}

TYPED_TEST(WarpSortKeyTypes, RankPairs)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<TypeParam, std::uint32_t, 8, 7, algorithm::rank>();
}

// ---- shapes: every (logical wave, items per thread) for u32 and float, 16-byte values on some ----

template <class Shape>
class WarpSortShapes : public ::testing::Test {};

// clang-format off
// Logical wavefronts of 64 lanes exist only where the hardware has 64 (AMD gfx9/DCU); on
// 32-lane hardware those shapes are not instantiated at all.
using shapes_any_wave = ::testing::Types<
    shape<std::uint32_t, empty_type, 1, 7>,
    shape<std::uint32_t, empty_type, 1, 16>,
    shape<std::uint32_t, empty_type, 2, 1>,
    shape<std::uint32_t, empty_type, 2, 3>,
    shape<std::uint32_t, empty_type, 2, 4>,
    shape<std::uint32_t, empty_type, 2, 7>,
    shape<std::uint32_t, empty_type, 2, 16>,
    shape<std::uint32_t, empty_type, 4, 1>,
    shape<std::uint32_t, empty_type, 4, 3>,
    shape<std::uint32_t, empty_type, 4, 4>,
    shape<std::uint32_t, empty_type, 4, 16>,
    shape<std::uint32_t, empty_type, 8, 1>,
    shape<std::uint32_t, empty_type, 8, 3>,
    shape<std::uint32_t, empty_type, 8, 4>,
    shape<std::uint32_t, empty_type, 8, 16>,
    shape<std::uint32_t, empty_type, 16, 1>,
    shape<std::uint32_t, empty_type, 16, 3>,
    shape<std::uint32_t, empty_type, 16, 4>,
    shape<std::uint32_t, empty_type, 16, 7>,
    shape<std::uint32_t, empty_type, 16, 16>,
    shape<std::uint32_t, empty_type, 32, 1>,
    shape<std::uint32_t, empty_type, 32, 3>,
    shape<std::uint32_t, empty_type, 32, 4>,
    shape<std::uint32_t, empty_type, 32, 7>,
    shape<std::uint32_t, empty_type, 32, 16>,
    shape<float, std::uint32_t, 2, 1>,
    shape<float, std::uint32_t, 2, 7>,
    shape<float, std::uint32_t, 4, 3>,
    shape<float, std::uint32_t, 4, 16>,
    shape<float, std::uint32_t, 8, 4>,
    shape<float, std::uint32_t, 16, 1>,
    shape<float, std::uint32_t, 16, 16>,
    shape<float, std::uint32_t, 32, 3>,
    shape<float, std::uint32_t, 32, 7>,
    shape<std::uint8_t, wide_value, 4, 3>,
    shape<std::uint64_t, wide_value, 16, 7>,
    shape<std::int16_t, wide_value, 32, 4>>;
template <class A, class B>
struct concat_types;
template <class... A, class... B>
struct concat_types<::testing::Types<A...>, ::testing::Types<B...>>
{
    using type = ::testing::Types<A..., B...>;
};
using shapes_lws64_only = ::testing::Types<
    shape<std::uint32_t, empty_type, 64, 1>,
    shape<std::uint32_t, empty_type, 64, 3>,
    shape<std::uint32_t, empty_type, 64, 4>,
    shape<std::uint32_t, empty_type, 64, 7>,
    shape<std::uint32_t, empty_type, 64, 16>,
    shape<float, std::uint32_t, 64, 4>,
    shape<float, std::uint32_t, 64, 7>,
    shape<double, wide_value, 64, 3>>;
using shapes_wave64 = typename concat_types<shapes_any_wave, shapes_lws64_only>::type;
using shapes = std::conditional_t<(hipflashsort::device_wavefront_size() >= 64), shapes_wave64, shapes_any_wave>;
// clang-format on
TYPED_TEST_SUITE(WarpSortShapes, shapes, shape_names);

TYPED_TEST(WarpSortShapes, Bitonic)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<typename TypeParam::key_type, typename TypeParam::value_type, TypeParam::logical_wave_size,
              TypeParam::items_per_thread, algorithm::bitonic>();
}

TYPED_TEST(WarpSortShapes, Rank)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<typename TypeParam::key_type, typename TypeParam::value_type, TypeParam::logical_wave_size,
              TypeParam::items_per_thread, algorithm::rank>();
}

// The bitonic sort takes up to 32 items per lane (the rank sort 16): wide shapes, bitonic only.
template <class Shape>
class WarpBitonicWideShapes : public ::testing::Test {};

using wide_shapes = ::testing::Types<shape<std::uint32_t, empty_type, 32, 32>, shape<std::uint32_t, empty_type, 4, 25>,
                                     shape<float, std::uint32_t, 8, 32>, shape<std::int16_t, wide_value, 2, 20>>;
TYPED_TEST_SUITE(WarpBitonicWideShapes, wide_shapes, shape_names);

TYPED_TEST(WarpBitonicWideShapes, Bitonic)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<typename TypeParam::key_type, typename TypeParam::value_type, TypeParam::logical_wave_size,
              TypeParam::items_per_thread, algorithm::bitonic>();
}

// The merges across lanes looped where they are unrolled by default (up to 16 items per lane)
// and unrolled where they are looped (more than 16): both forms of the network, each shape with
// padding or values somewhere.
template <class Shape>
class WarpBitonicOtherRolling : public ::testing::Test {};

using other_rolling_shapes =
    ::testing::Types<shape<std::uint32_t, empty_type, 32, 4>, shape<float, std::uint32_t, 16, 7>,
                     shape<std::uint32_t, empty_type, 32, 32>, shape<float, std::uint32_t, 8, 25>>;
TYPED_TEST_SUITE(WarpBitonicOtherRolling, other_rolling_shapes, shape_names);

TYPED_TEST(WarpBitonicOtherRolling, Bitonic)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort<typename TypeParam::key_type, typename TypeParam::value_type, TypeParam::logical_wave_size,
              TypeParam::items_per_thread, algorithm::bitonic_other_rolling>();
}

// ---- merge_bitonic: the half-cleaners alone sort a bitonic sequence ----

template <class Key, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
__global__ __launch_bounds__(hipflashsort::device_wavefront_size()) void merge_bitonic_kernel(const Key* in,
                                                                                              Key* out, order ord)
{
    const std::size_t offset = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * ItemsPerThread;
    Key keys[ItemsPerThread];
    for(unsigned int j = 0; j < ItemsPerThread; j++) keys[j] = in[offset + j];
    hipflashsort::warp_bitonic_sort<Key, LogicalWaveSize, ItemsPerThread>().merge_bitonic(keys, ord);
    for(unsigned int j = 0; j < ItemsPerThread; j++) out[offset + j] = keys[j];
}

// Each array: a sorted run rising then a run falling (split at a random point), rotated by a
// random amount, which is bitonic for either order; the merge must give the reference sort.
template <class Key, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
void test_merge_bitonic(order ord)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    constexpr unsigned int hardware = hipflashsort::device_wavefront_size();
    constexpr unsigned int per_array = LogicalWaveSize * ItemsPerThread;
    const std::size_t n = std::size_t(blocks) * hardware * ItemsPerThread;
    std::vector<Key> input = test_utils::generate<Key>(n, test_utils::distribution::uniform_bits, 31 + per_array);
    std::vector<Key> expected = input;
    std::mt19937 rng(per_array);
    const auto less = [](Key a, Key b) { return codec::lossless_image(a) < codec::lossless_image(b); };
    for(std::size_t a = 0; a < n; a += per_array)
    {
        const auto first = input.begin() + a, last = first + per_array;
        const unsigned int split = rng() % (per_array + 1);
        std::sort(first, first + split, less);
        std::sort(first + split, last, [&](Key x, Key y) { return less(y, x); });
        std::rotate(first, first + rng() % per_array, last);
        test_utils::reference_sort(expected, static_cast<std::vector<std::uint32_t>*>(nullptr), a, a + per_array, ord);
    }
    test_utils::device_buffer<Key> in(n), out(n);
    HIP_CHECK(in.upload(input));
    HIP_CHECK(out.poison());
    merge_bitonic_kernel<Key, LogicalWaveSize, ItemsPerThread><<<blocks, hardware>>>(in.ptr, out.ptr, ord);
    HIP_CHECK(hipGetLastError());
    std::vector<Key> got;
    HIP_CHECK(out.download(got));
    // Unstable: compare order images (uniform bits has few ties; the multiset is the input's).
    for(std::size_t i = 0; i < n; i++)
        ASSERT_EQ(codec::order_image(got[i], ord), codec::order_image(expected[i], ord)) << "at " << i;
}

TEST(WarpBitonicMerge, SortsBitonicSequences)
{
    HIPFLASHSORT_REQUIRE_GPU();
    for(const order ord : {order::ascending, order::descending})
    {
        test_merge_bitonic<std::uint32_t, 32, 32>(ord);
        test_merge_bitonic<std::uint32_t, 4, 8>(ord);
        test_merge_bitonic<std::int16_t, 16, 2>(ord);
        test_merge_bitonic<std::uint64_t, 8, 4>(ord);
        test_merge_bitonic<std::uint32_t, 1, 16>(ord);
    }
}

// ---- the register network on its own: thread_sort by image, thread_sorting_network by comparator ----

template <class Key, unsigned int N, bool ByComparator>
__global__ void thread_sort_kernel(const Key* keys_in, Key* keys_out, std::uint32_t* values_out, order ord)
{
    const unsigned int offset = (blockIdx.x * blockDim.x + threadIdx.x) * N;
    Key keys[N];
    std::uint32_t values[N];
    for(unsigned int j = 0; j < N; j++)
    {
        keys[j] = keys_in[offset + j];
        values[j] = offset + j;
    }
    if constexpr(ByComparator)
        hipflashsort::thread_sorting_network(keys, values, [](Key a, Key b) { return a > b; });
    else
        hipflashsort::thread_sort(keys, values, ord);
    for(unsigned int j = 0; j < N; j++)
    {
        keys_out[offset + j] = keys[j];
        values_out[offset + j] = values[j];
    }
}

// ByComparator sorts descending with `a > b`, which for unsigned keys is order::descending.
template <class Key, unsigned int N, bool ByComparator>
void test_thread_sort()
{
    constexpr unsigned int threads = 256;
    constexpr size_t count = size_t(threads) * N;
    Key* d_keys_in = nullptr;
    Key* d_keys_out = nullptr;
    std::uint32_t* d_values_out = nullptr;
    HIP_CHECK(hipMalloc(&d_keys_in, count * sizeof(Key)));
    HIP_CHECK(hipMalloc(&d_keys_out, count * sizeof(Key)));
    HIP_CHECK(hipMalloc(&d_values_out, count * sizeof(std::uint32_t)));
    std::mt19937_64 rng(N);
    const std::vector<order> orders = ByComparator ? std::vector<order>{order::descending}
                                                   : std::vector<order>{order::ascending, order::descending};
    for(const distribution dist : all_distributions)
    {
        for(const order ord : orders)
        {
            const std::vector<Key> keys = make_keys<Key>(count, N, dist, ord, rng);
            HIP_CHECK(hipMemcpy(d_keys_in, keys.data(), count * sizeof(Key), hipMemcpyHostToDevice));
            HIP_CHECK(hipMemset(d_keys_out, 0xA5, count * sizeof(Key)));
            HIP_CHECK(hipMemset(d_values_out, 0xA5, count * sizeof(std::uint32_t)));
            thread_sort_kernel<Key, N, ByComparator><<<threads / 64, 64>>>(d_keys_in, d_keys_out, d_values_out, ord);
            HIP_CHECK(hipGetLastError());
            HIP_CHECK(hipDeviceSynchronize());
            std::vector<Key> out_keys(count);
            std::vector<std::uint32_t> out_values(count);
            HIP_CHECK(hipMemcpy(out_keys.data(), d_keys_out, count * sizeof(Key), hipMemcpyDeviceToHost));
            HIP_CHECK(hipMemcpy(out_values.data(), d_values_out, count * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
            mismatch_log log;
            for(unsigned int t = 0; t < threads; t++)
            {
                check_array(algorithm::bitonic, keys.data(), out_keys.data(), out_values.data(), t * N, N, N, ord, log);
            }
            EXPECT_EQ(log.count(), 0u) << name_of(dist) << (ord == order::ascending ? " ascending" : " descending")
                                       << "\n"
                                       << log.text();
        }
    }
    HIP_CHECK(hipFree(d_keys_in));
    HIP_CHECK(hipFree(d_keys_out));
    HIP_CHECK(hipFree(d_values_out));
}

template <class Size>
class ThreadSortingNetwork : public ::testing::Test {};

using network_sizes = ::testing::Types<std::integral_constant<unsigned int, 1>, std::integral_constant<unsigned int, 2>,
                                       std::integral_constant<unsigned int, 3>, std::integral_constant<unsigned int, 5>,
                                       std::integral_constant<unsigned int, 8>, std::integral_constant<unsigned int, 13>,
                                       std::integral_constant<unsigned int, 16>>;

struct network_size_names
{
    template <class Size>
    static std::string GetName(int)
    {
        return "n" + std::to_string(Size::value);
    }
};
TYPED_TEST_SUITE(ThreadSortingNetwork, network_sizes, network_size_names);

TYPED_TEST(ThreadSortingNetwork, FloatByImage)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_thread_sort<float, TypeParam::value, false>();
}

TYPED_TEST(ThreadSortingNetwork, UnsignedByComparator)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_thread_sort<std::uint32_t, TypeParam::value, true>();
}

} // namespace
