// The flash network class for keys with values: one block cuts a segment into buckets of a few
// hundred keys by interpolation, stages each key with its 16-bit input position in LDS by bucket,
// sorts each bucket with a wavefront network on (image bits, row position) composites, and only
// then reads the values: in order into the keys' rows once every key is out (values no wider than
// the keys), or each from its input position. Values are never staged beside the keys, so the
// class holds as many pairs as 6-byte slots fit (16384 u32+u32 pairs in 97 KiB, any value size),
// where staging the values too held 8192.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_PAIR_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_PAIR_SORT_HPP_

#include <cstdint>

#include "../../block/detail/block_primitives.hpp"
#include "../../intrinsics/cache_hints.hpp"
#include "bucket_classifier.hpp"
#include "composite_sort.hpp"
#include "flash_network_buckets.hpp"
#include "segmented_kernels.hpp"
#include "sorted_runs.hpp"

namespace hipflashsort {
namespace detail {

/// The composites ((field >> shift) & mask) << position_bits | position of fields held striped
/// (member m's item j at row position j * size + m), sorted by the team: member m's item j is
/// blocked rank m * Items + j, positions from n on last.
template <class Team, unsigned int Items>
HIPFLASHSORT_DEVICE void rank_striped(const Team& team, const std::uint32_t (&fields)[Items], unsigned int n,
                                      unsigned int shift, std::uint32_t mask, std::uint32_t (&composite)[Items])
{
    constexpr unsigned int position_bits = log2_ceil(Team::size * Items);
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        const unsigned int p = j * Team::size + team.member;
        composite[j] = p < n ? ((fields[j] >> shift) & mask) << position_bits | p : ~std::uint32_t(0);
    }
    team.sort(composite);
}

/// Whether two neighbouring ranks below n (the member's, or its last and the next member's
/// first) have equal fields in their sorted composites: their order is then the row's, which
/// need not be that of their images or input positions.
template <class Team, unsigned int Items>
HIPFLASHSORT_DEVICE bool field_ties(const Team& team, const std::uint32_t (&composite)[Items], unsigned int n)
{
    constexpr unsigned int position_bits = log2_ceil(Team::size * Items);
    const unsigned int first = team.member * Items;
    bool tie = false;
#pragma unroll
    for(unsigned int j = 1; j < Items; j++)
        tie |= first + j < n && composite[j - 1] >> position_bits == composite[j] >> position_bits;
    const std::uint32_t next = shuffle_down(composite[0], 1u, int(Team::size));
    return tie
           || (team.member + 1 < Team::size && first + Items < n
               && composite[Items - 1] >> position_bits == next >> position_bits);
}

/// Puts a team's row of keys and input positions into the order of the sorted composites: rank
/// r (below n) takes the slot of the composite's position. Keys, then positions, each gathered
/// by every member before any is stored; the positions are held two to a word meanwhile (held
/// as composites beside the keys, they made the flash network class spill 480 bytes).
template <class Team, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void permute_row(const Team& team, Key* row_keys, std::uint16_t* row_index,
                                     const std::uint32_t (&composite)[Items], unsigned int n)
{
    static_assert(Items % 2 == 0, "positions held in pairs");
    constexpr std::uint32_t position_mask = (std::uint32_t(1) << log2_ceil(Team::size * Items)) - 1;
    const unsigned int first = team.member * Items;
    std::uint32_t from[Items / 2];
#pragma unroll
    for(unsigned int j = 0; j < Items; j += 2)
        from[j / 2] = (composite[j] & position_mask) | (composite[j + 1] & position_mask) << 16;
    const auto slot = [&](unsigned int j) { return (from[j / 2] >> (16 * (j % 2))) & 0xffffu; };
    Key keys[Items];
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) keys[j] = first + j < n ? row_keys[slot(j)] : Key();
    team.barrier();
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        if(first + j < n) row_keys[first + j] = keys[j];
    }
    std::uint16_t index[Items];
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) index[j] = first + j < n ? row_index[slot(j)] : 0;
    team.barrier();
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        if(first + j < n) row_index[first + j] = index[j];
    }
    team.barrier();
}

