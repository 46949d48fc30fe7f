// Block-level flash sort (the patent's block level): one thread block sorts one array of up to
// Capacity keys (and values) through LDS.
//
//   load → min/max → classify (interpolated bucket ids) → rank per bucket (LDS atomics) →
//   prefix sum → (8-byte keys crowded into one bucket: classify again between sorted samples,
//   rank, prefix sum) → scatter positions and images into LDS buckets → sort each bucket (rank
//   sort if small, bitonic network on (image, input position) if large) → write back.
//
// Stable and deterministic: the in-bucket sorts break ties by input position, so the order the
// LDS atomics give a bucket's slots never shows in the result. Keys of up to 4 bytes carry the
// position in one 64-bit entry with the image (stage_entries).
#ifndef HIPFLASHSORT_BLOCK_BLOCK_FLASH_SORT_HPP_
#define HIPFLASHSORT_BLOCK_BLOCK_FLASH_SORT_HPP_

#include <cstdint>
#include <type_traits>

#include "../detail/bit_math.hpp"
#include "../detail/empty_type.hpp"
#include "../device/detail/bucket_classifier.hpp"
#include "../intrinsics/intrinsics.hpp"
#include "../thread/radix_key_codec.hpp"
#include "detail/block_primitives.hpp"

namespace hipflashsort {


/// Sorts up to Capacity keys (and values) with one block of BlockSize threads.
///
/// \tparam Key       u8..u64, i8..i64, float, double.
/// \tparam Value     trivially copyable payload, or empty_type for keys only.
/// \tparam BlockSize threads of the block, a multiple of the wavefront size.
/// \tparam Capacity  largest array, a power of two, at most 32768.
///
/// Stability: stable (equal keys, including -0 and +0, keep input order). Float order: CUB's
/// radix order, -NaN < -inf < ... < -0 = +0 < ... < +inf < +NaN (NaNs by bit pattern).
/// Complexity: O(n) for keys spread over their range. Where one bucket of 8-byte keys would hold
/// more than `skew_limit` keys, the keys are classified again between `sample_count` sorted
/// samples (O(n log s) more for s samples), so that mainly runs of equal keys still make large
/// buckets; buckets larger than `rank_limit` cost O(b log^2 b). Memory: storage_type in LDS (see
/// sizeof), no global scratch.
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
class block_flash_sort
{
    using codec = radix_key_codec<Key>;
    using word = detail::wide_image_t<typename codec::bit_key_type>;
    using shape = detail::block_shape<BlockSize>;
    static constexpr bool with_values = detail::has_values<Value>;
    static_assert(Capacity >= BlockSize && Capacity <= 32768 && (Capacity & (Capacity - 1)) == 0,
                  "Capacity: a power of two between BlockSize and 32768");

public:
    /// Target keys per bucket: small buckets keep the in-bucket rank sort short, but blocks of
    /// many waves rank faster into fewer counters. H100, one counter row for the block, 2^26
    /// u32+u32 pairs in segments of 4096 (512 threads, 16 waves), Gkeys/s: 4 / 8 / 16 keys per
    /// bucket 74.4 / 79.1 / 66.0; 8 keys at 256 threads cost u64 sorts of 2^27 keys 17.2 -> 16.7.
    static constexpr unsigned int items_per_bucket = detail::max_u(4, shape::waves / 2);
    static constexpr unsigned int max_buckets = detail::max_u(2, Capacity / items_per_bucket);
    static constexpr unsigned int bucket_bits = detail::log2_ceil(max_buckets);
    /// Buckets up to this size are rank-sorted by one thread per key; larger ones by a network.
    /// Buckets above rank_limit (skewed keys) are sorted by LDS networks: those up to
    /// wave_network_limit by one wavefront each, all wavefronts at once with wavefront barriers,
    /// larger ones one after another by the whole block. H200, 2^28 pairs / 2^27 keys, medians of
    /// three rotated rounds, Gkeys/s, every bucket by the block and a rank limit of 32 (before) ->
    /// wavefronts up to 8 keys per lane -> also a rank limit of 64: u64 reduced-entropy 8.16 ->
    /// 10.76 -> 11.03, u32+u32 reduced-entropy 15.99 -> 17.50 (the limit of 64 alone 16.83),
    /// u32+u32 zipf 20.46 -> 22.95 -> 23.09; up to 16 keys per lane 10.42 / 23.23; other cases
    /// within 0.3%.
    static constexpr unsigned int rank_limit = 64;
    /// Networked buckets up to this size take one wavefront each, all wavefronts at once.
    static constexpr unsigned int wave_network_limit = 8 * shape::wave;
    /// A bucket of 8-byte keys above this size (keys crowded into parts of their range, such as
    /// AND-ed random bits, whose equal-width buckets stay crowded at every width) makes the sort
    /// classify again, between sample_count sorted samples of the images, one per two threads.
    /// H200, 2^27 u64 keys, medians of three rotated rounds, Gkeys/s: reduced-entropy 11.25 ->
    /// 12.23 (one sample per thread: 12.10, two: 10.83; a limit of 128: 11.97 in two rounds), the
    /// other u64 and f64 rows of 2^22 keys and more from -0.7% (normal) to +1.0% (f64 uniform).
    static constexpr unsigned int skew_limit = 256;
    static constexpr unsigned int sample_count
        = detail::pow2_floor(BlockSize / 2 < max_buckets ? BlockSize / 2 : max_buckets);
    static constexpr unsigned int capacity = Capacity;

private:
    // Keys of up to 4 bytes: after the ranking, each slot holds one 64-bit entry, image << 32 |
    // bucket << position_bits | input position, in the place of the ranking's rows (which it
    // outlives). An in-bucket rank then reads one LDS word per comparison instead of an image and
    // a position (that loop was 59% of the 4096-pair class's instructions, ncu), the entries are
    // unique, so their order is the stable one, and the storage shrinks (76 -> 66 KiB for 4096
    // u32+u32 pairs). H200, 2^26 pairs, medians of six rotated rounds, Gkeys/s, u32+u32 /
    // f32+u32 segments of 2000 / 2048 / 3000 / 4096 pairs 82.0 / 93.1 / 68.8 / 84.2 -> 91.6 /
    // 102.3 / 74.3 / 92.2 and 78.5 / 89.9 / 67.1 / 81.4 -> 87.4 / 98.4 / 71.0 / 88.4; 1000,
    // 16384 and 65536 pairs and the device sorts within their spread. Wider keys keep the rows
    // (slot -> position, images by slot), whose entries would be 16 bytes.
    static constexpr bool entries = sizeof(word) == 4;
    // Keys of up to 4 bytes, whose crowded buckets are mostly runs of equal keys, keep their
    // first classification: sampling cost H200 2^28 u32+u32 sorts 5.3% (reduced-entropy) and 4.2%
    // (zipf).
    static constexpr bool resamples = !entries;
    static constexpr unsigned int position_bits = detail::log2_ceil(Capacity);
    static_assert(!entries || position_bits + bucket_bits <= 32, "bucket and position share the low word");

