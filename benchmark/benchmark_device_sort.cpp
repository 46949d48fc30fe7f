// Device-level sort: hipflashsort::sort_keys / sort_pairs against the vendor radix sort (CUB on
// NVIDIA, rocPRIM on AMD) in the same process. Each hipflashsort case also runs the vendor once
// and requires bitwise-identical keys (and values).
//   benchmark_device_sort [--benchmark_filter=...] [--benchmark_out=f.json --benchmark_out_format=json]
#include "bench_utils.hpp"

#include "../clients/common/vendor_sort.hpp"

#include <hipflashsort/device/device_flash_sort.hpp>

#include <cstdint>
#include <string>

namespace {

using clients::distribution;

template <class T>
const char* type_name()
{
    if(std::is_same<T, std::uint32_t>::value) return "u32";
    if(std::is_same<T, std::int32_t>::value) return "i32";
    if(std::is_same<T, float>::value) return "f32";
    if(std::is_same<T, std::uint64_t>::value) return "u64";
    if(std::is_same<T, double>::value) return "f64";
    return "?";
}

enum class impl
{
    hipflashsort,
    vendor
};

template <class Key, class Value, bool Pairs>
hipError_t enqueue(impl which, void* temp, std::size_t& bytes, const Key* in, Key* out, const Value* vin, Value* vout,
                   std::size_t n, hipStream_t stream)
{
    if(which == impl::hipflashsort)
    {
        if constexpr(Pairs)
            return hipflashsort::sort_pairs(temp, bytes, in, out, vin, vout, n, hipflashsort::order::ascending, stream);
        else
            return hipflashsort::sort_keys(temp, bytes, in, out, n, hipflashsort::order::ascending, stream);
    }
    if constexpr(Pairs)
        return vendor::sort_pairs(temp, bytes, in, out, vin, vout, n, false, stream);
    else
        return vendor::sort_keys(temp, bytes, in, out, n, false, stream);
}

template <class Key, class Value, bool Pairs>
void run_case(benchmark::State& state, impl which, std::size_t n, distribution d)
{
    hipStream_t stream = 0;
    bench::device_array<Key> in(n), out(n), check(n);
    bench::device_array<Value> vin(Pairs ? n : 0), vout(Pairs ? n : 0), vcheck(Pairs ? n : 0);
    BENCH_CHECK(clients::generate(in.ptr, n, d, 42));
    if constexpr(Pairs) BENCH_CHECK(clients::fill_index(vin.ptr, n));
    std::size_t bytes = 0;
    BENCH_CHECK((enqueue<Key, Value, Pairs>(which, nullptr, bytes, in.ptr, out.ptr, vin.ptr, vout.ptr, n, stream)));
    bench::device_array<char> temp(bytes);
    auto poison = [&] {
        (void)hipMemsetAsync(out.ptr, 0xA5, n * sizeof(Key), stream);
        if constexpr(Pairs) (void)hipMemsetAsync(vout.ptr, 0xA5, n * sizeof(Value), stream);
    };
    auto run = [&] {
        return enqueue<Key, Value, Pairs>(which, temp.ptr, bytes, in.ptr, out.ptr, vin.ptr, vout.ptr, n, stream);
    };
    if(!bench::time_sort(state, run, poison, n, Pairs ? 2 * (sizeof(Key) + sizeof(Value)) : 2 * sizeof(Key), stream))
        return;
    if(which == impl::hipflashsort)
    {
        // Verify against the vendor's result.
        std::size_t vbytes = 0;
        BENCH_CHECK((enqueue<Key, Value, Pairs>(impl::vendor, nullptr, vbytes, in.ptr, check.ptr, vin.ptr, vcheck.ptr, n, stream)));
        bench::device_array<char> vtemp(vbytes);
        BENCH_CHECK((enqueue<Key, Value, Pairs>(impl::vendor, vtemp.ptr, vbytes, in.ptr, check.ptr, vin.ptr, vcheck.ptr, n, stream)));
        bench::require_equal(state, out.ptr, check.ptr, Pairs ? vout.ptr : nullptr, vcheck.ptr, n,
                             "result differs from the vendor sort");
    }
}

template <class Key, class Value, bool Pairs>
void register_case(std::size_t n, distribution d)
{
    for(const impl which : {impl::hipflashsort, impl::vendor})
    {
        std::string name = std::string(Pairs ? "sort_pairs/" : "sort_keys/") +
                           (which == impl::hipflashsort ? "hipflashsort" : vendor::name()) + "/" + type_name<Key>() +
                           (Pairs ? std::string("+") + type_name<Value>() : std::string()) + "/" +
                           clients::name_of(d) + "/" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run_case<Key, Value, Pairs>(s, which, n, d); })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
    }
}

template <class Key, class Value, bool Pairs>
void register_sweep(unsigned int max_log2)
{
    for(unsigned int l = 10; l <= max_log2; l += 2) register_case<Key, Value, Pairs>(std::size_t(1) << l, distribution::uniform);
    if(max_log2 % 2 == 1) register_case<Key, Value, Pairs>(std::size_t(1) << max_log2, distribution::uniform);
}

} // namespace

int main(int argc, char** argv)
{
    register_sweep<std::uint32_t, int, false>(28);
    register_sweep<std::int32_t, int, false>(28);
    register_sweep<float, int, false>(28);
    register_sweep<std::uint64_t, int, false>(27);
    register_sweep<double, int, false>(27);
    register_sweep<std::uint32_t, std::uint32_t, true>(28);
    register_sweep<std::uint64_t, std::uint64_t, true>(27);
    for(const distribution d : clients::all_distributions)
    {
        if(d == distribution::uniform) continue; // in the sweeps
        register_case<std::uint32_t, int, false>(std::size_t(1) << 28, d);
        register_case<float, int, false>(std::size_t(1) << 28, d);
        // 8-byte items (u64 keys, u32+u32 pairs) take partition tiles of their own (12 items per thread).
        register_case<std::uint64_t, int, false>(std::size_t(1) << 27, d);
        register_case<std::uint32_t, std::uint32_t, true>(std::size_t(1) << 28, d);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
