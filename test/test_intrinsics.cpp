// The portable intrinsics against a host model of one wavefront.
#include "common/test_utils.hpp"

#include <hipflashsort/intrinsics/intrinsics.hpp>

#include <cstdint>
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

} // namespace
