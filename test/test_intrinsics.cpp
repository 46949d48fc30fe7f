// The portable intrinsics against a host model of one wavefront.
#include "common/test_utils.hpp"

#include <hipflashsort/intrinsics/intrinsics.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr unsigned int W = hipflashsort::device_wavefront_size();

struct wide
{
    std::uint64_t a;
    std::uint32_t b;
    std::uint16_t c;
};

struct lane_results
{
    unsigned int lane;
    int xor_value;
    int up_value;
    int down_value;
    int bcast_value;
    wide wide_xor;
    double dbl;
    std::uint64_t ballot_odd;
    std::uint64_t lt_mask;
    std::uint64_t peers;
};

__global__ void intrinsics_kernel(lane_results* out, int width)
{
    const unsigned int tid = threadIdx.x;
    lane_results r;
    r.lane = hipflashsort::lane_id();
    const int v = static_cast<int>(tid * 7 + 3);
    r.xor_value = hipflashsort::shuffle_xor(v, 1, width);
    r.up_value = hipflashsort::shuffle_up(v, 2, width);
    r.down_value = hipflashsort::shuffle_down(v, 3, width);
    r.bcast_value = hipflashsort::shuffle(v, width - 1, width);
    wide w{0x0123456789abcdefull + tid, tid * 3u, static_cast<std::uint16_t>(tid)};
    r.wide_xor = hipflashsort::shuffle_xor(w, 2, width);
    r.dbl = hipflashsort::shuffle_xor(static_cast<double>(tid) + 0.5, 4, width);
    r.ballot_odd = hipflashsort::ballot(tid % 2 == 1);
    r.lt_mask = hipflashsort::lanemask_lt();
    r.peers = hipflashsort::match_any<3>(tid % 5);
    hipflashsort::wave_barrier();
    out[tid] = r;
}

// Lane i of wavefront w reduces in[w * W + i]; out gets each lane's min and max.
__global__ void wave_min_max_kernel(const std::uint32_t* in, std::uint32_t* out)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = hipflashsort::wave_min(in[i]);
    out[2 * i + 1] = hipflashsort::wave_max(in[i]);
}

// Every thread of block b writes syncthreads_or over its block, where the only true thread (if
// any) is thread which[b] (negative: none).
__global__ void syncthreads_or_kernel(const int* which, int* out)
{
    const bool mine = static_cast<int>(threadIdx.x) == which[blockIdx.x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = hipflashsort::syncthreads_or(mine) ? 1 : 0;
}

TEST(Intrinsics, SyncthreadsOrSeesAnyThread)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const unsigned int block = 4 * W;
    const std::vector<int> which = {-1, 0, int(block) - 1, int(W) + 3, -1, int(2 * W)};
    const std::size_t n = which.size() * block;
    int* d_which = nullptr;
    int* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_which, which.size() * sizeof(int)));
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(d_which, which.data(), which.size() * sizeof(int), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(d_out, 0x7F, n * sizeof(int)));
    syncthreads_or_kernel<<<static_cast<unsigned int>(which.size()), block>>>(d_which, d_out);
    HIP_CHECK(hipGetLastError());
    std::vector<int> out(n);
    HIP_CHECK(hipMemcpy(out.data(), d_out, n * sizeof(int), hipMemcpyDeviceToHost));
    for(std::size_t i = 0; i < n; i++) ASSERT_EQ(out[i], which[i / block] >= 0 ? 1 : 0) << "thread " << i;
    HIP_CHECK(hipFree(d_which));
    HIP_CHECK(hipFree(d_out));
}

// Each thread prefetches its input's line and stores f(in[i]) with store_streaming: the hints
// must not change what is stored, for arithmetic types (the hinted store) and others (plain).
template <class T>
__global__ void cache_hints_kernel(const T* in, T* out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if(i >= n) return;
    hipflashsort::prefetch_l2(in + i);
    hipflashsort::store_streaming(out + i, static_cast<T>(in[i] * 3 + 1));
}

