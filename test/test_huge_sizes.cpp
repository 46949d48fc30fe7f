// Sizes past 32-bit indexing: more than 2^32 u8 keys, n = UINT32_MAX, and segments with 64-bit
// offsets that straddle 2^32. A host reference of 4 GiB would take minutes, so the outputs are
// verified on the GPU: per-range 256-bin histograms of input and output must match, and no
// neighbouring pair inside a range may be out of order. Skips when the GPU lacks the memory.
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"

#include <hipflashsort/device/device_bitonic_sort.hpp>
#include <hipflashsort/device/device_flash_sort.hpp>
#include <hipflashsort/device/device_segmented_sort.hpp>

#include <cstdint>
#include <vector>

namespace {

using hipflashsort::order;
using test_utils::device_buffer;
using u64 = std::uint64_t;

constexpr u64 two_pow_32 = u64(1) << 32;
constexpr unsigned int block = 256;
constexpr unsigned int grid = 4096;

__host__ __device__ inline std::uint8_t key_at(u64 i, u64 seed)
{
    // splitmix64 finalizer; the high byte is skewed toward few values every 2^20 positions so
    // that equal-key runs of many sizes appear.
    u64 z = i + seed * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((i >> 20) & 7) == 3 ? static_cast<std::uint8_t>(z & 3) : static_cast<std::uint8_t>(z);
}

__global__ void generate_kernel(std::uint8_t* keys, u64 n, u64 seed)
{
    for(u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
        keys[i] = key_at(i, seed);
}

/// hist[r * 256 + v] += count of v in range r; out_of_order[r] += pairs (i - 1, i) inside range r
/// that break `ord`. Ranges are [begin[r], end[r]).
__global__ void census_kernel(const std::uint8_t* keys, const u64* begin, const u64* end, unsigned int ranges,
                              unsigned long long* hist, unsigned long long* out_of_order, bool descending)
{
    __shared__ unsigned int local[256];
    for(unsigned int r = 0; r < ranges; r++)
    {
        for(unsigned int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
        __syncthreads();
        unsigned int bad = 0;
        for(u64 i = begin[r] + blockIdx.x * u64(blockDim.x) + threadIdx.x; i < end[r];
            i += u64(gridDim.x) * blockDim.x)
        {
            atomicAdd(&local[keys[i]], 1u);
            if(i > begin[r]) bad += descending ? keys[i - 1] < keys[i] : keys[i - 1] > keys[i];
        }
        if(bad) atomicAdd(&out_of_order[r], static_cast<unsigned long long>(bad));
        __syncthreads();
        for(unsigned int b = threadIdx.x; b < 256; b += blockDim.x)
            if(local[b]) atomicAdd(&hist[r * 256 + b], static_cast<unsigned long long>(local[b]));
        __syncthreads();
    }
}

struct census
{
    std::vector<unsigned long long> hist, out_of_order;
};

void take_census(const std::uint8_t* keys, const std::vector<u64>& begins, const std::vector<u64>& ends,
                 bool descending, census& result)
{
    const unsigned int ranges = static_cast<unsigned int>(begins.size());
    device_buffer<u64> d_begin(ranges), d_end(ranges);
    device_buffer<unsigned long long> d_hist(ranges * 256), d_bad(ranges);
    HIP_CHECK(d_begin.upload(begins));
    HIP_CHECK(d_end.upload(ends));
    HIP_CHECK(hipMemset(d_hist.ptr, 0, ranges * 256 * sizeof(unsigned long long)));
    HIP_CHECK(hipMemset(d_bad.ptr, 0, ranges * sizeof(unsigned long long)));
    census_kernel<<<grid, block>>>(keys, d_begin.ptr, d_end.ptr, ranges, d_hist.ptr, d_bad.ptr, descending);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(d_hist.download(result.hist));
    HIP_CHECK(d_bad.download(result.out_of_order));
}

/// Skips the test unless `bytes` fit in free device memory with a 1 GiB margin.
#define REQUIRE_DEVICE_MEMORY(bytes)                                                            \
    do {                                                                                        \
        std::size_t free_ = 0, total_ = 0;                                                      \
        HIP_CHECK(hipMemGetInfo(&free_, &total_));                                              \
        if(free_ < (bytes) + (u64(1) << 30))                                                    \
            GTEST_SKIP() << "needs " << ((bytes) >> 20) << " MiB of device memory, " << (free_ >> 20) \
                         << " MiB free";                                                        \
    } while(0)

struct no_extra_check
{
    void operator()(const std::uint8_t*) const {}
};

/// Generates n keys, runs `sort(in, out, temp, bytes)` (a two-phase call), and compares the
/// census of input and output over `begins`/`ends`; positions outside them must keep the poison.
/// `extra(out)` checks anything else while the output still exists.
template <class Sort, class Extra = no_extra_check>
void check_huge(u64 n, u64 seed, bool descending, const std::vector<u64>& begins, const std::vector<u64>& ends,
                Sort sort, Extra extra = {})
{
    std::size_t temp_bytes = 0;
    HIP_CHECK(sort(nullptr, nullptr, nullptr, temp_bytes));
    REQUIRE_DEVICE_MEMORY(2 * n + temp_bytes);
    device_buffer<std::uint8_t> in(n), out(n);
    device_buffer<char> temp(temp_bytes);
    ASSERT_TRUE(in.ptr && out.ptr && temp.ptr) << "hipMalloc failed";
    generate_kernel<<<grid, block>>>(in.ptr, n, seed);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(out.poison());
    HIP_CHECK(sort(temp.ptr, in.ptr, out.ptr, temp_bytes));
    HIP_CHECK(hipDeviceSynchronize());

    census before, after;
    take_census(in.ptr, begins, ends, descending, before);
    take_census(out.ptr, begins, ends, descending, after);
    for(std::size_t r = 0; r < begins.size(); r++)
    {
        EXPECT_EQ(after.out_of_order[r], 0u) << "range " << r << " [" << begins[r] << ", " << ends[r] << ")";
        for(unsigned int v = 0; v < 256; v++)
            ASSERT_EQ(after.hist[r * 256 + v], before.hist[r * 256 + v]) << "range " << r << ", key " << v;
    }
    // Gaps between ranges: the poison byte, never written.
    std::vector<u64> gap_begin{0}, gap_end;
    for(std::size_t r = 0; r < begins.size(); r++)
    {
        gap_end.push_back(begins[r]);
        gap_begin.push_back(ends[r]);
    }
    gap_end.push_back(n);
    census gaps;
    take_census(out.ptr, gap_begin, gap_end, false, gaps);
    for(std::size_t g = 0; g < gap_begin.size(); g++)
        EXPECT_EQ(gaps.hist[g * 256 + 0xA5], gap_end[g] - gap_begin[g]) << "gap " << g << " was written";
    extra(out.ptr);
}

TEST(HugeSizes, SortKeysMoreThan2Pow32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const u64 n = two_pow_32 + 32;
    check_huge(n, 1, false, {0}, {n}, [&](void* temp, const std::uint8_t* in, std::uint8_t* out, std::size_t& bytes) {
        return hipflashsort::sort_keys(temp, bytes, in, out, n);
    });
}

TEST(HugeSizes, SortKeysUint32MaxDescending)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const u64 n = 0xFFFFFFFFull;
    check_huge(n, 2, true, {0}, {n}, [&](void* temp, const std::uint8_t* in, std::uint8_t* out, std::size_t& bytes) {
        return hipflashsort::sort_keys(temp, bytes, in, out, n, order::descending);
    });
}

TEST(HugeSizes, BitonicSortKeysMoreThan2Pow32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const u64 n = two_pow_32 + 32;
    check_huge(n, 3, false, {0}, {n}, [&](void* temp, const std::uint8_t* in, std::uint8_t* out, std::size_t& bytes) {
        return hipflashsort::bitonic_sort_keys(temp, bytes, in, out, n);
    });
}

TEST(HugeSizes, SegmentsWith64BitOffsetsAcross2Pow32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const u64 n = two_pow_32 + 4096;
    // Tiny, huge, one straddling 2^32, a gap, and a block-sized segment past 2^32.
    const std::vector<u64> begins{0, 5, (u64(1) << 31) + 7, two_pow_32 + 1000, two_pow_32 + 2000};
    const std::vector<u64> ends{3, (u64(1) << 31) + 7, two_pow_32 + 900, two_pow_32 + 1001, two_pow_32 + 3500};
    device_buffer<u64> d_begins(begins.size()), d_ends(ends.size());
    HIP_CHECK(d_begins.upload(begins));
    HIP_CHECK(d_ends.upload(ends));
    check_huge(n, 4, false, begins, ends,
               [&](void* temp, const std::uint8_t* in, std::uint8_t* out, std::size_t& bytes) {
                   return hipflashsort::segmented_sort_keys(temp, bytes, in, out, n, begins.size(), d_begins.ptr,
                                                            d_ends.ptr);
               });
}

// Pairs past 2^32: every value is a function of its key, so a key separated from its value
// shows up as a mismatch.
__global__ void pair_values_kernel(const std::uint8_t* keys, std::uint16_t* values, u64 n)
{
    for(u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
        values[i] = static_cast<std::uint16_t>(keys[i] * 257u ^ 0x5A5Au);
}

__global__ void pair_mismatch_kernel(const std::uint8_t* keys, const std::uint16_t* values, u64 n,
                                     unsigned long long* mismatches)
{
    unsigned int bad = 0;
    for(u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
        bad += values[i] != static_cast<std::uint16_t>(keys[i] * 257u ^ 0x5A5Au);
    if(bad) atomicAdd(mismatches, static_cast<unsigned long long>(bad));
}

TEST(HugeSizes, SortPairsMoreThan2Pow32)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const u64 n = two_pow_32 + 32;
    std::size_t probe = 0;
    HIP_CHECK(hipflashsort::sort_pairs(nullptr, probe, static_cast<const std::uint8_t*>(nullptr),
                                       static_cast<std::uint8_t*>(nullptr), static_cast<const std::uint16_t*>(nullptr),
                                       static_cast<std::uint16_t*>(nullptr), n));
    REQUIRE_DEVICE_MEMORY(2 * n + 4 * n + probe);
    device_buffer<std::uint16_t> values_in(n), values_out(n);
    device_buffer<unsigned long long> mismatches(1);
    ASSERT_TRUE(values_in.ptr && values_out.ptr && mismatches.ptr) << "hipMalloc failed";
    HIP_CHECK(hipMemset(mismatches.ptr, 0, sizeof(unsigned long long)));
    auto sort = [&](void* temp, const std::uint8_t* in, std::uint8_t* out, std::size_t& bytes) {
        // In the second phase the keys exist: derive the values from them, then sort the pairs.
        if(temp != nullptr) pair_values_kernel<<<grid, block>>>(in, values_in.ptr, n);
        return hipflashsort::sort_pairs(temp, bytes, in, out, values_in.ptr, values_out.ptr, n);
    };
    auto values_follow_keys = [&](const std::uint8_t* out) {
        pair_mismatch_kernel<<<grid, block>>>(out, values_out.ptr, n, mismatches.ptr);
        std::vector<unsigned long long> host;
        HIP_CHECK(mismatches.download(host));
        EXPECT_EQ(host[0], 0u) << "values separated from their keys";
    };
    check_huge(n, 5, false, {0}, {n}, sort, values_follow_keys);
}

} // namespace
