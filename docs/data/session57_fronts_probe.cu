// Fifty-seventh session probe: does a scatter's count of write fronts bound it? Plain CUDA; built
// with nvcc -O3 -arch=sm_90. Output: session57_fronts_probe_h200.txt (call 8; the result check was
// made one lambda after the run, the kernels and the timing as they ran).
//
// 2^28 random u32 keys go to 256 buckets (the top 8 bits), tile by tile (256 threads x 16 keys),
// as hipflashsort's partition scatter does: rank in LDS, stage the tile in bucket order, write
// each bucket's run of the tile. Only where a tile's run of a bucket goes differs:
// - chunked: each block owns a contiguous chunk of tiles and its share of each bucket is one
//   range (hipflashsort's count matrix): blocks x 256 write fronts, far apart;
// - interleaved: the blocks take the tiles in turn and a tile's run follows the previous tile's
//   in the bucket (a onesweep pass's layout, here from a precomputed table of tile offsets
//   instead of a look-back): about 256 fronts, the blocks writing side by side.
// The table is read in the interleaved scatter (1 KiB per tile); nothing else differs. Also
// timed: a copy and a read-only pass over the keys, with the same grid.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr unsigned int block = 256, items = 16, tile = block * items, buckets = 256;

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

__device__ unsigned int bucket_of(std::uint32_t k) { return k >> 24; }

// Counts of each tile's buckets: counts[t * buckets + b].
__global__ void tile_histogram(const std::uint32_t* keys, unsigned int* counts)
{
    __shared__ unsigned int c[buckets];
    c[threadIdx.x] = 0;
    __syncthreads();
    const std::uint32_t* in = keys + std::uint64_t(blockIdx.x) * tile;
    for(unsigned int r = 0; r < items; r++) atomicAdd(&c[bucket_of(in[r * block + threadIdx.x])], 1u);
    __syncthreads();
    counts[std::uint64_t(blockIdx.x) * buckets + threadIdx.x] = c[threadIdx.x];
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
    if(!Interleaved && mine != 0)
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
        count[threadIdx.x] = 0;
        if(Interleaved) cursor[threadIdx.x] = offsets[std::uint64_t(t) * buckets + threadIdx.x];
        __syncthreads();
        unsigned int rank[items];
        for(unsigned int r = 0; r < items; r++) rank[r] = atomicAdd(&count[bucket_of(k[r])], 1u);
        __syncthreads();
        const unsigned int first = exclusive_scan(count[threadIdx.x], wave_sums);
        start[threadIdx.x] = first;
        base[threadIdx.x] = cursor[threadIdx.x] - first; // a staged key at slot s goes to base + s
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
        if(!Interleaved) cursor[threadIdx.x] += count[threadIdx.x];
    }
}

