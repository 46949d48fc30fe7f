// Block-level sorts: one thread block sorts one tile, and a grid of 2^24 / tile blocks sorts 2^24
// keys tile by tile, so that throughput is meaningful. Measured side by side:
//   - flash:   hipflashsort::block_flash_sort<Key, Value, Block, Tile> (storage in __shared__;
//              reads its tile from global memory and writes the sorted tile back itself);
//   - bitonic: hipflashsort::block_bitonic_sort<Key, Block, Tile / Block, Value> (registers;
//              partial tiles through its valid_items overloads);
//   - the vendor's block radix sort: cub::BlockRadixSort on NVIDIA (label "cub"),
//     rocprim::block_radix_sort on AMD (label "rocprim"); partial tiles padded with the maximal key.
// bitonic and the vendor sort share the same direct blocked load and store (thread t holds items
// t * IPT .. t * IPT + IPT - 1), so those two differ only in the sort.
//
// Every tile is either full (size == tile) or partial (size = tile - tile / 4 + 1). Configurations
// whose shared storage exceeds 48 KiB of static LDS are not registered. Inputs are generated on
// the GPU, outputs poisoned before every run, the median of 15 timed runs (HIP events, after two
// warm-ups) is reported, and every result is checked on the host against std::stable_sort of each
// tile by the codec's order image: keys bitwise; values bitwise for the stable sorts (flash and the
// radix sorts), and for the unstable bitonic sort as the same multiset within each run of equal
// keys.
//
// Names: block/<impl>/<type>/<distribution>/tile:<T>/block:<B>[/valid:<size>]
//   benchmark_block_sort [--benchmark_filter=...] [--benchmark_out=f.json --benchmark_out_format=json]
#include "bench_utils.hpp"

#include <hipflashsort/block/block_bitonic_sort.hpp>
#include <hipflashsort/block/block_flash_sort.hpp>

#if defined(__HIP_PLATFORM_NVIDIA__)
    #include <cub/block/block_radix_sort.cuh>
#else
    #include <rocprim/functional.hpp> // rocPRIM 2.10's block_radix_sort.hpp uses rocprim::min without it
    #include <rocprim/block/block_radix_sort.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using clients::distribution;
using hipflashsort::empty_type;

constexpr std::size_t total_keys = std::size_t(1) << 24;
constexpr std::size_t static_lds_limit = 48 * 1024;

template <class Value>
constexpr bool has_values = hipflashsort::detail::has_values<Value>;

template <class Key>
using codec_of = hipflashsort::radix_key_codec<Key>;

enum class impl
{
    flash,
    bitonic,
    vendor
};

const char* vendor_label()
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return "cub";
#else
    return "rocprim";
#endif
}

const char* impl_label(impl which)
{
    switch(which)
    {
        case impl::flash: return "flash";
        case impl::bitonic: return "bitonic";
        case impl::vendor: return vendor_label();
    }
    return "?";
}

/// The key that sorts last in radix order (all-ones image): u32 0xffffffff, f32 +NaN 0x7fffffff.
template <class Key>
HIPFLASHSORT_HOST_DEVICE Key max_key()
{
    using bits = typename codec_of<Key>::bit_key_type;
    return codec_of<Key>::decode_lossless(bits(~bits(0)));
}

// ---------------------------------------------------------------------------------- the sorts

template <class Key, class Value, unsigned int Block, unsigned int Tile>
struct config
{
    static constexpr unsigned int items_per_thread = Tile / Block;
    static_assert(Tile % Block == 0, "tile must be a whole number of items per thread");

    using flash_type = hipflashsort::block_flash_sort<Key, Value, Block, Tile>;
    using bitonic_type = hipflashsort::block_bitonic_sort<Key, Block, items_per_thread, Value>;
#if defined(__HIP_PLATFORM_NVIDIA__)
    using vendor_value = std::conditional_t<has_values<Value>, Value, cub::NullType>;
    using vendor_type = cub::BlockRadixSort<Key, int(Block), int(items_per_thread), vendor_value>;
    using vendor_storage = typename vendor_type::TempStorage;
#else
    using vendor_value = std::conditional_t<has_values<Value>, Value, rocprim::empty_type>;
    using vendor_type = rocprim::block_radix_sort<Key, Block, items_per_thread, vendor_value>;
    using vendor_storage = typename vendor_type::storage_type;
#endif

