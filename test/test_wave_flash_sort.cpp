// wave_flash_sort against the stable host reference (test/common/sort_reference.hpp): keys and
// values must match bit for bit, values being the input index, so stability is checked too.
//
// Each launch sorts many arrays: one per logical wavefront, several logical wavefronts per hardware
// wavefront and up to two hardware wavefronts per block, each array with its own size (0, 1, 2,
// 3, L - 1, L, L + 1, capacity - 1, capacity, random). Outputs start poisoned; everything from
// size to the capacity must stay poisoned (or, sorting in place, keep its input).
//
// Instantiations are a representative subset (every key type at two shapes, every logical wave
// size and capacity for u32 keys and for float keys with u64 values, 16-byte values on a few) so
// that the test compiles in reasonable time for several AMD targets. Logical wavefronts wider than
// the hardware one are not compiled and are skipped at run time.
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"
#include "common/wave_sort_tests.hpp"

#include <hipflashsort/warp/wave_flash_sort.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using hipflashsort::empty_type;
using hipflashsort::order;
using test_utils::distribution;
using namespace wave_sort_tests;

// Per block, at most this much LDS (NVIDIA's static limit is 48 KiB); a larger single wavefront's
// storage still gets a block of its own.
constexpr std::size_t lds_budget = 32 * 1024;
constexpr unsigned int min_arrays = 40; // per launch: every size case several times

/// Launch shape of one instantiation. The same constants in the host and device passes, since
/// both compile for the same wavefront size.
template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
struct wave_case
{
    static constexpr unsigned int hardware = hipflashsort::device_wavefront_size();
    // Wider logical wavefronts are never compiled into a kernel; clamping keeps the type valid.
    static constexpr unsigned int logical = LogicalWaveSize < hardware ? LogicalWaveSize : hardware;
    static constexpr unsigned int capacity = logical * ItemsPerThread;
    using sorter = hipflashsort::wave_flash_sort<Key, Value, logical, capacity>;
    using storage_type = typename sorter::storage_type;
    static constexpr std::size_t hardware_wave_bytes = (hardware / logical) * sizeof(storage_type);
    static constexpr unsigned int hardware_waves = 2 * hardware_wave_bytes <= lds_budget ? 2 : 1;
    static constexpr unsigned int threads = hardware_waves * hardware;
    static constexpr unsigned int arrays_per_block = threads / logical;
};

// The bound lets the compiler plan registers for the real block size, not for 1024 threads.
template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
__global__ __launch_bounds__((wave_case<Key, Value, LogicalWaveSize, ItemsPerThread>::threads)) void
wave_flash_sort_kernel(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                       const unsigned int* sizes, order ord)
{
    using shape = wave_case<Key, Value, LogicalWaveSize, ItemsPerThread>;
    __shared__ typename shape::storage_type storage[shape::arrays_per_block];
    const unsigned int local = threadIdx.x / shape::logical;
    const unsigned int array = blockIdx.x * shape::arrays_per_block + local;
    const std::size_t base = std::size_t(array) * shape::capacity;
    const Value* vin = nullptr;
    Value* vout = nullptr;
    if constexpr(hipflashsort::detail::has_values<Value>)
    {
        vin = values_in + base;
        vout = values_out + base;
    }
    typename shape::sorter sorter;
    sorter.sort(storage[local], keys_in + base, keys_out + base, vin, vout, sizes[array], ord);
}

// ---- host side ----

template <class Key>
using codec_of = hipflashsort::radix_key_codec<Key>;

template <class T>
T poison()
{
    T t;
    std::memset(static_cast<void*>(&t), 0xA5, sizeof(T));
    return t;
}

template <class Key>
std::string bits_of(Key k)
{
    std::ostringstream s;
    s << "0x" << std::hex << static_cast<unsigned long long>(codec_of<Key>::to_bits(k));
    return s.str();
}

