// block_bitonic_sort against a host reference. Every block of a launch sorts its own tile, with its
// own valid_items (or the full-tile API), so one launch covers many partial-tile cases. The sort is
// not stable: the check compares the output's order images with the reference's, then checks that
// the multiset of (key bits, value) pairs survived and that items past valid_items are untouched.
#include "common/test_utils.hpp"

#include <hipflashsort/block/block_bitonic_sort.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using hipflashsort::empty_type;
using hipflashsort::order;

/// 16-byte payload: values wider than a shuffle word and than the key.
struct value16
{
    std::uint32_t a, b, c, d;
};

template <class Key>
using bits_of = typename hipflashsort::radix_key_codec<Key>::bit_key_type;

template <class Value>
constexpr bool has_values = hipflashsort::detail::has_values<Value>;

// ------------------------------------------------------------------------------------ device code

/// valid_items entry of a block that calls the full-tile overloads.
constexpr unsigned int full_tile_api = ~0u;

/// Block b sorts items [b * tile, (b + 1) * tile) with block_bitonic_sort<Key, BlockSize, IPT,
/// SortValue>. SortValue differs from Value only to run the keys-only overloads of a pairs class.
template <class Key, class Value, unsigned int BlockSize, unsigned int IPT, class SortValue>
__global__ __launch_bounds__(BlockSize) void block_sort_kernel(const Key* keys_in, const Value* values_in,
                                                               Key* keys_out, Value* values_out,
                                                               const unsigned int* valid_items, order ord)
{
    using sort_type = hipflashsort::block_bitonic_sort<Key, BlockSize, IPT, SortValue>;
    __shared__ typename sort_type::storage_type storage;

    const size_t base = (size_t(blockIdx.x) * BlockSize + threadIdx.x) * IPT;
    Key keys[IPT];
    Value values[IPT];
#pragma unroll
    for(unsigned int i = 0; i < IPT; i++)
    {
        keys[i] = keys_in[base + i];
        if constexpr(has_values<Value>) values[i] = values_in[base + i];
    }

    const unsigned int valid = valid_items[blockIdx.x];
    sort_type sorter;
    if constexpr(has_values<Value>)
    {
        if(valid == full_tile_api)
            sorter.sort(storage, keys, values, ord);
        else
            sorter.sort(storage, keys, values, valid, ord);
    }
    else
    {
        if(valid == full_tile_api)
            sorter.sort(storage, keys, ord);
        else
            sorter.sort(storage, keys, valid, ord);
    }

#pragma unroll
    for(unsigned int i = 0; i < IPT; i++)
    {
        keys_out[base + i] = keys[i];
        if constexpr(has_values<Value>) values_out[base + i] = values[i];
    }
}

template <class Key, class Value, unsigned int Capacity, bool HasValues = has_values<Value>>
struct shared_segments
{
    Key keys[Capacity];
    Value values[Capacity];
};

template <class Key, class Value, unsigned int Capacity>
struct shared_segments<Key, Value, Capacity, false>
{
    Key keys[Capacity];
};

/// Elements per block of the sort_shared test: 32 KiB of keys and values.
template <class Key, class Value>
constexpr unsigned int shared_capacity = 32768 / (sizeof(Key) + (has_values<Value> ? sizeof(Value) : 0));

constexpr unsigned int shared_block_size = 256;