/// Sorts each run of ranks with equal fields ((order image >> shift) & mask) in a team's row,
/// already in the order of its sorted composites (permute_row), by (order image, input position):
/// the stable order, which the staging's hardware order and the image bits dropped leave undone
/// there. The member holding a run's first rank sorts it by insertion in LDS, after every member
/// has found its runs (so no member reads slots that another rewrites). Returns false, leaving it,
/// where a run is longer than MaxRun. Ends with a team barrier.
template <unsigned int MaxRun, unsigned int Items, class Team, class Key>
HIPFLASHSORT_DEVICE bool settle_tie_runs(const Team& team, Key* row_keys, std::uint16_t* row_index, unsigned int n,
                                         unsigned int shift, std::uint32_t mask, order ord)
{
    // A member's runs start at most every other rank: 8 starts and lengths of 4 bits fill a word each.
    static_assert(Items <= 16 && MaxRun < 15, "a member's run lengths in one word");
    const auto image = [&](unsigned int r) { return std::uint32_t(radix_key_codec<Key>::order_image(row_keys[r], ord)); };
    const auto field = [&](unsigned int r) { return (image(r) >> shift) & mask; };
    const unsigned int first = team.member * Items;
    // The member's runs of up to MaxRun keys, 4 bits each, the first in the low bits: where they
    // start (from `first`) and how long they are.
    std::uint32_t starts = 0, lengths = 0;
    unsigned int runs = 0;
    bool fits = true;
#pragma unroll 1
    for(unsigned int r = first; r < first + Items && r + 1 < n; r++)
    {
        const std::uint32_t f = field(r);
        if(field(r + 1) != f || (r > 0 && field(r - 1) == f)) continue; // not a run's first rank
        unsigned int end = r + 2;
        while(end < n && end - r <= MaxRun && field(end) == f) end++;
        if(end - r > MaxRun)
        {
            fits = false;
            continue;
        }
        starts |= (r - first) << (4 * runs);
        lengths |= (end - r) << (4 * runs);
        runs++;
    }
    team.barrier(); // every member has read its runs' neighbours
#pragma unroll 1
    for(; runs != 0; runs--, starts >>= 4, lengths >>= 4)
    {
        const unsigned int r = first + (starts & 15u), end = r + (lengths & 15u);
        for(unsigned int i = r + 1; i < end; i++)
        {
            const Key key = row_keys[i];
            const std::uint16_t at = row_index[i];
            const std::uint32_t v = image(i);
            unsigned int q = i;
            for(; q > r && (image(q - 1) > v || (image(q - 1) == v && row_index[q - 1] > at)); q--)
            {
                row_keys[q] = row_keys[q - 1];
                row_index[q] = row_index[q - 1];
            }
            row_keys[q] = key;
            row_index[q] = at;
        }
    }
    team.barrier();
    return fits;
}

/// Order images (image = true) or input positions of a team's row, striped.
template <class Team, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void load_striped_fields(const Team& team, const Key* row_keys, const std::uint16_t* row_index,
                                             unsigned int n, bool image, order ord, std::uint32_t (&fields)[Items])
{
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        const unsigned int p = j * Team::size + team.member;
        if(p >= n) fields[j] = 0;
        else if(image) fields[j] = std::uint32_t(radix_key_codec<Key>::order_image(row_keys[p], ord));
        else fields[j] = row_index[p];
    }
}

