// Segmented sort over 2^26 keys: hipflashsort::segmented_sort_keys / _pairs against the vendor
// (CUB DeviceSegmentedSort on NVIDIA, rocPRIM segmented_radix_sort on AMD), same process. Each
// hipflashsort case also runs the vendor once and requires bitwise-identical results.
#include "bench_utils.hpp"

#include "../clients/common/vendor_sort.hpp"

#include <hipflashsort/device/device_segmented_sort.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t total_keys = std::size_t(1) << 26;

// Segment boundaries: fixed length, or (length 0) a power-law mix from 1 to 2^17 keys.
std::vector<int> make_offsets(std::size_t length, std::size_t n)
{
    std::vector<int> offsets{0};
    std::mt19937_64 rng(2024);
    std::size_t at = 0;
    while(at < n)
    {
        std::size_t s = length;
        if(length == 0)
        {
            const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
            s = static_cast<std::size_t>(std::pow(2.0, 17.0 * u * u)) ;
        }
        at = std::min(n, at + s);
        offsets.push_back(static_cast<int>(at));
    }
    return offsets;
}

template <class Key, bool Pairs>
hipError_t enqueue(bool ours, void* temp, std::size_t& bytes, const Key* in, Key* out, const std::uint32_t* vin,
                   std::uint32_t* vout, std::size_t n, std::size_t segments, const int* begins, const int* ends,
                   hipStream_t stream)
{
    if(ours)
    {
        if constexpr(Pairs)
            return hipflashsort::segmented_sort_pairs(temp, bytes, in, out, vin, vout, n, segments, begins, ends,
                                                      hipflashsort::order::ascending, stream);
        else
            return hipflashsort::segmented_sort_keys(temp, bytes, in, out, n, segments, begins, ends,
                                                     hipflashsort::order::ascending, stream);
    }
    return vendor::segmented_sort(temp, bytes, in, out, Pairs ? vin : nullptr, vout, n, segments, begins, ends, stream);
}

template <class Key, bool Pairs>
void run_case(benchmark::State& state, bool ours, std::size_t length, clients::distribution dist)
{
    const std::size_t n = total_keys;
    const std::vector<int> offsets = make_offsets(length, n);
    const std::size_t segments = offsets.size() - 1;
    hipStream_t stream = 0;
    bench::device_array<Key> in(n), out(n), check(n);
    bench::device_array<std::uint32_t> vin(Pairs ? n : 0), vout(Pairs ? n : 0), vcheck(Pairs ? n : 0);
    bench::device_array<int> d_offsets(offsets.size());
    BENCH_CHECK(hipMemcpy(d_offsets.ptr, offsets.data(), offsets.size() * sizeof(int), hipMemcpyHostToDevice));
    const int* begins = d_offsets.ptr;
    const int* ends = d_offsets.ptr + 1;
    BENCH_CHECK(clients::generate(in.ptr, n, dist, 7));
    if constexpr(Pairs) BENCH_CHECK(clients::fill_index(vin.ptr, n));
    std::size_t bytes = 0;
    BENCH_CHECK((enqueue<Key, Pairs>(ours, nullptr, bytes, in.ptr, out.ptr, vin.ptr, vout.ptr, n, segments, begins, ends, stream)));
    bench::device_array<char> temp(bytes);
    auto poison = [&] {
        (void)hipMemsetAsync(out.ptr, 0xA5, n * sizeof(Key), stream);
        if constexpr(Pairs) (void)hipMemsetAsync(vout.ptr, 0xA5, n * sizeof(std::uint32_t), stream);
    };
    auto run = [&] {
        return enqueue<Key, Pairs>(ours, temp.ptr, bytes, in.ptr, out.ptr, vin.ptr, vout.ptr, n, segments, begins, ends, stream);
    };
    if(!bench::time_sort(state, run, poison, n, Pairs ? 2 * (sizeof(Key) + 4) : 2 * sizeof(Key), stream)) return;
    state.counters["segments"] = double(segments);
    if(ours)
    {
        std::size_t vbytes = 0;
        BENCH_CHECK((enqueue<Key, Pairs>(false, nullptr, vbytes, in.ptr, check.ptr, vin.ptr, vcheck.ptr, n, segments, begins, ends, stream)));
        bench::device_array<char> vtemp(vbytes);
        BENCH_CHECK((enqueue<Key, Pairs>(false, vtemp.ptr, vbytes, in.ptr, check.ptr, vin.ptr, vcheck.ptr, n, segments, begins, ends, stream)));
        bench::require_equal(state, out.ptr, check.ptr, Pairs ? vout.ptr : nullptr, vcheck.ptr, n,
                             "result differs from the vendor sort");
    }
}

template <class Key, bool Pairs>
void register_all(const char* type, std::initializer_list<std::size_t> lengths,
                  clients::distribution dist = clients::distribution::uniform)
{
    for(const std::size_t length : lengths)
    {
        for(const bool ours : {true, false})
        {
            const std::string name = std::string(Pairs ? "segmented_pairs/" : "segmented_keys/") +
                                     (ours ? "hipflashsort" : vendor::name()) + "/" + type + "/" +
                                     (length ? std::to_string(length) : std::string("power-law"));
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run_case<Key, Pairs>(s, ours, length, dist); })
                ->UseManualTime()
                ->Iterations(1)
                ->Unit(benchmark::kMillisecond);
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    // Each power of two that ends a network class and the size one above it (16 / 17, 64 / 65,
    // 256 / 257, 512 / 513, 1024 / 1025, 2048 / 2049): the networks pad a segment to their
    // capacity, so one key above it a segment can cost about what one of twice its size does (the
    // sixty-seventh session's probe: f32 segments of 2048 keys 153.4 Gkeys/s, of 2049 66.7).
    const auto lengths = {std::size_t(16),   std::size_t(17),   std::size_t(32),   std::size_t(64),
                          std::size_t(65),   std::size_t(112),  std::size_t(113),  std::size_t(256),
                          std::size_t(257),  std::size_t(512),  std::size_t(513),  std::size_t(1000),
                          std::size_t(1024), std::size_t(1025), std::size_t(2048), std::size_t(2049),
                          std::size_t(4096), std::size_t(16384), std::size_t(65536), std::size_t(0)};
    register_all<float, false>("f32", lengths);
    register_all<std::uint32_t, false>("u32", lengths);
    register_all<float, true>("f32+u32", lengths);
    register_all<std::uint32_t, true>("u32+u32", lengths);
    // Signed floats (normal keys about zero): the range of nearly every segment holds zero, which
    // the float sorters of the 4097-65536 classes treat apart (notes of -0 / +0 order).
    register_all<float, false>("f32-normal", {4096, 8192, 16384, 65536, 0}, clients::distribution::normal);
    // Keys alone of 2049-8192: 4-byte integers of 2049-4096 and keys of 4097-8192 take the flash
    // network sorter with 128 and 256 threads on NVIDIA, floats of 2049-4096 the block network.
    register_all<float, false>("f32", {3000, 4097, 6000, 8192});
    register_all<std::uint32_t, false>("u32", {3000, 4097, 6000, 8192});
    // Keys alone in segments of up to 16 keys are sorted one segment per thread; normal floats
    // hold zeros, whose input order that class restores.
    register_all<float, false>("f32", {4, 8, 12});
    register_all<std::uint32_t, false>("u32", {4, 8, 12});
    register_all<float, false>("f32-normal", {16}, clients::distribution::normal);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
