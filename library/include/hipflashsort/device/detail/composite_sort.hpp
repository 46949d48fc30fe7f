// Stable sort of an LDS row of keys (of up to 4 bytes) and values by a team's bitonic network on
// 32-bit (image bits, position) composites: a logical wavefront's row (the network classes, the
// flash network class's buckets) or a block's (the pairs' block network classes).
#ifndef HIPFLASHSORT_DEVICE_DETAIL_COMPOSITE_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_COMPOSITE_SORT_HPP_

#include <cstdint>
#include <limits>

#include "../../block/detail/block_primitives.hpp"
#include "../../detail/bit_math.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "../../thread/thread_sorting_network.hpp"
#include "bucket_classifier.hpp"
#include "lds_rows.hpp"
#include "network_teams.hpp"

namespace hipflashsort {
namespace detail {

/// The 32-bit order images of a lane's keys.
template <class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void order_images(const Key (&keys)[Items], order ord, std::uint32_t (&images)[Items])
{
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) images[j] = std::uint32_t(radix_key_codec<Key>::order_image(keys[j], ord));
}

/// out[j] = row[from[j]].
template <class T, unsigned int Items>
HIPFLASHSORT_DEVICE void gather_row(const T* row, const unsigned int (&from)[Items], T (&out)[Items])
{
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) out[j] = row[from[j]];
}

/// Every item of a member: the bound test of a full member.
struct every_item
{
    HIPFLASHSORT_HOST_DEVICE constexpr bool operator()(unsigned int) const { return true; }
};

/// The items of the member whose first blocked position is `first` that lie below `size`.
struct items_below
{
    unsigned int first;
    unsigned int size;
    HIPFLASHSORT_HOST_DEVICE bool operator()(unsigned int j) const { return first + j < size; }
};

/// The items j of a member's window (ranks first + j) from `low` on that lie below `size`.
struct items_between
{
    unsigned int low;
    unsigned int first;
    unsigned int size;
    HIPFLASHSORT_HOST_DEVICE bool operator()(unsigned int j) const { return j >= low && first + j < size; }
};

/// Whether `holds` takes all Items items: the last, for the tests that take a prefix.
template <unsigned int Items, class Holds>
HIPFLASHSORT_DEVICE bool holds_every(const Holds& holds)
{
    return holds(Items - 1);
}

template <unsigned int Items>
HIPFLASHSORT_DEVICE bool holds_every(const items_between& holds)
{
    return holds.low == 0 && holds(Items - 1);
}

/// Stores a member's Items items, blocked, at out[first + j] for each j where `holds(j)`: in
/// 16-byte words where `words` (out + first 16-byte aligned) and the member holds them all, else
/// item by item.
template <unsigned int Items, class T, class Holds>
HIPFLASHSORT_DEVICE void store_blocked(T* out, unsigned int first, const T (&items)[Items], Holds holds, bool words)
{
    if constexpr(Items * sizeof(T) % 16 == 0 && 16 % sizeof(T) == 0)
    {
        constexpr unsigned int per_word = 16 / sizeof(T);
        struct alignas(16) word
        {
            T items[per_word];
        };
        if(words && holds_every<Items>(holds))
        {
            word* const to = reinterpret_cast<word*>(out + first);
#pragma unroll
            for(unsigned int w = 0; w < Items / per_word; w++)
            {
                word v;
#pragma unroll
                for(unsigned int i = 0; i < per_word; i++) v.items[i] = items[w * per_word + i];
                to[w] = v;
            }
            return;
        }
    }
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        if(holds(j)) out[first + j] = items[j];
    }
}