/// Sorts a team's LDS row of n keys and their input positions (`index`, in any order) stably:
/// by order image, equal images by input position, on 32-bit composites of (image bits, row
/// position). The first pass is the answer unless two neighbouring ranks tie in the bits kept:
/// their order is then the staging order. Runs of up to settle_run such ranks are then put in
/// order in place (settle_tie_runs); a row with a longer one is sorted least significant digit
/// first instead: by input position, then (where bits were dropped) by the dropped image bits,
/// then by the kept ones, each pass stable in row position; a row of equal keys needs only the
/// first. Floats of [0, 1) repeat (a float holds 2^23 values per binade), and rows holding a
/// repeated key took the three passes: H100, 2^26 pairs, medians of three rounds, Gkeys/s,
/// settled instead: f32+u32 segments of 8192 / 12000 / 16384 pairs 51.4 / 52.2 / 52.4 -> 55.3 /
/// 56.5 / 57.5, u32+u32 55.1 / 57.5 / 59.0 -> 57.5 / 59.0 / 59.0 (members finding and sorting
/// their runs in one step; in two, as here, so that none reads what another rewrites, another
/// call read 55.0 / 56.3 / 57.3 and 57.4 / 58.9 / 59.0).
/// The sorted row goes back to LDS, and keys_out[i] / values_out[i] take rank i's key and
/// values_from[its input position]; without values_out the values are left to the caller, which
/// finds the row's input positions in rank order.
template <class Key, class Value, unsigned int Items, class Team>
HIPFLASHSORT_DEVICE void sort_indexed_row(const Team& team, Key* row_keys, std::uint16_t* row_index, Key* keys_out,
                                          const Value* values_from, Value* values_out, unsigned int n, order ord)
{
    constexpr unsigned int field_bits = 32 - log2_ceil(Team::size * Items);
    constexpr std::uint32_t field_mask = (std::uint32_t(1) << field_bits) - 1;
    constexpr unsigned int settle_run = 8; // repeated floats mostly make runs of 2 or 3
    static_assert(field_bits >= 16, "a pass by input position keeps all 16 bits");
    std::uint32_t fields[Items], composite[Items];
    load_striped_fields(team, row_keys, row_index, n, true, ord, fields);
    const unsigned int used
        = spread_bits_where(team, fields, [&](unsigned int j) { return j * Team::size + team.member < n; });
    const unsigned int shift = used > field_bits ? used - field_bits : 0u;
    rank_striped(team, fields, n, shift, field_mask, composite);
    const bool ties = team.any(field_ties(team, composite, n));
    permute_row(team, row_keys, row_index, composite, n);
    if(ties && team.any(!settle_tie_runs<settle_run, Items>(team, row_keys, row_index, n, shift, field_mask, ord)))
    {
        load_striped_fields(team, row_keys, row_index, n, false, ord, fields);
        rank_striped(team, fields, n, 0, 0xffffu, composite);
        if(team.any(used != 0)) // else the keys are equal and input order is the answer
        {
            permute_row(team, row_keys, row_index, composite, n);
            if(team.any(shift != 0))
            {
                load_striped_fields(team, row_keys, row_index, n, true, ord, fields);
                rank_striped(team, fields, n, 0, (std::uint32_t(1) << shift) - 1, composite);
                permute_row(team, row_keys, row_index, composite, n);
            }
            load_striped_fields(team, row_keys, row_index, n, true, ord, fields);
            rank_striped(team, fields, n, shift, field_mask, composite);
        }
        permute_row(team, row_keys, row_index, composite, n);
    }
    for(unsigned int i = team.member; i < n; i += Team::size)
    {
        keys_out[i] = row_keys[i];
        if(values_out != nullptr) values_out[i] = values_from[row_index[i]];
    }
}

/// Sorts one segment of up to Capacity keys (of at most 4 bytes) and their values, stably, with a
/// block of BlockSize threads: load → min/max → classify and count → scan → stage keys and input
/// positions in LDS by bucket → sort each bucket (sort_indexed_row) → write keys, then values
/// (write_deferred_values, or read by position).
///
/// Staging takes each key's slot with an LDS atomic, so a bucket's row is in the hardware's order;
/// the networks restore input order among equal keys from the positions, so the result is
/// deterministic. A segment with a bucket above largest_bucket keys (skew) is handed back for a
/// partition round. The values are prefetched into L2 once the keys are staged. A segment whose
/// keys are in order already is copied, one whose keys fall strictly reversed.
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
struct flash_network_pair_sort
{
    using codec = radix_key_codec<Key>;
    using shape = block_shape<BlockSize>;
    static_assert(sizeof(Key) <= 4, "the composites hold 32-bit images");
    static_assert(Capacity % BlockSize == 0 && BlockSize % 32 == 0, "whole items per thread, 32-lane halves");
    static_assert(Capacity <= 65536, "16-bit input positions");