template <>
__global__ void cache_hints_kernel<wide>(const wide* in, wide* out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if(i >= n) return;
    hipflashsort::prefetch_l2(in + i);
    const wide w = in[i];
    hipflashsort::store_streaming(out + i, wide{w.a * 3 + 1, w.b * 3 + 1, static_cast<std::uint16_t>(w.c * 3 + 1)});
}

template <class T>
bool same(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0; // bitwise, for the floats
}

bool same(const wide& a, const wide& b) { return a.a == b.a && a.b == b.b && a.c == b.c; } // not the padding

template <class T, class Make>
void check_cache_hints(Make make, unsigned int n)
{
    std::vector<T> in(n), expected(n);
    for(unsigned int i = 0; i < n; i++)
    {
        in[i] = make(i);
        expected[i] = make(i, true);
    }
    T* d_in = nullptr;
    T* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_in, n * sizeof(T)));
    HIP_CHECK(hipMalloc(&d_out, n * sizeof(T)));
    HIP_CHECK(hipMemcpy(d_in, in.data(), n * sizeof(T), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(d_out, 0xA5, n * sizeof(T)));
    cache_hints_kernel<T><<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    HIP_CHECK(hipGetLastError());
    std::vector<T> out(n);
    HIP_CHECK(hipMemcpy(out.data(), d_out, n * sizeof(T), hipMemcpyDeviceToHost));
    for(unsigned int i = 0; i < n; i++) ASSERT_TRUE(same(out[i], expected[i])) << "element " << i << ", " << sizeof(T) << " bytes";
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
}

TEST(Intrinsics, CacheHintsKeepStoredValues)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const unsigned int n = 1000; // a partial last block
    const auto f = [](auto x, bool applied) { return applied ? decltype(x)(x * 3 + 1) : x; };
    check_cache_hints<std::uint8_t>([&](unsigned int i, bool a = false) { return f(std::uint8_t(i * 7), a); }, n);
    check_cache_hints<std::int16_t>([&](unsigned int i, bool a = false) { return f(std::int16_t(i * 131 - 9000), a); }, n);
    check_cache_hints<std::uint32_t>([&](unsigned int i, bool a = false) { return f(i * 2654435761u, a); }, n);
    check_cache_hints<std::uint64_t>([&](unsigned int i, bool a = false) { return f(std::uint64_t(i) << 40 | i, a); }, n);
    check_cache_hints<float>([&](unsigned int i, bool a = false) { return f(float(i) * 0.25f - 7.0f, a); }, n);
    // Values whose f is exact, so that a fused multiply-add gives the same bits.
    check_cache_hints<double>([&](unsigned int i, bool a = false) { return f(double(i) * 0.125 - 0.5, a); }, n);
    check_cache_hints<wide>(
        [](unsigned int i, bool a = false) {
            const wide w{std::uint64_t(i) * 977, i * 5u, static_cast<std::uint16_t>(i)};
            return a ? wide{w.a * 3 + 1, w.b * 3 + 1, static_cast<std::uint16_t>(w.c * 3 + 1)} : w;
        },
        n);
}

TEST(Intrinsics, DeviceWavefrontSizeMatchesHostQuery)
{
    HIPFLASHSORT_REQUIRE_GPU();
    unsigned int size = 0;
    HIP_CHECK(hipflashsort::wavefront_size(size));
    EXPECT_EQ(size, W);
}