    static constexpr unsigned int counter_bytes = (max_buckets + 1) * sizeof(std::uint16_t);
    static constexpr unsigned int image_bytes = Capacity * sizeof(word);
    // Row storage keeps the samples in scratch, behind the counters.
    static constexpr unsigned int sample_offset = (counter_bytes + 15) / 16 * 16;
    static constexpr unsigned int ranking_bytes = sample_offset + 2 * sample_count * sizeof(word);
    static constexpr unsigned int scratch_bytes = ranking_bytes > image_bytes ? ranking_bytes : image_bytes;

    struct ranking_rows
    {
        std::uint16_t bucket_of[Capacity]; // bucket of each input position
        std::uint16_t aux[Capacity];       // wave-local rank
        alignas(4) std::uint16_t counters[max_buckets + 2]; // two to a word (wave_unordered_rank)
    };

    struct entry_storage
    {
        Key keys[Capacity];
        Value values[with_values ? Capacity : 1];
        union
        {
            ranking_rows rows;
            std::uint64_t entry[Capacity]; // by slot, buckets in order
        };
        std::uint32_t bucket_start[max_buckets + 1];
        word reduce[2 * shape::waves];
        std::uint32_t scan[shape::waves];
        std::uint32_t big_count;
        std::uint16_t big[Capacity / rank_limit + 1];
    };

