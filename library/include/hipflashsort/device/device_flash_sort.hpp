// Device-level flash sort of one large array.
#ifndef HIPFLASHSORT_DEVICE_DEVICE_FLASH_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DEVICE_FLASH_SORT_HPP_

#include <cstddef>

#include "../config.hpp"
#include "../detail/empty_type.hpp"
#include "detail/segmented_dispatch.hpp"

namespace hipflashsort {

/// Sorts keys_in[0, size) into keys_out.
///
/// Size dispatch: the size classes of segmented_sort_keys (wavefront and block networks for keys
/// of up to 4 bytes, up to 16384 keys by one block's flash sort into network-sorted buckets;
/// wavefront networks up to 512 keys and block flash sorts above them for 8-byte keys); larger
/// arrays are partitioned by many blocks (min/max, interpolated bucket ids, per-chunk counts,
/// prefix sum, stable scatter staged in LDS), and every bucket is sorted by the block level or partitioned again with its
/// own min/max, which keeps skewed, clustered and outlier inputs cheap. The first four rounds
/// measure their ranges on a sample of the keys (one per 512 bytes, at most about 2048), less an
/// end sample that lies farther from the others than they spread; keys outside the range go to
/// the end buckets, and every later round measures all of its keys. A round whose keys crowd
/// near the smallest one with a long tail above (zipf-like) spaces its buckets logarithmically.
/// A round that leaves its buckets to further rounds joins adjacent, evenly filled buckets into
/// fewer next-round segments, so that its scatter writes longer runs. Rounds after those that
/// uniform keys take (two up to about 2^31 keys of 4 bytes), which only skewed keys reach, and
/// rounds after one that met crowded integer keys, cut each segment into the most buckets (up to
/// one per 64 keys, 32 for 8-byte keys without values), and a constant segment that a round
/// reads from keys_out stays where it is.
/// Keys without values: a segment whose buckets each hold one value (constant, or one image per
/// bucket) is written from its counts in its last round, without reading the keys again (not
/// where a bucket may hold a float zero, whose two signs keep their input order); of up to 4
/// bytes, a bucket that reaches the one-block flash sort already in order (sorted input: the
/// scatter is stable) is copied, one in reverse order without a float zero reversed.
///
/// - Two-phase: with temp_storage == nullptr only temp_storage_bytes is written.
/// - Keys: u8..u64, i8..i64, float, double. keys_in may equal keys_out. size < 2^50.
/// - Stable and deterministic; float order as CUB DeviceRadixSort (-NaN < -inf < ... < -0 = +0 <
///   ... < +inf < +NaN, NaNs by bit pattern; -0 and +0 keep their input order).
/// - Complexity: O(n) for keys spread over their range; the host waits for `stream` once or
///   twice per partition round (usually one or two rounds), as after the one-block flash network
///   class (to learn whether it handed the array to the partition). The counts it waits for come
///   through pinned, mapped host memory, as in segmented_sort_keys.
/// - Memory: one copy of the keys plus 1-2 bytes per key, and the partition's count matrix:
///   4 KiB per partition tile (4096 keys of 4 bytes, 2304 of 8 bytes), at most 32 MiB.
/// - Returns hipErrorInvalidValue for bad arguments or too little temporary storage, before
///   touching memory. Never aborts, never prints.
template <class Key>
hipError_t sort_keys(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
                     std::size_t size, order ord = order::ascending, hipStream_t stream = 0)
{
    return detail::segmented_sort_entry<Key, empty_type>(
        temp_storage, temp_storage_bytes, keys_in, keys_out, static_cast<const empty_type*>(nullptr),
        static_cast<empty_type*>(nullptr), size, 1, detail::single_segment{size}, true, ord, stream, size);
}

/// As sort_keys, moving values with their keys (stable). Value: trivially copyable, 1-16 bytes
/// typical. values_in may equal values_out. Keys of up to 4 bytes take the networks on
/// (image bits, position) composites up to 512 keys (a wavefront's) and 1024 (a block's),
/// block_flash_sort up to 4096, and the flash network class (stably ranked buckets, composites)
/// up to 16384 on NVIDIA (8192 on gfx9); a segment of that class whose keys arrive in order (sorted
/// input: the scatter is stable) is copied with its values, one whose keys fall strictly (no two
/// equal) reversed. Memory: one copy of keys and values plus 1-2 bytes per key,
/// and the partition's count matrix: 4 KiB per partition tile (2304 pairs of 4-byte keys and
/// values), at most 32 MiB; 6 KiB per tile and at most 48 MiB for pairs of 16 bytes and more
/// (1280 pairs of 8-byte keys and values a tile).
template <class Key, class Value>
hipError_t sort_pairs(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in, Key* keys_out,
                      const Value* values_in, Value* values_out, std::size_t size,
                      order ord = order::ascending, hipStream_t stream = 0)
{
    return detail::segmented_sort_entry<Key, Value>(temp_storage, temp_storage_bytes, keys_in, keys_out,
                                                    values_in, values_out, size, 1, detail::single_segment{size},
                                                    true, ord, stream, size);
}

} // namespace hipflashsort

#endif
