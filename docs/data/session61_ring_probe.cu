// Sixty-first session probe: does writing a scatter's output in whole aligned lines make it
// faster? Plain CUDA; built with nvcc -O3 -arch=sm_90. Output: session61_ring_probe_h200.txt.
//
// 2^28 random u32 keys go to 256 buckets (the top 8 bits), each block taking a contiguous chunk
// of tiles (256 threads x 16 keys) with its share of each bucket one range (hipflashsort's count
// matrix), as the fifty-seventh session's probe (session57_fronts_probe.cu, whose chunked kernel
// and helpers this file reuses) did. Two ways to write a tile:
// - staged (that probe's chunked kernel): rank in LDS, stage the tile in bucket order, write each
//   bucket's run of the tile, about 16 keys (64 bytes), from consecutive threads; the runs' ends
//   are partial 32-byte sectors and lines, completed by the next tile's run;
// - ring: each bucket keeps a ring of W slots in LDS indexed by output position mod W. A key is
//   stored at its output position's slot (a key beyond the ring's reach is written straight
//   out), and after each tile a wavefront writes every bucket's completed 128-byte lines from
//   its ring, whole and aligned; partial lines only at a chunk's ends.
// Both rank with LDS atomics (not stable; the check is per bucket: every key within its bucket's
// range of positions, and the sums of the keys and of a hash of them equal to the input's).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

#ifndef BUCKETS
#define BUCKETS 256
#endif
constexpr unsigned int block = 256, items = 16, tile = block * items, buckets = BUCKETS;
constexpr unsigned int bucket_bits = buckets == 64 ? 6 : buckets == 128 ? 7 : 8;
static_assert(buckets <= block && (1u << bucket_bits) == buckets, "a thread per bucket");

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if(e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
    } while(0)

__device__ std::uint32_t hash(std::uint64_t i)
{
    i ^= i >> 33; i *= 0xff51afd7ed558ccdull; i ^= i >> 33; i *= 0xc4ceb9fe1a85ec53ull; i ^= i >> 33;
    return static_cast<std::uint32_t>(i);
}

__global__ void generate(std::uint32_t* keys, std::uint64_t n)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
        keys[i] = hash(i + 12345);
}

__device__ unsigned int bucket_of(std::uint32_t k) { return k >> (32 - bucket_bits); }
__device__ bool owns_bucket() { return threadIdx.x < buckets; }

// Counts of each tile's buckets: counts[t * buckets + b].
__global__ void tile_histogram(const std::uint32_t* keys, unsigned int* counts)
{
    __shared__ unsigned int c[buckets];
    if(owns_bucket()) c[threadIdx.x] = 0;
    __syncthreads();
    const std::uint32_t* in = keys + std::uint64_t(blockIdx.x) * tile;
    for(unsigned int r = 0; r < items; r++) atomicAdd(&c[bucket_of(in[r * block + threadIdx.x])], 1u);
    __syncthreads();
    if(owns_bucket()) counts[std::uint64_t(blockIdx.x) * buckets + threadIdx.x] = c[threadIdx.x];
}

// Exclusive prefix of each bucket's counts over the tiles (one block per bucket, one thread per
// run of tiles), plus the bucket's total.
__global__ void column_scan(const unsigned int* counts, unsigned int* offsets, unsigned int tiles, unsigned int* totals)
{
    __shared__ unsigned int sums[block];
    const unsigned int b = blockIdx.x, per = (tiles + block - 1) / block;
    unsigned int s = 0;
    for(unsigned int t = threadIdx.x * per; t < tiles && t < (threadIdx.x + 1) * per; t++) s += counts[std::uint64_t(t) * buckets + b];
    sums[threadIdx.x] = s;
    __syncthreads();
    if(threadIdx.x == 0)
    {
        unsigned int run = 0;
        for(unsigned int i = 0; i < block; i++) { const unsigned int x = sums[i]; sums[i] = run; run += x; }
        totals[b] = run;
    }
    __syncthreads();
    unsigned int run = sums[threadIdx.x];
    for(unsigned int t = threadIdx.x * per; t < tiles && t < (threadIdx.x + 1) * per; t++)
    {
        offsets[std::uint64_t(t) * buckets + b] = run;
        run += counts[std::uint64_t(t) * buckets + b];
    }
}