    struct row_storage
    {
        Key keys[Capacity];
        Value values[with_values ? Capacity : 1];
        std::uint16_t bucket_of[Capacity]; // bucket of each input position
        std::uint16_t aux[Capacity];       // wave-local rank, then slot
        std::uint16_t perm[Capacity];      // slot → input position, buckets in order
        std::uint32_t bucket_start[max_buckets + 1];
        alignas(16) unsigned char scratch[scratch_bytes]; // bucket counters, then images by slot
        word reduce[2 * shape::waves];
        std::uint32_t scan[shape::waves];
        std::uint32_t skewed; // a bucket above skew_limit (prefix_sum)
        std::uint32_t big_count;
        std::uint16_t big[Capacity / rank_limit + 1];
    };

public:
    using storage_type = std::conditional_t<entries, entry_storage, row_storage>;

    /// Sorts keys_in[0, size) into keys_out[0, size) (and values likewise). keys_in may equal
    /// keys_out. All threads of the block call it together; size <= Capacity.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, const Key* keys_in, Key* keys_out,
                                  const Value* values_in, Value* values_out, unsigned int size,
                                  order ord = order::ascending)
    {
        word lo, hi;
        load(storage, keys_in, values_in, size, ord, lo, hi);
        if(size <= 1 || lo == hi)
        {
            // One key, or all keys equal: the stable order is the input order.
            write_identity(storage, keys_out, values_out, size);
            syncthreads();
            return;
        }
        const unsigned int wanted = detail::pow2_floor(detail::max_u(2, size / items_per_bucket));
        const auto classify = detail::flash_classifier<Key>::make(lo, hi, wanted < max_buckets ? wanted : max_buckets, ord);
        rank_by_bucket(storage, size, ord, classify);
        unsigned int buckets = classify.buckets;
        prefix_sum(storage, buckets, size);
        if constexpr(resamples)
        {
            if(storage.skewed) buckets = rank_by_samples(storage, size, ord);
        }
        if constexpr(entries)
        {
            stage_entries(storage, size, ord);
            sort_small_entries(storage, keys_out, values_out, size);
            sort_large_entries(storage, keys_out, values_out);
        }
        else
        {
            scatter_positions(storage, size, ord);
            sort_small_buckets(storage, keys_out, values_out, size);
            sort_large_buckets(storage, keys_out, values_out);
        }
    }

private:
    HIPFLASHSORT_DEVICE static word image(const Key& k, order ord) { return word(codec::order_image(k, ord)); }

    // Stages the keys and values and reduces the keys' smallest and largest image on the way,
    // instead of reading the staged keys again (block_min_max's barriers order the staging too).
    // H100, Gkeys/s, medians of three rounds: 2^26 pairs in segments of 4096 (512 threads)
    // u32+u32 80.3 -> 81.8, f32+u32 77.9 -> 79.6; device sorts of u64 / f64 / u64+u64 keys at
    // 2^20 to 2^26 within 0.1 in six rounds (2^24: 18.2 / 17.0 / 9.8 -> 18.3 / 17.0 / 9.8).
    // Loading all of a thread's keys before staging any spilled the 4096 class of f64 keys.
    HIPFLASHSORT_DEVICE static void load(storage_type& s, const Key* keys, const Value* values, unsigned int size,
                                         order ord, word& lo, word& hi)
    {
        lo = ~word(0);
        hi = 0;
        for(unsigned int i = threadIdx.x; i < size; i += BlockSize)
        {
            const Key key = keys[i];
            s.keys[i] = key;
            if constexpr(with_values) s.values[i] = values[i];
            const word v = image(key, ord);
            lo = detail::min_of(lo, v);
            hi = detail::max_of(hi, v);
        }
        detail::block_min_max<BlockSize>(lo, hi, s.reduce);
    }

    HIPFLASHSORT_DEVICE static void write_identity(storage_type& s, Key* keys, Value* values, unsigned int size)
    {
        for(unsigned int i = threadIdx.x; i < size; i += BlockSize)
        {
            keys[i] = s.keys[i];
            if constexpr(with_values) values[i] = s.values[i];
        }
    }

    HIPFLASHSORT_DEVICE static std::uint16_t* counters(storage_type& s)
    {
        if constexpr(entries)
            return s.rows.counters;
        else
            return reinterpret_cast<std::uint16_t*>(s.scratch);
    }
    HIPFLASHSORT_DEVICE static std::uint16_t* bucket_of(storage_type& s)
    {
        if constexpr(entries)
            return s.rows.bucket_of;
        else
            return s.bucket_of;
    }
    HIPFLASHSORT_DEVICE static std::uint16_t* aux(storage_type& s)
    {
        if constexpr(entries)
            return s.rows.aux;
        else
            return s.aux;
    }

