// The flash network class for keys with values: one block cuts a segment into buckets of a few
// hundred keys by interpolation, ranks every key stably inside its bucket, stages keys and values
// in LDS by bucket and sorts each bucket with a wavefront network on (image bits, position)
// composites. Interpolation narrows each bucket's range of images, so the composites nearly
// always hold whole images, where a network over the whole segment would have to drop bits.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_PAIR_SORT_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_PAIR_SORT_HPP_

#include <cstdint>

#include "../../block/detail/block_primitives.hpp"
#include "bucket_classifier.hpp"
#include "composite_sort.hpp"
#include "flash_network_buckets.hpp"
#include "segmented_kernels.hpp"

namespace hipflashsort {
namespace detail {

/// Sorts one segment of up to Capacity keys (of at most 4 bytes) and their values, stably, with a
/// block of BlockSize threads: load → min/max → classify → stable rank per bucket → scan →
/// stage keys and values in LDS by bucket → sort each bucket (sort_composites) → write.
///
/// Each wavefront ranks a contiguous span of positions in order (wave_stable_rank), so a bucket's
/// row holds its keys in input order and the composites' position bits keep equal keys in it.
/// A segment with a bucket above largest_bucket keys (skew) is handed back for a partition round.
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
struct flash_network_pair_sort
{
    using codec = radix_key_codec<Key>;
    using shape = block_shape<BlockSize>;
    static_assert(sizeof(Key) <= 4, "the composites hold 32-bit images");
    static_assert(Capacity % BlockSize == 0 && BlockSize % 32 == 0, "whole rounds per wavefront, 32-lane halves");

    static constexpr unsigned int rounds = Capacity / BlockSize; // most keys per lane in a span
    static constexpr unsigned int bucket_goal = 192;
    static constexpr unsigned int max_buckets = Capacity / bucket_goal + 1;
    static constexpr unsigned int bucket_bits = log2_ceil(max_buckets);
    static constexpr unsigned int largest_bucket = 512;
    static constexpr unsigned int network_items = 16; // both networks' keys per lane
    static constexpr unsigned int slots = Capacity + (network_items - 1) * max_buckets;
    // A network without a bucket still gathers from slot 0 of its row; it gets this row of its
    // own, past the buckets', which nobody writes (an empty bucket's row would start inside the
    // next bucket's, which another network is rewriting).
    static constexpr unsigned int idle_row = slots;
    // Each wavefront's 16-bit counters start on a 4-byte boundary (wave_stable_rank adds to two
    // at once).
    static constexpr unsigned int counter_row = (max_buckets + 1) & ~1u;
    static_assert(Capacity < 65536, "16-bit counters and prefixes");

    struct storage_type
    {
        alignas(16) Key keys[slots + network_items];
        alignas(16) Value values[slots + network_items];
        alignas(4) std::uint16_t counters[shape::waves * counter_row]; // ranks, then (bucket, wave) prefixes
        unsigned int out_first[max_buckets + 1];                       // output offset of each bucket
        unsigned int lds_first[max_buckets];                           // first LDS slot of each bucket
        std::uint32_t reduce[2 * shape::waves];
        std::uint32_t scan[shape::waves];
    };

    storage_type& lds;
    order ord;

    /// Sorts keys_in[0, size) and their values into keys_out and values_out; returns false,
    /// having written nothing, when a bucket holds more than largest_bucket keys. All threads call
    /// it together; the outputs may equal the inputs.
    HIPFLASHSORT_DEVICE bool sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                  unsigned int size)
    {
        std::uint32_t lo, hi;
        scan_range(keys_in, size, lo, hi);
        if(lo == hi)
        {
            // All keys equal (±0 included): the stable order is the input order.
            for(unsigned int i = threadIdx.x; i < size; i += BlockSize)
            {
                if(keys_in != keys_out) keys_out[i] = keys_in[i];
                if(values_in != values_out) values_out[i] = values_in[i];
            }
            return true;
        }
        const unsigned int wanted = (size + bucket_goal - 1) / bucket_goal;
        const auto classify = flash_classifier<Key>::make(lo, hi, wanted < 2 ? 2 : wanted, ord);
        const unsigned int span = wave_span(size);
        std::uint32_t ranks[rounds] = {}; // bucket << 16 | rank of each of the lane's keys
        rank(keys_in, size, span, classify, ranks);
        if(!plan_buckets(classify.buckets, size)) return false;
        stage(keys_in, values_in, size, span, ranks);
        sort_bucket_rows<BlockSize, largest_bucket>(
            0, classify.buckets, lds.out_first,
            [&](auto lanes, auto items, unsigned int b, unsigned int n, unsigned int member) {
                const unsigned int first = n != 0 ? lds.lds_first[b] : idle_row, to = lds.out_first[b];
                sort_composites<Key, Value, decltype(items)::value>(
                    wave_team<decltype(lanes)::value>{member}, lds.keys + first, lds.values + first, keys_out + to,
                    values_out + to, n, ord, (n + network_items - 1) / network_items * network_items);
            });
        syncthreads(); // the LDS is reused by the next segment
        return true;
    }

private:
    HIPFLASHSORT_DEVICE static std::uint32_t image(const Key& k, order ord)
    {
        return static_cast<std::uint32_t>(codec::order_image(k, ord));
    }