/// Block b loads Capacity elements into shared memory; each group sorts its segment
/// (segment_offset/size, indexed by b * groups_per_block + group) with sort_shared.
template <class Key, class Value>
__global__ __launch_bounds__(shared_block_size) void shared_sort_kernel(
    const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
    const unsigned int* segment_offset, const unsigned int* segment_size, unsigned int group_threads,
    bool pass_values, order ord)
{
    constexpr unsigned int capacity = shared_capacity<Key, Value>;
    using sort_type = hipflashsort::block_bitonic_sort<Key, shared_block_size, 1, Value>;
    __shared__ shared_segments<Key, Value, capacity> data;

    const size_t base = size_t(blockIdx.x) * capacity;
    for(unsigned int i = threadIdx.x; i < capacity; i += shared_block_size)
    {
        data.keys[i] = keys_in[base + i];
        if constexpr(has_values<Value>) data.values[i] = values_in[base + i];
    }
    __syncthreads();

    const bool block_wide = group_threads > hipflashsort::device_wavefront_size();
    const unsigned int groups = block_wide ? 1 : shared_block_size / group_threads;
    const unsigned int group = block_wide ? 0 : threadIdx.x / group_threads;
    const unsigned int thread_in_group = block_wide ? threadIdx.x : threadIdx.x % group_threads;
    const unsigned int segment = blockIdx.x * groups + group;
    const unsigned int offset = segment_offset[segment];
    Value* values = nullptr;
    if constexpr(has_values<Value>)
    {
        if(pass_values) values = data.values + offset;
    }
    sort_type::sort_shared(data.keys + offset, values, segment_size[segment], thread_in_group, group_threads, ord);
    __syncthreads();

    for(unsigned int i = threadIdx.x; i < capacity; i += shared_block_size)
    {
        keys_out[base + i] = data.keys[i];
        if constexpr(has_values<Value>) values_out[base + i] = data.values[i];
    }
}

// ------------------------------------------------------------------------------------ host helpers

/// Device array freed on scope exit (also when an ASSERT leaves the test early).
template <class T>
struct device_array
{
    T* ptr = nullptr;
    device_array() = default;
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    ~device_array()
    {
        if(ptr != nullptr) (void)hipFree(ptr);
    }
};

template <class T>
void upload(device_array<T>& dst, const std::vector<T>& src)
{
    if(src.empty()) return;
    if(dst.ptr == nullptr) HIP_CHECK(hipMalloc(&dst.ptr, src.size() * sizeof(T)));
    HIP_CHECK(hipMemcpy(dst.ptr, src.data(), src.size() * sizeof(T), hipMemcpyHostToDevice));
}

/// Allocates n elements filled with a poison pattern that a correct kernel overwrites.
template <class T>
void alloc_poisoned(device_array<T>& dst, size_t n)
{
    if(n == 0) return;
    if(dst.ptr == nullptr) HIP_CHECK(hipMalloc(&dst.ptr, n * sizeof(T)));
    HIP_CHECK(hipMemset(dst.ptr, 0xA5, n * sizeof(T)));
}

template <class T>
void download(std::vector<T>& dst, const device_array<T>& src, size_t n)
{
    dst.resize(n);
    if(n == 0) return;
    HIP_CHECK(hipMemcpy(dst.data(), src.ptr, n * sizeof(T), hipMemcpyDeviceToHost));
}

template <class Key>
const char* key_name()
{
    if(std::is_same<Key, std::uint8_t>::value) return "u8";
    if(std::is_same<Key, std::uint16_t>::value) return "u16";
    if(std::is_same<Key, std::uint32_t>::value) return "u32";
    if(std::is_same<Key, std::uint64_t>::value) return "u64";
    if(std::is_same<Key, std::int8_t>::value) return "i8";
    if(std::is_same<Key, std::int16_t>::value) return "i16";
    if(std::is_same<Key, std::int32_t>::value) return "i32";
    if(std::is_same<Key, std::int64_t>::value) return "i64";
    if(std::is_same<Key, float>::value) return "f32";
    if(std::is_same<Key, double>::value) return "f64";
    if(std::is_same<Key, value16>::value) return "v16";
    if(std::is_same<Key, empty_type>::value) return "keys";
    return "?";
}

enum class distribution { random_bits, all_equal, two_values, sorted, reverse, few_unique, float_specials };

const char* distribution_name(distribution d)
{
    switch(d)
    {
        case distribution::random_bits: return "random_bits";
        case distribution::all_equal: return "all_equal";
        case distribution::two_values: return "two_values";
        case distribution::sorted: return "sorted";
        case distribution::reverse: return "reverse";
        case distribution::few_unique: return "few_unique";
        case distribution::float_specials: return "float_specials";
    }
    return "?";
}