/// Calls body(holds) with holds(j) telling whether the team member's item j lies below `size`:
/// every_item when all of them do (for a whole logical wavefront: all but the last wavefronts of
/// a segment), so that those members run without a bound test per item, else items_below. The
/// tests were about a twentieth of the block pair network's instructions. Networks of fewer than
/// 256 positions always take items_below, keeping one copy of the code: their passes are
/// unrolled, and two copies made them slower.
/// Decided per member, a segment's last wavefront ran both bodies, its full members one and the
/// others the other. Per wavefront: 1000-pair segments 5712 -> 5668 warp instructions each (ncu);
/// H200, 2^26 pairs, 5 rotated rounds, Gkeys/s, u32+u32 / f32+u32 segments of 1000 pairs 112.5 /
/// 104.5 -> 113.9 / 104.8, of 65536 42.9 / 43.1 -> 43.3 / 43.3, the power-law mix 39.9 / 39.8 ->
/// 40.3 / 40.2.
template <unsigned int Items, class Team, class Body>
HIPFLASHSORT_DEVICE void with_member_items(const Team& team, unsigned int size, Body body)
{
    const unsigned int first = team.member * Items;
    // The wavefront's last member: full only where all of the wavefront's members are.
    const unsigned int wave_last = (team.member | (Team::lanes - 1)) * Items;
    if(Team::size * Items >= 256 && wave_last + Items <= size)
        body(every_item{});
    else
        body(items_below{first, size});
}

/// The items of a member holding positions j * Threads + member (striped) that lie below `size`.
template <unsigned int Threads>
struct items_striped
{
    unsigned int member;
    unsigned int size;
    HIPFLASHSORT_HOST_DEVICE bool operator()(unsigned int j) const { return j * Threads + member < size; }
};

/// with_member_items for a team whose member m holds positions j * Team::size + m: every_item
/// where all of its wavefront's items lie below `size`.
template <unsigned int Items, class Team, class Body>
HIPFLASHSORT_DEVICE void with_striped_items(const Team& team, unsigned int size, Body body)
{
    const unsigned int wave_last = (Items - 1) * Team::size + (team.member | (Team::lanes - 1));
    if(Team::size * Items >= 256 && wave_last < size)
        body(every_item{});
    else
        body(items_striped<Team::size>{team.member, size});
}

/// The smallest and largest of a member's order images (item j where `holds(j)`); ~0 and 0 for
/// none.
template <unsigned int Items, class Holds>
HIPFLASHSORT_DEVICE void member_image_range(const std::uint32_t (&images)[Items], Holds holds, std::uint32_t& low,
                                            std::uint32_t& high)
{
    low = ~std::uint32_t(0);
    high = 0;
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        if(holds(j))
        {
            low = min_of(low, images[j]);
            high = max_of(high, images[j]);
        }
    }
}

/// How many low bits of images between low and high are not the same in all: they agree above
/// the highest bit in which low and high differ.
HIPFLASHSORT_DEVICE unsigned int bits_spanned(std::uint32_t low, std::uint32_t high)
{
    const std::uint32_t spread = low ^ high;
    return spread == 0 ? 0u : 32u - leading_zeros(spread);
}

/// How many low bits of the order images of a team's keys (item j of each member where
/// `holds(j)`) are not the same in all.
template <class Team, unsigned int Items, class Holds>
HIPFLASHSORT_DEVICE unsigned int spread_bits_where(const Team& team, const std::uint32_t (&images)[Items], Holds holds)
{
    std::uint32_t low, high;
    member_image_range(images, holds, low, high);
    team.min_max(low, high);
    return bits_spanned(low, high);
}

/// Row positions of a team's keys (their order images, blocked as staged, or striped: member m's
/// item j at position j * Team::size + m) in the order of the 32-bit composites ((image >> shift)
/// & mask) << position_bits | position, blocked: member m's item j for rank m * Items + j, 0 past
/// `size`. The composites are unique, so the order is
/// stable in the bits kept. Padding sorts last: a real composite reaches ~0 only at position
/// capacity - 1, which exists only when there is no padding. Teams of float words sort the
/// composites as floats (composite_float_bits: every composite below float_composites), padding
/// +inf.
template <class Team, unsigned int Items>
HIPFLASHSORT_DEVICE void rank_by_bits(const Team& team, const std::uint32_t (&images)[Items], unsigned int size,
                                      unsigned int shift, std::uint32_t mask, unsigned int (&from)[Items],
                                      bool striped = false)
{
    constexpr unsigned int position_bits = log2_ceil(Team::size * Items);
    static_assert(!Team::float_words || position_bits <= 23, "positions in a float word's mantissa");
    constexpr std::uint32_t position_mask = (std::uint32_t(1) << position_bits) - 1;
    const unsigned int first = team.member * Items;
    std::uint32_t composite[Items];
    const auto compose = [&](auto holds, unsigned int start, unsigned int step) {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++)
        {
            const std::uint32_t c = ((images[j] >> shift) & mask) << position_bits | (start + j * step);
            if constexpr(Team::float_words)
                composite[j] = holds(j) ? composite_float_bits(c) : composite_float_padding;
            else
                composite[j] = holds(j) ? c : ~std::uint32_t(0);
        }
    };
    if(striped)
        with_striped_items<Items>(team, size, [&](auto holds) { compose(holds, team.member, Team::size); });
    else
        with_member_items<Items>(team, size, [&](auto holds) { compose(holds, first, 1u); });
    team.sort(composite);
    with_member_items<Items>(team, size, [&](auto holds) {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++)
        {
            if constexpr(Team::float_words)
                from[j] = holds(j) ? composite_low_bits(composite[j], position_mask) : 0u;
            else
                from[j] = holds(j) ? composite[j] & position_mask : 0u;
        }
    });
}