    // The waves rank into one row of counters that they share (two 16-bit counters per 32-bit
    // atomic, the row 4-byte aligned: in the ranking rows for keys of up to 4 bytes, in scratch
    // for wider ones): the ranks are unordered anyway, as the in-bucket sorts break ties by input
    // position, and one row is a short prefix sum. A row per wave (a bucket-major prefix over
    // waves x buckets counters) ran segments of 4096 u32+u32 / f32+u32 pairs at 68.4 / 64.6
    // Gkeys/s against 79.7 / 77.4 so, and u64 sorts of 2^27 keys at 16.9 against 17.3 (H100,
    // medians of three rounds).
    template <class Classify>
    HIPFLASHSORT_DEVICE static void rank_by_bucket(storage_type& s, unsigned int size, order ord,
                                                   const Classify& classify)
    {
        for(unsigned int i = threadIdx.x; i <= classify.buckets; i += BlockSize) counters(s)[i] = 0;
        if constexpr(resamples)
        {
            if(threadIdx.x == 0) s.skewed = 0;
        }
        syncthreads();
        // Whole waves per round: the rank's ballots and shuffles take every lane.
        for(unsigned int first = threadIdx.x - lane_id(); first < size; first += BlockSize)
        {
            // pos < Capacity (a whole number of wavefronts), so the rows are read and written
            // without a branch: past `size` stale keys, and entries that nothing reads. Under a
            // bound test each access was a branch in which nvcc (sm_90) computed the LDS
            // window's address again. H200, 2^26 pairs, medians of eight rotated rounds, Gkeys/s:
            // u32+u32 / f32+u32 segments of 4096 pairs 82.4 / 80.3 -> 84.0 / 81.6, of 2000 80.3 /
            // 76.7 -> 82.0 / 78.5.
            const unsigned int pos = first + lane_id();
            const bool valid = pos < size;
            const Key key = s.keys[pos];
            const unsigned int classified = classify(key, image(key, ord));
            const unsigned int bucket = valid ? classified : 0;
            const unsigned int rank = detail::wave_unordered_rank<bucket_bits>(bucket, valid, counters(s));
            bucket_of(s)[pos] = static_cast<std::uint16_t>(bucket);
            aux(s)[pos] = static_cast<std::uint16_t>(rank);
        }
        syncthreads();
    }

    // Exclusive prefix of the bucket counts: each bucket's start; `skewed` set where a bucket
    // holds more than skew_limit keys (row storage).
    HIPFLASHSORT_DEVICE static void prefix_sum(storage_type& s, unsigned int buckets, unsigned int size)
    {
        std::uint16_t* c = counters(s);
        // Counts and prefixes fit 16 bits (< Capacity <= 32768).
        detail::block_exclusive_scan_lds<BlockSize, std::uint32_t>(
            [=](unsigned int b) -> std::uint16_t& { return c[b]; }, buckets, s.scan);
        for(unsigned int b = threadIdx.x; b < buckets; b += BlockSize)
        {
            s.bucket_start[b] = c[b];
            if constexpr(resamples)
            {
                const unsigned int end = b + 1 < buckets ? c[b + 1] : size;
                if(end - c[b] > skew_limit) s.skewed = 1;
            }
        }
        if(threadIdx.x == 0) s.bucket_start[buckets] = size;
        syncthreads();
    }

    // Buckets between sorted samples: bucket(x) counts the samples 1 .. n-1 that are at most x
    // (a binary search over the sorted images), monotone in the sort order like the flash
    // classifier, and about equal in size whatever the keys' shape, except for runs of equal keys.
    struct sample_classifier
    {
        const word* sorted;
        unsigned int buckets;

        HIPFLASHSORT_DEVICE unsigned int operator()(const Key&, word image) const
        {
            unsigned int b = 0;
#pragma unroll
            for(unsigned int step = sample_count / 2; step > 0; step /= 2) b += sorted[b + step] <= image ? step : 0;
            return b;
        }
    };

    HIPFLASHSORT_DEVICE static word* samples(row_storage& s) { return reinterpret_cast<word*>(s.scratch + sample_offset); }

