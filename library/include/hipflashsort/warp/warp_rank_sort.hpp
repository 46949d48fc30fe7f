// Stable rank sort of the few items of a logical wavefront, through shared memory.
//
// Each item's final position is its rank: the number of keys with a smaller order_image plus the
// number of equal keys before it. Counting every pair costs O(n) per item, which for the tiny
// arrays this is meant for (n = LogicalWaveSize * ItemsPerThread) beats a network's log^2 stages
// of exchanges, and the tie rule by original position makes the sort stable for free.
#ifndef HIPFLASHSORT_WARP_WARP_RANK_SORT_HPP_
#define HIPFLASHSORT_WARP_WARP_RANK_SORT_HPP_

#include <type_traits>

#include "../config.hpp"
#include "../detail/empty_type.hpp"
#include "../intrinsics/barrier.hpp"
#include "../intrinsics/wavefront.hpp"
#include "../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

// Key slots hold order images while ranks are counted, then the raw key bits of the sorted
// sequence: one array serves both, so shared memory is n keys (+ n values).
template <class Bits, class Value, unsigned int Items, bool WithValues = has_values<Value>>
struct warp_rank_sort_storage
{
    Bits keys[Items];
    Value values[Items];
};

template <class Bits, class Value, unsigned int Items>
struct warp_rank_sort_storage<Bits, Value, Items, false>
{
    Bits keys[Items];
};

} // namespace detail

/// Stable sort of the LogicalWaveSize * ItemsPerThread keys (and values) that a logical wavefront
/// holds in registers, by counting each item's rank in shared memory. Meant for tiny arrays.
///
/// Arrangement: blocked. Lane l of the logical wavefront (lane_id() % LogicalWaveSize) holds the
/// items l * ItemsPerThread ... l * ItemsPerThread + ItemsPerThread - 1, before and after the sort.
///
/// Order: radix_key_codec<Key>::order_image, so for floats -NaN < -inf < ... < -0 == +0 < ... <
/// +inf < +NaN (NaNs by bit pattern), reversed for order::descending. Key bits are preserved
/// exactly.
///
/// Stable: keys with equal order_image (-0 and +0 included) keep their input order, in both
/// directions.
///
/// Template parameters:
/// - Key: 1-8 byte integer, float or double.
/// - LogicalWaveSize: a power of two from 1 to device_wavefront_size(); the hardware wavefront is
///   split into independent logical wavefronts of that many consecutive lanes.
/// - ItemsPerThread: 1 to 16.
/// - Value: trivially copyable (it lives in __shared__ storage), or empty_type for keys only.
///
/// Every member function must be called by all lanes of the hardware wavefront together (they
/// contain wave_barrier()s, which logical wavefronts of one hardware wavefront share), each logical
/// wavefront with its own storage_type and data. Different logical wavefronts may use different
/// valid_items and orders.
template <class Key, unsigned int LogicalWaveSize, unsigned int ItemsPerThread, class Value = empty_type>
class warp_rank_sort
{
    static_assert(LogicalWaveSize >= 1 && LogicalWaveSize <= device_wavefront_size()
                      && (LogicalWaveSize & (LogicalWaveSize - 1)) == 0,
                  "LogicalWaveSize must be a power of two no larger than the hardware wavefront");
    static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 16, "ItemsPerThread must be 1 to 16");
    static_assert(detail::is_supported_key<Key>(), "keys are 1-8 byte integers, float or double");
    static_assert(std::is_trivially_copyable<Value>::value, "values are stored in shared memory");

    using codec = radix_key_codec<Key>;
    using bits_type = typename codec::bit_key_type;
    static constexpr unsigned int items = LogicalWaveSize * ItemsPerThread;

