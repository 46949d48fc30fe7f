// Device-level bitonic sort of one array: a data-independent sorting network (Batcher), for
// callers that want a deterministic, comparison-network sort with a fixed pass schedule.
#ifndef HIPFLASHSORT_DEVICE_DEVICE_BITONIC_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DEVICE_BITONIC_SORT_HPP_

#include <cstddef>
#include <cstdint>

#include "../config.hpp"
#include "../thread/radix_key_codec.hpp"
#include "detail/bitonic_kernels.hpp"

namespace hipflashsort {
namespace detail {

/// Temporary storage and pass schedule of one bitonic sort; depends on the size only.
template <class Key>
struct bitonic_plan
{
    using config = device_bitonic_config<Key>;
    using image_type = typename config::image_type;

    // Largest accepted size: keeps P / tile blocks within one grid dimension.
    static constexpr std::uint64_t max_size = std::uint64_t(1) << 44;
    // Images start on a 256-byte boundary inside the caller's storage, whatever its alignment.
    static constexpr std::size_t alignment = 256;

    std::uint64_t padded = 1; // P
    unsigned int padded_log2 = 0;
    std::size_t bytes = 0;

    explicit bitonic_plan(std::uint64_t size)
    {
        while(padded < size)
        {
            padded <<= 1;
            padded_log2++;
        }
        bytes = static_cast<std::size_t>(padded * sizeof(image_type)) + alignment;
    }

    image_type* images(void* temp) const
    {
        const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(temp);
        return reinterpret_cast<image_type*>((p + alignment - 1) / alignment * alignment);
    }
};

/// Position bits of the chunks whose merges run chunk by chunk: the largest power of two of
/// images that fits half the L2 cache (0: no L2 size, or chunks no larger than a tile).
template <class Key>
unsigned int bitonic_chunk_log2()
{
    using config = device_bitonic_config<Key>;
    int device = 0, l2_bytes = 0;
    if(hipGetDevice(&device) != hipSuccess
       || hipDeviceGetAttribute(&l2_bytes, hipDeviceAttributeL2CacheSize, device) != hipSuccess)
    {
        (void)hipGetLastError(); // no chunks is always correct
        return 0;
    }
    unsigned int chunk_log2 = 0;
    while((std::uint64_t(2) << chunk_log2) * sizeof(typename config::image_type) <= std::uint64_t(l2_bytes) / 2)
        chunk_log2++;
    return chunk_log2 > config::tile_log2 ? chunk_log2 : 0;
}

/// Enqueues the passes of merges first_merge ... last_merge over the `span` positions from
/// `offset`: per merge beyond the tile its global strides in windows of fused_strides, then one
/// contiguous pass for the strides below the tile (decoding into keys_out when it is the last
/// pass of the sort).
template <class Key>
void bitonic_enqueue_merges(typename device_bitonic_config<Key>::image_type* images, Key* keys_out,
                            std::uint64_t size, std::uint64_t offset, std::uint64_t span, unsigned int first_merge,
                            unsigned int last_merge, bool last, order ord, hipStream_t stream)
{
    using config = device_bitonic_config<Key>;
    constexpr unsigned int line_log2 = config::line_log2;
    constexpr unsigned int fused = config::fused_strides;
    constexpr unsigned int tile_log2 = config::tile_log2;
    const unsigned int grid = static_cast<unsigned int>(span >> tile_log2);
    for(unsigned int m = first_merge; m <= last_merge; m++)
    {
        // Position strides 2^x, x = m-1 ... tile_log2, top down in runs of at most `fused`; the
        // window's top bit is the run's top stride, so its place bit is tile_log2 - 1.
        for(unsigned int x_hi = m - 1; x_hi >= tile_log2;)
        {
            const unsigned int run = x_hi - tile_log2 + 1 < fused ? x_hi - tile_log2 + 1 : fused;
            const unsigned int x_lo = x_hi - run + 1;
            const unsigned int window = x_hi - fused + 1; // > line_log2, since x_hi >= tile_log2
            bitonic_merge_kernel<Key, false, false><<<grid, config::block_size, 0, stream>>>(
                images, keys_out, size, offset, window, m, line_log2 + x_lo - window, ord);
            x_hi = x_lo - 1;
        }
        if(last && m == last_merge)
            bitonic_merge_kernel<Key, true, true><<<grid, config::block_size, 0, stream>>>(
                images, keys_out, size, offset, line_log2, m, 0, ord);
        else
            bitonic_merge_kernel<Key, true, false><<<grid, config::block_size, 0, stream>>>(
                images, keys_out, size, offset, line_log2, m, 0, ord);
    }
}

/// Enqueues the sort: one tile pass, then the merges. While a merge fits a chunk of half the L2
/// cache, the merges run chunk by chunk, so that a chunk's passes read what the previous one
/// wrote from L2 instead of DRAM (the last chunk first: the tile pass wrote it last). Chunks
/// beyond `size` hold padding only, which every merge leaves as it is, and are skipped.
template <class Key>
hipError_t bitonic_enqueue(const bitonic_plan<Key>& plan, void* temp, const Key* keys_in, Key* keys_out,
                           std::uint64_t size, order ord, hipStream_t stream)
{
    using config = device_bitonic_config<Key>;
    constexpr unsigned int tile_log2 = config::tile_log2;
    auto* images = plan.images(temp);
    const bool direct = size <= config::tile;
    const unsigned int grid = direct ? 1u : static_cast<unsigned int>(plan.padded >> tile_log2);
    using tile_kernel = void (*)(const Key*, Key*, typename config::image_type*, std::uint64_t, order);
    tile_kernel tiles = direct ? bitonic_tile_kernel<Key, true> : bitonic_tile_kernel<Key, false>;
    unsigned int tile_lds = 0;
    if constexpr(sizeof(typename config::image_type) <= 4)
    {
        // The network needs the whole tile in LDS; a device that refuses it keeps the engine.
        const tile_kernel network = direct ? bitonic_network_tile_kernel<Key, true> : bitonic_network_tile_kernel<Key, false>;
        const unsigned int bytes = config::tile * sizeof(std::uint32_t);
        if(hipFuncSetAttribute(reinterpret_cast<const void*>(network), hipFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes))
           == hipSuccess)
        {
            tiles = network;
            tile_lds = bytes;
        }
        (void)hipGetLastError(); // a refusal is not the caller's error
    }
    tiles<<<grid, config::block_size, tile_lds, stream>>>(keys_in, keys_out, images, size, ord);
    if(direct) return hipGetLastError();