template <class Key>
std::vector<distribution> distributions_for()
{
    std::vector<distribution> d{distribution::random_bits, distribution::all_equal, distribution::two_values,
                                distribution::sorted,      distribution::reverse,   distribution::few_unique};
    if(hipflashsort::radix_key_codec<Key>::is_float) d.push_back(distribution::float_specials);
    return d;
}

/// NaNs of both signs and several payloads, infinities, zeros of both signs, denormals, extremes.
template <class Key>
std::vector<Key> float_special_pool()
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using bits = bits_of<Key>;
    using limits = std::numeric_limits<Key>;
    const bits sign = codec::sign_bit;
    const bits quiet_nan = codec::to_bits(limits::quiet_NaN()) & bits(~sign);
    const bits max_nan = bits(~sign); // all exponent and mantissa bits set
    const bits min_nan = codec::to_bits(limits::infinity()) | 1u;
    std::vector<Key> pool{Key(0), -Key(0), limits::infinity(), -limits::infinity(), limits::denorm_min(),
                          -limits::denorm_min(), limits::min(), -limits::min(), limits::max(), limits::lowest(),
                          Key(1), Key(-1)};
    // Largest denormal: all mantissa bits, zero exponent.
    pool.push_back(codec::from_bits(bits(codec::to_bits(limits::min()) - 1)));
    pool.push_back(-codec::from_bits(bits(codec::to_bits(limits::min()) - 1)));
    for(const bits nan : {quiet_nan, max_nan, min_nan})
    {
        pool.push_back(codec::from_bits(nan));
        pool.push_back(codec::from_bits(bits(nan | sign)));
    }
    return pool;
}

template <class Key>
std::vector<Key> make_keys(distribution d, size_t n, std::mt19937_64& rng)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    using bits = bits_of<Key>;
    auto random_key = [&] { return codec::from_bits(static_cast<bits>(rng())); };
    std::vector<Key> keys(n);
    switch(d)
    {
        case distribution::random_bits:
        case distribution::sorted:
        case distribution::reverse:
            for(Key& k : keys) k = random_key();
            if(d != distribution::random_bits)
            {
                const order ord = d == distribution::sorted ? order::ascending : order::descending;
                std::sort(keys.begin(), keys.end(), [ord](Key a, Key b) {
                    return codec::order_image(a, ord) < codec::order_image(b, ord);
                });
            }
            break;
        case distribution::all_equal: {
            const Key k = random_key();
            std::fill(keys.begin(), keys.end(), k);
            break;
        }
        case distribution::two_values:
        case distribution::few_unique: {
            std::vector<Key> pool(d == distribution::two_values ? 2 : 7);
            for(Key& k : pool) k = random_key();
            for(Key& k : keys) k = pool[rng() % pool.size()];
            break;
        }
        case distribution::float_specials:
            if constexpr(codec::is_float)
            {
                const std::vector<Key> pool = float_special_pool<Key>();
                for(Key& k : keys) k = (rng() % 2) ? pool[rng() % pool.size()] : random_key();
            }
            break;
    }
    return keys;
}

template <class Value>
Value make_value(size_t i);

template <>
empty_type make_value<empty_type>(size_t)
{
    return empty_type{};
}

template <>
std::uint32_t make_value<std::uint32_t>(size_t i)
{
    return static_cast<std::uint32_t>(i);
}

template <>
value16 make_value<value16>(size_t i)
{
    const auto x = static_cast<std::uint32_t>(i);
    return value16{x, x * 2654435761u, ~x, 0xC0FFEE00u ^ x};
}

template <class Value>
std::vector<Value> make_values(size_t n)
{
    std::vector<Value> values;
    if(!has_values<Value>) return values;
    values.resize(n);
    for(size_t i = 0; i < n; i++) values[i] = make_value<Value>(i);
    return values;
}

/// Bytes of value i, or none for keys-only runs (values == nullptr).
template <class Value>
std::vector<unsigned char> value_bytes(const Value* values, size_t i)
{
    if(!has_values<Value> || values == nullptr) return {};
    std::vector<unsigned char> b(sizeof(Value));
    std::memcpy(b.data(), values + i, sizeof(Value));
    return b;
}

