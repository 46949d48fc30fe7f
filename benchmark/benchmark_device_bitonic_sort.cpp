// Device-level bitonic sort: hipflashsort::bitonic_sort_keys against, in the same process,
//   - naive-bitonic: the textbook GPU bitonic sort, one global-memory kernel per (merge, stride)
//     pair over the same padded images (the baseline the fused passes are measured against);
//   - the vendor radix sort (CUB on NVIDIA, rocPRIM on AMD).
// Every bitonic result is checked against the vendor's sorted keys on the GPU, comparing order
// images (bitwise equality with -0 and +0 identified: the bitonic sort orders -0 before +0, a
// stable radix sort keeps their input order).
//   benchmark_device_bitonic_sort [--benchmark_filter=...] [--benchmark_out=f.json --benchmark_out_format=json]
#include "bench_utils.hpp"

#include "../clients/common/vendor_sort.hpp"

#include <hipflashsort/device/device_bitonic_sort.hpp>

#include <cstdint>
#include <string>

namespace {

using clients::distribution;
using hipflashsort::order;

template <class Key>
using codec_of = hipflashsort::radix_key_codec<Key>;

template <class Key>
using image_of = typename codec_of<Key>::bit_key_type;

template <class T>
const char* type_name()
{
    if(std::is_same<T, std::uint32_t>::value) return "u32";
    if(std::is_same<T, float>::value) return "f32";
    return "?";
}

// ------------------------------------------------------------------ naive baseline

template <class Key>
__global__ void naive_encode_kernel(const Key* keys, image_of<Key>* images, std::uint64_t size, std::uint64_t padded)
{
    const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
    if(i < padded) images[i] = i < size ? codec_of<Key>::lossless_image(keys[i]) : image_of<Key>(~image_of<Key>(0));
}

/// One stage: thread i orders the pair (i, i ^ j), ascending when bit k of i is clear.
template <class Image>
__global__ void naive_stage_kernel(Image* images, std::uint64_t padded, std::uint64_t j, std::uint64_t k)
{
    const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
    const std::uint64_t partner = i ^ j;
    if(i >= padded || partner <= i) return;
    const Image a = images[i];
    const Image b = images[partner];
    const bool ascending = (i & k) == 0;
    if(ascending ? b < a : a < b)
    {
        images[i] = b;
        images[partner] = a;
    }
}

template <class Key>
__global__ void naive_decode_kernel(const image_of<Key>* images, Key* keys, std::uint64_t size)
{
    const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
    if(i < size) keys[i] = codec_of<Key>::decode_lossless(images[i]);
}

/// Ascending textbook bitonic sort with the library's two-phase interface.
template <class Key>
hipError_t naive_bitonic_sort(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t size,
                              hipStream_t stream)
{
    std::uint64_t padded = 1;
    while(padded < size) padded <<= 1;
    if(temp == nullptr)
    {
        bytes = padded * sizeof(image_of<Key>);
        return hipSuccess;
    }
    auto* images = static_cast<image_of<Key>*>(temp);
    constexpr unsigned int block = 256;
    const unsigned int grid = static_cast<unsigned int>((padded + block - 1) / block);
    naive_encode_kernel<<<grid, block, 0, stream>>>(in, images, size, padded);
    for(std::uint64_t k = 2; k <= padded; k <<= 1)
        for(std::uint64_t j = k / 2; j > 0; j >>= 1) naive_stage_kernel<<<grid, block, 0, stream>>>(images, padded, j, k);
    naive_decode_kernel<<<grid, block, 0, stream>>>(images, out, size);
    return hipGetLastError();
}

// ------------------------------------------------------------------ cases

enum class impl
{
    hipflashsort,
    naive,
    vendor
};

const char* impl_name(impl which)
{
    switch(which)
    {
        case impl::hipflashsort: return "hipflashsort";
        case impl::naive: return "naive-bitonic";
        case impl::vendor: return vendor::name();
    }
    return "?";
}

template <class Key>
hipError_t enqueue(impl which, void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n,
                   hipStream_t stream)
{
    switch(which)
    {
        case impl::hipflashsort: return hipflashsort::bitonic_sort_keys(temp, bytes, in, out, n, order::ascending, stream);
        case impl::naive: return naive_bitonic_sort(temp, bytes, in, out, n, stream);
        case impl::vendor: return vendor::sort_keys(temp, bytes, in, out, n, false, stream);
    }
    return hipErrorInvalidValue;
}

template <class Key>
__global__ void order_mismatch_kernel(const Key* a, const Key* b, std::uint64_t n, unsigned long long* mismatches)
{
    unsigned long long local = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
        i += std::uint64_t(gridDim.x) * blockDim.x)
        local += codec_of<Key>::order_image(a[i]) != codec_of<Key>::order_image(b[i]);
    if(local) atomicAdd(mismatches, local);
}