    static constexpr std::size_t lds_bytes(impl which)
    {
        return which == impl::flash     ? sizeof(typename flash_type::storage_type)
               : which == impl::bitonic ? sizeof(typename bitonic_type::storage_type)
                                        : sizeof(vendor_storage);
    }
    static constexpr bool fits(impl which) { return lds_bytes(which) <= static_lds_limit; }
};

template <bool Full, class T, unsigned int N>
HIPFLASHSORT_DEVICE void load_blocked(const T* in, T (&items)[N], unsigned int size, T fill)
{
    const unsigned int first = threadIdx.x * N;
#pragma unroll
    for(unsigned int i = 0; i < N; i++) items[i] = (Full || first + i < size) ? in[first + i] : fill;
}

template <bool Full, class T, unsigned int N>
HIPFLASHSORT_DEVICE void store_blocked(T* out, const T (&items)[N], unsigned int size)
{
    const unsigned int first = threadIdx.x * N;
#pragma unroll
    for(unsigned int i = 0; i < N; i++)
    {
        if(Full || first + i < size) out[first + i] = items[i];
    }
}

/// Block b sorts keys_in[b * Tile, b * Tile + size) with block_flash_sort.
template <class Key, class Value, unsigned int Block, unsigned int Tile>
__global__ __launch_bounds__(Block) void flash_kernel(const Key* keys_in, Key* keys_out, const Value* values_in,
                                                      Value* values_out, unsigned int size)
{
    using sorter = typename config<Key, Value, Block, Tile>::flash_type;
    __shared__ typename sorter::storage_type storage;
    const std::size_t base = std::size_t(blockIdx.x) * Tile;
    const Value* vin = nullptr;
    Value* vout = nullptr;
    if constexpr(has_values<Value>)
    {
        vin = values_in + base;
        vout = values_out + base;
    }
    sorter().sort(storage, keys_in + base, keys_out + base, vin, vout, size);
}

/// The frame of the register-tile sorts: block b loads its tile (from element `base`) blocked
/// into registers, a partial tile padded with the maximal key, calls sort(keys) or
/// sort(keys, values) and stores the tile back. Values are null for keys only.
template <class Key, class Value, unsigned int ItemsPerThread, bool Full, class Sort>
HIPFLASHSORT_DEVICE void sort_tile_in_registers(const Key* keys_in, Key* keys_out, const Value* values_in,
                                                Value* values_out, std::size_t base, unsigned int size, Sort sort)
{
    Key keys[ItemsPerThread];
    load_blocked<Full>(keys_in + base, keys, size, max_key<Key>());
    if constexpr(has_values<Value>)
    {
        Value values[ItemsPerThread];
        load_blocked<Full>(values_in + base, values, size, Value{});
        sort(keys, values);
        store_blocked<Full>(values_out + base, values, size);
    }
    else
    {
        (void)values_in;
        (void)values_out;
        sort(keys);
    }
    store_blocked<Full>(keys_out + base, keys, size);
}

/// Block b sorts its tile in registers with block_bitonic_sort (full-tile or valid_items API).
template <class Key, class Value, unsigned int Block, unsigned int Tile, bool Full>
__global__ __launch_bounds__(Block) void bitonic_kernel(const Key* keys_in, Key* keys_out, const Value* values_in,
                                                        Value* values_out, unsigned int size)
{
    using cfg = config<Key, Value, Block, Tile>;
    using sorter = typename cfg::bitonic_type;
    __shared__ typename sorter::storage_type storage;
    sort_tile_in_registers<Key, Value, cfg::items_per_thread, Full>(
        keys_in, keys_out, values_in, values_out, std::size_t(blockIdx.x) * Tile, size, [&](auto&... items) {
            if constexpr(Full)
                sorter().sort(storage, items...);
            else
                sorter().sort(storage, items..., size);
        });
}