template <class Key>
std::string key_text(Key k)
{
    std::ostringstream s;
    s << "0x" << std::hex << static_cast<std::uint64_t>(hipflashsort::radix_key_codec<Key>::to_bits(k));
    return s.str();
}

/// Checks out[0..valid) against in[0..valid) sorted in order `ord`, and out[valid..size) == in.
/// `in_values`/`out_values` may be nullptr (keys only).
template <class Key, class Value>
::testing::AssertionResult check_sorted(const Key* in, const Value* in_values, const Key* out,
                                        const Value* out_values, size_t valid, size_t size, order ord)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    std::vector<bits_of<Key>> expected(valid);
    for(size_t i = 0; i < valid; i++) expected[i] = codec::order_image(in[i], ord);
    std::sort(expected.begin(), expected.end());
    for(size_t i = 0; i < valid; i++)
    {
        if(codec::order_image(out[i], ord) != expected[i])
        {
            return ::testing::AssertionFailure() << "order broken at item " << i << " of " << valid << ": got key "
                                                 << key_text(out[i]) << ", order image " << +expected[i]
                                                 << " expected";
        }
    }

    using item = std::pair<bits_of<Key>, std::vector<unsigned char>>;
    std::vector<item> before(valid), after(valid);
    for(size_t i = 0; i < valid; i++)
    {
        before[i] = item(codec::to_bits(in[i]), value_bytes(in_values, i));
        after[i] = item(codec::to_bits(out[i]), value_bytes(out_values, i));
    }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    if(before != after)
    {
        return ::testing::AssertionFailure() << "the multiset of (key bits, value) pairs changed";
    }

    for(size_t i = valid; i < size; i++)
    {
        if(codec::to_bits(out[i]) != codec::to_bits(in[i]) || value_bytes(out_values, i) != value_bytes(in_values, i))
        {
            return ::testing::AssertionFailure() << "item " << i << " past valid_items " << valid << " changed: key "
                                                 << key_text(in[i]) << " -> " << key_text(out[i]);
        }
    }
    return ::testing::AssertionSuccess();
}

unsigned int host_wavefront_size()
{
    unsigned int size = 0;
    if(hipflashsort::wavefront_size(size) != hipSuccess) return 0;
    return size;
}

// ------------------------------------------------------------------------------------ block sort

/// valid_items of the blocks of one launch: the full-tile API, then edge cases and random counts.
std::vector<unsigned int> valid_items_cases(unsigned int tile, unsigned int wave, std::mt19937_64& rng)
{
    std::vector<unsigned int> cases{full_tile_api, tile, 0, 1, 2, 3, wave - 1, wave, wave + 1, tile - 1,
                                    tile / 2 + 1, tile + 5 /* clamped to the tile */, full_tile_api};
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](unsigned int v) { return v != full_tile_api && v > tile && v != tile + 5; }),
                cases.end());
    for(int i = 0; i < 3; i++) cases.push_back(static_cast<unsigned int>(rng() % (tile + 1)));
    return cases;
}