// The edge sizes in turn, then a random one; none above the capacity.
std::vector<unsigned int> make_sizes(unsigned int arrays, unsigned int lanes, unsigned int capacity,
                                     std::mt19937_64& rng)
{
    std::vector<unsigned int> sizes(arrays);
    for(unsigned int a = 0; a < arrays; a++)
    {
        const unsigned int choices[] = {0u, 1u, 2u, 3u, lanes - 1, lanes, lanes + 1, capacity - 1, capacity,
                                        unsigned(rng() % (capacity + 1))};
        sizes[a] = std::min(choices[a % (sizeof(choices) / sizeof(choices[0]))], capacity);
    }
    return sizes;
}

// Array a's first sizes[a] keys follow the distribution (so an outlier is always inside); the
// rest, which the sort must ignore, are random.
template <class Key>
std::vector<Key> make_keys(const std::vector<unsigned int>& sizes, unsigned int capacity, distribution d,
                           std::uint64_t seed)
{
    std::vector<Key> keys(sizes.size() * std::size_t(capacity));
    std::mt19937_64 rng(seed);
    for(std::size_t a = 0; a < sizes.size(); a++)
    {
        const std::vector<Key> valid = test_utils::generate<Key>(sizes[a], d, seed * 7919 + a);
        for(unsigned int i = 0; i < capacity; i++)
            keys[a * capacity + i] = i < sizes[a] ? valid[i] : test_utils::random_key<Key>(rng);
    }
    return keys;
}

template <class Key, class Value>
void check_array(const std::vector<Key>& in_keys, const std::vector<Value>& in_values,
                 const std::vector<Key>& out_keys, const std::vector<Value>& out_values, std::size_t base,
                 unsigned int capacity, unsigned int size, order ord, bool in_place, mismatch_log& log)
{
    constexpr bool pairs = hipflashsort::detail::has_values<Value>;
    std::vector<Key> keys(in_keys.begin() + base, in_keys.begin() + base + size);
    std::vector<Value> values(in_values.begin() + base, in_values.begin() + base + size);
    test_utils::reference_sort<Key, Value>(keys, pairs ? &values : nullptr, 0, size, ord);
    for(unsigned int i = 0; i < size; i++)
    {
        if(!test_utils::bitwise_equal(out_keys[base + i], keys[i]))
            log.add("array at ", base, " (size ", size, ") position ", i, ": key ", bits_of(out_keys[base + i]),
                    ", expected ", bits_of(keys[i]));
        if constexpr(pairs)
        {
            if(!test_utils::bitwise_equal(out_values[base + i], values[i]))
                log.add("array at ", base, " (size ", size, ") position ", i,
                        ": value differs from the stable reference (unstable or lost)");
        }
    }
    // Past the size: untouched (poison, or the input when sorting in place).
    for(unsigned int i = size; i < capacity; i++)
    {
        const Key want = in_place ? in_keys[base + i] : poison<Key>();
        if(!test_utils::bitwise_equal(out_keys[base + i], want))
            log.add("array at ", base, " (size ", size, ") position ", i, ": key past the size was written");
        if constexpr(pairs)
        {
            const Value want_value = in_place ? in_values[base + i] : poison<Value>();
            if(!test_utils::bitwise_equal(out_values[base + i], want_value))
                log.add("array at ", base, " (size ", size, ") position ", i, ": value past the size was written");
        }
    }
}

template <class Key, class Value>
using launch_function = void (*)(unsigned int blocks, const Key*, Key*, const Value*, Value*, const unsigned int*,
                                 order);

template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
void launch_wave_flash_sort(unsigned int blocks, const Key* keys_in, Key* keys_out, const Value* values_in,
                            Value* values_out, const unsigned int* sizes, order ord)
{
    // Not compiled for logical wavefronts wider than the target's (the test skips them first).
    if constexpr(LogicalWaveSize <= hipflashsort::device_wavefront_size())
    {
        using shape = wave_case<Key, Value, LogicalWaveSize, ItemsPerThread>;
        wave_flash_sort_kernel<Key, Value, LogicalWaveSize, ItemsPerThread>
            <<<blocks, shape::threads>>>(keys_in, keys_out, values_in, values_out, sizes, ord);
    }
}

struct launch_shape
{
    unsigned int logical_wave_size;
    unsigned int capacity;
    unsigned int arrays_per_block;
};