TEST(Intrinsics, ShuffleBallotMatchOneWavefront)
{
    HIPFLASHSORT_REQUIRE_GPU();
    lane_results* d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_out, W * sizeof(lane_results)));
    for(int width = 8; width <= static_cast<int>(W); width *= 2)
    {
        HIP_CHECK(hipMemset(d_out, 0xAB, W * sizeof(lane_results)));
        intrinsics_kernel<<<1, W>>>(d_out, width);
        HIP_CHECK(hipGetLastError());
        std::vector<lane_results> out(W);
        HIP_CHECK(hipMemcpy(out.data(), d_out, W * sizeof(lane_results), hipMemcpyDeviceToHost));
        std::uint64_t odd = 0;
        for(unsigned int i = 0; i < W; i++) odd |= (i % 2 == 1) ? (std::uint64_t(1) << i) : 0;
        for(unsigned int i = 0; i < W; i++)
        {
            const unsigned int base = i & ~(width - 1u);
            const unsigned int in_group = i - base;
            const lane_results& r = out[i];
            EXPECT_EQ(r.lane, i);
            EXPECT_EQ(r.xor_value, int((i ^ 1) * 7 + 3));
            EXPECT_EQ(r.up_value, int((in_group >= 2 ? i - 2 : i) * 7 + 3)) << "lane " << i << " width " << width;
            EXPECT_EQ(r.down_value, int((in_group + 3 < unsigned(width) ? i + 3 : i) * 7 + 3)) << "lane " << i;
            EXPECT_EQ(r.bcast_value, int((base + width - 1) * 7 + 3));
            EXPECT_EQ(r.wide_xor.a, 0x0123456789abcdefull + (i ^ 2));
            EXPECT_EQ(r.wide_xor.b, (i ^ 2) * 3u);
            EXPECT_EQ(r.wide_xor.c, (i ^ 2));
            EXPECT_EQ(r.dbl, double(i ^ 4) + 0.5);
            EXPECT_EQ(r.ballot_odd, odd);
            EXPECT_EQ(r.lt_mask, (std::uint64_t(1) << i) - 1);
            std::uint64_t peers = 0;
            for(unsigned int j = 0; j < W; j++) peers |= ((j % 5) == (i % 5)) ? (std::uint64_t(1) << j) : 0;
            EXPECT_EQ(r.peers, peers) << "lane " << i;
        }
    }
    HIP_CHECK(hipFree(d_out));
}

// Unsigned order over the whole word (a signed reduction would put 0x80000000 below 0), every
// lane getting the result, with the extreme held by one lane anywhere in the wavefront.
TEST(Intrinsics, WaveMinMaxOverOneWavefront)
{
    HIPFLASHSORT_REQUIRE_GPU();
    constexpr unsigned int waves = 64;
    std::vector<std::uint32_t> in(waves * W);
    std::uint32_t state = 12345u;
    for(unsigned int w = 0; w < waves; w++)
    {
        for(unsigned int i = 0; i < W; i++)
        {
            state = state * 1664525u + 1013904223u;
            in[w * W + i] = w % 4 == 0 ? state : w % 4 == 1 ? 0x80000000u + (state >> 28) : 0x40000000u + (state >> 20);
        }
        const unsigned int lone = (w * 7) % W;
        if(w % 4 == 2) in[w * W + lone] = 0u;
        if(w % 4 == 3) in[w * W + lone] = 0xffffffffu;
    }
    std::uint32_t *d_in = nullptr, *d_out = nullptr;
    HIP_CHECK(hipMalloc(&d_in, in.size() * sizeof(std::uint32_t)));
    HIP_CHECK(hipMalloc(&d_out, 2 * in.size() * sizeof(std::uint32_t)));
    HIP_CHECK(hipMemcpy(d_in, in.data(), in.size() * sizeof(std::uint32_t), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(d_out, 0xAB, 2 * in.size() * sizeof(std::uint32_t)));
    wave_min_max_kernel<<<waves / 4, 4 * W>>>(d_in, d_out);
    HIP_CHECK(hipGetLastError());
    std::vector<std::uint32_t> out(2 * in.size());
    HIP_CHECK(hipMemcpy(out.data(), d_out, out.size() * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
    for(unsigned int w = 0; w < waves; w++)
    {
        const auto first = in.begin() + w * W;
        const std::uint32_t lo = *std::min_element(first, first + W), hi = *std::max_element(first, first + W);
        for(unsigned int i = 0; i < W; i++)
        {
            EXPECT_EQ(out[2 * (w * W + i)], lo) << "wavefront " << w << " lane " << i;
            EXPECT_EQ(out[2 * (w * W + i) + 1], hi) << "wavefront " << w << " lane " << i;
        }
    }
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
}

} // namespace