template <class Key, class Value, unsigned int BlockSize, unsigned int IPT, class SortValue = Value>
void test_block_sort(unsigned int seed)
{
    constexpr unsigned int tile = BlockSize * IPT;
    const unsigned int wave = host_wavefront_size();
    ASSERT_GT(wave, 0u);
    std::mt19937_64 rng(seed);
    const std::vector<unsigned int> valid = valid_items_cases(tile, wave, rng);
    const size_t blocks = valid.size();
    const size_t n = blocks * tile;

    device_array<Key> d_keys_in, d_keys_out;
    device_array<Value> d_values_in, d_values_out;
    device_array<unsigned int> d_valid;
    upload(d_valid, valid);
    const std::vector<Value> values = make_values<Value>(n);
    upload(d_values_in, values);

    for(const order ord : {order::ascending, order::descending})
    {
        for(const distribution dist : distributions_for<Key>())
        {
            SCOPED_TRACE(testing::Message() << distribution_name(dist) << ", "
                                            << (ord == order::ascending ? "ascending" : "descending"));
            const std::vector<Key> keys = make_keys<Key>(dist, n, rng);
            upload(d_keys_in, keys);
            alloc_poisoned(d_keys_out, n);
            if(has_values<Value>) alloc_poisoned(d_values_out, n);

            block_sort_kernel<Key, Value, BlockSize, IPT, SortValue><<<static_cast<unsigned int>(blocks), BlockSize>>>(
                d_keys_in.ptr, d_values_in.ptr, d_keys_out.ptr, d_values_out.ptr, d_valid.ptr, ord);
            HIP_CHECK(hipGetLastError());

            std::vector<Key> out_keys;
            std::vector<Value> out_values;
            download(out_keys, d_keys_out, n);
            if(has_values<Value>) download(out_values, d_values_out, n);
            if(::testing::Test::HasFatalFailure()) return; // a HIP call failed in a helper

            for(size_t b = 0; b < blocks; b++)
            {
                const size_t base = b * tile;
                const unsigned int v = valid[b];
                const size_t real = v == full_tile_api ? tile : std::min(v, tile);
                const Value* in_v = has_values<Value> ? values.data() + base : nullptr;
                const Value* out_v = has_values<Value> ? out_values.data() + base : nullptr;
                ASSERT_TRUE(check_sorted(keys.data() + base, in_v, out_keys.data() + base, out_v, real, tile, ord))
                    << "block " << b << ", valid_items "
                    << (v == full_tile_api ? std::string("(full-tile API)") : std::to_string(v));
            }
        }
    }
}

/// One block_bitonic_sort instantiation under test.
template <class Key, unsigned int BlockSize, unsigned int IPT, class Value = empty_type, class SortValue = Value>
struct shape
{
    static void run(unsigned int seed) { test_block_sort<Key, Value, BlockSize, IPT, SortValue>(seed); }

    static std::string name()
    {
        std::string s = std::string(key_name<Key>()) + "_b" + std::to_string(BlockSize) + "_ipt" + std::to_string(IPT)
                        + "_" + key_name<Value>();
        if(!std::is_same<Value, SortValue>::value) s += std::string("_keys_api_of_") + key_name<SortValue>();
        return s;
    }
};

struct shape_names
{
    template <class Shape>
    static std::string GetName(int) { return Shape::name(); }
};

// ---- every key type, keys and pairs, at one configuration that has register, shuffle and LDS
// stages on both platforms (128 threads: two AMD wavefronts, four NVIDIA warps).

template <class Key>
class BlockBitonicSortKeyTypes : public ::testing::Test
{};

using key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                   std::int16_t, std::int32_t, std::int64_t, float, double>;

struct key_type_names
{
    template <class Key>
    static std::string GetName(int) { return key_name<Key>(); }
};

TYPED_TEST_SUITE(BlockBitonicSortKeyTypes, key_types, key_type_names);

TYPED_TEST(BlockBitonicSortKeyTypes, Keys)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_block_sort<TypeParam, empty_type, 128, 2>(101);
}

TYPED_TEST(BlockBitonicSortKeyTypes, PairsU32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_block_sort<TypeParam, std::uint32_t, 128, 2>(202);
}

// ---- block sizes and items per thread (powers of two and not), u32 and float keys, a few pair
// layouts, block sizes that are not powers of two, and the keys-only API of a pairs class. Not the
// full cross product: every IPT = 16 network is large, and so is the compile.

template <class Shape>
class BlockBitonicSortShapes : public ::testing::Test
{};