const distribution all_distributions[]
    = {distribution::uniform_bits, distribution::all_equal, distribution::two_values,
       distribution::few_unique,   distribution::sorted,    distribution::reverse,
       distribution::special_floats, distribution::outlier, distribution::small_range};

// Everything but the launch depends on Key and Value only, so the host code is compiled once per
// key/value pair rather than once per kernel.
template <class Key, class Value>
void test_sort(launch_shape shape, launch_function<Key, Value> launch)
{
    constexpr bool pairs = hipflashsort::detail::has_values<Value>;
    unsigned int hardware = 0;
    HIP_CHECK(hipflashsort::wavefront_size(hardware));
    if(shape.logical_wave_size > hardware)
        GTEST_SKIP() << "logical wavefront of " << shape.logical_wave_size << " lanes is wider than the device's "
                     << hardware;
    ASSERT_EQ(hardware, hipflashsort::device_wavefront_size()) << "device wavefront differs from the one compiled for";

    const unsigned int capacity = shape.capacity;
    const unsigned int blocks = std::max(2u, (min_arrays + shape.arrays_per_block - 1) / shape.arrays_per_block);
    const unsigned int arrays = blocks * shape.arrays_per_block;
    const std::size_t count = std::size_t(arrays) * capacity;

    device_buffers<Key, Value> d;
    HIP_CHECK(d.allocate(count, arrays));
    std::vector<Value> values(count);
    for(std::size_t i = 0; i < count; i++) values[i] = value_of_index<Value>(unsigned(i));
    if constexpr(pairs)
        HIP_CHECK(hipMemcpy(d.values_in, values.data(), count * sizeof(Value), hipMemcpyHostToDevice));

    std::mt19937_64 rng(0x5eed + capacity * 131 + shape.logical_wave_size);
    for(const distribution dist : all_distributions)
    {
        for(const order ord : {order::ascending, order::descending})
        {
            for(const bool in_place : {false, true})
            {
                const std::vector<unsigned int> sizes = make_sizes(arrays, shape.logical_wave_size, capacity, rng);
                const std::vector<Key> keys = make_keys<Key>(sizes, capacity, dist, rng());
                HIP_CHECK(hipMemcpy(d.keys_in, keys.data(), count * sizeof(Key), hipMemcpyHostToDevice));
                HIP_CHECK(hipMemcpy(d.sizes, sizes.data(), arrays * sizeof(unsigned int), hipMemcpyHostToDevice));
                if(in_place)
                {
                    HIP_CHECK(hipMemcpy(d.keys_out, d.keys_in, count * sizeof(Key), hipMemcpyDeviceToDevice));
                    if(pairs)
                        HIP_CHECK(hipMemcpy(d.values_out, d.values_in, count * sizeof(Value), hipMemcpyDeviceToDevice));
                }
                else
                    HIP_CHECK(d.poison_outputs());

                launch(blocks, in_place ? d.keys_out : d.keys_in, d.keys_out, in_place ? d.values_out : d.values_in,
                       d.values_out, d.sizes, ord);
                HIP_CHECK(hipGetLastError());
                HIP_CHECK(hipDeviceSynchronize());

                std::vector<Key> out_keys;
                std::vector<Value> out_values;
                HIP_CHECK(d.download(out_keys, out_values));

                mismatch_log log;
                for(unsigned int a = 0; a < arrays; a++)
                {
                    check_array(keys, values, out_keys, out_values, std::size_t(a) * capacity, capacity, sizes[a], ord,
                                in_place, log);
                }
                EXPECT_EQ(log.count(), 0u) << test_utils::name_of(dist)
                                           << (ord == order::ascending ? " ascending" : " descending")
                                           << (in_place ? " in place" : "") << "\n"
                                           << log.text();
            }
        }
    }
}

template <class Shape>
void test_shape()
{
    using key = typename Shape::key_type;
    using value = typename Shape::value_type;
    constexpr unsigned int lanes = Shape::logical_wave_size;
    constexpr unsigned int items = Shape::items_per_thread;
    using launch_case = wave_case<key, value, lanes, items>;
    test_sort<key, value>(launch_shape{lanes, lanes * items, launch_case::arrays_per_block},
                          launch_wave_flash_sort<key, value, lanes, items>);
}