/// Block b sorts its tile with the vendor's block radix sort; a partial tile is padded with the
/// maximal key, which a stable radix sort leaves behind every real key.
template <class Key, class Value, unsigned int Block, unsigned int Tile, bool Full>
__global__ __launch_bounds__(Block) void vendor_kernel(const Key* keys_in, Key* keys_out, const Value* values_in,
                                                       Value* values_out, unsigned int size)
{
    using cfg = config<Key, Value, Block, Tile>;
    using sorter = typename cfg::vendor_type;
    __shared__ typename cfg::vendor_storage storage;
    sort_tile_in_registers<Key, Value, cfg::items_per_thread, Full>(
        keys_in, keys_out, values_in, values_out, std::size_t(blockIdx.x) * Tile, size, [&](auto&... items) {
#if defined(__HIP_PLATFORM_NVIDIA__)
            sorter(storage).Sort(items...);
#else
            sorter().sort(items..., storage);
#endif
        });
}

template <class Key, class Value, unsigned int Block, unsigned int Tile>
hipError_t launch(impl which, bool full, unsigned int tiles, const Key* keys_in, Key* keys_out, const Value* values_in,
                  Value* values_out, unsigned int size, hipStream_t stream)
{
    using cfg = config<Key, Value, Block, Tile>;
    if(which == impl::flash)
    {
        if constexpr(cfg::fits(impl::flash))
            flash_kernel<Key, Value, Block, Tile><<<tiles, Block, 0, stream>>>(keys_in, keys_out, values_in, values_out, size);
        else
            return hipErrorInvalidValue;
    }
    else if(which == impl::bitonic)
    {
        if constexpr(cfg::fits(impl::bitonic))
        {
            if(full)
                bitonic_kernel<Key, Value, Block, Tile, true><<<tiles, Block, 0, stream>>>(keys_in, keys_out, values_in, values_out, size);
            else
                bitonic_kernel<Key, Value, Block, Tile, false><<<tiles, Block, 0, stream>>>(keys_in, keys_out, values_in, values_out, size);
        }
        else
            return hipErrorInvalidValue;
    }
    else
    {
        if constexpr(cfg::fits(impl::vendor))
        {
            if(full)
                vendor_kernel<Key, Value, Block, Tile, true><<<tiles, Block, 0, stream>>>(keys_in, keys_out, values_in, values_out, size);
            else
                vendor_kernel<Key, Value, Block, Tile, false><<<tiles, Block, 0, stream>>>(keys_in, keys_out, values_in, values_out, size);
        }
        else
            return hipErrorInvalidValue;
    }
    return hipGetLastError();
}

// ------------------------------------------------------------------------------ host reference

/// The reference of the last case (the sorts of one case are registered next to each other, so
/// each reference is computed once for flash, bitonic and the vendor sort).
template <class Key>
struct reference
{
    std::string id;
    std::vector<Key> keys;            // sorted tiles, tile stride; only [0, size) of each is used
    std::vector<std::uint32_t> values; // values moved with them (pairs only)
};

template <class Key>
reference<Key>& cached_reference()
{
    static reference<Key> r;
    return r;
}

template <class Key>
void build_reference(reference<Key>& ref, const std::vector<Key>& keys, const std::vector<std::uint32_t>& values,
                     unsigned int tiles, unsigned int tile, unsigned int size)
{
    using codec = codec_of<Key>;
    ref.keys.assign(keys.size(), Key{});
    ref.values.assign(values.size(), 0u);
    std::vector<unsigned int> order(size);
    std::vector<typename codec::bit_key_type> images(size);
    for(unsigned int t = 0; t < tiles; t++)
    {
        const std::size_t base = std::size_t(t) * tile;
        for(unsigned int i = 0; i < size; i++)
        {
            order[i] = i;
            images[i] = codec::order_image(keys[base + i]);
        }
        std::stable_sort(order.begin(), order.end(), [&](unsigned int a, unsigned int b) { return images[a] < images[b]; });
        for(unsigned int r = 0; r < size; r++)
        {
            ref.keys[base + r] = keys[base + order[r]];
            if(!values.empty()) ref.values[base + r] = values[base + order[r]];
        }
    }
}