__global__ void add_bucket_starts(unsigned int* offsets, const unsigned int* starts, std::uint64_t entries)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < entries; i += gridDim.x * std::uint64_t(blockDim.x))
        offsets[i] += starts[i % buckets];
}

// Exclusive prefix of x over the block's threads (one per bucket).
__device__ unsigned int exclusive_scan(unsigned int x, unsigned int* wave_sums)
{
    const unsigned int lane = threadIdx.x % 32, wave = threadIdx.x / 32;
    unsigned int v = x;
    for(unsigned int d = 1; d < 32; d *= 2)
    {
        const unsigned int u = __shfl_up_sync(0xffffffffu, v, d);
        if(lane >= d) v += u;
    }
    if(lane == 31) wave_sums[wave] = v;
    __syncthreads();
    unsigned int before = 0;
    for(unsigned int w = 0; w < wave; w++) before += wave_sums[w];
    __syncthreads(); // wave_sums is written again by the next tile
    return before + v - x;
}

// Tile t of the scatter's order, for block `blk` of `grid`, its j-th tile.
template <bool Interleaved>
__device__ unsigned int tile_index(unsigned int blk, unsigned int j, unsigned int grid, unsigned int tiles)
{
    if(Interleaved) return blk + j * grid;
    const unsigned int per = (tiles + grid - 1) / grid;
    return blk * per + j;
}

// `offsets` holds, for every tile, where its run of each bucket starts. Chunked blocks read it
// only for their first tile and then move their own cursors on (the count-matrix layout);
// interleaved blocks read it for every tile.
template <bool Interleaved, bool Record = false>
__global__ __launch_bounds__(block, 3) void scatter(const std::uint32_t* keys, std::uint32_t* out,
                                                    const unsigned int* offsets, unsigned int tiles,
                                                    std::uint64_t* plan = nullptr, std::uint32_t* staged_keys = nullptr)
{
    __shared__ unsigned int count[buckets], start[buckets];
    __shared__ unsigned long long cursor[buckets], base[buckets];
    __shared__ std::uint32_t staged[tile];
    __shared__ unsigned int wave_sums[block / 32];
    const unsigned int per = (tiles + gridDim.x - 1) / gridDim.x;
    const unsigned int mine = Interleaved ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x
                                          : (blockIdx.x * per >= tiles ? 0 : min(per, tiles - blockIdx.x * per));
    if(!Interleaved && mine != 0 && owns_bucket())
        cursor[threadIdx.x] = offsets[std::uint64_t(tile_index<false>(blockIdx.x, 0, gridDim.x, tiles)) * buckets + threadIdx.x];
    std::uint32_t k[items];
    if(mine != 0)
    {
        const std::uint32_t* in = keys + std::uint64_t(tile_index<Interleaved>(blockIdx.x, 0, gridDim.x, tiles)) * tile;
        for(unsigned int r = 0; r < items; r++) k[r] = in[r * block + threadIdx.x];
    }
    for(unsigned int j = 0; j < mine; j++)
    {
        const unsigned int t = tile_index<Interleaved>(blockIdx.x, j, gridDim.x, tiles);
        if(owns_bucket()) count[threadIdx.x] = 0;
        if(Interleaved && owns_bucket()) cursor[threadIdx.x] = offsets[std::uint64_t(t) * buckets + threadIdx.x];
        __syncthreads();
        unsigned int rank[items];
        for(unsigned int r = 0; r < items; r++) rank[r] = atomicAdd(&count[bucket_of(k[r])], 1u);
        __syncthreads();
        const unsigned int first = exclusive_scan(owns_bucket() ? count[threadIdx.x] : 0u, wave_sums);
        if(owns_bucket()) start[threadIdx.x] = first;
        if(owns_bucket()) base[threadIdx.x] = cursor[threadIdx.x] - first; // a staged key at slot s goes to base + s
        __syncthreads();
        for(unsigned int r = 0; r < items; r++) staged[start[bucket_of(k[r])] + rank[r]] = k[r];
        __syncthreads();
        if(j + 1 < mine) // the next tile's loads in flight during the write-out
        {
            const std::uint32_t* in = keys + std::uint64_t(tile_index<Interleaved>(blockIdx.x, j + 1, gridDim.x, tiles)) * tile;
            for(unsigned int r = 0; r < items; r++) k[r] = in[r * block + threadIdx.x];
        }
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            const unsigned int slot = r * block + threadIdx.x;
            const std::uint32_t key = staged[slot];
            if(Record)
            {
                plan[std::uint64_t(t) * tile + slot] = base[bucket_of(key)] + slot;
                staged_keys[std::uint64_t(t) * tile + slot] = key;
            }
            else out[base[bucket_of(key)] + slot] = key;
        }
        __syncthreads();
        if(!Interleaved && owns_bucket()) cursor[threadIdx.x] += count[threadIdx.x];
    }
}