    /// Positions each wavefront ranks: [wave * span, (wave + 1) * span), whole rounds of lanes.
    HIPFLASHSORT_DEVICE static unsigned int wave_span(unsigned int size)
    {
        constexpr unsigned int per_round = shape::waves * shape::wave;
        return (size + per_round - 1) / per_round * shape::wave;
    }

    HIPFLASHSORT_DEVICE void scan_range(const Key* in, unsigned int size, std::uint32_t& lo, std::uint32_t& hi)
    {
        lo = ~std::uint32_t(0);
        hi = 0;
#pragma unroll
        for(unsigned int j = 0; j < rounds; j++)
        {
            if(j * BlockSize >= size) break; // block-uniform
            const unsigned int p = j * BlockSize + threadIdx.x;
            if(p < size)
            {
                const std::uint32_t v = image(in[p], ord);
                lo = min_of(lo, v);
                hi = max_of(hi, v);
            }
        }
        block_min_max<BlockSize>(lo, hi, lds.reduce);
    }

    /// Each key's bucket and its rank among the earlier keys of its wavefront's span in that
    /// bucket; the wavefronts' counters end up holding their counts per bucket.
    template <class Classify>
    HIPFLASHSORT_DEVICE void rank(const Key* in, unsigned int size, unsigned int span, const Classify& classify,
                                  std::uint32_t (&ranks)[rounds])
    {
        for(unsigned int i = threadIdx.x; i < shape::waves * counter_row; i += BlockSize) lds.counters[i] = 0;
        syncthreads();
        const unsigned int wave = threadIdx.x / shape::wave;
        const unsigned int first = wave * span + lane_id();
        std::uint16_t* const mine = lds.counters + wave * counter_row;
        Key keys[rounds] = {};
#pragma unroll
        for(unsigned int r = 0; r < rounds; r++)
        {
            if(r * shape::wave >= span) break; // block-uniform
            const unsigned int p = first + r * shape::wave;
            keys[r] = p < size ? in[p] : Key();
        }
#pragma unroll
        for(unsigned int r = 0; r < rounds; r++)
        {
            if(r * shape::wave >= span) break; // wavefront-uniform
            const unsigned int p = first + r * shape::wave;
            const bool valid = p < size;
            const unsigned int bucket = valid ? classify(keys[r], image(keys[r], ord)) : 0u;
            ranks[r] = bucket << 16 | wave_stable_rank<bucket_bits>(bucket, valid, mine);
        }
        syncthreads();
    }

    /// Bucket-major prefix over (bucket, wavefront): each wavefront's first output position in
    /// each bucket; then the buckets' output and LDS starts. False when a bucket is too large.
    HIPFLASHSORT_DEVICE bool plan_buckets(unsigned int buckets, unsigned int size)
    {
        scan_wave_counters<BlockSize>(lds.counters, counter_row, buckets, lds.scan);
        for(unsigned int b = threadIdx.x; b < buckets; b += BlockSize) lds.out_first[b] = lds.counters[b];
        if(threadIdx.x == 0) lds.out_first[buckets] = size;
        syncthreads();
        return plan_bucket_rows<BlockSize, network_items, largest_bucket>(
            buckets, [&](unsigned int b) { return lds.out_first[b + 1] - lds.out_first[b]; }, lds.lds_first, lds.scan);
    }

    /// Keys and values (read again, from L2) to their slots: the bucket's LDS start plus the key's
    /// output offset inside the bucket.
    HIPFLASHSORT_DEVICE void stage(const Key* keys_in, const Value* values_in, unsigned int size, unsigned int span,
                                   const std::uint32_t (&ranks)[rounds])
    {
        const unsigned int wave = threadIdx.x / shape::wave;
        const unsigned int first = wave * span + lane_id();
        const std::uint16_t* const mine = lds.counters + wave * counter_row;
#pragma unroll
        for(unsigned int r = 0; r < rounds; r++)
        {
            if(r * shape::wave >= span) break; // block-uniform
            const unsigned int p = first + r * shape::wave;
            if(p < size)
            {
                const unsigned int b = ranks[r] >> 16;
                const unsigned int slot = lds.lds_first[b] + (mine[b] + (ranks[r] & 0xffffu) - lds.out_first[b]);
                lds.keys[slot] = keys_in[p];
                lds.values[slot] = values_in[p];
            }
        }
        syncthreads();
    }
};

} // namespace detail
} // namespace hipflashsort

#endif