public:
    /// Shared memory of one logical wavefront: LogicalWaveSize * ItemsPerThread * (sizeof(Key) +
    /// sizeof(Value)) bytes (no values for empty_type). Allocate one per logical wavefront in
    /// __shared__ memory. Back-to-back sorts may reuse it without a barrier; other uses of it
    /// between sorts need a wave_barrier() on both sides.
    using storage_type = detail::warp_rank_sort_storage<bits_type, Value, items>;

    /// Sorts all LogicalWaveSize * ItemsPerThread keys of the logical wavefront, stably.
    ///
    /// - Complexity: per lane, n = LogicalWaveSize * ItemsPerThread broadcast reads of shared
    ///   memory and n * ItemsPerThread image comparisons; ItemsPerThread writes and reads of its
    ///   own items; three wave_barrier()s.
    /// - Memory: storage (see storage_type).
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread],
                                  order ord = order::ascending)
    {
        empty_type no_values[ItemsPerThread];
        run(storage, keys, no_values, items, ord);
    }

    /// As sort(storage, keys, ord), moving values[i] along with keys[i].
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread],
                                  Value (&values)[ItemsPerThread], order ord = order::ascending)
    {
        run(storage, keys, values, items, ord);
    }

    /// Sorts the first valid_items keys of the logical wavefront (blocked positions 0 ..
    /// valid_items - 1), stably; the other positions are ignored as input. Afterwards the sorted
    /// valid keys occupy positions 0 .. valid_items - 1 and the other positions hold what they held
    /// before. valid_items must be the same in every lane of the logical wavefront; values above
    /// LogicalWaveSize * ItemsPerThread mean all items. Cost as for the full sort, with n =
    /// valid_items reads and comparisons per item.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread], unsigned int valid_items,
                                  order ord)
    {
        empty_type no_values[ItemsPerThread];
        run(storage, keys, no_values, valid_items, ord);
    }

    /// As sort(storage, keys, valid_items, ord), moving values[i] along with keys[i]; values at
    /// positions from valid_items on are left as they were too.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread],
                                  Value (&values)[ItemsPerThread], unsigned int valid_items, order ord)
    {
        run(storage, keys, values, valid_items, ord);
    }

private:
    template <class Payload>
    HIPFLASHSORT_DEVICE static void run(storage_type& storage, Key (&keys)[ItemsPerThread],
                                        Payload (&payload)[ItemsPerThread], unsigned int valid_items, order ord)
    {
        const unsigned int first = (lane_id() & (LogicalWaveSize - 1)) * ItemsPerThread;
        const unsigned int valid = valid_items < items ? valid_items : items;

        // Slots past valid hold images nobody reads: writing them anyway avoids a branch.
        bits_type images[ItemsPerThread];
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++)
        {
            images[j] = codec::order_image(keys[j], ord);
            storage.keys[first + j] = images[j];
        }
        wave_barrier();

        unsigned int ranks[ItemsPerThread];
        count_ranks(storage, images, ranks, first, valid);
        // Everyone must be done reading images before they are overwritten by keys.
        wave_barrier();

        // Valid items go to their rank (< valid), the others back to their own slot (>= valid):
        // the targets never collide, every slot read below is written, and the scatter needs no
        // branch.
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++)
        {
            const unsigned int target = first + j < valid ? ranks[j] : first + j;
            storage.keys[target] = codec::to_bits(keys[j]);
            if constexpr(detail::has_values<Payload>) store_value(storage.values[target], payload[j]);
        }
        wave_barrier();

#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++)
        {
            keys[j] = codec::from_bits(storage.keys[first + j]);
            if constexpr(detail::has_values<Payload>) payload[j] = load_value(storage.values[first + j]);
        }
    }

    // Values move between shared memory and registers through a by-value copy: a direct struct
    // assignment between the two is a cross-address-space memcpy, which keeps the whole register
    // array in scratch memory on AMD.
    HIPFLASHSORT_DEVICE static void store_value(Value& shared, Value value) { shared = value; }
    HIPFLASHSORT_DEVICE static Value load_value(const Value& shared) { return Value(shared); }

    // rank = #(smaller images) + #(equal images at lower positions). Every lane of the logical
    // wavefront reads the same address at once, a broadcast.
    HIPFLASHSORT_DEVICE static void count_ranks(const storage_type& storage, const bits_type (&images)[ItemsPerThread],
                                                unsigned int (&ranks)[ItemsPerThread], unsigned int first,
                                                unsigned int valid)
    {
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) ranks[j] = 0;
        for(unsigned int i = 0; i < valid; i++)
        {
            const bits_type other = storage.keys[i];
#pragma unroll
            for(unsigned int j = 0; j < ItemsPerThread; j++)
            {
                const bool before = other < images[j] || (other == images[j] && i < first + j);
                ranks[j] += before ? 1u : 0u;
            }
        }
    }
};

} // namespace hipflashsort

#endif