// The ring's slots of bucket b are ring[b * W, (b + 1) * W); position p sits at slot p mod W.
// flushed[b]: positions of the bucket below it are written; cursor[b]: the bucket's next position.
// After each tile, every (block / buckets)-th thread takes one bucket, so that all wavefronts
// share the flush: it moves the bucket's cursor, works out which of its positions leave the ring,
// and its wavefront writes them line by line.
template <unsigned int W>
__device__ void flush_rings(const std::uint32_t* ring, std::uint32_t* out, const unsigned int* count,
                            unsigned long long* cursor, unsigned long long* flushed, bool last)
{
    static_assert(W % 32 == 0 && (W & (W - 1)) == 0, "whole lines, slots by a mask");
    constexpr unsigned int ratio = block / buckets;
    const unsigned int lane = threadIdx.x % 32, wave_first = threadIdx.x - lane;
    unsigned long long lo = 0, hi = 0;
    if(threadIdx.x % ratio == 0)
    {
        const unsigned int b = threadIdx.x / ratio;
        lo = flushed[b];
        const unsigned long long end = cursor[b] + count[b];
        const bool overflow = end - lo > W; // positions from lo + W on were written straight out
        hi = overflow ? lo + W : last ? end : end & ~31ull;
        if(hi < lo) hi = lo;
        flushed[b] = overflow ? end : hi;
        cursor[b] = end;
    }
    for(unsigned int todo = __ballot_sync(0xffffffffu, hi > lo); todo != 0; todo &= todo - 1)
    {
        const int src = __ffs(todo) - 1;
        const unsigned long long from = __shfl_sync(0xffffffffu, lo, src), to = __shfl_sync(0xffffffffu, hi, src);
        const std::uint32_t* slots = ring + (wave_first + src) / ratio * W;
        for(unsigned long long line = from & ~31ull; line < to; line += 32)
        {
            const unsigned long long p = line + lane;
            if(p >= from && p < to) out[p] = slots[p & (W - 1)];
        }
    }
}

template <unsigned int W>
__global__ __launch_bounds__(block, 3) void ring_scatter(const std::uint32_t* keys, std::uint32_t* out,
                                                         const unsigned int* offsets, unsigned int tiles)
{
    extern __shared__ std::uint32_t ring[]; // buckets * W
    __shared__ unsigned int count[buckets];
    __shared__ unsigned long long cursor[buckets], flushed[buckets];
    const unsigned int per = (tiles + gridDim.x - 1) / gridDim.x;
    const unsigned int first = blockIdx.x * per;
    if(first >= tiles) return;
    const unsigned int mine = min(per, tiles - first);
    if(owns_bucket()) cursor[threadIdx.x] = flushed[threadIdx.x] = offsets[std::uint64_t(first) * buckets + threadIdx.x];
    std::uint32_t k[items];
    {
        const std::uint32_t* in = keys + std::uint64_t(first) * tile;
        for(unsigned int r = 0; r < items; r++) k[r] = in[r * block + threadIdx.x];
    }
    for(unsigned int j = 0; j < mine; j++)
    {
        if(owns_bucket()) count[threadIdx.x] = 0;
        __syncthreads();
        unsigned int rank[items];
        for(unsigned int r = 0; r < items; r++) rank[r] = atomicAdd(&count[bucket_of(k[r])], 1u);
        __syncthreads();
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            const unsigned int b = bucket_of(k[r]);
            const unsigned long long p = cursor[b] + rank[r];
            if(p - flushed[b] < W) ring[b * W + (p & (W - 1))] = k[r];
            else out[p] = k[r];
        }
        __syncthreads();
        if(j + 1 < mine) // the next tile's loads in flight during the flush
        {
            const std::uint32_t* in = keys + std::uint64_t(first + j + 1) * tile;
            for(unsigned int r = 0; r < items; r++) k[r] = in[r * block + threadIdx.x];
        }
        flush_rings<W>(ring, out, count, cursor, flushed, j + 1 == mine);
        __syncthreads();
    }
}