struct shape_names
{
    template <class Shape>
    static std::string GetName(int)
    {
        return type_name<typename Shape::key_type>() + "_" + type_name<typename Shape::value_type>() + "_lws"
               + std::to_string(Shape::logical_wave_size) + "_cap"
               + std::to_string(Shape::logical_wave_size * Shape::items_per_thread);
    }
};

// ---- every key type: keys only at 32 lanes x 16, u32 values at 8 lanes x 4 ----

template <class Key>
class WaveFlashSortKeyTypes : public ::testing::Test {};

TYPED_TEST_SUITE(WaveFlashSortKeyTypes, key_types, key_names);

TYPED_TEST(WaveFlashSortKeyTypes, Keys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_shape<shape<TypeParam, empty_type, 32, 16>>();
}

TYPED_TEST(WaveFlashSortKeyTypes, PairsU32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_shape<shape<TypeParam, std::uint32_t, 8, 4>>();
}

// ---- shapes: every logical wave size and capacity {L, 4L, 16L}, and wide values ----

template <class Shape>
class WaveFlashSortShapes : public ::testing::Test {};

// clang-format off
using shapes = ::testing::Types<
    shape<std::uint32_t, empty_type, 2, 1>,
    shape<std::uint32_t, empty_type, 2, 4>,
    shape<std::uint32_t, empty_type, 2, 16>,
    shape<std::uint32_t, empty_type, 4, 1>,
    shape<std::uint32_t, empty_type, 4, 4>,
    shape<std::uint32_t, empty_type, 4, 16>,
    shape<std::uint32_t, empty_type, 8, 1>,
    shape<std::uint32_t, empty_type, 8, 4>,
    shape<std::uint32_t, empty_type, 8, 16>,
    shape<std::uint32_t, empty_type, 16, 1>,
    shape<std::uint32_t, empty_type, 16, 4>,
    shape<std::uint32_t, empty_type, 16, 16>,
    shape<std::uint32_t, empty_type, 32, 1>,
    shape<std::uint32_t, empty_type, 32, 4>,
    shape<std::uint32_t, empty_type, 32, 16>,
    shape<std::uint32_t, empty_type, 64, 1>,
    shape<std::uint32_t, empty_type, 64, 4>,
    shape<std::uint32_t, empty_type, 64, 16>,
    shape<float, std::uint64_t, 2, 1>,
    shape<float, std::uint64_t, 2, 4>,
    shape<float, std::uint64_t, 2, 16>,
    shape<float, std::uint64_t, 4, 1>,
    shape<float, std::uint64_t, 4, 4>,
    shape<float, std::uint64_t, 4, 16>,
    shape<float, std::uint64_t, 8, 1>,
    shape<float, std::uint64_t, 8, 4>,
    shape<float, std::uint64_t, 8, 16>,
    shape<float, std::uint64_t, 16, 1>,
    shape<float, std::uint64_t, 16, 4>,
    shape<float, std::uint64_t, 16, 16>,
    shape<float, std::uint64_t, 32, 1>,
    shape<float, std::uint64_t, 32, 4>,
    shape<float, std::uint64_t, 32, 16>,
    shape<float, std::uint64_t, 64, 1>,
    shape<float, std::uint64_t, 64, 4>,
    shape<float, std::uint64_t, 64, 16>,
    shape<std::uint8_t, wide_value, 4, 16>,
    shape<std::int16_t, wide_value, 64, 4>,
    shape<std::int32_t, wide_value, 2, 16>,
    shape<std::uint64_t, wide_value, 16, 16>,
    shape<float, wide_value, 8, 4>,
    shape<double, wide_value, 32, 16>,
    shape<double, wide_value, 64, 16>,
    shape<std::int64_t, std::uint64_t, 2, 4>,
    shape<std::uint16_t, std::uint64_t, 16, 16>>;
// clang-format on
TYPED_TEST_SUITE(WaveFlashSortShapes, shapes, shape_names);

TYPED_TEST(WaveFlashSortShapes, Sort)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_shape<TypeParam>();
}

} // namespace