using shapes = ::testing::Types<
    // u32 keys: every IPT at 64 and 256 threads, every block size at IPT 1 and 4, IPT 16 at both ends.
    shape<std::uint32_t, 64, 1>, shape<std::uint32_t, 64, 3>, shape<std::uint32_t, 64, 16>,
    shape<std::uint32_t, 128, 4>, shape<std::uint32_t, 128, 7>, shape<std::uint32_t, 256, 1>,
    shape<std::uint32_t, 256, 3>, shape<std::uint32_t, 256, 4>, shape<std::uint32_t, 512, 1>,
    shape<std::uint32_t, 512, 4>, shape<std::uint32_t, 512, 16>,
    // float keys
    shape<float, 64, 4>, shape<float, 64, 7>, shape<float, 128, 1>, shape<float, 128, 16>, shape<float, 256, 3>,
    shape<float, 512, 4>,
    // pairs with u32 values
    shape<std::uint32_t, 64, 7, std::uint32_t>, shape<std::uint32_t, 64, 16, std::uint32_t>,
    shape<float, 512, 3, std::uint32_t>,
    // pairs with 16-byte values
    shape<std::uint32_t, 128, 4, value16>, shape<std::uint32_t, 64, 7, value16>, shape<float, 256, 3, value16>,
    shape<std::uint64_t, 128, 3, value16>, shape<double, 64, 1, value16>, shape<std::int8_t, 64, 2, value16>,
    // block sizes that are not powers of two (multiples of 64)
    shape<std::uint32_t, 192, 4>, shape<std::uint32_t, 320, 3, std::uint32_t>, shape<float, 448, 2, value16>,
    // keys-only overloads of a pairs instantiation
    shape<std::uint32_t, 128, 4, empty_type, value16>, shape<float, 256, 3, empty_type, std::uint32_t>>;

TYPED_TEST_SUITE(BlockBitonicSortShapes, shapes, shape_names);

TYPED_TEST(BlockBitonicSortShapes, SortsEveryTile)
{
    HIPFLASHSORT_REQUIRE_GPU();
    TypeParam::run(303);
}

// ------------------------------------------------------------------------------------ sort_shared

/// Segment sizes tried: small edge cases, powers of two and their neighbours, some hundreds.
const std::vector<unsigned int>& shared_sizes()
{
    static const std::vector<unsigned int> sizes{0,   1,   2,   3,   4,   5,   6,    7,    8,    9,    15,  16,
                                                 17,  31,  32,  33,  63,  64,  65,   100,  127,  128,  129, 200,
                                                 255, 256, 257, 300, 383, 511, 512,  513,  700,  1000, 1023, 1024,
                                                 1025, 1500, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 8192};
    return sizes;
}

/// Group sizes: every power of two up to the wavefront, then two block-wide groups (the whole
/// block, and half of it with the other threads only joining the barriers).
std::vector<unsigned int> shared_group_sizes(unsigned int wave)
{
    std::vector<unsigned int> g;
    for(unsigned int t = 1; t <= wave; t *= 2) g.push_back(t);
    g.push_back(shared_block_size);
    if(shared_block_size / 2 > wave) g.push_back(shared_block_size / 2);
    return g;
}