__global__ void copy(const std::uint32_t* in, std::uint32_t* out, std::uint64_t n)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(tile) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(tile))
    {
        std::uint32_t k[items];
        for(unsigned int r = 0; r < items; r++) k[r] = in[i + r * block];
        for(unsigned int r = 0; r < items; r++) out[i + r * block] = k[r];
    }
}

__global__ void read_only(const std::uint32_t* in, std::uint64_t n, unsigned int* sink)
{
    std::uint32_t x = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(tile) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(tile))
    {
        std::uint32_t k[items];
        for(unsigned int r = 0; r < items; r++) k[r] = in[i + r * block];
        for(unsigned int r = 0; r < items; r++) x ^= k[r];
    }
    if(x == 0x12345678u) sink[0] = x;
}

__device__ unsigned long long mix(std::uint32_t k) { return (k + 0x9E3779B97F4A7C15ull) * 0xD6E8FEB86659FD93ull; }

// Mismatches: keys outside their bucket's range of positions; the sums of the keys and of mix().
__global__ void verify(const std::uint32_t* out, const unsigned int* starts, std::uint64_t n,
                       unsigned long long* bad, unsigned long long* sum)
{
    unsigned long long b = 0, s = 0, m = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
    {
        const unsigned int k = out[i], bk = bucket_of(k);
        const std::uint64_t lo = starts[bk], hi = bk + 1 < buckets ? starts[bk + 1] : n;
        b += i < lo || i >= hi;
        s += k;
        m += mix(k);
    }
    atomicAdd(bad, b);
    atomicAdd(sum, s);
    atomicAdd(sum + 1, m);
}

__global__ void key_sum(const std::uint32_t* in, std::uint64_t n, unsigned long long* sum)
{
    unsigned long long s = 0, m = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
    {
        s += in[i];
        m += mix(in[i]);
    }
    atomicAdd(sum, s);
    atomicAdd(sum + 1, m);
}

