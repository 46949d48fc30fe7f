// Bitonic sort of the items a logical wavefront holds in registers, in blocked arrangement.
//
// Network positions: lane l's slot j is position l * P + j, P = ItemsPerThread rounded up to a
// power of two. Strides below P are compare-exchanges inside a thread, strides from P up are
// shuffle_xor exchanges between lanes. The slots from ItemsPerThread to P, and the items a
// valid_items call leaves out, hold padding: the maximum network element. Each lane first sorts
// its slots (thread_sorting_network.hpp's odd-even merge sort), then the bitonic merges in flip
// form run across lanes. Every comparator sends the smaller item to the lower position, so the
// sorted real items come out in positions 0, 1, ... and the padding after them.
// When P != ItemsPerThread those positions are not the blocked ones, and a final exchange moves
// rank r to lane r / ItemsPerThread, slot r % ItemsPerThread.
#ifndef HIPFLASHSORT_WARP_WARP_BITONIC_SORT_HPP_
#define HIPFLASHSORT_WARP_WARP_BITONIC_SORT_HPP_

#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../detail/empty_type.hpp"
#include "../intrinsics/shuffle.hpp"
#include "../intrinsics/wavefront.hpp"
#include "../thread/radix_key_codec.hpp"
#include "../thread/thread_sorting_network.hpp"

namespace hipflashsort {
namespace detail {

// What the network moves for a key: its lossless image (bijective, so the exact key bits come
// back; it orders -0 just below +0, which an unstable sort by order_image may do). Without values,
// padding is the maximum image: a real key with that image has the very same bits, so a tie
// between them cannot be told apart in the output.
template <class Key>
struct warp_bitonic_plain_element
{
    using codec = radix_key_codec<Key>;
    using type = typename codec::bit_key_type;

    HIPFLASHSORT_DEVICE static type encode(Key key, order ord) { return codec::lossless_image(key, ord); }
    HIPFLASHSORT_DEVICE static type padding() { return type(~type(0)); }
    HIPFLASHSORT_DEVICE static Key decode(type element, order ord) { return codec::decode_lossless(element, ord); }
    HIPFLASHSORT_DEVICE bool operator()(type a, type b) const { return a < b; }
};

template <class Key>
struct is_natural_less<warp_bitonic_plain_element<Key>> : std::true_type
{
};

// With values, a real item of maximum image must still sort before padding, or padding's value
// could land in an output slot: the element gets a padding bit below the image, packed into the
// next wider integer (keys of up to 4 bytes).
template <class Key>
struct warp_bitonic_packed_element
{
    static_assert(sizeof(Key) <= 4, "no wider integer for 8-byte keys");
    using codec = radix_key_codec<Key>;
    using image_type = typename codec::bit_key_type;
    using type = std::conditional_t<sizeof(Key) <= 2, std::uint32_t, std::uint64_t>;

    HIPFLASHSORT_DEVICE static type encode(Key key, order ord) { return type(codec::lossless_image(key, ord)) << 1; }
    HIPFLASHSORT_DEVICE static type padding() { return (type(image_type(~image_type(0))) << 1) | 1u; }
    HIPFLASHSORT_DEVICE static Key decode(type element, order ord)
    {
        return codec::decode_lossless(image_type(element >> 1), ord);
    }
    HIPFLASHSORT_DEVICE bool operator()(type a, type b) const { return a < b; }
};

// 8-byte keys with values: the image and the padding bit travel as two fields.
template <class Key>
struct warp_bitonic_wide_element
{
    using codec = radix_key_codec<Key>;
    struct type
    {
        std::uint64_t image;
        std::uint32_t padding;
    };