template <class Key, class Value>
void test_sort_shared(bool pass_values, unsigned int seed)
{
    constexpr unsigned int capacity = shared_capacity<Key, Value>;
    const unsigned int wave = host_wavefront_size();
    ASSERT_GT(wave, 0u);
    std::mt19937_64 rng(seed);

    for(const unsigned int group_threads : shared_group_sizes(wave))
    {
        const bool block_wide = group_threads > wave;
        const unsigned int groups = block_wide ? 1 : shared_block_size / group_threads;
        const unsigned int slot = capacity / groups; // room of each group's segment

        // Every listed size that fits, then random sizes, in segments placed at random offsets
        // within each group's room.
        std::vector<unsigned int> sizes;
        for(const unsigned int s : shared_sizes())
            if(s <= slot) sizes.push_back(s);
        sizes.push_back(slot);
        while(sizes.size() % groups != 0 || sizes.size() < 2 * groups)
            sizes.push_back(static_cast<unsigned int>(rng() % (slot + 1)));
        const size_t blocks = sizes.size() / groups;
        std::shuffle(sizes.begin(), sizes.end(), rng);
        std::vector<unsigned int> offsets(sizes.size());
        for(size_t s = 0; s < sizes.size(); s++)
        {
            const unsigned int room = slot - sizes[s];
            offsets[s] = static_cast<unsigned int>((s % groups) * slot + (room ? rng() % (room + 1) : 0));
        }

        const size_t n = blocks * capacity;
        device_array<Key> d_keys_in, d_keys_out;
        device_array<Value> d_values_in, d_values_out;
        device_array<unsigned int> d_offsets, d_sizes;
        upload(d_offsets, offsets);
        upload(d_sizes, sizes);
        const std::vector<Value> values = make_values<Value>(n);
        upload(d_values_in, values);

        for(const order ord : {order::ascending, order::descending})
        {
            for(const distribution dist : distributions_for<Key>())
            {
                SCOPED_TRACE(testing::Message() << "group_threads " << group_threads << ", "
                                                << distribution_name(dist) << ", "
                                                << (ord == order::ascending ? "ascending" : "descending"));
                const std::vector<Key> keys = make_keys<Key>(dist, n, rng);
                upload(d_keys_in, keys);
                alloc_poisoned(d_keys_out, n);
                if(has_values<Value>) alloc_poisoned(d_values_out, n);

                shared_sort_kernel<Key, Value><<<static_cast<unsigned int>(blocks), shared_block_size>>>(
                    d_keys_in.ptr, d_values_in.ptr, d_keys_out.ptr, d_values_out.ptr, d_offsets.ptr, d_sizes.ptr,
                    group_threads, pass_values, ord);
                HIP_CHECK(hipGetLastError());

                std::vector<Key> out_keys;
                std::vector<Value> out_values;
                download(out_keys, d_keys_out, n);
                if(has_values<Value>) download(out_values, d_values_out, n);
                if(::testing::Test::HasFatalFailure()) return; // a HIP call failed in a helper

                const bool check_values = has_values<Value> && pass_values;
                for(size_t b = 0; b < blocks; b++)
                {
                    std::vector<bool> in_segment(capacity, false);
                    for(unsigned int g = 0; g < groups; g++)
                    {
                        const size_t s = b * groups + g;
                        const size_t at = b * capacity + offsets[s];
                        ASSERT_TRUE(check_sorted(keys.data() + at, check_values ? values.data() + at : nullptr,
                                                 out_keys.data() + at,
                                                 check_values ? out_values.data() + at : nullptr, sizes[s], sizes[s],
                                                 ord))
                            << "block " << b << ", group " << g << ", size " << sizes[s];
                        std::fill_n(in_segment.begin() + offsets[s], sizes[s], true);
                    }
                    // Nothing outside the segments moves; without a values pointer no value moves.
                    for(unsigned int i = 0; i < capacity; i++)
                    {
                        const size_t at = b * capacity + i;
                        if(!in_segment[i])
                        {
                            ASSERT_EQ(hipflashsort::radix_key_codec<Key>::to_bits(out_keys[at]),
                                      hipflashsort::radix_key_codec<Key>::to_bits(keys[at]))
                                << "block " << b << ", key " << i << " outside every segment changed";
                        }
                        if(has_values<Value> && (!pass_values || !in_segment[i]))
                        {
                            ASSERT_EQ(value_bytes(out_values.data(), at), value_bytes(values.data(), at))
                                << "block " << b << ", value " << i << " changed";
                        }
                    }
                }
            }
        }
    }
}

TEST(BlockBitonicSortShared, KeysU32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<std::uint32_t, empty_type>(false, 404);
}

TEST(BlockBitonicSortShared, KeysI8)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<std::int8_t, empty_type>(false, 505);
}

TEST(BlockBitonicSortShared, KeysFloat)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<float, empty_type>(false, 606);
}

TEST(BlockBitonicSortShared, PairsU32U32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<std::uint32_t, std::uint32_t>(true, 707);
}

TEST(BlockBitonicSortShared, PairsWithoutValuePointer)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<std::uint32_t, std::uint32_t>(false, 808);
}

TEST(BlockBitonicSortShared, PairsDoubleValue16)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<double, value16>(true, 909);
}

TEST(BlockBitonicSortShared, PairsU64Value16)
{
    HIPFLASHSORT_REQUIRE_GPU();
    test_sort_shared<std::uint64_t, value16>(true, 1010);
}

} // namespace