template <class F>
float median_us(F f)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> v;
    for(int i = 0; i < 13; i++)
    {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if(i >= 2) v.push_back(ms * 1000);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace


int main()
{
    const std::uint64_t n = std::uint64_t(1) << 28;
    const unsigned int tiles = static_cast<unsigned int>(n / tile);
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::uint32_t *keys, *out;
    unsigned int *counts, *offsets, *totals, *starts, *sink;
    unsigned long long* words;
    CHECK(cudaMalloc(&keys, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&counts, std::uint64_t(tiles) * buckets * 4));
    CHECK(cudaMalloc(&offsets, std::uint64_t(tiles) * buckets * 4));
    CHECK(cudaMalloc(&totals, buckets * 4));
    CHECK(cudaMalloc(&starts, buckets * 4));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMalloc(&words, 5 * 8));
    generate<<<4 * sms, 512>>>(keys, n);
    tile_histogram<<<tiles, block>>>(keys, counts);
    column_scan<<<buckets, block>>>(counts, offsets, tiles, totals);
    std::vector<unsigned int> t(buckets), s(buckets);
    CHECK(cudaMemcpy(t.data(), totals, buckets * 4, cudaMemcpyDeviceToHost));
    for(unsigned int b = 0, run = 0; b < buckets; b++) { s[b] = run; run += t[b]; }
    CHECK(cudaMemcpy(starts, s.data(), buckets * 4, cudaMemcpyHostToDevice));
    add_bucket_starts<<<4 * sms, 512>>>(offsets, starts, std::uint64_t(tiles) * buckets);
    CHECK(cudaMemset(words, 0, 40));
    key_sum<<<4 * sms, 512>>>(keys, n, words + 3);
    CHECK(cudaDeviceSynchronize());
    unsigned long long in_sums[2];
    CHECK(cudaMemcpy(in_sums, words + 3, 16, cudaMemcpyDeviceToHost));
    CHECK(cudaFuncSetAttribute(ring_scatter<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, buckets * 64 * 4));
    CHECK(cudaFuncSetAttribute(ring_scatter<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, buckets * 128 * 4));

    // Whether the last launch left every key in its bucket's range, and the keys' sums.
    struct check_result
    {
        unsigned long long misplaced;
        bool sums_equal;
    };
    auto check = [&] {
        CHECK(cudaGetLastError());
        CHECK(cudaMemset(words, 0, 24));
        verify<<<4 * sms, 512>>>(out, starts, n, words, words + 1);
        unsigned long long w[3];
        CHECK(cudaMemcpy(w, words, 24, cudaMemcpyDeviceToHost));
        return check_result{w[0], w[1] == in_sums[0] && w[2] == in_sums[1]};
    };

    std::printf("n = 2^28 u32, %u buckets, tiles of %u keys (%u), %d SMs\n", buckets, tile, tiles, sms);
    const float us_copy = median_us([&] { copy<<<3 * sms, block>>>(keys, out, n); });
    const float us_read = median_us([&] { read_only<<<3 * sms, block>>>(keys, n, sink); });
    std::printf("copy       %8.1f us  %6.0f GB/s (read + write)\n", us_copy, 8.0 * n / us_copy * 1e-3);
    std::printf("read only  %8.1f us  %6.0f GB/s\n", us_read, 4.0 * n / us_read * 1e-3);
    const float us_set = median_us([&] { CHECK(cudaMemset(out, 0xA5, n * 4)); });
    struct variant
    {
        const char* name;
        int ring; // slots per bucket, 0: staged
        int blocks_per_sm;
    };
    const variant variants[] = {{"staged", 0, 3}, {"staged", 0, 2}, {"staged", 0, 1}, {"ring", 64, 3},
                                {"ring", 64, 2},  {"ring", 64, 1},  {"ring", 128, 3}, {"ring", 128, 1}};
    for(int round = 0; round < 2; round++)
    {
        for(const variant& v : variants)
        {
            const unsigned int grid = v.blocks_per_sm * sms;
            int resident = 0;
            if(v.ring == 64) CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, ring_scatter<64>, block, buckets * 64 * 4));
            if(v.ring == 128) CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, ring_scatter<128>, block, buckets * 128 * 4));
            if(v.ring != 0 && resident < v.blocks_per_sm) continue; // its LDS does not leave that many resident
            auto run = [&] {
                CHECK(cudaMemset(out, 0xA5, n * 4));
                if(v.ring == 0) scatter<false><<<grid, block>>>(keys, out, offsets, tiles);
                else if(v.ring == 64) ring_scatter<64><<<grid, block, buckets * 64 * 4>>>(keys, out, offsets, tiles);
                else ring_scatter<128><<<grid, block, buckets * 128 * 4>>>(keys, out, offsets, tiles);
            };
            run();
            const check_result w = check();
            // The memset is timed with the scatter and taken off.
            const float us = median_us(run) - us_set;
            std::printf("round %d  %-6s W %3d  grid %4u  %8.1f us  %6.0f GB/s  %4.0f%% of the copy  misplaced %llu, sums %s\n",
                        round, v.name, v.ring, grid, us, 8.0 * n / us * 1e-3, 100.0 * us_copy / us, w.misplaced,
                        w.sums_equal ? "equal" : "DIFFER");
        }
    }
    return 0;
}
