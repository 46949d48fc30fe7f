// Segmented (batched) flash sort: sorts many independent sub-arrays in one call.
#ifndef HIPFLASHSORT_DEVICE_DEVICE_SEGMENTED_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DEVICE_SEGMENTED_SORT_HPP_

#include <cstddef>

#include "../config.hpp"
#include "../detail/empty_type.hpp"
#include "detail/segmented_dispatch.hpp"

namespace hipflashsort {

/// Sorts each segment [begin_offsets[i], end_offsets[i]) of keys_in into the same positions of
/// keys_out.
///
/// Each segment goes to the cheapest level that holds it. Keys of up to 4 bytes: without values
/// up to 16 keys by one thread each (an odd-even merge sort of their images in registers, -0 /
/// +0 put back in input order); bitonic networks on their images, up to 1024 keys by one group
/// of 4-32 lanes and up to 4096 by one
/// block whose wavefronts exchange through LDS (on NVIDIA, 4-byte integers of 2049-4096 keys in a
/// call with several segments by the 128-thread bucket-and-network block below instead), and
/// without values up to 16384 (8192 on gfx9) by
/// one block that cuts the segment into interpolated buckets in dynamic LDS and sorts each with a
/// wavefront network (a segment with a bucket too large for the networks goes to the partition
/// instead; one already in order is copied, one in reverse order without a float zero reversed):
/// 512 threads, and on NVIDIA 256 for segments of 4097-8192 keys in a call that has at least four
/// of them per multiprocessor, then
/// up to 65536 by the same kind of block with its buckets in up to four windows that each read
/// the segment again (where the LDS is smaller, up to the size whose buckets four windows take):
/// a 512-thread block in half a multiprocessor's LDS (H100: 113 KiB, about 27800 staged keys) for
/// the segments it is expected to take in one window (H100: up to about 24700 keys), and above
/// that, where the device grants it, a 1024-thread block with all of a multiprocessor's LDS (H100:
/// 56960 staged keys, two windows at 65536). These two classes take their segments when a
/// call has at least two of them per multiprocessor (fewer, and the partition's buckets, go to the
/// partition). With
/// values: networks on (image bits, position) composites up to 512 keys, which keeps them stable,
/// then one block's network on the same composites up to 1024, block_flash_sort above it (below),
/// and from 4097 keys up to 16384 (NVIDIA, any value size; 8192 on gfx9; none where the LDS
/// holds no more than block_flash_sort's 4096) the same bucket-and-network block as keys alone,
/// staging each key with its input position, its buckets ranked stably and sorted on composites,
/// the values at the end (those no wider than the keys read in order into the keys' LDS rows and
/// taken from there by position, wider ones read by position; a bucket above 512 keys sends the
/// segment to the partition). 8-byte keys alone: wavefront networks on their 64-bit lossless images up to 512
/// keys (-0 / +0 put back in input order likewise); with values, rank sort by a group of 4-32
/// lanes up to 128 keys. Above the networks, one block with block_flash_sort up to 2048 keys
/// (fewer for wide keys and values; in dynamic LDS where the device grants it twice that, and for keys wider than 4 bytes also
/// four times that: u64 keys up to 4096 on NVIDIA, 2048 on gfx9), and larger segments are
/// partitioned by many blocks into interpolated buckets, sorted the same way in further rounds.
///
/// - Two-phase: with temp_storage == nullptr only temp_storage_bytes is written.
/// - Preconditions: offsets are device pointers of `segments` elements (32- or 64-bit integers)
///   within [0, size]; a segment with end <= begin is empty; segments may leave gaps and must not
///   overlap. keys_in may equal keys_out. segments < 2^32.
/// - Elements outside every segment are not written.
/// - Stable (equal keys keep input order), deterministic (same bits on every run).
/// - Order: ascending or descending; floats in CUB radix order, -NaN < -inf < ... < -0 = +0 <
///   ... < +inf < +NaN, NaNs by bit pattern.
/// - Complexity: O(n) work for keys spread over their range, O(n log n) worst case (skew is
///   handled by re-partitioning buckets with their own min/max; the first two partition rounds
///   take each segment's min/max from a sample of its keys, later rounds from all of them). Each
///   round waits once for `stream` to reach a count of how many segments each size class got (so
///   that only classes with segments are launched), and once more when a dynamic-LDS network
///   class ran (segments it hands to the partition); the multi-block partition is planned on the
///   GPU, and lists its buckets by class before its scatter, so the host waits for their counts
///   while the scatter runs. A kernel stores those counts into pinned, mapped host memory, which
///   the host polls: the process's first calls take a 4 KiB page of it (256 bytes per call
///   running at once), kept for the life of the process; where none can be had, the counts are
///   copied.
/// - Memory: one copy of the keys, plus 1-2 bytes per key for few large segments and at most
///   about 5.7 bytes per key for many small ones (the per-class segment lists), and the
///   partition's count matrix: 4 KiB per partition tile (4096 keys of 4 bytes), at most 32 MiB
///   (6 KiB and 48 MiB where key and value take 16 bytes or more).
/// - Returns hipErrorInvalidValue for bad arguments or too little temporary storage, before
///   touching any memory; otherwise the first HIP error met. Never aborts, never prints.
template <class Key, class Offset>
hipError_t segmented_sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                               Key* keys_out, std::size_t size, std::size_t segments,
                               const Offset* begin_offsets, const Offset* end_offsets,
                               order ord = order::ascending, hipStream_t stream = 0)
{
    return detail::segmented_sort_entry<Key, empty_type>(
        temp_storage, temp_storage_bytes, keys_in, keys_out, static_cast<const empty_type*>(nullptr),
        static_cast<empty_type*>(nullptr), size, segments, detail::user_segments<Offset>{begin_offsets, end_offsets},
        begin_offsets != nullptr && end_offsets != nullptr, ord, stream);
}

/// As segmented_sort_keys, moving values_in with their keys into values_out (stable: equal keys
/// keep the input order of their values). Value: any trivially copyable type. values_in may
/// equal values_out. Memory: one extra copy of keys and values plus the same metadata.
template <class Key, class Value, class Offset>
hipError_t segmented_sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                Key* keys_out, const Value* values_in, Value* values_out, std::size_t size,
                                std::size_t segments, const Offset* begin_offsets, const Offset* end_offsets,
                                order ord = order::ascending, hipStream_t stream = 0)
{
    return detail::segmented_sort_entry<Key, Value>(
        temp_storage, temp_storage_bytes, keys_in, keys_out, values_in, values_out, size, segments,
        detail::user_segments<Offset>{begin_offsets, end_offsets},
        begin_offsets != nullptr && end_offsets != nullptr, ord, stream);
}

} // namespace hipflashsort

#endif