    HIPFLASHSORT_DEVICE static type encode(Key key, order ord) { return type{codec::lossless_image(key, ord), 0u}; }
    HIPFLASHSORT_DEVICE static type padding() { return type{~std::uint64_t(0), 1u}; }
    HIPFLASHSORT_DEVICE static Key decode(type element, order ord) { return codec::decode_lossless(element.image, ord); }
    HIPFLASHSORT_DEVICE bool operator()(const type& a, const type& b) const
    {
        return a.image < b.image || (a.image == b.image && a.padding < b.padding);
    }
};

// Flagged: padding must be told apart from real keys (values ride along and padding exists).
template <class Key, bool Flagged>
using warp_bitonic_element = std::conditional_t<
    !Flagged, warp_bitonic_plain_element<Key>,
    std::conditional_t<(sizeof(Key) <= 4), warp_bitonic_packed_element<Key>, warp_bitonic_wide_element<Key>>>;

} // namespace detail

/// Sorts the LogicalWaveSize * ItemsPerThread keys (and values) that a logical wavefront holds in
/// registers, with a bitonic network: strides below ItemsPerThread run inside each thread, larger
/// ones through shuffle_xor between lanes. No shared memory.
///
/// Arrangement: blocked. Lane l of the logical wavefront (lane_id() % LogicalWaveSize) holds the
/// items l * ItemsPerThread ... l * ItemsPerThread + ItemsPerThread - 1, before and after the sort.
///
/// Order: radix_key_codec<Key>::order_image, so for floats -NaN < -inf < ... < -0 == +0 < ... <
/// +inf < +NaN (NaNs by bit pattern), reversed for order::descending. Key bits are preserved
/// exactly (NaN payloads, the sign of zero).
///
/// Not stable: equal keys (including -0 and +0) may come out in any order; use warp_rank_sort
/// when the order of equal keys matters.
///
/// Template parameters:
/// - Key: 1-8 byte integer, float or double.
/// - LogicalWaveSize: a power of two from 1 to device_wavefront_size(); the hardware wavefront is
///   split into independent logical wavefronts of that many consecutive lanes.
/// - ItemsPerThread: 1 to 32, any value (the network is padded to a power of two internally).
/// - Value: trivially copyable, or empty_type for keys only.
/// - RolledMerges: the merge levels across lanes run as a loop over one copy of their code,
///   instead of unrolled. Unrolled, a network of 32 items per lane outgrows the instruction
///   cache (H100, ncu: a wavefront sorting 1024 keys waited for instructions in 23% of its
///   cycles, a block network of 4096 keys in 33%; looped, segments of 1024 / 2048 / 4096 u32
///   keys sorted 4 / 10 / 18% faster). The loop takes a few more registers. Default: for more
///   than 16 items per thread.
///
/// Every member function must be called by all lanes of the hardware wavefront together (the
/// shuffles are full-wavefront operations), each logical wavefront with its own data. Different
/// logical wavefronts may use different valid_items and orders.
template <class Key, unsigned int LogicalWaveSize, unsigned int ItemsPerThread, class Value = empty_type,
          bool RolledMerges = (ItemsPerThread > 16)>
class warp_bitonic_sort
{
    static_assert(LogicalWaveSize >= 1 && LogicalWaveSize <= device_wavefront_size()
                      && (LogicalWaveSize & (LogicalWaveSize - 1)) == 0,
                  "LogicalWaveSize must be a power of two no larger than the hardware wavefront");
    static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 32, "ItemsPerThread must be 1 to 32");
    static_assert(detail::is_supported_key<Key>(), "keys are 1-8 byte integers, float or double");
    static_assert(std::is_trivially_copyable<Value>::value, "values are shuffled, so must be trivially copyable");

    static constexpr unsigned int padded_items = detail::thread_network_padded_size(ItemsPerThread);
    static constexpr unsigned int items = LogicalWaveSize * ItemsPerThread;

public:
    /// No shared memory is used; the type exists so that callers can switch between this and
    /// warp_rank_sort with the same code.
    struct storage_type
    {
    };

    /// Sorts all LogicalWaveSize * ItemsPerThread keys of the logical wavefront.
    ///
    /// - Complexity: with P = ItemsPerThread rounded up to a power of two and L = LogicalWaveSize,
    ///   the network has log2(L * P) * (log2(L * P) + 1) / 2 stages of P / 2 compare-exchanges
    ///   per lane, or fewer: each lane first sorts its own items with Batcher's odd-even merge
    ///   sort (191 compare-exchanges for 32 items instead of the bitonic 240), and stages inside
    ///   a lane skip comparators on padding. log2(L) * (log2(L) + 1) / 2 of them are stages
    ///   across lanes, each costing P shuffles of the key image (one shuffle per 4 bytes).
    ///   ItemsPerThread that is not a power of two adds 2 * P shuffles and a few selects per
    ///   slot at the end, to return to the blocked arrangement.
    /// - Memory: registers only (P key images per lane plus temporaries).
    HIPFLASHSORT_DEVICE void sort(Key (&keys)[ItemsPerThread], order ord = order::ascending)
    {
        empty_type no_values[ItemsPerThread];
        run<false>(keys, no_values, items, ord);
    }

    /// As sort(keys, ord), moving values[i] along with keys[i]. Stages across lanes also shuffle
    /// the values (sizeof(Value) / 4 shuffles per slot, rounded up), and each lane keeps P values in
    /// registers: large values with many items per thread raise register pressure. When
    /// ItemsPerThread is not a power of two, the network key gets a padding bit (below the image;
    /// a second word for 8-byte keys) so that padding never sorts before a real key.
    HIPFLASHSORT_DEVICE void sort(Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  order ord = order::ascending)
    {
        run<false>(keys, values, items, ord);
    }

