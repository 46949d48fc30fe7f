// Wavefront-level flash sort (the patent's wavefront level): one logical wavefront sorts one array
// of up to Capacity keys (and values) through its own LDS storage, with no block barrier.
//
//   load (registers, striped) → min/max (shuffles) → classify (interpolated bucket ids) → stable
//   rank per bucket (ballot peer groups, one LDS counter update per group) → scan of the counts
//   (shuffles) → scatter into LDS buckets → sort each bucket (rank sort) → write back.
//   When the buckets come out too uneven for the rank sort (outliers, heavy duplicates), the array
//   is sorted instead by a bitonic network on (image, position), chosen by an estimate of the work.
//
// Stable and deterministic: ranks are counted in position order (no racing atomics), the rank sort
// breaks ties by slot (input order within a bucket), and the network's key includes the position.
//
// Several logical wavefronts may share a hardware wavefront. Ballots, shuffles and wave_barrier()
// are operations of the whole hardware wavefront, so every loop around them runs to the maximum
// over the hardware wavefront, and a logical wavefront with less to do joins them with no items.
#ifndef HIPFLASHSORT_WARP_WAVE_FLASH_SORT_HPP_
#define HIPFLASHSORT_WARP_WAVE_FLASH_SORT_HPP_

#include <cstdint>
#include <type_traits>

#include "../block/detail/block_primitives.hpp"
#include "../detail/bit_math.hpp"
#include "../detail/empty_type.hpp"
#include "../device/detail/bucket_classifier.hpp"
#include "../intrinsics/intrinsics.hpp"
#include "../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

/// wave_stable_rank for a logical wavefront of Width lanes: the number of earlier items of the
/// caller's logical wavefront in the same bucket (this round's lower lanes, then the counters of
/// earlier rounds). Peers are limited to the logical wavefront, so logical wavefronts sharing the
/// hardware one count independently, each in its own counters. All hardware lanes call together.
template <unsigned int Width, unsigned int BucketBits>
HIPFLASHSORT_DEVICE unsigned int logical_wave_stable_rank(unsigned int bucket, bool valid, unsigned int hardware_lane,
                                                          std::uint16_t* counters)
{
    const lane_mask_type active = ballot(valid);
    const lane_mask_type peers = match_any<BucketBits>(bucket) & active & logical_wave_mask<Width>(hardware_lane);
    // The lowest peer leads: one counter update per bucket and round, however hot the bucket.
    const unsigned int leader
        = valid ? static_cast<unsigned int>(__ffsll(static_cast<unsigned long long>(peers)) - 1) : hardware_lane;
    unsigned int before = 0;
    if(valid && hardware_lane == leader) before = counters[bucket];
    before = shuffle(before, static_cast<int>(leader));
    if(valid && hardware_lane == leader) counters[bucket] = static_cast<std::uint16_t>(before + popcount(peers));
    // The next round's leader of this bucket may be another lane.
    wave_barrier();
    const lane_mask_type below = (lane_mask_type(1) << hardware_lane) - 1;
    return before + popcount(peers & below);
}

} // namespace detail