    static constexpr unsigned int items = Capacity / BlockSize; // keys per thread and pass
    static constexpr unsigned int bucket_goal = 192;
    static constexpr unsigned int max_buckets = Capacity / bucket_goal + 1;
    static constexpr unsigned int largest_bucket = 512;
    // Loads in flight per thread: batches of 32 (all of a thread's keys at 16384) spilled 468
    // bytes (ptxas, sm_90); the values' prefetch at the range scan, before staging instead of
    // after, pushed the keys out of L2 before their second and third reads (ncu: 1.49 GB of DRAM
    // reads for 0.54 GB of keys and values). H100, 2^26 pairs, u32+u32 segments of 16384 pairs:
    // 39.1 -> 58.9 Gkeys/s.
    static constexpr unsigned int batch = items < 16 ? items : 16;
    static constexpr bool whole_steps = false; // see for_each_striped
    static constexpr bool values_fit_keys = sizeof(Value) <= sizeof(Key) && alignof(Value) <= alignof(Key);

    struct storage_type
    {
        Key keys[Capacity];                       // staged by bucket, rows side by side
        std::uint16_t index[Capacity];            // each staged key's input position
        unsigned int cursor[max_buckets];         // bucket counts, then the next free slot of each
        unsigned int out_first[max_buckets + 1];  // first slot (and output offset) of each bucket
        std::uint32_t reduce[2 * shape::waves];
        std::uint32_t ends[2];                    // images of the first and the last key
        unsigned int scan[shape::waves];
    };

    storage_type& lds;
    order ord;

    /// Sorts keys_in[0, size) and their values into keys_out and values_out; returns false,
    /// having written nothing, when a bucket holds more than largest_bucket keys. All threads call
    /// it together. The outputs may equal the inputs; in place, values wider than the keys are
    /// first copied to `scratch` (size values, free), others wait in LDS for the last key.
    HIPFLASHSORT_DEVICE bool sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                  unsigned int size, Value* scratch)
    {
        std::uint32_t lo, hi;
        scan_range(keys_in, size, lo, hi);
        // H200, 2^28 u32+u32 pairs, seven rotated rounds, Gkeys/s: sorted 32.87 -> 62.82, reverse
        // 32.67 -> 37.08 (49.15 in a later run, with reverse_through_row); uniform 23.46 -> 23.33
        // (-0.5%), nearly-sorted -1.0%, the others within 0.5%.
        if(copy_or_reverse_run(keys_in, keys_out, values_in, values_out, size, lo, hi)) return true;
        const unsigned int wanted = (size + bucket_goal - 1) / bucket_goal;
        const auto classify = flash_classifier<Key>::make(lo, hi, wanted < 2 ? 2 : wanted, ord);
        count(keys_in, size, classify);
        if(!plan_tight_rows<BlockSize, largest_bucket>(classify.buckets, size, lds.cursor, lds.out_first, lds.scan))
            return false;
        stage(keys_in, size, classify);
        // Values no wider than the keys are written once every key is out, through the keys' rows
        // (write_deferred_values), in place or not. Wider ones are written bucket by bucket, each
        // read by its input position; in place, where a bucket's values may not be written while
        // other buckets still read theirs, they are copied to scratch first.
        const Value* values_from = values_in;
        if constexpr(!values_fit_keys)
        {
            if(values_in == values_out) values_from = copy_values(values_in, scratch, size);
        }
        prefetch_values(values_from, size);
        sort_bucket_rows<BlockSize, largest_bucket>(
            0, classify.buckets, lds.out_first,
            [&](auto lanes, auto per_lane, unsigned int b, unsigned int n, unsigned int member) {
                const unsigned int first = lds.out_first[b];
                sort_indexed_row<Key, Value, decltype(per_lane)::value>(
                    wave_team<decltype(lanes)::value>{member}, lds.keys + first, lds.index + first, keys_out + first,
                    values_from, values_fit_keys ? nullptr : values_out + first, n, ord);
            });
        if constexpr(values_fit_keys) write_deferred_values(values_in, values_out, size);
        syncthreads(); // the LDS is reused by the next segment
        return true;
    }