/// Whether the floats whose order images lie in [low, high] are all normal or infinite: no
/// subnormal and no zero, which builds that flush subnormals to zero (fast math) would compare as
/// equal although their images differ. This test costs segments of 1000 / 1024 f32+u32 pairs
/// 104.2 / 111.4 -> 103.4 / 110.6 Gkeys/s (H100, medians of five rotated rounds).
template <class Key>
HIPFLASHSORT_DEVICE bool clear_of_subnormals(std::uint32_t low, std::uint32_t high, order ord)
{
    using codec = radix_key_codec<Key>;
    constexpr Key smallest_normal = std::numeric_limits<Key>::min();
    const std::uint32_t a = std::uint32_t(codec::order_image(-smallest_normal, ord));
    const std::uint32_t b = std::uint32_t(codec::order_image(smallest_normal, ord));
    return high <= min_of(a, b) || low >= max_of(a, b);
}

/// ranks_inverted for finite floats clear of subnormals (clear_of_subnormals): a float comparison
/// orders them as their order images do, in any floating-point mode (no NaN, and no subnormal that
/// a flush to zero would merge), so only the two keys compared across members need images. In the
/// block pair network (value fields) this took the f32+u32 kernel from 8 bytes of spill to none;
/// H100, 2^26 pairs, medians of five rotated rounds, segments of 1000 / 1024 f32+u32 pairs 99.9 /
/// 107.4 -> 103.5 / 111.1 Gkeys/s (before the subnormal test).
template <class Team, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE bool finite_ranks_inverted(const Team& team, const Key (&sorted)[Items], unsigned int size,
                                               order ord)
{
    const bool ascending = ord == order::ascending;
    bool inverted = false;
    with_member_items<Items>(team, size, [&](auto holds) {
#pragma unroll
        for(unsigned int j = 1; j < Items; j++)
        {
            if(holds(j)) inverted |= ascending ? sorted[j - 1] > sorted[j] : sorted[j - 1] < sorted[j];
        }
    });
    const unsigned int first = team.member * Items;
    using codec = radix_key_codec<Key>;
    const std::uint32_t last_image
        = first + Items - 1 < size ? std::uint32_t(codec::order_image(sorted[Items - 1], ord)) : ~std::uint32_t(0);
    const std::uint32_t first_image
        = first < size ? std::uint32_t(codec::order_image(sorted[0], ord)) : ~std::uint32_t(0);
    const bool across = team.above_next(last_image, first_image);
    return inverted || across;
}

/// Whether a team's keys in blocked rank order are out of order anywhere: one member's
/// neighbours, and its last key against the next member's first.
template <class Team, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE bool ranks_inverted(const Team& team, const Key (&sorted)[Items], unsigned int size, order ord,
                                        bool comparable = false)
{
    if constexpr(radix_key_codec<Key>::is_float)
    {
        if(comparable) return finite_ranks_inverted(team, sorted, size, ord);
    }
    std::uint32_t images[Items];
    order_images(sorted, ord, images);
    bool inverted = false;
    with_member_items<Items>(team, size, [&](auto holds) {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++)
        {
            if(!holds(j)) images[j] = ~std::uint32_t(0); // padding sorts last
            if(j > 0) inverted |= images[j - 1] > images[j];
        }
    });
    const bool across = team.above_next(images[Items - 1], images[0]);
    return inverted || across;
}