template <class Key>
bool same_bits(const Key& a, const Key& b)
{
    return std::memcmp(&a, &b, sizeof(Key)) == 0;
}

/// Mismatching items of the output against the reference. Values: bitwise when `stable`, else as
/// the same multiset within every run of equal keys.
template <class Key>
unsigned long long count_mismatches(const reference<Key>& ref, const std::vector<Key>& keys,
                                    const std::vector<std::uint32_t>& values, unsigned int tiles, unsigned int tile,
                                    unsigned int size, bool stable)
{
    using codec = codec_of<Key>;
    unsigned long long bad = 0;
    std::vector<std::uint32_t> got_run, want_run;
    for(unsigned int t = 0; t < tiles; t++)
    {
        const std::size_t base = std::size_t(t) * tile;
        for(unsigned int i = 0; i < size; i++) bad += !same_bits(keys[base + i], ref.keys[base + i]);
        if(values.empty()) continue;
        if(stable)
        {
            for(unsigned int i = 0; i < size; i++) bad += values[base + i] != ref.values[base + i];
            continue;
        }
        for(unsigned int begin = 0; begin < size;)
        {
            unsigned int end = begin + 1;
            const auto image = codec::order_image(ref.keys[base + begin]);
            while(end < size && codec::order_image(ref.keys[base + end]) == image) end++;
            got_run.assign(values.begin() + base + begin, values.begin() + base + end);
            want_run.assign(ref.values.begin() + base + begin, ref.values.begin() + base + end);
            std::sort(got_run.begin(), got_run.end());
            std::sort(want_run.begin(), want_run.end());
            for(std::size_t i = 0; i < got_run.size(); i++) bad += got_run[i] != want_run[i];
            begin = end;
        }
    }
    return bad;
}

// ------------------------------------------------------------------------------------- cases

template <class Key, class Value>
const char* type_name()
{
    const bool u32 = std::is_same<Key, std::uint32_t>::value;
    if(has_values<Value>) return u32 ? "u32+u32" : "f32+u32";
    return u32 ? "u32" : "f32";
}