    /// Sorts the first valid_items keys of the logical wavefront (blocked positions 0 ..
    /// valid_items - 1); the other positions are ignored as input. Afterwards the sorted valid keys
    /// occupy positions 0 .. valid_items - 1 and the other positions hold what they held before.
    /// valid_items must be the same in every lane of the logical wavefront; values above
    /// LogicalWaveSize * ItemsPerThread mean all items. Same network and cost as the full sort
    /// (the left-out items become padding).
    HIPFLASHSORT_DEVICE void sort(Key (&keys)[ItemsPerThread], unsigned int valid_items, order ord)
    {
        empty_type no_values[ItemsPerThread];
        run<true>(keys, no_values, valid_items, ord);
    }

    /// As sort(keys, valid_items, ord), moving values[i] along with keys[i]; values at positions
    /// from valid_items on are left as they were too. The network key always carries the padding
    /// bit here (see the full sort of pairs).
    HIPFLASHSORT_DEVICE void sort(Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  unsigned int valid_items, order ord)
    {
        run<true>(keys, values, valid_items, ord);
    }

    /// Sorts keys that already form a bitonic sequence in the order's sense across the logical
    /// wavefront (blocked order; rising then falling, or a rotation of that, for order_image,
    /// reversed for order::descending): the merge half of the network alone, its half-cleaners
    /// from stride LogicalWaveSize * ItemsPerThread / 2 down to 1. It finishes a merge whose larger
    /// strides ran elsewhere (across wavefronts, through LDS). ItemsPerThread must be a power of
    /// two. Cost: log2(L * P) stages, log2(L) of them across lanes.
    HIPFLASHSORT_DEVICE void merge_bitonic(Key (&keys)[ItemsPerThread], order ord = order::ascending)
    {
        static_assert(padded_items == ItemsPerThread, "merge_bitonic needs a power-of-two ItemsPerThread");
        using element = detail::warp_bitonic_element<Key, false>;
        typename element::type elements[padded_items];
        empty_type no_values[padded_items];
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) elements[j] = element::encode(keys[j], ord);
        half_clean_across_lanes<LogicalWaveSize / 2>(elements, no_values, logical_lane(), element{});
        detail::thread_network_half_cleaners<padded_items, padded_items / 2>(elements, no_values, element{});
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) keys[j] = element::decode(elements[j], ord);
    }

    /// The overloads above, taking (and not touching) a storage_type for interface parity with
    /// warp_rank_sort.
    HIPFLASHSORT_DEVICE void sort(storage_type&, Key (&keys)[ItemsPerThread], order ord = order::ascending)
    {
        sort(keys, ord);
    }
    HIPFLASHSORT_DEVICE void sort(storage_type&, Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  order ord = order::ascending)
    {
        sort(keys, values, ord);
    }
    HIPFLASHSORT_DEVICE void sort(storage_type&, Key (&keys)[ItemsPerThread], unsigned int valid_items, order ord)
    {
        sort(keys, valid_items, ord);
    }
    HIPFLASHSORT_DEVICE void sort(storage_type&, Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  unsigned int valid_items, order ord)
    {
        sort(keys, values, valid_items, ord);
    }

private:
    HIPFLASHSORT_DEVICE static unsigned int logical_lane() { return lane_id() & (LogicalWaveSize - 1); }

    template <bool Partial, class Payload>
    HIPFLASHSORT_DEVICE static void run(Key (&keys)[ItemsPerThread], Payload (&payload)[ItemsPerThread],
                                        unsigned int valid_items, order ord)
    {
        // Padding needs telling apart from real keys only where a value could get mixed up.
        constexpr bool flagged = detail::has_values<Payload> && (Partial || padded_items != ItemsPerThread);
        using element = detail::warp_bitonic_element<Key, flagged>;
        using element_type = typename element::type;

        // lane_id() is an opaque read on NVIDIA: read it once.
        const unsigned int lane = logical_lane();
        const unsigned int first = lane * ItemsPerThread;
        element_type elements[padded_items];
        Payload values[padded_items];
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++)
        {
            const bool real = !Partial || first + j < valid_items;
            elements[j] = real ? element::encode(keys[j], ord) : element::padding();
            values[j] = payload[j];
        }