/// Sorts each member's keys (blocked rank order, with their row positions `from`) by their order
/// images, stably: the sorted run of the kept bits leaves keys that differ only in dropped bits
/// in position order, next to each other, and such a run rarely crosses a member's items.
/// Odd-even transposition that swaps only strictly inverted neighbours, so equal keys keep
/// their order; padding (ranks from `size` on) counts as the largest image and stays last. A
/// member stops after an even and an odd round without a swap: its ties are short runs, and the
/// Items rounds a member could need are rare. The images are computed at each comparison, not
/// held: held, they took the block pair network from 64 to 96 registers (80 so, and its launch
/// bounds keep it at 64).
template <class Team, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void settle_member_runs(const Team& team, Key (&keys)[Items], unsigned int (&from)[Items],
                                            unsigned int size, order ord)
{
    const auto image = [&](unsigned int j) {
        return team.member * Items + j < size ? std::uint32_t(radix_key_codec<Key>::order_image(keys[j], ord))
                                              : ~std::uint32_t(0);
    };
#pragma unroll 1
    for(unsigned int round = 0; round < Items; round += 2)
    {
        bool swapped = false;
#pragma unroll
        for(unsigned int parity = 0; parity < 2; parity++)
        {
#pragma unroll
            for(unsigned int j = parity; j + 1 < Items; j += 2)
            {
                const bool swap = image(j) > image(j + 1);
                swapped |= swap;
                const Key low_key = thread_network_select(swap, keys[j], keys[j + 1]);
                const unsigned int low_from = thread_network_select(swap, from[j], from[j + 1]);
                keys[j + 1] = thread_network_select(swap, keys[j + 1], keys[j]);
                from[j + 1] = thread_network_select(swap, from[j + 1], from[j]);
                keys[j] = low_key;
                from[j] = low_from;
            }
        }
        if(!swapped) break; // an even and an odd round without a swap: in order
    }
}

/// Puts a team's LDS row (keys and values, blocked) into the order `from` (each member's keys
/// already gathered by it): gathers the values, then every member that owns slots of the row
/// (`mine`) stores its keys and values back.
template <class Team, class Key, class Value, unsigned int Items>
HIPFLASHSORT_DEVICE void rewrite_row(const Team& team, Key* row_keys, Value* row_values,
                                     const unsigned int (&from)[Items], const Key (&keys)[Items], bool mine)
{
    Value values[Items];
    gather_row(row_values, from, values);
    team.barrier(); // every member has gathered before any slot is overwritten
    if(mine)
    {
        blocked_lds<Key, Items>::store(row_keys, team.member, keys);
        blocked_lds<Value, Items>::store(row_values, team.member, values);
    }
    team.barrier();
}

/// The row positions of ranks first - skew ... first - skew + Items - 1, for a member holding
/// those of first ... (`from`; skew <= MaxSkew < Items): its own moved up by skew, and below them
/// the previous lane's last ones (shuffled up within logical wavefronts of Lanes). The first lane
/// of a logical wavefront gets its own there instead, which it must not use. Every lane of the
/// hardware wavefront calls this together.
template <unsigned int Lanes, unsigned int MaxSkew, unsigned int Items>
HIPFLASHSORT_DEVICE void skew_positions(const unsigned int (&from)[Items], unsigned int skew,
                                        unsigned int (&skewed)[Items])
{
    static_assert(MaxSkew < Items, "the ranks skewed in come from one lane");
    unsigned int run[MaxSkew + Items]; // the previous lane's last MaxSkew, then this lane's
#pragma unroll
    for(unsigned int i = 0; i < MaxSkew; i++) run[i] = shuffle_up(from[Items - MaxSkew + i], 1u, int(Lanes));
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) run[MaxSkew + j] = from[j];
    // Moved up by skew one bit at a time, a select per item and bit, not an index per item.
#pragma unroll
    for(unsigned int bit = 1; bit <= MaxSkew; bit *= 2)
    {
        const bool by = (skew & bit) != 0;
#pragma unroll
        for(unsigned int k = MaxSkew + Items - 1; k >= bit; k--) run[k] = by ? run[k - bit] : run[k];
    }
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) skewed[j] = run[MaxSkew + j];
}