/// Sorts up to Capacity keys (and values) with one logical wavefront of LogicalWaveSize lanes.
///
/// \tparam Key             u8..u64, i8..i64, float, double.
/// \tparam Value           trivially copyable payload, or empty_type for keys only.
/// \tparam LogicalWaveSize lanes per array, a power of two up to device_wavefront_size(); the
///                         hardware wavefront is split into logical wavefronts of that many
///                         consecutive lanes, each sorting its own array with its own storage.
/// \tparam Capacity        largest array, a power of two from LogicalWaveSize to
///                         16 * LogicalWaveSize (items_per_thread = Capacity / LogicalWaveSize
///                         keys per lane are held in registers).
///
/// Adaptive parameters (the patent's): items per lane and the bucket-id width come from Capacity
/// at compile time; the number of rounds (ceil(size / LogicalWaveSize)) and of buckets (size / 4
/// rounded down to a power of two, at least 2, at most max_buckets) from the size at run time, and
/// the in-bucket method from the bucket sizes the classification produced.
///
/// Stability: stable (equal keys, including -0 and +0, keep input order) and deterministic. Float
/// order: CUB's radix order, -NaN < -inf < ... < -0 = +0 < ... < +inf < +NaN (NaNs by bit
/// pattern); order::descending reverses it (ties still in input order).
///
/// Complexity, per lane, with n = size and L = LogicalWaveSize: ceil(n / L) rounds of bucket_bits
/// + 1 ballots and one shuffle; O(n / L) LDS traffic for the counts, their scan and the scatter;
/// then the rank sort reads, for each of its ceil(n / L) slots, the whole bucket of that slot
/// (about 4 keys each when keys spread over their range; a bucket holding one image, as with
/// 1-byte keys, is not read at all). When the sum of squared bucket sizes says that costs more,
/// a bitonic network of P = 2^ceil(log2 n) items sorts the array instead: log2 P (log2 P + 1) / 2
/// stages of ceil(P / 2L) compare-exchanges in LDS, one wave_barrier() each.
///
/// Memory: storage_type in LDS, about Capacity * (2 * sizeof(Key) + sizeof(Value) + 2) bytes
/// (keys and values staged by slot, plus either the bucket ids and starts or the network's images
/// and positions, which share their space). No global scratch.
template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int Capacity>
class wave_flash_sort
{
    using codec = radix_key_codec<Key>;
    using bits_type = typename codec::bit_key_type;
    using word = detail::wide_image_t<bits_type>;
    using classifier = detail::flash_classifier<Key>;
    static constexpr bool with_values = detail::has_values<Value>;
    static constexpr unsigned int lanes = LogicalWaveSize;

    static_assert(detail::is_supported_key<Key>(), "keys are 1-8 byte integers, float or double");
    static_assert(std::is_trivially_copyable<Value>::value, "values are staged in LDS");
    static_assert(LogicalWaveSize >= 1 && LogicalWaveSize <= device_wavefront_size()
                      && (LogicalWaveSize & (LogicalWaveSize - 1)) == 0,
                  "LogicalWaveSize must be a power of two no larger than the hardware wavefront");
    static_assert(Capacity >= LogicalWaveSize && Capacity <= 16 * LogicalWaveSize && (Capacity & (Capacity - 1)) == 0,
                  "Capacity: a power of two from LogicalWaveSize to 16 * LogicalWaveSize");

public:
    static constexpr unsigned int logical_wave_size = LogicalWaveSize;
    static constexpr unsigned int capacity = Capacity;
    /// Keys each lane holds in registers while they are classified and ranked (striped: lane l
    /// holds positions l, l + L, l + 2L, ...).
    static constexpr unsigned int items_per_thread = Capacity / LogicalWaveSize;
    /// Target keys per bucket: small buckets keep the in-bucket rank sort short.
    static constexpr unsigned int items_per_bucket = 4;
    static constexpr unsigned int max_buckets = detail::max_u(2, Capacity / items_per_bucket);
    static constexpr unsigned int bucket_bits = detail::log2_ceil(max_buckets);
    /// Cost of one network compare-exchange (two LDS pairs in and out, and its stage's share of a
    /// barrier) in rank-sort steps (one LDS read and compare): the network replaces the rank sort
    /// when sum(bucket size^2) / L > network_weight * stages * ceil(P / 2L). Not tuned on hardware.
    static constexpr unsigned int network_weight = 8;

private:
    // Ranks and bucket ids of a lane's items share one register: both fit 16 bits.
    static_assert(Capacity <= 65536 && max_buckets <= 65536, "ranks and bucket ids are 16-bit");

    struct bucket_arrays
    {
        std::uint16_t bucket_of[Capacity];      // bucket of each slot
        std::uint16_t start[max_buckets + 1];   // counts while ranking, then bucket starts
    };
    struct network_arrays
    {
        bits_type images[Capacity];             // order images, sorted with their positions
        std::uint16_t positions[Capacity];
    };

public:
    /// LDS of one logical wavefront; allocate one per logical wavefront (e.g. an array indexed by
    /// threadIdx.x / LogicalWaveSize). Back-to-back sorts may reuse it without a barrier.
    struct storage_type
    {
        Key keys[Capacity];                     // by slot (bucket order), or by position (network)
        Value values[with_values ? Capacity : 1];
        union
        {
            bucket_arrays buckets;              // rank-sort path
            network_arrays network;             // network path
        };
    };