#pragma unroll
        for(unsigned int j = ItemsPerThread; j < padded_items; j++)
        {
            elements[j] = element::padding();
            values[j] = payload[0]; // any initialized value: padding's value is never output
        }

        // Slots from ItemsPerThread on hold padding, which the in-thread network may skip.
        detail::thread_network_sort<ItemsPerThread>(elements, values, element{});
        merge_across_lanes<2>(elements, values, lane, element{});

        element_type sorted[ItemsPerThread];
        Payload sorted_values[ItemsPerThread];
        to_blocked(elements, values, sorted, sorted_values, lane);
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++)
        {
            // Selects, not a conditional copy: that would keep a struct Value array in scratch.
            const bool sorted_slot = !Partial || first + j < valid_items;
            keys[j] = detail::thread_network_select(sorted_slot, keys[j], element::decode(sorted[j], ord));
            payload[j] = detail::thread_network_select(sorted_slot, payload[j], sorted_values[j]);
        }
    }

    // A logical wavefront of one or two lanes has at most one level to loop over.
    static constexpr bool rolled = RolledMerges && LogicalWaveSize >= 4;

    // Merges groups of Lanes lanes whose halves are sorted, then groups twice as large, up to the
    // logical wavefront.
    template <unsigned int Lanes, class Element, class Payload, class Less>
    HIPFLASHSORT_DEVICE static void merge_across_lanes(Element (&elements)[padded_items],
                                                       Payload (&values)[padded_items], unsigned int lane,
                                                       Less less)
    {
        if constexpr(rolled)
        {
#pragma unroll 1
            for(unsigned int lanes = Lanes; lanes <= LogicalWaveSize; lanes *= 2)
            {
                exchange_across_lanes<true>(elements, values, lanes - 1, (lane & (lanes / 2)) == 0, less);
                half_clean_rolled(elements, values, lanes / 4, lane, less);
                detail::thread_network_half_cleaners<padded_items, padded_items / 2>(elements, values, less);
            }
        }
        else if constexpr(Lanes <= LogicalWaveSize)
        {
            exchange_across_lanes<true>(elements, values, Lanes - 1, (lane & (Lanes / 2)) == 0, less);
            half_clean_across_lanes<Lanes / 4>(elements, values, lane, less);
            detail::thread_network_half_cleaners<padded_items, padded_items / 2>(elements, values, less);
            merge_across_lanes<Lanes * 2>(elements, values, lane, less);
        }
    }

    template <class Element, class Payload, class Less>
    HIPFLASHSORT_DEVICE static void half_clean_rolled(Element (&elements)[padded_items],
                                                      Payload (&values)[padded_items], unsigned int first_stride,
                                                      unsigned int lane, Less less)
    {
#pragma unroll 1
        for(unsigned int stride = first_stride; stride > 0; stride /= 2)
            exchange_across_lanes<false>(elements, values, stride, (lane & stride) == 0, less);
    }

    template <unsigned int LaneStride, class Element, class Payload, class Less>
    HIPFLASHSORT_DEVICE static void half_clean_across_lanes(Element (&elements)[padded_items],
                                                            Payload (&values)[padded_items], unsigned int lane,
                                                            Less less)
    {
        if constexpr(rolled)
        {
            half_clean_rolled(elements, values, LaneStride, lane, less);
        }
        else if constexpr(LaneStride > 0)
        {
            exchange_across_lanes<false>(elements, values, LaneStride, (lane & LaneStride) == 0, less);
            half_clean_across_lanes<LaneStride / 2>(elements, values, lane, less);
        }
    }

    // One network stage between this lane and lane ^ lane_mask: slot j meets the partner's slot j,
    // or its mirror slot padded_items - 1 - j for a flip stage. The lane at the lower position
    // keeps the smaller element. Ties keep their own element on both sides, so no item is lost or
    // duplicated. Slots go one (or one mirrored pair) at a time so that few shuffled temporaries
    // are live at once.
    template <bool Flip, class Element, class Payload, class Less>
    HIPFLASHSORT_DEVICE static void exchange_across_lanes(Element (&elements)[padded_items],
                                                          Payload (&values)[padded_items], unsigned int lane_mask,
                                                          bool lower, Less less)
    {
        if constexpr(!Flip || padded_items == 1)
        {
#pragma unroll
            for(unsigned int j = 0; j < padded_items; j++)
            {
                const Element partner = shuffle_xor(elements[j], int(lane_mask), int(LogicalWaveSize));
                const Payload partner_value = shuffle_values(values[j], lane_mask);
                keep_or_take(elements[j], values[j], partner, partner_value, lower, less);
            }
        }
        else
        {
#pragma unroll
            for(unsigned int j = 0; j < padded_items / 2; j++)
            {
                // Both slots are sent before either changes.
                const unsigned int mirror = padded_items - 1 - j;
                const Element into_j = shuffle_xor(elements[mirror], int(lane_mask), int(LogicalWaveSize));
                const Element into_mirror = shuffle_xor(elements[j], int(lane_mask), int(LogicalWaveSize));
                const Payload value_into_j = shuffle_values(values[mirror], lane_mask);
                const Payload value_into_mirror = shuffle_values(values[j], lane_mask);
                keep_or_take(elements[j], values[j], into_j, value_into_j, lower, less);
                keep_or_take(elements[mirror], values[mirror], into_mirror, value_into_mirror, lower, less);
            }
        }
    }

    template <class Payload>
    HIPFLASHSORT_DEVICE static Payload shuffle_values(const Payload& value, unsigned int lane_mask)
    {
        if constexpr(detail::has_values<Payload>)
            return shuffle_xor(value, int(lane_mask), int(LogicalWaveSize));
        else
            return value;
    }

    template <class Element, class Payload, class Less>
    HIPFLASHSORT_DEVICE static void keep_or_take(Element& element, Payload& value, const Element& partner,
                                                 const Payload& partner_value, bool lower, Less less)
    {
        if constexpr(!detail::has_values<Payload> && detail::is_natural_less<Less>::value)
        {
            // Equal items are equal bits: min or max, chosen per lane, is the whole exchange,
            // instead of two compares and selects. nvcc for sm_90 emits it as a min and a max
            // predicated on the side: two VIMNMX per item, where a stage inside a lane's registers
            // takes one (docs/performance.md, twenty-second session).
            const Element smaller = partner < element ? partner : element;
            const Element larger = partner < element ? element : partner;
            element = lower ? smaller : larger;
        }
        else
        {
            const bool take = lower ? less(partner, element) : less(element, partner);
            element = detail::thread_network_select(take, element, partner);
            if constexpr(detail::has_values<Payload>) value = detail::thread_network_select(take, value, partner_value);
        }
    }

    // Network position l * P + j holds rank l * P + j; the blocked arrangement wants rank r in lane
    // r / ItemsPerThread. A lane's ItemsPerThread ranks start at some offset inside lane src's P
    // slots and may run into lane src + 1's: fetch both lanes' slots and shift the window.
    template <class Element, class Payload>
    HIPFLASHSORT_DEVICE static void to_blocked(const Element (&elements)[padded_items],
                                               const Payload (&values)[padded_items],
                                               Element (&sorted)[ItemsPerThread],
                                               Payload (&sorted_values)[ItemsPerThread], unsigned int lane)
    {
        if constexpr(padded_items == ItemsPerThread || LogicalWaveSize == 1)
        {
#pragma unroll
            for(unsigned int j = 0; j < ItemsPerThread; j++)
            {
                sorted[j] = elements[j];
                sorted_values[j] = values[j];
            }
        }
        else
        {
            const unsigned int first = lane * ItemsPerThread;
            const unsigned int src = first / padded_items;
            const unsigned int offset = first % padded_items;
            gather_window(elements, sorted, src, offset);
            if constexpr(detail::has_values<Payload>) gather_window(values, sorted_values, src, offset);
        }
    }

    // out[j] = slot offset + j of the concatenated slots of lanes src and src + 1.
    template <class T>
    HIPFLASHSORT_DEVICE static void gather_window(const T (&in)[padded_items], T (&out)[ItemsPerThread],
                                                  unsigned int src, unsigned int offset)
    {
        // src + 1 wraps around for the last lane, whose window never reaches past its own slots.
        const int next = int((src + 1) & (LogicalWaveSize - 1));
        T window[2 * padded_items];
#pragma unroll
        for(unsigned int s = 0; s < padded_items; s++)
        {
            window[s] = shuffle(in[s], int(src), int(LogicalWaveSize));
            window[padded_items + s] = shuffle(in[s], next, int(LogicalWaveSize));
        }
        shift_window<1>(window, offset);
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) out[j] = window[j];
    }

    // Barrel shifter: window[i] = window[i + offset] for offset < padded_items, one conditional
    // move per bit of the offset so that register indices stay compile-time constants.
    template <unsigned int Step, class T>
    HIPFLASHSORT_DEVICE static void shift_window(T (&window)[2 * padded_items], unsigned int offset)
    {
        if constexpr(Step < padded_items)
        {
            const bool shift = (offset & Step) != 0;
#pragma unroll
            for(unsigned int i = 0; i + Step < 2 * padded_items; i++)
            {
                window[i] = detail::thread_network_select(shift, window[i], window[i + Step]);
            }
            shift_window<Step * 2>(window, offset);
        }
    }
};

} // namespace hipflashsort

#endif