// The scatter's global writes alone: each block takes its tiles in the scatter's order and
// writes each staged key to its recorded destination (keys and destinations read in staged order,
// coalesced), so that only the write pattern of the two layouts differs.
template <bool Interleaved>
__global__ __launch_bounds__(block) void replay(const std::uint64_t* plan, const std::uint32_t* staged_keys,
                                                std::uint32_t* out, unsigned int tiles)
{
    const unsigned int per = (tiles + gridDim.x - 1) / gridDim.x;
    const unsigned int mine = Interleaved ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x
                                          : (blockIdx.x * per >= tiles ? 0 : min(per, tiles - blockIdx.x * per));
    for(unsigned int j = 0; j < mine; j++)
    {
        const std::uint64_t at = std::uint64_t(tile_index<Interleaved>(blockIdx.x, j, gridDim.x, tiles)) * tile;
        std::uint64_t to[items];
        std::uint32_t k[items];
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            to[r] = plan[at + r * block + threadIdx.x];
            k[r] = staged_keys[at + r * block + threadIdx.x];
        }
#pragma unroll
        for(unsigned int r = 0; r < items; r++) out[to[r]] = k[r];
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

// Mismatches: keys outside their bucket's range of positions, and the sums of keys in and out.
__global__ void verify(const std::uint32_t* out, const unsigned int* starts, std::uint64_t n,
                       unsigned long long* bad, unsigned long long* sum)
{
    unsigned long long b = 0, s = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
    {
        const unsigned int k = out[i], bk = bucket_of(k);
        const std::uint64_t lo = starts[bk], hi = bk + 1 < buckets ? starts[bk + 1] : n;
        b += i < lo || i >= hi;
        s += k;
    }
    atomicAdd(bad, b);
    atomicAdd(sum, s);
}

__global__ void key_sum(const std::uint32_t* in, std::uint64_t n, unsigned long long* sum)
{
    unsigned long long s = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x)) s += in[i];
    atomicAdd(sum, s);
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
    CHECK(cudaMalloc(&words, 3 * 8));
    generate<<<4 * sms, 512>>>(keys, n);
    tile_histogram<<<tiles, block>>>(keys, counts);
    column_scan<<<buckets, block>>>(counts, offsets, tiles, totals);
    std::vector<unsigned int> t(buckets), s(buckets);
    CHECK(cudaMemcpy(t.data(), totals, buckets * 4, cudaMemcpyDeviceToHost));
    for(unsigned int b = 0, run = 0; b < buckets; b++) { s[b] = run; run += t[b]; }
    CHECK(cudaMemcpy(starts, s.data(), buckets * 4, cudaMemcpyHostToDevice));
    add_bucket_starts<<<4 * sms, 512>>>(offsets, starts, std::uint64_t(tiles) * buckets);
    CHECK(cudaMemset(words, 0, 24));
    key_sum<<<4 * sms, 512>>>(keys, n, words + 2);
    CHECK(cudaDeviceSynchronize());
    unsigned long long in_sum = 0;
    CHECK(cudaMemcpy(&in_sum, words + 2, 8, cudaMemcpyDeviceToHost));

    // Whether the last launch left every key in its bucket's range, and the keys' sum.
    struct check_result
    {
        unsigned long long misplaced;
        bool sums_equal;
    };
    auto check = [&] {
        CHECK(cudaGetLastError());
        CHECK(cudaMemset(words, 0, 16));
        verify<<<4 * sms, 512>>>(out, starts, n, words, words + 1);
        unsigned long long w[2];
        CHECK(cudaMemcpy(w, words, 16, cudaMemcpyDeviceToHost));
        return check_result{w[0], w[1] == in_sum};
    };

    std::printf("n = 2^28 u32, %u buckets, tiles of %u keys (%u), %d SMs\n", buckets, tile, tiles, sms);
    const float us_copy = median_us([&] { copy<<<3 * sms, block>>>(keys, out, n); });
    const float us_read = median_us([&] { read_only<<<3 * sms, block>>>(keys, n, sink); });
    std::printf("copy       %8.1f us  %6.0f GB/s (read + write)\n", us_copy, 8.0 * n / us_copy * 1e-3);
    std::printf("read only  %8.1f us  %6.0f GB/s\n", us_read, 4.0 * n / us_read * 1e-3);
    for(const int blocks_per_sm : {3, 2, 1})
    {
        const unsigned int grid = blocks_per_sm * sms;
        for(const bool interleaved : {false, true})
        {
            auto run = [&] {
                CHECK(cudaMemset(out, 0xA5, n * 4));
                if(interleaved) scatter<true><<<grid, block>>>(keys, out, offsets, tiles);
                else scatter<false><<<grid, block>>>(keys, out, offsets, tiles);
            };
            run();
            const check_result w = check();
            // The memset is timed with the scatter: time it alone and take it off.
            const float us_all = median_us(run);
            const float us_set = median_us([&] { CHECK(cudaMemset(out, 0xA5, n * 4)); });
            const float us = us_all - us_set;
            std::printf("%-11s grid %4u  fronts about %6u  %8.1f us  %6.0f GB/s  %4.0f%% of the copy  misplaced %llu, sums %s\n",
                        interleaved ? "interleaved" : "chunked", grid, interleaved ? buckets : grid * buckets, us,
                        8.0 * n / us * 1e-3, 100.0 * us_copy / us, w.misplaced, w.sums_equal ? "equal" : "DIFFER");
        }
    }
    // The write patterns alone (12 bytes a key: 8 read in order, 4 written by the pattern).
    std::uint64_t* plan;
    std::uint32_t* staged_keys;
    CHECK(cudaMalloc(&plan, n * 8));
    CHECK(cudaMalloc(&staged_keys, n * 4));
    for(const int blocks_per_sm : {3, 1})
    {
        const unsigned int grid = blocks_per_sm * sms;
        for(const bool interleaved : {false, true})
        {
            if(interleaved) scatter<true, true><<<grid, block>>>(keys, out, offsets, tiles, plan, staged_keys);
            else scatter<false, true><<<grid, block>>>(keys, out, offsets, tiles, plan, staged_keys);
            CHECK(cudaGetLastError());
            auto run = [&] {
                if(interleaved) replay<true><<<grid, block>>>(plan, staged_keys, out, tiles);
                else replay<false><<<grid, block>>>(plan, staged_keys, out, tiles);
            };
            CHECK(cudaMemset(out, 0xA5, n * 4));
            run();
            const check_result w = check();
            const float us = median_us(run);
            std::printf("writes alone, %-11s grid %4u  %8.1f us  %6.0f GB/s (12 bytes a key)  misplaced %llu, sums %s\n",
                        interleaved ? "interleaved" : "chunked", grid, us, 12.0 * n / us * 1e-3, w.misplaced,
                        w.sums_equal ? "equal" : "DIFFER");
        }
    }
    const float us_copy12 = median_us([&] { copy<<<3 * sms, block>>>(keys, out, n); copy<<<3 * sms, block>>>(staged_keys, out, n); });
    std::printf("two copies (16 bytes a key) %8.1f us  %6.0f GB/s\n", us_copy12, 16.0 * n / us_copy12 * 1e-3);
    return 0;
}