    /// Sorts keys_in[0, size) into keys_out[0, size), and values_in into values_out with them
    /// (values pointers are ignored for empty_type). Outputs from size on are not written.
    ///
    /// Preconditions: all lanes of the hardware wavefront call it together (convergent, full
    /// wavefronts: the block size is a multiple of the hardware wavefront size); each logical
    /// wavefront passes its own storage and arrays, and may pass its own size and order (size and
    /// ord uniform within the logical wavefront). size <= Capacity (larger sizes sort the first
    /// Capacity keys). keys_in may equal keys_out and values_in values_out (in place); other
    /// overlaps are not allowed. Pointers may point to global memory or LDS.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, const Key* keys_in, Key* keys_out, const Value* values_in,
                                  Value* values_out, unsigned int size, order ord = order::ascending)
    {
        // lane_id() is an opaque read on NVIDIA: read it once.
        const unsigned int hardware_lane = lane_id();
        const unsigned int lane = hardware_lane & (lanes - 1);
        size = size < Capacity ? size : Capacity;

        Key keys[items_per_thread];
        load(keys_in, keys, size, lane);
        word lo, hi;
        min_max(keys, size, lane, ord, lo, hi);
        // One key, or all keys equal: the input order is the stable order. Such a wavefront still
        // joins every wavefront-wide operation below, with no items.
        const bool trivial = size <= 1 || lo == hi;
        if(trivial) write_identity(keys, values_in, keys_out, values_out, size, lane);
        const unsigned int active = trivial ? 0 : size;

        const classifier classify = make_classifier(lo, hi, active, ord);
        unsigned int places[items_per_thread];
        rank_by_bucket(storage, keys, places, classify, active, lane, hardware_lane, ord);
        const unsigned int rank_work = scan_buckets(storage, classify.buckets, active, lane);
        const unsigned int padded = network_size(classify, active, rank_work);
        scatter(storage, keys, places, values_in, active, padded, lane, ord);
        network_sort(storage, padded, lane);
        if(padded != 0)
            write_network(storage, keys_out, values_out, active, lane);
        else
            write_buckets(storage, keys_out, values_out, classify, active, lane, ord);
        // Lanes still reading storage must finish before a following sort overwrites it.
        wave_barrier();
    }

