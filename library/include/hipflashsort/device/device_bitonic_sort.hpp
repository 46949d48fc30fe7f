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

/// Enqueues the passes: one tile pass, then per merge beyond the tile its global strides in
/// windows of fused_strides, then one contiguous pass for the strides below the tile.
template <class Key>
hipError_t bitonic_enqueue(const bitonic_plan<Key>& plan, void* temp, const Key* keys_in, Key* keys_out,
                           std::uint64_t size, order ord, hipStream_t stream)
{
    using config = device_bitonic_config<Key>;
    constexpr unsigned int block = config::block_size;
    constexpr unsigned int c = config::items_log2;
    constexpr unsigned int fused = config::fused_strides;
    constexpr unsigned int tile_log2 = config::tile_log2;
    auto* images = plan.images(temp);
    if(size <= config::tile)
    {
        bitonic_tile_kernel<Key, true><<<1, block, 0, stream>>>(keys_in, keys_out, images, size, ord);
        return hipGetLastError();
    }
    const unsigned int grid = static_cast<unsigned int>(plan.padded >> tile_log2);
    bitonic_tile_kernel<Key, false><<<grid, block, 0, stream>>>(keys_in, keys_out, images, size, ord);
    for(unsigned int m = tile_log2 + 1; m <= plan.padded_log2; m++)
    {
        // Position strides 2^x, x = m-1 ... tile_log2, top down in runs of at most `fused`.
        for(unsigned int x_hi = m - 1; x_hi >= tile_log2;)
        {
            const unsigned int run = x_hi - tile_log2 + 1 < fused ? x_hi - tile_log2 + 1 : fused;
            const unsigned int x_lo = x_hi - run + 1;
            const unsigned int window = x_hi - fused + 1; // > c, since x_hi >= tile_log2
            bitonic_merge_kernel<Key, false><<<grid, block, 0, stream>>>(
                images, keys_out, size, window, m, 1u << (c + x_hi - window), 1u << (c + x_lo - window), ord);
            x_hi = x_lo - 1;
        }
        if(m == plan.padded_log2)
            bitonic_merge_kernel<Key, true><<<grid, block, 0, stream>>>(images, keys_out, size, c, m,
                                                                         config::tile / 2, 1, ord);
        else
            bitonic_merge_kernel<Key, false><<<grid, block, 0, stream>>>(images, keys_out, size, c, m,
                                                                          config::tile / 2, 1, ord);
    }
    return hipGetLastError();
}

} // namespace detail

/// \brief Sorts keys_in[0, size) into keys_out with a bitonic sorting network.
///
/// Network: Batcher's bitonic sort over P = next_pow2(size) positions; positions >= size hold the
/// order's maximal key (padding) in the temporary storage only: keys_out[size, ...) is never
/// written, and keys_out[0, size) receives exactly the input keys, sorted. One kernel sorts each
/// tile of device_bitonic_config<Key>::tile keys (16384 for 1-4 byte keys, 8192 for 8-byte keys)
/// in registers, shuffles and LDS; each merge wider than a tile then takes
/// ceil((log2(merge) - log2(tile)) / fused_strides) global passes (up to 9 strides each) plus one
/// pass for the strides inside the tiles. Inputs of at most one tile take a single kernel.
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
/// - Complexity: (P/2) * log2(P) * (log2(P) + 1) / 2 compare-exchanges, O(n log^2 n), independent
///   of the key values. Kernels (each one read and one write of the P images): 1 when
///   size <= tile, else 1 + sum over merges m = log2(tile)+1 .. log2(P) of
///   (1 + ceil((m - log2(tile)) / fused_strides)); 22 for 2^24 4-byte keys.
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