/// Stores a team's sorted keys and values (member m's row positions `from` and keys `keys` for
/// ranks m * Items ...) to outputs whose keys start `skew` keys past a 16-byte boundary, so that
/// whole members store 16-byte words: each member takes ranks m * Items - skew ..., their row
/// positions from itself and the previous lane (skew_positions), and gathers keys and values
/// again. Values go in words where values_out - skew is 16-byte aligned too, else item by item.
/// The first lane of a logical wavefront leaves the ranks below its own to the last lane of the
/// previous one, which stores them item by item. Stored item by item (the members' blocked
/// items 32 bytes apart), unaligned segments of 999 / 1001 pairs ran 3-4% slower than copied
/// out of the row; the row's copy, a path of its own, slowed the aligned ones (see the end of
/// sort_composites).
template <class Team, class Key, class Value, unsigned int Items>
HIPFLASHSORT_DEVICE void store_skewed(const Team& team, const Key* row_keys, const Value* row_values, Key* keys_out,
                                      Value* values_out, const unsigned int (&from)[Items], const Key (&keys)[Items],
                                      unsigned int skew, unsigned int size)
{
    constexpr unsigned int max_skew = 16 / sizeof(Key) - 1;
    const unsigned int first = team.member * Items;
    const unsigned int lane = team.member % Team::lanes;
    if(lane + 1 == Team::lanes)
    {
#pragma unroll
        for(unsigned int j = Items - max_skew; j < Items; j++)
        {
            if(j + skew >= Items && first + j < size)
            {
                keys_out[first + j] = keys[j];
                values_out[first + j] = row_values[from[j]];
            }
        }
    }
    unsigned int skewed[Items];
    skew_positions<Team::lanes, max_skew>(from, skew, skewed);
    Key out_keys[Items];
    Value values[Items];
    gather_row(row_keys, skewed, out_keys);
    gather_row(row_values, skewed, values);
    const items_between holds{lane == 0 ? skew : 0u, first - skew, size};
    const bool value_words
        = (std::uint32_t(reinterpret_cast<std::uintptr_t>(values_out)) - skew * sizeof(Value)) % 16 == 0;
    store_blocked(keys_out, first - skew, out_keys, holds, true);
    store_blocked(values_out, first - skew, values, holds, value_words);
}