    // sample_count images drawn at evenly spaced input positions, rank-sorted (ties by draw) into
    // the sorted half of the samples.
    HIPFLASHSORT_DEVICE static sample_classifier sample_splitters(storage_type& s, unsigned int size, order ord)
    {
        word* const drawn = samples(s);
        word* const sorted = drawn + sample_count;
        for(unsigned int t = threadIdx.x; t < sample_count; t += BlockSize)
        {
            drawn[t] = image(s.keys[t * size / sample_count], ord);
        }
        syncthreads();
        for(unsigned int t = threadIdx.x; t < sample_count; t += BlockSize)
        {
            const word mine = drawn[t];
            unsigned int rank = 0;
            for(unsigned int i = 0; i < sample_count; i++)
            {
                const word theirs = drawn[i];
                rank += theirs < mine || (theirs == mine && i < t);
            }
            sorted[rank] = mine;
        }
        syncthreads();
        return sample_classifier{sorted, sample_count};
    }

    // The skewed keys' second classification: ranks and bucket starts between sorted samples.
    HIPFLASHSORT_DEVICE static unsigned int rank_by_samples(storage_type& s, unsigned int size, order ord)
    {
        const sample_classifier classify = sample_splitters(s, size, ord);
        rank_by_bucket(s, size, ord, classify);
        prefix_sum(s, classify.buckets, size);
        return classify.buckets;
    }

    // Each thread's slots and buckets first, then, after a barrier, the entries in the rows'
    // place. Positions past `size` (each thread holds Capacity / BlockSize) take slots past it,
    // which nothing reads, so neither phase branches on the bound.
    HIPFLASHSORT_DEVICE static void stage_entries(storage_type& s, unsigned int size, order ord)
    {
        constexpr unsigned int per_thread = Capacity / BlockSize;
        std::uint32_t slot_bucket[per_thread];
#pragma unroll
        for(unsigned int j = 0; j < per_thread; j++)
        {
            const unsigned int pos = j * BlockSize + threadIdx.x;
            const bool valid = pos < size;
            const unsigned int bucket = valid ? s.rows.bucket_of[pos] : 0u;
            const unsigned int slot = valid ? s.rows.counters[bucket] + s.rows.aux[pos] : pos;
            slot_bucket[j] = slot << 16 | bucket;
        }
        if(threadIdx.x == 0) s.big_count = 0;
        syncthreads();
#pragma unroll
        for(unsigned int j = 0; j < per_thread; j++)
        {
            const unsigned int pos = j * BlockSize + threadIdx.x;
            const std::uint32_t low = (slot_bucket[j] & 0xffffu) << position_bits | pos;
            s.entry[slot_bucket[j] >> 16] = std::uint64_t(image(s.keys[pos], ord)) << 32 | low;
        }
        syncthreads();
    }

    // Whether the bucket [begin, end) of `slot` is above rank_limit, left to sort_large: its first
    // slot lists it.
    HIPFLASHSORT_DEVICE static bool left_to_network(storage_type& s, unsigned int bucket, unsigned int begin,
                                                    unsigned int end, unsigned int slot)
    {
        if(end - begin <= rank_limit) return false;
        if(slot == begin) s.big[atomicAdd(&s.big_count, 1u)] = static_cast<std::uint16_t>(bucket);
        return true;
    }

    HIPFLASHSORT_DEVICE static unsigned int entry_position(std::uint64_t e)
    {
        return static_cast<unsigned int>(e) & ((1u << position_bits) - 1u);
    }

    // One thread per slot: its rank among its bucket's entries, and the write-out there.
    HIPFLASHSORT_DEVICE static void sort_small_entries(storage_type& s, Key* keys, Value* values, unsigned int size)
    {
        for(unsigned int slot = threadIdx.x; slot < size; slot += BlockSize)
        {
            const std::uint64_t mine = s.entry[slot];
            const unsigned int bucket = static_cast<unsigned int>(mine) >> position_bits;
            const unsigned int begin = s.bucket_start[bucket];
            const unsigned int end = s.bucket_start[bucket + 1];
            if(left_to_network(s, bucket, begin, end, slot)) continue;
            unsigned int rank = 0;
            for(unsigned int other = begin; other < end; other++) rank += s.entry[other] < mine;
            write_item(s, keys, values, begin + rank, entry_position(mine));
        }
        syncthreads();
    }

