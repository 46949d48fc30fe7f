// Probe (sixty-seventh session): segments of 1025-16384 keys (u32, f32) sorted by the library's
// classes there (the block networks bitonic_block_segments_kernel of 2 and 4 wavefronts for
// 1025-2048 and 2049-4096 keys, the flash network class of 16384 keys with 512 threads above)
// against the flash network sorter (buckets of about 20 keys, 32-key networks) built for other
// capacities and block sizes. 2^26 keys, uniform, one block per segment, median of 15 timed runs
// after two warm-ups, every result compared with a host sort of each segment.
#include <hip/hip_runtime.h>
#include "hipflashsort/device/detail/flash_network_kernels.hpp"
#include "hipflashsort/device/detail/segmented_kernels.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
using namespace hipflashsort;
using namespace hipflashsort::detail;

#define CK(x) do { hipError_t e = (x); if(e != hipSuccess) { printf("%s: %s\n", #x, hipGetErrorString(e)); exit(1); } } while(0)

template <class Key>
__global__ void gen(Key* k, std::uint64_t n, std::uint64_t seed)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    {
        std::uint64_t x = i ^ (seed * 0x9e3779b97f4a7c15ull);
        x += 0x9e3779b97f4a7c15ull; x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull; x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        if constexpr(std::is_floating_point<Key>::value) k[i] = static_cast<Key>(double(x >> 11) * (1.0 / 9007199254740992.0));
        else k[i] = static_cast<Key>(x);
    }
}

float time_it(const std::function<void()>& launch)
{
    hipEvent_t a, b; CK(hipEventCreate(&a)); CK(hipEventCreate(&b));
    std::vector<float> t;
    for(int r = 0; r < 17; r++)
    {
        CK(hipEventRecord(a)); launch(); CK(hipEventRecord(b)); CK(hipEventSynchronize(b));
        float ms; CK(hipEventElapsedTime(&ms, a, b)); if(r >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class Key>
struct probe
{
    std::uint64_t n;
    Key *in, *out; std::uint64_t* list; segment_range* deferred; unsigned int* dcount; unsigned int count = 0;
    std::vector<Key> hin, ref, hout;
    order ord = order::ascending;

    template <unsigned int Block, unsigned int Capacity>
    void flash(const char* name, unsigned int len)
    {
        if(len > Capacity) return;
        using sorter = flash_network_sort<Key, Block, Capacity>;
        auto k = flash_network_segments_kernel<Key, empty_type, Block, Capacity>;
        const unsigned int lds = sorter::lds_bytes(sorter::full_slots);
        CK(hipFuncSetAttribute(reinterpret_cast<const void*>(k), hipFuncAttributeMaxDynamicSharedMemorySize, lds));
        run(name, lds, [=] { CK(hipMemsetAsync(dcount, 0, 4)); k<<<count, Block, lds>>>(list, count, in, out, nullptr, nullptr, nullptr, deferred, dcount, ord); });
    }
    template <unsigned int Waves>
    void network(const char* name, unsigned int len)
    {
        if(len > Waves * 1024) return;
        run(name, 0, [=] { bitonic_block_segments_kernel<Key, Waves><<<count, Waves * 32>>>(list, count, in, out, ord); });
    }
    void run(const char* name, unsigned int lds, const std::function<void()>& go)
    {
        CK(hipMemset(dcount, 0, 4));
        CK(hipMemset(out, 0xA5, n * sizeof(Key)));
        go(); CK(hipGetLastError()); CK(hipDeviceSynchronize());
        unsigned int dc = 0; CK(hipMemcpy(&dc, dcount, 4, hipMemcpyDeviceToHost));
        CK(hipMemcpy(hout.data(), out, n * sizeof(Key), hipMemcpyDeviceToHost));
        const bool ok = std::memcmp(hout.data(), ref.data(), n * sizeof(Key)) == 0;
        const float ms = time_it(go);
        printf("%s len %5u %-18s lds %6u %8.3f ms %8.2f Gkeys/s %s deferred %u\n", std::is_floating_point<Key>::value ? "f32" : "u32",
               last_len, name, lds, ms, n / ms * 1e-6, ok ? "ok" : "WRONG", dc);
    }
    unsigned int last_len = 0;
    void lengths(std::initializer_list<unsigned int> ls)
    {
        for(unsigned int len : ls)
        {
            last_len = len;
            std::vector<std::uint64_t> hl;
            ref = hin;
            for(std::uint64_t b = 0; b < n; b += len)
            {
                const std::uint64_t e = std::min(n, b + len);
                hl.push_back(packed_segment::pack(segment_range{b, e}));
                std::sort(ref.begin() + b, ref.begin() + e);
            }
            count = static_cast<unsigned int>(hl.size());
            CK(hipMemcpy(list, hl.data(), hl.size() * 8, hipMemcpyHostToDevice));
            network<2>("network_2w", len);
            network<4>("network_4w", len);
            flash<128, 2048>("flash_2048_128", len);
            flash<256, 2048>("flash_2048_256", len);
            flash<128, 4096>("flash_4096_128", len);
            flash<256, 4096>("flash_4096_256", len);
            flash<512, 4096>("flash_4096_512", len);
            flash<256, 8192>("flash_8192_256", len);
            flash<512, 8192>("flash_8192_512", len);
            flash<256, 16384>("flash_16384_256", len);
            flash<512, 16384>("flash_16384_512", len);
        }
    }
    void go()
    {
        n = std::uint64_t(1) << 26;
        CK(hipMalloc(&in, n * sizeof(Key))); CK(hipMalloc(&out, n * sizeof(Key))); CK(hipMalloc(&list, n / 1024 * 8 + 64));
        CK(hipMalloc(&deferred, n / 1024 * sizeof(segment_range) + 64)); CK(hipMalloc(&dcount, 4));
        gen<<<4096, 256>>>(in, n, 7); CK(hipDeviceSynchronize());
        hin.resize(n); hout.resize(n);
        CK(hipMemcpy(hin.data(), in, n * sizeof(Key), hipMemcpyDeviceToHost));
        lengths({1025, 1500, 2048, 2049, 3000, 4096, 4097, 6000, 8192, 12000, 16384});
        CK(hipFree(in)); CK(hipFree(out)); CK(hipFree(list)); CK(hipFree(deferred)); CK(hipFree(dcount));
    }
};

int main()
{
    probe<std::uint32_t>{}.go();
    probe<float>{}.go();
    return 0;
}