template <class Key, class Value, unsigned int Block, unsigned int Tile>
void run_case(benchmark::State& state, impl which, distribution dist, bool partial)
{
    constexpr bool pairs = has_values<Value>;
    using stored_value = std::conditional_t<pairs, Value, std::uint32_t>; // device arrays of keys-only cases stay empty
    static_assert(!pairs || std::is_same<Value, std::uint32_t>::value, "pairs use u32 values");
    const unsigned int tiles = static_cast<unsigned int>(total_keys / Tile);
    const unsigned int size = partial ? Tile - Tile / 4 + 1 : Tile;
    const std::size_t n = std::size_t(tiles) * Tile;
    const std::size_t valid = std::size_t(tiles) * size;
    hipStream_t stream = 0;

    bench::device_array<Key> in(n), out(n);
    bench::device_array<stored_value> vin(pairs ? n : 0), vout(pairs ? n : 0);
    if(!in.ptr || !out.ptr || (pairs && (!vin.ptr || !vout.ptr)))
    {
        state.SkipWithError("hipMalloc failed");
        return;
    }
    BENCH_CHECK(clients::generate(in.ptr, n, dist, 7, stream));
    if constexpr(pairs) BENCH_CHECK(clients::fill_index(vin.ptr, n, stream));

    const Value* values_in = nullptr;
    Value* values_out = nullptr;
    if constexpr(pairs)
    {
        values_in = vin.ptr;
        values_out = vout.ptr;
    }
    auto poison = [&] {
        (void)hipMemsetAsync(out.ptr, 0xA5, n * sizeof(Key), stream);
        if constexpr(pairs) (void)hipMemsetAsync(vout.ptr, 0xA5, n * sizeof(Value), stream);
    };
    auto run = [&] {
        return launch<Key, Value, Block, Tile>(which, !partial, tiles, in.ptr, out.ptr, values_in, values_out, size,
                                               stream);
    };
    const std::size_t bytes_per_key = 2 * (sizeof(Key) + (pairs ? sizeof(Value) : 0));
    if(!bench::time_sort(state, run, poison, valid, bytes_per_key, stream)) return;
    using cfg = config<Key, Value, Block, Tile>;
    state.counters["tile"] = Tile;
    state.counters["block"] = Block;
    state.counters["valid"] = size;
    state.counters["tiles"] = tiles;
    state.counters["lds_bytes"] = double(cfg::lds_bytes(which));

    // Verification on the host: the reference of this case (cached across the three sorts).
    BENCH_CHECK(hipDeviceSynchronize());
    std::vector<Key> h_out(n);
    std::vector<std::uint32_t> h_vout(pairs ? n : 0);
    BENCH_CHECK(hipMemcpy(h_out.data(), out.ptr, n * sizeof(Key), hipMemcpyDeviceToHost));
    if constexpr(pairs) BENCH_CHECK(hipMemcpy(h_vout.data(), vout.ptr, n * sizeof(Value), hipMemcpyDeviceToHost));
    reference<Key>& ref = cached_reference<Key>();
    const std::string id = std::string(type_name<Key, Value>()) + "/" + clients::name_of(dist) + "/" +
                           std::to_string(Tile) + "/" + std::to_string(size);
    if(ref.id != id)
    {
        ref.id.clear();
        std::vector<Key> h_in(n);
        std::vector<std::uint32_t> h_vin(pairs ? n : 0);
        BENCH_CHECK(hipMemcpy(h_in.data(), in.ptr, n * sizeof(Key), hipMemcpyDeviceToHost));
        if constexpr(pairs) BENCH_CHECK(hipMemcpy(h_vin.data(), vin.ptr, n * sizeof(Value), hipMemcpyDeviceToHost));
        build_reference(ref, h_in, h_vin, tiles, Tile, size);
        ref.id = id;
    }
    const unsigned long long bad = count_mismatches(ref, h_out, h_vout, tiles, Tile, size, which != impl::bitonic);
    state.counters["mismatches"] = double(bad);
    if(bad != 0) state.SkipWithError("result differs from std::stable_sort of each tile");
}

template <class Key, class Value, unsigned int Block, unsigned int Tile>
void register_tile(distribution dist)
{
    using cfg = config<Key, Value, Block, Tile>;
    for(const bool partial : {false, true})
    {
        for(const impl which : {impl::flash, impl::bitonic, impl::vendor})
        {
            if(!cfg::fits(which)) continue;
            std::string name = std::string("block/") + impl_label(which) + "/" + type_name<Key, Value>() + "/" +
                               clients::name_of(dist) + "/tile:" + std::to_string(Tile) +
                               "/block:" + std::to_string(Block);
            if(partial) name += "/valid:" + std::to_string(Tile - Tile / 4 + 1);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
                run_case<Key, Value, Block, Tile>(s, which, dist, partial);
            })
                ->UseManualTime()
                ->Iterations(1)
                ->Unit(benchmark::kMicrosecond);
        }
    }
}

template <class Key, class Value>
void register_all()
{
    for(const distribution dist : {distribution::uniform, distribution::few_unique})
    {
        register_tile<Key, Value, 64, 256>(dist);
        register_tile<Key, Value, 128, 512>(dist);
        register_tile<Key, Value, 256, 1024>(dist);
        register_tile<Key, Value, 256, 2048>(dist);
        register_tile<Key, Value, 256, 4096>(dist);
    }
}

} // namespace

int main(int argc, char** argv)
{
    register_all<std::uint32_t, empty_type>();
    register_all<float, empty_type>();
    register_all<std::uint32_t, std::uint32_t>();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