private:
    HIPFLASHSORT_DEVICE static bits_type image(const Key& k, order ord) { return codec::order_image(k, ord); }

    // Striped: position r * L + lane, so each round is a coalesced load and lane order within a
    // round is position order (what makes the ranks stable).
    HIPFLASHSORT_DEVICE static void load(const Key* keys_in, Key (&keys)[items_per_thread], unsigned int size,
                                         unsigned int lane)
    {
#pragma unroll
        for(unsigned int r = 0; r < items_per_thread; r++)
        {
            const unsigned int pos = r * lanes + lane;
            keys[r] = pos < size ? keys_in[pos] : Key(0);
        }
    }

    HIPFLASHSORT_DEVICE static void min_max(const Key (&keys)[items_per_thread], unsigned int size, unsigned int lane,
                                            order ord, word& lo, word& hi)
    {
        lo = ~word(0);
        hi = 0;
#pragma unroll
        for(unsigned int r = 0; r < items_per_thread; r++)
        {
            if(r * lanes + lane < size)
            {
                const word v = word(image(keys[r], ord));
                lo = detail::min_of(lo, v);
                hi = detail::max_of(hi, v);
            }
        }
        detail::logical_wave_min_max<lanes>(lo, hi);
    }

    HIPFLASHSORT_DEVICE static void write_identity(const Key (&keys)[items_per_thread], const Value* values_in,
                                                   Key* keys_out, Value* values_out, unsigned int size,
                                                   unsigned int lane)
    {
#pragma unroll
        for(unsigned int r = 0; r < items_per_thread; r++)
        {
            const unsigned int pos = r * lanes + lane;
            if(pos < size)
            {
                keys_out[pos] = keys[r];
                if constexpr(with_values) values_out[pos] = values_in[pos];
            }
        }
    }

    HIPFLASHSORT_DEVICE static classifier make_classifier(word lo, word hi, unsigned int active, order ord)
    {
        // No items: one bucket, without the classifier's division.
        if(active == 0) return classifier::make(0, 0, 1, ord);
        const unsigned int wanted = detail::pow2_floor(detail::max_u(2, active / items_per_bucket));
        return classifier::make(lo, hi, wanted < max_buckets ? wanted : max_buckets, ord);
    }

    // Bucket of each item and its rank among the earlier items of that bucket, packed as
    // rank << 16 | bucket. The counters end up holding the bucket sizes.
    HIPFLASHSORT_DEVICE static void rank_by_bucket(storage_type& s, const Key (&keys)[items_per_thread],
                                                   unsigned int (&places)[items_per_thread],
                                                   const classifier& classify, unsigned int active,
                                                   unsigned int lane, unsigned int hardware_lane, order ord)
    {
        std::uint16_t* counters = s.buckets.start;
        for(unsigned int b = lane; b < classify.buckets; b += lanes) counters[b] = 0;
        wave_barrier();
        // The hardware wavefront's largest: a loop bound for its wavefront-wide operations.
        const unsigned int rounds = wave_max((active + lanes - 1) / lanes);
#pragma unroll
        for(unsigned int r = 0; r < items_per_thread; r++)
        {
            places[r] = 0;
            if(r >= rounds) continue; // uniform over the hardware wavefront
            const unsigned int pos = r * lanes + lane;
            const bool valid = pos < active;
            const unsigned int bucket = valid ? classify(keys[r], word(image(keys[r], ord))) : 0u;
            const unsigned int rank
                = detail::logical_wave_stable_rank<lanes, bucket_bits>(bucket, valid, hardware_lane, counters);
            places[r] = rank << 16 | bucket;
        }
    }

    // Exclusive scan of the bucket counts into bucket starts (start[buckets] = active), each lane
    // owning a contiguous run of buckets. Returns the sum of squared bucket sizes (the rank sort's
    // work) to the whole logical wavefront.
    HIPFLASHSORT_DEVICE static unsigned int scan_buckets(storage_type& s, unsigned int buckets, unsigned int active,
                                                         unsigned int lane)
    {
        std::uint16_t* start = s.buckets.start;
        const unsigned int per_lane = (buckets + lanes - 1) / lanes;
        const unsigned int first = lane * per_lane;
        unsigned int sum = 0;
        unsigned int squares = 0;
        for(unsigned int i = 0; i < per_lane && first + i < buckets; i++)
        {
            const unsigned int count = start[first + i];
            sum += count;
            squares += count * count;
        }
        unsigned int inclusive = sum;
#pragma unroll
        for(unsigned int offset = 1; offset < lanes; offset *= 2)
        {
            const unsigned int other = shuffle_up(inclusive, offset, int(lanes));
            if(lane >= offset) inclusive += other;
        }
        unsigned int running = inclusive - sum;
        for(unsigned int i = 0; i < per_lane && first + i < buckets; i++)
        {
            const unsigned int count = start[first + i];
            start[first + i] = static_cast<std::uint16_t>(running);
            running += count;
        }
        if(lane == 0) start[buckets] = static_cast<std::uint16_t>(active);
        squares = logical_wave_sum<lanes>(squares);
        wave_barrier();
        return squares;
    }

    HIPFLASHSORT_DEVICE static unsigned int network_stages(unsigned int padded)
    {
        const unsigned int log = detail::log2_ceil(padded);
        return log * (log + 1) / 2;
    }

    // Items of the network (a power of two), or 0 for the rank sort. Buckets of one image each
    // (a direct classification) are sorted by the scatter alone, so never need the network.
    HIPFLASHSORT_DEVICE static unsigned int network_size(const classifier& classify, unsigned int active,
                                                         unsigned int rank_work)
    {
        if(active == 0 || classify.by_image.direct) return 0;
        const unsigned int padded = detail::ceil_pow2(active);
        const unsigned int per_lane = (padded / 2 + lanes - 1) / lanes;
        return rank_work > network_weight * network_stages(padded) * per_lane * lanes ? padded : 0;
    }

    // Rank path: each item to slot start[bucket] + rank, buckets in order and input order within
    // a bucket. Network path: each item to its position, with its image, and padding (maximum
    // image, position 0xffff: after every real item) up to the network's size.
    HIPFLASHSORT_DEVICE static void scatter(storage_type& s, const Key (&keys)[items_per_thread],
                                            const unsigned int (&places)[items_per_thread], const Value* values_in,
                                            unsigned int active, unsigned int padded, unsigned int lane, order ord)
    {
#pragma unroll
        for(unsigned int r = 0; r < items_per_thread; r++)
        {
            const unsigned int pos = r * lanes + lane;
            if(pos >= active) continue;
            const unsigned int bucket = places[r] & 0xffffu;
            unsigned int to = pos;
            if(padded != 0)
            {
                s.network.images[pos] = image(keys[r], ord);
                s.network.positions[pos] = static_cast<std::uint16_t>(pos);
            }
            else
            {
                // The network arrays overlay start[], but this logical wavefront never writes them.
                to = s.buckets.start[bucket] + (places[r] >> 16);
                s.buckets.bucket_of[to] = static_cast<std::uint16_t>(bucket);
            }
            s.keys[to] = keys[r];
            if constexpr(with_values) s.values[to] = values_in[pos];
        }
        for(unsigned int i = active + lane; i < padded; i += lanes)
        {
            s.network.images[i] = bits_type(~bits_type(0));
            s.network.positions[i] = 0xffffu;
        }
        wave_barrier();
    }

    // Bitonic network on (image, position) pairs, a total order, so the result is the stable
    // order. The stages run to the hardware wavefront's largest network so that every lane meets
    // every wave_barrier(); a logical wavefront compares only in its own network's stages, which
    // are a prefix of a larger network's (and 0 items: none).
    HIPFLASHSORT_DEVICE static void network_sort(storage_type& s, unsigned int padded, unsigned int lane)
    {
        const unsigned int largest = wave_max(padded); // the same bound for every logical wavefront
        for(unsigned int block = 2; block <= largest; block *= 2)
        {
            for(unsigned int stride = block / 2; stride > 0; stride /= 2)
            {
                if(block <= padded)
                {
                    for(unsigned int t = lane; t < padded / 2; t += lanes) compare_exchange(s, t, stride, block);
                }
                wave_barrier();
            }
        }
    }

    HIPFLASHSORT_DEVICE static void compare_exchange(storage_type& s, unsigned int t, unsigned int stride,
                                                     unsigned int block)
    {
        const unsigned int a = 2 * t - (t & (stride - 1));
        const unsigned int b = a + stride;
        const bool up = (a & block) == 0;
        const bits_type ia = s.network.images[a], ib = s.network.images[b];
        const std::uint16_t pa = s.network.positions[a], pb = s.network.positions[b];
        const bool a_after_b = ia > ib || (ia == ib && pa > pb);
        if(a_after_b == up)
        {
            s.network.images[a] = ib;
            s.network.images[b] = ia;
            s.network.positions[a] = pb;
            s.network.positions[b] = pa;
        }
    }

    HIPFLASHSORT_DEVICE static void write_network(storage_type& s, Key* keys_out, Value* values_out,
                                                  unsigned int active, unsigned int lane)
    {
        for(unsigned int i = lane; i < active; i += lanes)
        {
            const unsigned int pos = s.network.positions[i];
            keys_out[i] = s.keys[pos];
            if constexpr(with_values) values_out[i] = s.values[pos];
        }
    }

    // One lane per slot counts the bucket's items that precede it: smaller image, or equal image
    // and earlier slot (slots within a bucket are in input order). A bucket of one image (direct
    // classification) is already in order.
    HIPFLASHSORT_DEVICE static void write_buckets(storage_type& s, Key* keys_out, Value* values_out,
                                                  const classifier& classify, unsigned int active, unsigned int lane,
                                                  order ord)
    {
        for(unsigned int slot = lane; slot < active; slot += lanes)
        {
            unsigned int rank = slot;
            if(!classify.by_image.direct)
            {
                const unsigned int bucket = s.buckets.bucket_of[slot];
                const unsigned int begin = s.buckets.start[bucket];
                const unsigned int end = s.buckets.start[bucket + 1];
                const bits_type mine = image(s.keys[slot], ord);
                rank = begin;
                for(unsigned int other = begin; other < end; other++)
                {
                    const bits_type theirs = image(s.keys[other], ord);
                    rank += (theirs < mine) || (theirs == mine && other < slot);
                }
            }
            keys_out[rank] = s.keys[slot];
            if constexpr(with_values) values_out[rank] = s.values[slot];
        }
    }
};

} // namespace hipflashsort

#endif