/// Keys with values, stable, on 32-bit composites of (image bits, position) instead of 64-bit
/// (image, position) ones, whose network costs three times the instructions. The composite keeps
/// the 32 - position bits of the images below the bits all keys share (bits_spanned): every bit
/// when the keys span a narrow range, else the highest, and keys that differ only in the bits
/// dropped come out in position order. A team that finds such keys out of order sorts least
/// significant digit first instead: by (dropped bits, position), then, with the rows reordered
/// so, by (kept bits, that order). Each member then gathers its sorted keys and values from the
/// row and writes them out (see the end).
/// H100, 2^26 u32+u32 keys, Gkeys/s: segments of 64 / 112 / 256 keys 104 / 60 / 56 on 64-bit
/// composites, 137 / 110 / 139 on 32-bit ones.
/// Floats in networks of 1024 positions and more take fields interpolated from their values in
/// the first pass instead of image bits (value_fields below); the checks and passes after it
/// are the same.
///
/// The row may be shorter than the network: only its first `owned` slots (a multiple of Items,
/// at least `size`) are read and written, so that rows packed side by side in LDS (the flash
/// network class's buckets) stay apart.
///
/// `keys` are the team's keys as the first pass ranks them: blocked as in the row, or (Striped)
/// member m's item j the row's position j * Team::size + m, as a kernel loaded them from global
/// memory; later passes read the row again.
template <bool Striped, class Key, class Value, unsigned int Items, class Team>
HIPFLASHSORT_DEVICE void sort_loaded_composites(const Team& team, Key (&keys)[Items], Key* row_keys, Value* row_values,
                                                Key* keys_out, Value* values_out, unsigned int size, order ord,
                                                unsigned int owned)
{
    constexpr unsigned int field_bits = (Team::float_words ? 31 : 32) - log2_ceil(Team::size * Items);
    // Networks of this many positions keep few enough image bits (22 of 1024 positions: about
    // one segment of 1000 uniform keys in nine has two keys equal in them) that their first
    // pass settles out-of-order keys inside each member before it falls back to two more passes.
    // H100, 2^26 pairs, Gkeys/s, medians of five rounds, segments of 1000 / 1024 pairs (the
    // block pair network): u32+u32 95.9 / 101.0 -> 98.3 / 103.9, f32+u32 73.8 / 76.2 -> 81.8 /
    // 85.3 (with the kernel kept at 64 registers; at 96, holding the settled images, u32+u32
    // fell to 89.6 / 98.6).
    constexpr unsigned int settle_positions = 1024;
    // Later passes rank the row as staged (blocked): the settling below loads it again.
    static_assert(!Striped || Team::size * Items >= settle_positions, "striped keys only where the row is reloaded");
    constexpr std::uint32_t field_mask = (std::uint32_t(1) << field_bits) - 1;
    // Float words keep 31 bits in the passes on image bits; the value pass's fields are bounded
    // by the floats' count instead (float_composites), which leaves them one bit more.
    constexpr unsigned int value_bits = Team::float_words ? field_bits + 1 : field_bits;
    constexpr unsigned int value_buckets
        = Team::float_words ? float_composites >> log2_ceil(Team::size * Items) : 1u << field_bits;
    using lds_keys = blocked_lds<Key, Items>;
    // Constant true for a whole row (the default), so that path keeps its unguarded accesses.
    const bool mine = owned >= Team::size * Items || team.member * Items < owned;
    std::uint32_t images[Items];
    order_images(keys, ord, images);
    std::uint32_t low, high;
    const auto range = [&](auto holds) { member_image_range(images, holds, low, high); };
    if constexpr(Striped)
        with_striped_items<Items>(team, size, range);
    else
        with_member_items<Items>(team, size, range);
    team.min_max(low, high);
    const unsigned int used = bits_spanned(low, high);
    const unsigned int shift = used > field_bits ? used - field_bits : 0u;
    // Uniform floats crowd the image bits kept: in [0, 1) half of them share one exponent and,
    // of the 22 bits a 1024-position network keeps, differ only in about 18 mantissa bits, so
    // many segments have ties there and take the settling or the later passes. Networks of
    // settle_positions and more rank their first pass on fields interpolated from the values
    // (flash_classifier: monotone, so the checks and passes after it hold), where the team's
    // range is finite. H100, 2^26 pairs, Gkeys/s, medians of three rounds: f32+u32 segments of
    // 1000 / 1024 pairs 81.7 / 85.1 -> 90.2 / 95.0, other sizes unchanged. Smaller networks keep
    // the image bits: there the value map (with a second reduction, in a first version) cost
    // segments of 64 / 256 f32+u32 pairs 157.0 / 150.4 -> 149.2 / 141.4.
    constexpr bool value_fields = radix_key_codec<Key>::is_float && Team::size * Items >= settle_positions;
    flash_classifier<Key> by_value{};
    bool valued = false;
    bool comparable = false;
    if constexpr(value_fields)
    {
        by_value = flash_classifier<Key>::make(low, high, value_buckets, ord);
        valued = by_value.by_value; // the same for the whole team: its range
        // A finite range: its keys compare as floats in the inversion checks, where no subnormal lies in it.
        comparable = valued && clear_of_subnormals<Key>(low, high, ord);
    }
    // Up to three passes of one network: by kept bits, and when that leaves keys out of order,
    // by dropped bits, then by kept bits again. Networks of 256 positions and more run them in
    // a loop, so that their code is there once: unrolled, three copies of it made them slower,
    // though the later passes are rare; smaller ones run faster unrolled, each pass's code
    // specialized (H100, u32+u32, 2^26 keys, Gkeys/s, unrolled against the loop: segments of 16
    // / 32 / 112 pairs 137 / 137 / 109 against 124 / 129 / 106; of 512 / 1024 pairs 113 / 85
    // against 125 / 87; of 16384 pairs, whose flash network buckets take networks of 256 and
    // 512, 35.7 against 38.0). A loop counting to three instead of ending on the last pass's
    // answer cost the large ones again (1000 pairs 83 -> 76).
    unsigned int from[Items];
    unsigned int pass_shift = shift;
    std::uint32_t pass_mask = field_mask;
    // The first pass's fields where they may come from the values. One test of the team-uniform
    // choice for all items: tested per item, the map compiled to three branches per key. H100,
    // 2^26 f32+u32 pairs, medians of five rounds, segments of 1000 / 1024 pairs 99.2 / 106.9 ->
    // 100.0 / 107.6 Gkeys/s.
    const auto first_fields = [&](std::uint32_t(&fields)[Items]) {
        if(valued)
        {
#pragma unroll
            for(unsigned int j = 0; j < Items; j++) fields[j] = by_value.value_bucket(keys[j]);
        }
        else
        {
#pragma unroll
            for(unsigned int j = 0; j < Items; j++) fields[j] = images[j] >> shift;
        }
    };
    // One pass; whether another follows.
    const auto pass = [&](unsigned int p) {
        if constexpr(value_fields && Team::float_words)
        {
            // One call of the network for every pass: called in two branches, the kernel held
            // two copies of it.
            std::uint32_t words[Items];
            unsigned int word_shift = pass_shift;
            std::uint32_t word_mask = pass_mask;
            if(p == 0)
            {
                first_fields(words);
                word_shift = 0;
                word_mask = valued ? (std::uint32_t(1) << value_bits) - 1 : field_mask;
            }
            else
            {
#pragma unroll
                for(unsigned int j = 0; j < Items; j++) words[j] = images[j];
            }
            rank_by_bits(team, words, size, word_shift, word_mask, from, Striped && p == 0);
        }
        else if(value_fields && p == 0)
        {
            std::uint32_t fields[Items];
            first_fields(fields);
            rank_by_bits(team, fields, size, 0, field_mask, from, Striped);
        }
        else
        {
            rank_by_bits(team, images, size, pass_shift, pass_mask, from, Striped && p == 0);
        }
        gather_row(row_keys, from, keys);
        if(p == 0)
        {
            // Keys can be out of order only where the fields dropped image bits or mapped values.
            // Both votes are team-uniform, and every member runs the exchanges inside.
            // The settling's early stop and no block barrier for this team-uniform test: H200,
            // 2^26 pairs, medians of ten rotated rounds, Gkeys/s, u32+u32 / f32+u32 segments of
            // 1000 pairs 118.4 / 112.9 -> 120.2 / 114.8, 1024 124.2 / 118.2 -> 125.6 / 119.8, 65536
            // 43.8 / 44.1 -> 44.2 / 44.4; the block pair network's f32+u32 kernel spills 4 bytes.
            const bool approximate = shift != 0 || valued;
            if(!team.any_uniform(approximate)) return false;
            const bool inverted = ranks_inverted(team, keys, size, ord, comparable);
            if(!team.any(approximate && inverted)) return false;
            if constexpr(Team::size * Items >= settle_positions)
            {
                // Most such keys sit inside one member's items: settled there, no further pass.
                settle_member_runs(team, keys, from, size, ord);
                if(!team.any(ranks_inverted(team, keys, size, ord, comparable))) return false;
                // The row's images again, in staged order, so that they need no registers
                // through the first pass.
                if(mine) lds_keys::load(row_keys, team.member, keys);
                order_images(keys, ord, images);
            }
            pass_shift = 0; // the images are the row's, in staged order
            pass_mask = (std::uint32_t(1) << shift) - 1;
            return true;
        }
        if(p == 1)
        {
            rewrite_row(team, row_keys, row_values, from, keys, mine);
            order_images(keys, ord, images);
            pass_shift = shift;
            pass_mask = field_mask;
            return true;
        }
        return false;
    };
    if constexpr(Team::size * Items < 256)
    {
        if(pass(0) && pass(1)) pass(2);
    }
    else
    {
#pragma unroll 1
        for(unsigned int p = 0; pass(p); p++)
        {
        }
    }
    // Out to the outputs. Members of more than 8 items rewrite the row and copy it out striped
    // (copy_striped). Members of up to 8 store their keys and values straight from registers,
    // blocked: in 16-byte words where both outputs are 16-byte aligned, else item by item, except
    // in networks of 256 positions and more, which store them skewed to the keys' 16-byte grid
    // (store_skewed) where the outputs are not both aligned (keys of 2 and 4 bytes; a member's 8
    // one-byte keys make no word, so those go item by item). Straight from registers, the block
    // pair network saves the row's rewrite and its two block barriers. H100, 2^26 pairs,
    // Gkeys/s, medians of three rounds, before -> after:
    // - u32+u32 segments of 16 / 32 / 64 / 112 / 113 / 256 pairs 139.6 / 144.6 / 154.5 / 149.4 /
    //   131.4 / 162.0 -> 143.9 / 151.6 / 157.9 / 152.9 / 134.5 / 163.7; of 999 / 1000 / 1001 /
    //   1024 102.9 / 106.7 / 103.5 / 113.1 -> 104.9 / 109.7 / 106.1 / 117.5, with unaligned
    //   outputs of the block pair network copied out of the row, key by key;
    // - f32+u32 of 113 / 256 / 1000 / 1024 130.1 / 156.0 / 97.1 / 104.8 -> 136.1 / 161.3 / 99.1 /
    //   107.6; segments of 500 / 501 and 4096 to 65536 pairs and the power-law mix unchanged.
    // - Skewed instead of that row copy, which took the block pair network's registers from 48
    //   to 54 although aligned segments never run it (53 now): u32+u32 segments of 999 / 1000 /
    //   1001 / 1024 pairs 104.8 / 109.2 / 105.7 / 117.3 -> 104.6 / 112.6 / 105.8 / 119.7, f32+u32
    //   93.2 / 98.9 / 93.5 / 105.1 -> 93.5 / 99.1 / 94.2 / 106.9. Capped at 48 registers (ten
    //   blocks per multiprocessor instead of nine), u32+u32 gained no more than the rounds'
    //   spread (1000 pairs 113.3) and f32+u32, spilling, lost 2% (97.3). The 129-256 pair
    //   class (a wavefront team of 256 positions) runs f32+u32 about 1% slower so, aligned
    //   segments included (200 / 250 / 255 pairs 111.5 / 124.5 / 124.1 -> 110.3 / 122.5 / 122.5),
    //   u32+u32 the same; storing its unaligned outputs item by item instead was no better.
    // - Straight out in the 512-pair class (16 items), at 118 registers instead of 96: segments
    //   of 501 pairs 107.3 -> 100.7.
    // - This code's layout matters: the same steps as a separate function, inlined, ran
    //   segments of 112 u32+u32 pairs at 144.3.
    if constexpr(Items > 8)
    {
        rewrite_row(team, row_keys, row_values, from, keys, mine);
        copy_striped<Team::size>(row_keys, keys_out, size, team.member);
        copy_striped<Team::size>(row_values, values_out, size, team.member);
        return;
    }
    const bool words
        = ((reinterpret_cast<std::uintptr_t>(keys_out) | reinterpret_cast<std::uintptr_t>(values_out)) % 16) == 0;
    if constexpr(Team::size * Items >= 256 && Items * sizeof(Key) % 16 == 0)
    {
        // Teams that share a hardware wavefront take it always: its shuffles need every lane.
        const unsigned int skew = std::uint32_t(reinterpret_cast<std::uintptr_t>(keys_out)) % 16 / sizeof(Key);
        if(Team::size < device_wavefront_size() || skew != 0 || !words)
        {
            store_skewed(team, row_keys, row_values, keys_out, values_out, from, keys, skew, size);
            return;
        }
    }
    Value values[Items];
    gather_row(row_values, from, values);
    with_member_items<Items>(team, size, [&](auto holds) {
        store_blocked(keys_out, team.member * Items, keys, holds, words);
        store_blocked(values_out, team.member * Items, values, holds, words);
    });
}

/// sort_composites on the team's keys as staged in the row (blocked).
template <class Key, class Value, unsigned int Items, class Team>
HIPFLASHSORT_DEVICE void sort_composites(const Team& team, Key* row_keys, Value* row_values, Key* keys_out,
                                         Value* values_out, unsigned int size, order ord,
                                         unsigned int owned = Team::size * Items)
{
    const bool mine = owned >= Team::size * Items || team.member * Items < owned;
    Key keys[Items] = {};
    if(mine) blocked_lds<Key, Items>::load(row_keys, team.member, keys);
    sort_loaded_composites<false>(team, keys, row_keys, row_values, keys_out, values_out, size, ord, owned);
}

} // namespace detail
} // namespace hipflashsort

#endif