    unsigned int first_merge = tile_log2 + 1;
    const unsigned int chunk_log2 = bitonic_chunk_log2<Key>();
    if(chunk_log2 != 0 && chunk_log2 < plan.padded_log2)
    {
        const std::uint64_t chunk = std::uint64_t(1) << chunk_log2;
        for(std::uint64_t c = plan.padded >> chunk_log2; c-- > 0;)
        {
            if(c * chunk >= size) continue;
            bitonic_enqueue_merges<Key>(images, keys_out, size, c * chunk, chunk, first_merge, chunk_log2, false, ord,
                                        stream);
        }
        first_merge = chunk_log2 + 1;
    }
    bitonic_enqueue_merges<Key>(images, keys_out, size, 0, plan.padded, first_merge, plan.padded_log2, true, ord,
                                stream);
    return hipGetLastError();
}

} // namespace detail

/// \brief Sorts keys_in[0, size) into keys_out with a bitonic sorting network.
///
/// Network: Batcher's bitonic sort over P = next_pow2(size) positions; positions >= size hold the
/// order's maximal key (padding) in the temporary storage only: keys_out[size, ...) is never
/// written, and keys_out[0, size) receives exactly the input keys, sorted. One kernel sorts each
/// tile of device_bitonic_config<Key>::tile keys (16384 for 1-4 byte keys, 8192 for 8-byte keys)
/// in registers, shuffles and LDS (keys of up to 4 bytes on the segmented sort's block network,
/// Batcher's odd-even merge sort inside each lane and bitonic merges above, when the device grants
/// that kernel the tile in LDS: 64 KiB); each merge wider than a tile then takes
/// ceil((log2(merge) - log2(tile)) / fused_strides) global passes (fused_strides: 9 for 4- and
/// 8-byte keys, 8 for 2-byte, 7 for 1-byte) plus one pass for the strides inside the tiles. While
/// a merge spans at most C positions, C the largest power of two of images that fits half the
/// GPU's L2 cache (2^22 4-byte images on an H100), its passes run chunk by chunk over C positions,
/// each chunk's passes one after the other, so that they find the chunk in L2; chunks wholly past
/// `size` (padding) are skipped. Inputs of at most one tile take a single kernel.
///
/// - Two-phase: with temp_storage == nullptr only temp_storage_bytes is written (at least 1, also
///   for size 0).
/// - Keys: u8..u64, i8..i64, float, double; size <= 2^44. keys_in may equal keys_out (in place).
///   The input must not otherwise overlap keys_out or the temporary storage.
/// - Order: ascending or descending; floats as CUB DeviceRadixSort: -NaN < -inf < ... < -0 <= +0
///   < ... < +inf < +NaN, NaNs by bit pattern. Keys are compared as lossless images, so every key
///   keeps its exact bits (NaN payloads too) and -0 comes before +0 when ascending (after when
///   descending), a refinement of the order in which -0 == +0.
/// - Stability: none (keys only; equal keys are bit-identical, except -0/+0 which the network
///   orders as above). Deterministic: the same input gives the same output bits.
/// - Complexity: at most (P/2) * log2(P) * (log2(P) + 1) / 2 compare-exchanges, O(n log^2 n),
///   independent of the key values. Passes (each one read and one write of the P images, or of a
///   chunk's): 1 when size <= tile, else 1 + sum over merges m = log2(tile)+1 .. log2(P) of
///   (1 + ceil((m - log2(tile)) / fused_strides)); 22 for 2^24 4-byte keys, in 70 kernels on an
///   H100 (16 passes over each of 4 chunks, then 5 over all).
/// - Memory: P images (sizeof(Key) each) plus 256 bytes of temporary storage.
/// - Returns hipErrorInvalidValue, before touching any memory, for an unknown `ord`, size > 2^44,
///   temp_storage_bytes too small, or (size > 0) a null keys_in / keys_out. Never aborts, never
///   prints; launch errors come back from hipGetLastError. Asynchronous on `stream`.
template <class Key>
hipError_t bitonic_sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
                             std::size_t size, order ord = order::ascending, hipStream_t stream = 0)
{
    using plan_type = detail::bitonic_plan<Key>;
    if(ord != order::ascending && ord != order::descending) return hipErrorInvalidValue;
    if(static_cast<std::uint64_t>(size) > plan_type::max_size) return hipErrorInvalidValue;
    const plan_type plan(size);
    if(temp_storage == nullptr)
    {
        temp_storage_bytes = plan.bytes;
        return hipSuccess;
    }
    if(temp_storage_bytes < plan.bytes) return hipErrorInvalidValue;
    if(size == 0) return hipSuccess;
    if(keys_in == nullptr || keys_out == nullptr) return hipErrorInvalidValue;
    return detail::bitonic_enqueue(plan, temp_storage, keys_in, keys_out, size, ord, stream);
}

} // namespace hipflashsort

#endif