    // Bitonic network over n slots in place, in flip form: every comparator, exchange(a, b) for
    // slots a < b, sends the smaller item to a. The slots past n, up to the next power of two, act
    // as maximal padding that is never stored, so their comparators are left out.
    // Threads threads run it, `thread` being the caller's index among them and `barrier` their
    // barrier.
    template <unsigned int Threads, class Exchange, class Barrier>
    HIPFLASHSORT_DEVICE static void flip_network(unsigned int n, unsigned int thread, Exchange exchange,
                                                 Barrier barrier)
    {
        for(unsigned int level = 2; level / 2 < n; level *= 2)
        {
            for(unsigned int stride = level / 2; stride > 0; stride /= 2)
            {
                const unsigned int pairs = (n + level - 1) / level * (level / 2); // groups of `level` over n
                for(unsigned int t = thread; t < pairs; t += Threads)
                {
                    const unsigned int a = 2 * t - (t & (stride - 1));
                    const unsigned int b = stride == level / 2 ? a ^ (level - 1) : a + stride;
                    if(b < n) exchange(a, b);
                }
                barrier();
            }
        }
    }

    // Buckets above rank_limit (skewed input): flip_network over each bucket's slots with the
    // compare-exchange `exchange_in(begin)` gives for them, then the write-out of its items, whose
    // input positions `position(slot)` reads from the sorted slots; by wavefronts up to
    // wave_network_limit, by the block above it.
    template <class ExchangeIn, class Position>
    HIPFLASHSORT_DEVICE static void sort_large(storage_type& s, Key* keys, Value* values, ExchangeIn exchange_in,
                                               Position position)
    {
        sort_wave_buckets(s, keys, values, exchange_in, position);
        sort_block_buckets(s, keys, values, exchange_in, position);
    }

    // The listed buckets up to wave_network_limit: wavefront w takes the w-th, the (w + waves)-th,
    // ...; the buckets are disjoint, so the wavefronts need no barrier but their own.
    template <class ExchangeIn, class Position>
    HIPFLASHSORT_DEVICE static void sort_wave_buckets(storage_type& s, Key* keys, Value* values,
                                                      ExchangeIn exchange_in, Position position)
    {
        const unsigned int wave = threadIdx.x / shape::wave;
        const unsigned int lane = threadIdx.x % shape::wave;
        for(unsigned int k = wave; k < s.big_count; k += shape::waves)
        {
            const unsigned int begin = s.bucket_start[s.big[k]];
            const unsigned int n = s.bucket_start[s.big[k] + 1] - begin;
            if(n > wave_network_limit) continue;
            flip_network<shape::wave>(n, lane, exchange_in(begin), [] { wave_barrier(); });
            for(unsigned int i = lane; i < n; i += shape::wave)
            {
                write_item(s, keys, values, begin + i, position(begin + i));
            }
        }
    }

    // The listed buckets above wave_network_limit, one after another, each by the whole block.
    template <class ExchangeIn, class Position>
    HIPFLASHSORT_DEVICE static void sort_block_buckets(storage_type& s, Key* keys, Value* values,
                                                       ExchangeIn exchange_in, Position position)
    {
        const unsigned int count = s.big_count;
        for(unsigned int k = 0; k < count; k++)
        {
            const unsigned int begin = s.bucket_start[s.big[k]];
            const unsigned int n = s.bucket_start[s.big[k] + 1] - begin;
            if(n <= wave_network_limit) continue;
            flip_network<BlockSize>(n, threadIdx.x, exchange_in(begin), [] { syncthreads(); });
            for(unsigned int i = threadIdx.x; i < n; i += BlockSize)
            {
                write_item(s, keys, values, begin + i, position(begin + i));
            }
            syncthreads();
        }
        syncthreads(); // the wavefronts' buckets are written too
    }

    // sort_large on the entries, which are unique, so their order is the stable one.
    HIPFLASHSORT_DEVICE static void sort_large_entries(storage_type& s, Key* keys, Value* values)
    {
        sort_large(
            s, keys, values,
            [&](unsigned int begin) {
                std::uint64_t* const e = s.entry + begin;
                return [=](unsigned int a, unsigned int b) {
                    const std::uint64_t ea = e[a], eb = e[b];
                    if(eb < ea)
                    {
                        e[a] = eb;
                        e[b] = ea;
                    }
                };
            },
            [&](unsigned int slot) { return entry_position(s.entry[slot]); });
    }

    HIPFLASHSORT_DEVICE static word* slot_images(storage_type& s) { return reinterpret_cast<word*>(s.scratch); }