/// Positions whose keys differ other than by the sign of a zero (synchronous).
template <class Key>
hipError_t count_order_mismatches(const Key* a, const Key* b, std::uint64_t n, unsigned long long& mismatches)
{
    unsigned long long* d = nullptr;
    hipError_t e = hipMalloc(&d, sizeof(*d));
    if(e != hipSuccess) return e;
    e = hipMemset(d, 0, sizeof(*d));
    if(e == hipSuccess)
    {
        order_mismatch_kernel<<<1024, 256>>>(a, b, n, d);
        e = hipGetLastError();
    }
    if(e == hipSuccess) e = hipMemcpy(&mismatches, d, sizeof(*d), hipMemcpyDeviceToHost);
    (void)hipFree(d);
    return e;
}

template <class Key>
void run_case(benchmark::State& state, impl which, std::size_t n, distribution d)
{
    hipStream_t stream = 0;
    bench::device_array<Key> in(n), out(n), check(n);
    BENCH_CHECK(clients::generate(in.ptr, n, d, 42));
    std::size_t bytes = 0;
    BENCH_CHECK(enqueue<Key>(which, nullptr, bytes, in.ptr, out.ptr, n, stream));
    bench::device_array<char> temp(bytes);
    auto poison = [&] { (void)hipMemsetAsync(out.ptr, 0xA5, n * sizeof(Key), stream); };
    auto run = [&] { return enqueue<Key>(which, temp.ptr, bytes, in.ptr, out.ptr, n, stream); };
    if(!bench::time_sort(state, run, poison, n, 2 * sizeof(Key), stream)) return;
    if(which != impl::vendor)
    {
        std::size_t vbytes = 0;
        BENCH_CHECK(enqueue<Key>(impl::vendor, nullptr, vbytes, in.ptr, check.ptr, n, stream));
        bench::device_array<char> vtemp(vbytes);
        BENCH_CHECK(enqueue<Key>(impl::vendor, vtemp.ptr, vbytes, in.ptr, check.ptr, n, stream));
        BENCH_CHECK(hipDeviceSynchronize());
        unsigned long long bad = 0;
        BENCH_CHECK(count_order_mismatches(out.ptr, check.ptr, n, bad));
        state.counters["mismatches"] = double(bad);
        if(bad != 0) state.SkipWithError("result differs from the vendor sort");
    }
}

template <class Key>
void register_case(std::size_t n, distribution d)
{
    // hipflashsort first, then its peer for report.py (the naive bitonic sort), then the vendor.
    for(const impl which : {impl::hipflashsort, impl::naive, impl::vendor})
    {
        const std::string name = std::string("bitonic_sort_keys/") + impl_name(which) + "/" + type_name<Key>() + "/" +
                                 clients::name_of(d) + "/" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run_case<Key>(s, which, n, d); })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
    }
}

} // namespace

int main(int argc, char** argv)
{
    for(const unsigned int l : {20u, 22u, 24u})
    {
        register_case<std::uint32_t>(std::size_t(1) << l, distribution::uniform);
        register_case<float>(std::size_t(1) << l, distribution::uniform);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