private:
    HIPFLASHSORT_DEVICE static std::uint32_t image(const Key& k, order ord)
    {
        return static_cast<std::uint32_t>(codec::order_image(k, ord));
    }

    /// Copies keys and values whose keys are in order already (all equal among them: the stable
    /// order is the input order), or reverses those whose keys fall strictly (a run of equal keys
    /// would turn its values' order; order images make -0 and +0 equal); returns false, having
    /// written nothing, otherwise. Sorted and reverse-sorted input reaches the class so from the
    /// partition, whose scatter is stable. The block's barriers in run_direction end its reads
    /// before any write in place. Keys, and values no wider than the keys, are reversed through
    /// the staging row (reverse_through_row); wider values one pair at a time in place.
    HIPFLASHSORT_DEVICE bool copy_or_reverse_run(const Key* keys_in, Key* keys_out, const Value* values_in,
                                                 Value* values_out, unsigned int size, std::uint32_t lo,
                                                 std::uint32_t hi) const
    {
        const int run = run_direction<BlockSize>(size, lo, hi, lds.ends[0], lds.ends[1], true,
                                                 [&](unsigned int i) { return image(keys_in[i], ord); });
        if(run > 0)
        {
            copy_run<BlockSize>(keys_in, keys_out, size);
            copy_run<BlockSize>(values_in, values_out, size);
        }
        else if(run < 0)
        {
            reverse_through_row(keys_in, keys_out, size);
            if constexpr(values_fit_keys) reverse_through_row(values_in, values_out, size);
            else reverse_run<BlockSize, 1>(values_in, values_out, size);
        }
        return run != 0;
    }

    /// out[0, size) = in[0, size) backwards (in place too), T no wider than Key: whole batches of
    /// 16 loads per thread from one address each, into the staging row in reverse order, then
    /// written out in order. A swap of one pair of keys, then of values, at a time waited on
    /// memory for each: ncu at its clocks, 2^28 u32+u32 reverse, the class took 3.35 ms, against
    /// 0.69 ms for sorted input (by our reading both in place, in the round's buffer, where sorted
    /// segments are left as they are; out-of-place reversals four at a time changed nothing).
    /// Two pairs at a time spilled the class 208 bytes instead of 68 (ptxas, sm_90; uniform
    /// -1.2%), and so did batches through for_each_striped (76 bytes at 16 loads, 228 at 8);
    /// these keep 68.
    template <class T>
    HIPFLASHSORT_DEVICE void reverse_through_row(const T* in, T* out, unsigned int size) const
    {
        T* const row = reinterpret_cast<T*>(lds.keys);
        constexpr unsigned int loads = 16;
        unsigned int i0 = threadIdx.x;
        for(; i0 + (loads - 1) * BlockSize < size; i0 += loads * BlockSize)
        {
            const T* from = in + i0;
            T* to = row + (size - 1 - i0);
            T v[loads];
#pragma unroll
            for(unsigned int j = 0; j < loads; j++) v[j] = from[j * BlockSize];
#pragma unroll
            for(unsigned int j = 0; j < loads; j++) *(to - j * BlockSize) = v[j];
        }
        for(; i0 < size; i0 += BlockSize) row[size - 1 - i0] = in[i0];
        syncthreads(); // every key is read and staged
        for(unsigned int i = threadIdx.x; i < size; i += BlockSize) out[i] = row[i];
        syncthreads(); // the row is staged again
    }

    /// Brings values[0, size) into L2, where the bucket sorts read them one by one.
    HIPFLASHSORT_DEVICE static void prefetch_values(const Value* values, unsigned int size)
    {
        constexpr unsigned int line = sizeof(Value) < 128 ? 128 / sizeof(Value) : 1;
        for(unsigned int i = threadIdx.x * line; i < size; i += BlockSize * line) prefetch_l2(values + i);
    }

    /// lo, hi: the extreme images of keys[0, size); lds.ends: those of its first and last keys,
    /// each stored by the thread that read it, before the reduction's barrier. H200, 2^28 u32+u32
    /// uniform, seven rotated rounds, against the class without run detection: ends read by every
    /// thread after the barrier -0.7%, stored before it -0.4 / -0.5% (two calls), noted in
    /// registers through the scan -1.4% (76 bytes of spill instead of 68).
    HIPFLASHSORT_DEVICE void scan_range(const Key* keys, unsigned int size, std::uint32_t& lo, std::uint32_t& hi)
    {
        lo = ~std::uint32_t(0);
        hi = 0;
        for_each_striped<BlockSize, items, batch, whole_steps>(keys, size, [&](unsigned int, const Key& key) {
            const std::uint32_t v = image(key, ord);
            lo = min_of(lo, v);
            hi = max_of(hi, v);
        });
        if(size != 0 && threadIdx.x == 0) lds.ends[0] = image(keys[0], ord);
        if(size != 0 && threadIdx.x == (size - 1) % BlockSize) lds.ends[1] = image(keys[size - 1], ord);
        block_min_max<BlockSize>(lo, hi, lds.reduce);
    }

    template <class Classify>
    HIPFLASHSORT_DEVICE void count(const Key* in, unsigned int size, const Classify& classify)
    {
        for(unsigned int b = threadIdx.x; b < classify.buckets; b += BlockSize) lds.cursor[b] = 0;
        syncthreads();
        for_each_striped<BlockSize, items, batch, whole_steps>(in, size, [&](unsigned int, const Key& key) {
            atomicAdd(&lds.cursor[classify(key, image(key, ord))], 1u);
        });
        syncthreads();
    }

    /// Each key and its input position to the next free slot of its bucket.
    template <class Classify>
    HIPFLASHSORT_DEVICE void stage(const Key* in, unsigned int size, const Classify& classify)
    {
        for_each_striped<BlockSize, items, batch, whole_steps>(in, size, [&](unsigned int p, const Key& key) {
            const unsigned int slot = atomicAdd(&lds.cursor[classify(key, image(key, ord))], 1u);
            lds.keys[slot] = key;
            lds.index[slot] = static_cast<std::uint16_t>(p);
        });
        syncthreads();
    }

    /// to[0, size) = from[0, size); returns `to`.
    HIPFLASHSORT_DEVICE static const Value* copy_values(const Value* from, Value* to, unsigned int size)
    {
        for_each_striped<BlockSize, items, batch, whole_steps>(from, size, [&](unsigned int p, const Value& v) { to[p] = v; });
        syncthreads(); // the copies are visible to the block
        return to;
    }

    /// After every bucket's keys: the segment's values are read in order into the keys' rows (free
    /// now), then each rank's value is taken from there by its input position and written out. The
    /// former way round, each value read from global memory by its input position into the row,
    /// then written in order, made every load of 4-byte values a warp touch about 32 sectors.
    /// H200, 2^28 u32+u32 pairs, five rotated rounds, medians, Gkeys/s, in place (the device
    /// level's last round): uniform 23.49 -> 24.18 (+2.9%), normal 22.02 -> 22.60, exponential
    /// 20.01 -> 20.36, nearly-sorted 32.62 -> 33.00, the others within 0.1%; with out-of-place
    /// segments deferred too, 2^28 read 0.0-0.4% more, and the segmented sort's segments of 16384
    /// pairs (2^26 pairs) 66.29 -> 76.66 u32+u32, 63.09 -> 71.12 f32+u32.
    HIPFLASHSORT_DEVICE void write_deferred_values(const Value* values_in, Value* values_out, unsigned int size)
    {
        Value* const row = reinterpret_cast<Value*>(lds.keys);
        syncthreads(); // every bucket's keys are out and its positions sorted
        for_each_striped<BlockSize, items, batch, whole_steps>(values_in, size,
                                                              [&](unsigned int p, const Value& v) { row[p] = v; });
        syncthreads(); // every value is staged (and, in place, read) before any is written
        for(unsigned int i = threadIdx.x; i < size; i += BlockSize) values_out[i] = row[lds.index[i]];
    }
};

} // namespace detail
} // namespace hipflashsort

#endif