    // Slots first (aux[pos] becomes the slot), then the slot-ordered rows: perm and the images,
    // which take the counters' place, so the in-bucket sorts read one LDS word per comparison.
    HIPFLASHSORT_DEVICE static void scatter_positions(storage_type& s, unsigned int size, order ord)
    {
        for(unsigned int pos = threadIdx.x; pos < size; pos += BlockSize)
        {
            s.aux[pos] = static_cast<std::uint16_t>(counters(s)[s.bucket_of[pos]] + s.aux[pos]);
        }
        if(threadIdx.x == 0) s.big_count = 0;
        syncthreads();
        for(unsigned int pos = threadIdx.x; pos < size; pos += BlockSize)
        {
            const unsigned int slot = s.aux[pos];
            s.perm[slot] = static_cast<std::uint16_t>(pos);
            slot_images(s)[slot] = image(s.keys[pos], ord);
        }
        syncthreads();
    }

    HIPFLASHSORT_DEVICE static void write_item(storage_type& s, Key* keys, Value* values, unsigned int to,
                                               unsigned int pos)
    {
        keys[to] = s.keys[pos];
        if constexpr(with_values) values[to] = s.values[pos];
    }

    // How many of the bucket's items [begin, end) precede the one at `slot` (input position
    // `pos`): smaller image, or equal image and earlier input position, as a bucket's slots are in
    // the LDS atomics' order. Where equal images are equal keys and no values follow them, the
    // slot breaks ties instead (any total order gives the same output).
    HIPFLASHSORT_DEVICE static unsigned int rank_in_bucket(const storage_type& s, const word* images,
                                                           unsigned int begin, unsigned int end, unsigned int slot,
                                                           unsigned int pos)
    {
        const word mine = images[slot];
        unsigned int rank = 0;
        if constexpr(!with_values && !codec::is_float)
        {
            for(unsigned int other = begin; other < end; other++)
            {
                const word theirs = images[other];
                rank += theirs < mine || (theirs == mine && other < slot);
            }
        }
        else if constexpr(sizeof(word) == 4)
        {
            // (image, position) as one 64-bit word: a compare pair per item, no branch on ties.
            const std::uint64_t me = (std::uint64_t(mine) << 32) | pos;
            for(unsigned int other = begin; other < end; other++)
            {
                rank += ((std::uint64_t(images[other]) << 32) | s.perm[other]) < me;
            }
        }
        else
        {
            for(unsigned int other = begin; other < end; other++)
            {
                const word theirs = images[other];
                rank += theirs < mine || (theirs == mine && s.perm[other] < pos);
            }
        }
        return rank;
    }

    // One thread per slot ranks its item within its bucket and writes it out.
    HIPFLASHSORT_DEVICE static void sort_small_buckets(storage_type& s, Key* keys, Value* values,
                                                       unsigned int size)
    {
        const word* images = slot_images(s);
        for(unsigned int slot = threadIdx.x; slot < size; slot += BlockSize)
        {
            const unsigned int pos = s.perm[slot];
            const unsigned int bucket = s.bucket_of[pos];
            const unsigned int begin = s.bucket_start[bucket];
            const unsigned int end = s.bucket_start[bucket + 1];
            if(left_to_network(s, bucket, begin, end, slot)) continue;
            write_item(s, keys, values, begin + rank_in_bucket(s, images, begin, end, slot, pos), pos);
        }
        syncthreads();
    }

    // sort_large in place on the slots' images and input positions, ordered by (image, input
    // position), which is a total order, so the result is stable and deterministic.
    HIPFLASHSORT_DEVICE static void sort_large_buckets(storage_type& s, Key* keys, Value* values)
    {
        sort_large(
            s, keys, values,
            [&](unsigned int begin) {
                word* const images = slot_images(s) + begin;
                std::uint16_t* const positions = s.perm + begin;
                return [=](unsigned int a, unsigned int b) {
                    const word ia = images[a], ib = images[b];
                    const std::uint16_t pa = positions[a], pb = positions[b];
                    if(ib < ia || (ib == ia && pb < pa))
                    {
                        images[a] = ib;
                        images[b] = ia;
                        positions[a] = pb;
                        positions[b] = pa;
                    }
                };
            },
            [&](unsigned int slot) { return static_cast<unsigned int>(s.perm[slot]); });
    }
};

} // namespace hipflashsort

#endif
