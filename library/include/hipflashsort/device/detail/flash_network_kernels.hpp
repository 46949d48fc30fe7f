// The block level of the flash sort with sorting networks as its in-bucket sorts: one block takes
// a segment of up to Capacity keys (of at most 4 bytes, without values), cuts it into buckets of
// about 20 keys by interpolation, stages them in LDS, and sorts each bucket with a wavefront
// network. It covers the segments too large for one block
// network and spares them a partition round through global memory. Keys with values take
// flash_network_pair_sort through the same kernel.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_FLASH_NETWORK_KERNELS_HPP_

#include <cstdint>
#include <type_traits>

#include "../../block/detail/block_primitives.hpp"
#include "../../warp/warp_bitonic_sort.hpp"
#include "bucket_classifier.hpp"
#include "flash_network_buckets.hpp"
#include "flash_network_pair_sort.hpp"
#include "segmented_kernels.hpp"
#include "sorted_runs.hpp"

namespace hipflashsort {
namespace detail {

/// Sorts one segment of up to Capacity keys with a block of BlockSize threads:
/// load → min/max → classify and count → scan → stage in LDS by bucket → sort each bucket with a
/// network → write. Three reads of the segment (the second and third from L2), one write. A
/// segment already in order is copied instead, one in reverse order reversed (run_direction).
///
/// The rows are tight: each bucket is staged where its output goes, buckets average bucket_goal
/// keys, and a wavefront's groups of 4 lanes sort consecutive buckets with the 32-key network
/// (sort_tight_bucket_rows); a range of at most image_buckets images takes a bucket per image and
/// no network. The row is then written out whole. A segment with a bucket above largest_bucket
/// keys (skewed keys) is not sorted here but handed back for a partition round, whose buckets get
/// their own min/max.
///
/// Windowed (the wide classes), a staged row shorter than the segment takes the buckets in
/// windows, runs of consecutive buckets that fit it (plan_windows), reading the segment once more
/// per window: a segment larger than the LDS is still sorted by one block, its reads after the
/// first from L2.
///
/// Inside a bucket the staging order is the hardware's: equal images are equal keys, except
/// floats' -0 and +0, whose run is rewritten in input order at the end from bit masks taken while
/// loading. The result is deterministic. The staged row follows storage_type in LDS and holds
/// `slots` keys (full_slots: every bucket at once, and for floats the zero masks at its end).
template <class Key, unsigned int BlockSize, unsigned int Capacity, bool Windowed = false>
struct flash_network_sort
{
    using codec = radix_key_codec<Key>;
    using shape = block_shape<BlockSize>;
    static_assert(sizeof(Key) <= 4, "the networks sort 32-bit images");
    static_assert(Capacity % BlockSize == 0 && BlockSize % 32 == 0, "whole items per thread, 32-lane groups");

    static constexpr unsigned int capacity = Capacity;
    static constexpr unsigned int items = Capacity / BlockSize; // keys per thread and pass
    // Tight buckets of about 20 keys fit the 32-key network of 4 lanes, whose 15 stages (3
    // across lanes) cost about half of the 128-key network's 28 (10 across lanes) per slot. H200,
    // 2^28 keys, three rotated rounds, Gkeys/s, medians, against the 96-key buckets of whole-line
    // rows (fifty-eighth session): u32 / f32 uniform 51.78 / 50.03 -> 55.68 / 57.12 (+7.5 /
    // +14.2%), normal +7.3 / +5.9%, exponential +5.4 / +3.6%, nearly-sorted +16.2 / +24.0%, f32
    // outlier +13.7%, u32 zipf +1.4%, the others within 0.5%; the flash network class of a 2^28
    // u32 sort 1.282 G -> 0.964 G warp instructions, 2.75 -> 2.24 ms at ncu's clocks. Goals of
    // 16 / 18 / 22 / 24 keys: u32 uniform 54.78 / 55.57 / 55.02 / 53.79, f32 57.19 / 57.17 /
    // 56.76 / 56.27. f32 keys of [0.5, 1) come about 16 times each in the benchmarks: their
    // segments span fewer images than image_buckets and take a bucket per image. (The 96-key
    // buckets had beaten 192-key ones of the 256-key network by 2-5%, forty-first session.)
    // The wide classes' windows take the same goal: H200, segments of 16384 / 20000 / 24577 /
    // 32768 / 49152 / 65536 u32 keys (2^26 keys, three rotated rounds, fifty-ninth session) at
    // goals of 16 / 20 / 24 / 32 keys: 20000 140.1 / 148.9 / 135.7 / 121.1 Gkeys/s, 65536 114.8 /
    // 118.9 / 111.0 / 102.0, 24577 109.6 / 114.1 / 106.2 / 117.5 (f32 likewise).
    static constexpr unsigned int bucket_goal = 20;
    // A segment whose range spans at most this many images takes a bucket per image (a counting
    // sort: no networks). H200, three rotated rounds, against 1024 (fifty-eighth session): 2^28
    // f32 uniform 56.74 -> 59.53 Gkeys/s, outlier 55.52 -> 58.30, exponential 45.59 -> 48.33
    // (segments of keys of [0.25, 0.5), about 8 copies each, span about 1640 images), u32 within
    // 0.2%; 4096 (one block per multiprocessor: 100 KiB of LDS each) lost 2^28 f32 uniform 10%.
    static constexpr unsigned int image_buckets = 2048;
    static constexpr unsigned int max_buckets = max_u(Capacity / bucket_goal + 1, image_buckets);
    // The 1024-key network (32 keys per lane) made the tight sort spill (ptxas: 48-76 bytes of
    // spill stores); such buckets hand the segment back instead.
    static constexpr unsigned int largest_bucket = 512;
    static constexpr unsigned int line_items = 128 / sizeof(Key);
    static constexpr unsigned int max_windows = 4;
    static constexpr unsigned int mask_words = codec::is_float ? Capacity / 32 : 1;
    // A float segment's zero masks (16 KiB for 65536 keys) sit at the staged row's end, so that
    // windowed they shorten the row only for segments that hold a zero; in storage_type they would
    // shorten it for every segment, and cost the common, zero-free ones a window.
    /// Staged slots that the masks take at the row's end.
    static constexpr unsigned int mask_slots
        = codec::is_float ? 2 * mask_words * static_cast<unsigned int>(sizeof(std::uint32_t) / sizeof(Key)) : 0;

    // What the windowed sort reads from LDS after each window's networks instead of holding it
    // in registers across them, where it made the networks spill (H100, 2^26 u32 keys, segments
    // of 24577 / 65536 keys: 80.3-80.6 / 62.0-62.7 -> 83.8-83.9 / 65.7-66.0 Gkeys/s).
    struct window_job
    {
        const Key* in;
        Key* out;
        Key* scratch;
        unsigned int size;
        unsigned int below;
        unsigned int windows;
        bool zeros;
        const Key* next; // prefetched into L2 during the last window
        unsigned int next_size;
    };

    struct storage_type
    {
        unsigned int cursor[max_buckets];    // bucket counts, then the next free LDS slot of each
        unsigned int out_first[max_buckets + 1]; // output offset and first slot of each bucket
        unsigned int window_first[max_windows + 1]; // first bucket of each window
        std::uint32_t reduce[2 * shape::waves];
        unsigned int scan[shape::waves];
        flash_classifier<Key> classify; // read again by each window, not held across the networks
        window_job job;                 // likewise
    };
    // The staged row starts on a 128-byte line.
    static constexpr unsigned int row_offset = (sizeof(storage_type) + 127) / 128 * 128;

    /// LDS of a sorter whose staged row holds `slots` keys.
    HIPFLASHSORT_HOST_DEVICE static constexpr unsigned int lds_bytes(unsigned int slots)
    {
        return row_offset + slots * static_cast<unsigned int>(sizeof(Key));
    }
    /// Staged slots that `bytes` of LDS give.
    HIPFLASHSORT_HOST_DEVICE static constexpr unsigned int slots_in(unsigned int bytes)
    {
        return bytes > row_offset ? (bytes - row_offset) / static_cast<unsigned int>(sizeof(Key)) : 0u;
    }
    /// Largest segment that a staged row of `row` keys takes in at most `windows` windows (0:
    /// none). plan_windows closes a window only before a bucket that would end beyond the row,
    /// so every window but the last holds more than slots - largest_bucket keys, and the last at
    /// most slots: a segment of (windows - 1) * (slots - largest_bucket + 1) + slots keys fits,
    /// one key more may not. The masks' slots are not counted: a segment with a zero has the row
    /// without them.
    HIPFLASHSORT_HOST_DEVICE static constexpr unsigned int largest_windowed(unsigned int row,
                                                                           unsigned int windows = max_windows)
    {
        if(row <= mask_slots || windows == 0) return 0;
        const unsigned int slots = row - mask_slots;
        if(slots >= Capacity) return Capacity;
        const std::uint64_t fuller = slots > largest_bucket ? slots - largest_bucket + 1 : 0;
        const std::uint64_t n = (windows - 1) * fuller + slots;
        return n < Capacity ? static_cast<unsigned int>(n) : Capacity;
    }

    /// Largest segment without a float zero that a row of `row` keys takes in one window: the
    /// whole row, the rows being tight (the masks' slots are the row's only when there is a zero).
    HIPFLASHSORT_HOST_DEVICE static constexpr unsigned int zero_free_one_window(unsigned int row)
    {
        return row < Capacity ? row : Capacity;
    }

    /// Staged slots worth having: every bucket in one window, the masks beside them.
    static constexpr unsigned int full_slots = Capacity + mask_slots;

    storage_type& lds;
    order ord;
    unsigned int slots = full_slots;

    /// Sorts in[0, size) into out[0, size); returns false, having written nothing, when a bucket
    /// holds more than largest_bucket keys. All threads call it together; `in` may equal `out`,
    /// and then a segment of several windows is copied to scratch[0, size) on the first and read
    /// from there (scratch is unused while it fits one window).
    /// Windowed, next[0, next_size) (the segment that this block, or another, sorts next) is
    /// prefetched into L2 while the last window's networks run: the input is no longer read then,
    /// and the next segment's range scan finds its keys in L2 instead of waiting on DRAM. The
    /// windows' output is stored streaming (evicted first), so that it does not push them out.
    /// H100, 2^26 keys, Gkeys/s, five rounds: segments of 32768 / 65536 keys u32 86.4 / 76.1 ->
    /// 90.8 / 78.1, f32 78.5 / 70.0 -> 83.5 / 72.6; the streaming stores alone, in another call of
    /// four rounds, 65536 keys u32 76.1 -> 76.9, f32 70.3 -> 71.4. Unwindowed (the flash network class,
    /// two blocks per multiprocessor) a prefetch of the block's next segment changed nothing: u32
    /// segments of 16384 keys 116.0 -> 115.3.
    HIPFLASHSORT_DEVICE bool sort(const Key* in, Key* out, unsigned int size, Key* scratch = nullptr,
                                  const Key* next = nullptr, unsigned int next_size = 0)
    {
        std::uint32_t lo, hi;
        unsigned int below;
        const bool zeros = scan_range(in, size, lo, hi, below);
        // Keys already in order (all equal among them), or in reverse order without a float zero
        // (whose -0 / +0 run must keep the input order), are copied, or reversed, instead of
        // sorted. H200, 5 rotated rounds, Gkeys/s: 2^28 u32 / f32 sorted 45.1 / 41.8 -> 71.6 /
        // 63.4, reverse 45.0 / 41.8 -> 58.3 / 55.1; other cases within their spread, segments of
        // 16384 keys -1.3 / -1.9%.
        const int run
            = run_direction<BlockSize>(size, lo, hi, false, [&](unsigned int i) { return image(in[i], ord); });
        if(run > 0 || (run < 0 && !zeros))
        {
            if(run > 0) copy_run<BlockSize>(in, out, size);
            else reverse_run<BlockSize>(in, out, size);
            // No barrier: LDS is untouched since scan_range's, and the calling kernels end each
            // segment with one.
            return true;
        }
        unsigned int wanted = (size + bucket_goal - 1) / bucket_goal;
        wanted = wanted < 2 ? 2 : wanted;
        if(hi - lo < image_buckets) wanted = image_buckets; // a bucket per image: no networks
        const auto classify = flash_classifier<Key>::make(lo, hi, wanted, ord);
        if constexpr(Windowed)
        {
            if(threadIdx.x == 0)
            {
                lds.classify = classify;
                lds.job = window_job{in, out, scratch, size, below, 0, zeros, next, next_size};
            }
        }
        count(in, size, classify);
        if(!plan_tight_rows<BlockSize, largest_bucket>(classify.buckets, size, lds.cursor, lds.out_first, lds.scan))
            return false;
        if constexpr(!Windowed)
        {
            sort_window(in, size, classify, 0, classify.buckets, out, nullptr, [] {});
            if constexpr(codec::is_float)
            {
                if(zeros) restore_zero_order(out, size, below);
            }
        }
        else
        {
            if(!plan_windows(classify.buckets, zeros ? slots - mask_slots : slots)) return false;
            for(unsigned int w = 0; w < lds.job.windows; w++)
            {
                const window_job job = lds.job;
                const bool copy = job.windows > 1 && job.in == job.out;
                // In registers through the staging: read there from LDS, its fields were loaded again
                // for every key, the staging's LDS atomics and stores being possible writes to them
                // (H100, 2^26 keys, Gkeys/s, medians of three rounds: segments of 32768 / 65536
                // keys u32 90.3 / 77.2 -> 91.8 / 78.3, f32 83.5 / 72.8 -> 86.8 / 75.5).
                const flash_classifier<Key> classify_window = lds.classify;
                sort_window(w == 0 || !copy ? job.in : job.scratch, job.size, classify_window, lds.window_first[w],
                            lds.window_first[w + 1], job.out, copy && w == 0 ? job.scratch : nullptr, [&] {
                                if(w + 1 == job.windows) prefetch_segment(job.next, job.next_size);
                            });
                syncthreads(); // the row is staged again by the next window
            }
            if constexpr(codec::is_float)
            {
                if(lds.job.zeros) restore_zero_order(lds.job.out, lds.job.size, lds.job.below);
            }
        }
        syncthreads(); // the LDS is reused by the next segment
        return true;
    }

private:
    /// Keys are classified and compared by their lossless images, in which -0 and +0 differ:
    /// the order images that make them equal cost floats a compare and a select per key more
    /// (three reads of every key here). The ±0 run, wherever buckets split it, is rewritten in
    /// input order at the end (restore_zero_order), as the networks' -0 before +0 needs anyway.
    /// H200, 2^28 f32 uniform sorts +0.7% (four rotated rounds); with the codec's shift mask and
    /// fmin buckets, the f32 kernel 1.512 G -> 1.421 G warp instructions (u32: 1.282 G), the sort
    /// +3.2% (fifty-second session).
    HIPFLASHSORT_DEVICE static std::uint32_t image(const Key& k, order ord)
    {
        return static_cast<std::uint32_t>(codec::lossless_image(k, ord));
    }

    HIPFLASHSORT_DEVICE Key* staged() const { return reinterpret_cast<Key*>(reinterpret_cast<char*>(&lds) + row_offset); }

    /// Input positions holding a float zero, then (negative_mask) a negative one: the last
    /// mask_slots of the staged row.
    HIPFLASHSORT_DEVICE std::uint32_t* zero_mask() const
    {
        return reinterpret_cast<std::uint32_t*>(staged() + (slots - mask_slots));
    }
    HIPFLASHSORT_DEVICE std::uint32_t* negative_mask() const { return zero_mask() + mask_words; }

    /// Reads the segment and reduces min and max image; for floats whose range holds zero's image,
    /// notes the zeros in the bit masks (note_zeros). Returns whether there is a zero, and in
    /// `below` how many keys order below zero (only where there is one).
    HIPFLASHSORT_DEVICE bool scan_range(const Key* in, unsigned int size, std::uint32_t& lo, std::uint32_t& hi,
                                        unsigned int& below)
    {
        lo = ~std::uint32_t(0);
        hi = 0;
        below = 0;
        for_each_striped<BlockSize, items>(in, size, [&](unsigned int, const Key& key) {
            const std::uint32_t v = image(key, ord);
            lo = min_of(lo, v);
            hi = max_of(hi, v);
        });
        block_min_max<BlockSize>(lo, hi, lds.reduce);
        if constexpr(codec::is_float)
        {
            // -0 and +0 have the lossless images sign_bit - 1 and sign_bit, in either order.
            if(lo <= codec::sign_bit && hi >= codec::sign_bit - 1) return note_zeros(in, size, below);
        }
        return false;
    }

    /// A float segment whose range holds zero's image, read again: its zeros and negative zeros
    /// in the bit masks, and in `below` how many keys order below zero; whether there is a zero.
    /// Segments of other ranges skip it, so the first read spends no test per key on zeros: with
    /// the tests, one branch region and a count per key, the flash network class executed 1.58 G
    /// warp instructions on 2^28 f32 keys against u32's 1.28 G (ncu source counters); without,
    /// 1.51 G. H200, rotated rounds: 2^28 f32 uniform +1.0%, segments of 16384 / 65536 f32 keys
    /// +2.5 / +1.9% (fifty-first session).
    HIPFLASHSORT_DEVICE bool note_zeros(const Key* in, unsigned int size, unsigned int& below)
    {
        std::uint32_t* const zeros = zero_mask();
        std::uint32_t* const negatives = negative_mask();
        for(unsigned int w = threadIdx.x; w < mask_words; w += BlockSize) zeros[w] = negatives[w] = 0;
        syncthreads();
        // Order images here, not image()'s lossless ones: -0 and +0 are both zeros, and the keys
        // below zero are those below both.
        const std::uint32_t zero_image = codec::order_image(Key(0), ord);
        bool zero = false;
        for_each_striped<BlockSize, items>(in, size, [&](unsigned int p, const Key& key) {
            const std::uint32_t v = codec::order_image(key, ord);
            below += v < zero_image;
            if(v == zero_image)
            {
                zero = true;
                atomicOr(&zeros[p / 32], 1u << (p % 32));
                if((codec::to_bits(key) & codec::sign_bit) != 0) atomicOr(&negatives[p / 32], 1u << (p % 32));
            }
        });
        if(!syncthreads_or(zero)) return false;
        unsigned int total;
        block_inclusive_scan<BlockSize>(below, total, lds.scan);
        below = total;
        return true;
    }

    template <class Classify>
    HIPFLASHSORT_DEVICE void count(const Key* in, unsigned int size, const Classify& classify)
    {
        for(unsigned int b = threadIdx.x; b < classify.buckets; b += BlockSize) lds.cursor[b] = 0;
        syncthreads();
        for_each_striped<BlockSize, items>(in, size, [&](unsigned int, const Key& key) {
            atomicAdd(&lds.cursor[classify(key, image(key, ord))], 1u);
        });
        syncthreads();
    }

    /// Stages buckets [first, last), sorts them in the row and writes it out to its output
    /// positions, [out_first[first], out_first[last]); also copies every key to `copy_to` where it
    /// is given. after_staging() runs once the input has been read.
    template <class Classify, class AfterStaging>
    HIPFLASHSORT_DEVICE void sort_window(const Key* in, unsigned int size, const Classify& classify, unsigned int first,
                                         unsigned int last, Key* out, Key* copy_to, AfterStaging after_staging)
    {
        const unsigned int base = lds.out_first[first];
        stage(in, size, classify, first, last, base, copy_to);
        after_staging();
        if(!classify.by_image.direct) sort_tight_buckets(first, last, base);
        syncthreads(); // every bucket is sorted in the row
        write_row(out + base, lds.out_first[last] - base);
    }

    /// out[0, size) = the staged row, two keys per thread at a time (H200, 2^28 u32 uniform
    /// +0.5%, normal +0.7% against one; four spilled 20 bytes). Windowed, the output makes way in
    /// L2 for the next segment, prefetched meanwhile.
    HIPFLASHSORT_DEVICE void write_row(Key* out, unsigned int size) const
    {
        constexpr unsigned int batch = 2;
        for(unsigned int i0 = threadIdx.x; i0 < size; i0 += batch * BlockSize)
        {
            Key k[batch];
#pragma unroll
            for(unsigned int j = 0; j < batch; j++)
            {
                const unsigned int i = i0 + j * BlockSize;
                if(i < size) k[j] = staged()[i];
            }
#pragma unroll
            for(unsigned int j = 0; j < batch; j++)
            {
                const unsigned int i = i0 + j * BlockSize;
                if(i >= size) continue;
                if constexpr(Windowed) store_streaming(out + i, k[j]);
                else out[i] = k[j];
            }
        }
    }

    /// Buckets [first, last) of the row staged from slot `base` on, each by a group's network
    /// (sort_tight_bucket_rows).
    HIPFLASHSORT_DEVICE void sort_tight_buckets(unsigned int first, unsigned int last, unsigned int base)
    {
        sort_tight_bucket_rows<BlockSize, largest_bucket>(
            first, last, lds.out_first, [&](auto lanes, auto items, unsigned int b, unsigned int n, unsigned int member) {
                sort_tight_bucket<decltype(lanes)::value, decltype(items)::value>(b, n, member, base);
            });
    }

    /// One tight bucket of n keys (n may be 0) sorted in place by a group of Lanes lanes.
    template <unsigned int Lanes, unsigned int Items>
    HIPFLASHSORT_DEVICE void sort_tight_bucket(unsigned int b, unsigned int n, unsigned int member, unsigned int base)
    {
        Key* const row = staged() + (lds.out_first[b] - base);
        std::uint32_t images[Items];
        load_striped_images<Lanes>(row, n, member, ord, images);
        warp_bitonic_sort<std::uint32_t, Lanes, Items, empty_type, false>().sort(images);
        wave_barrier(); // every lane of the group has read the bucket
#pragma unroll
        for(unsigned int j = 0; j < Items; j++)
        {
            const unsigned int p = member * Items + j;
            if(p < n) row[p] = codec::decode_lossless(static_cast<typename codec::bit_key_type>(images[j]), ord);
        }
    }

    /// The windows of the staged buckets (cut_windows, by one thread) for a row of `row` slots;
    /// their number goes to lds.job. False where the segment would take more than max_windows.
    HIPFLASHSORT_DEVICE bool plan_windows(unsigned int buckets, unsigned int row)
    {
        if(threadIdx.x == 0) lds.job.windows = cut_windows(lds.out_first, buckets, row, lds.window_first);
        syncthreads();
        return lds.job.windows != 0;
    }

public:
    /// Cuts buckets [0, buckets) into windows, runs of consecutive buckets whose keys fit `row`
    /// slots, each as long as the next bucket fits (binary searches of the output offsets
    /// out_first[0, buckets], out_first[buckets] the segment's size; no bucket above
    /// largest_bucket < row keys): window_first[w] is window w's first bucket,
    /// window_first[windows] = buckets. Returns the number of windows, or 0, leaving
    /// window_first unfinished, where more than max_windows would be needed (never for segments
    /// up to largest_windowed(row)).
    HIPFLASHSORT_HOST_DEVICE static unsigned int cut_windows(const unsigned int* out_first, unsigned int buckets,
                                                             unsigned int row, unsigned int* window_first)
    {
        unsigned int windows = 1, first = 0;
        window_first[0] = 0;
        while(out_first[buckets] - out_first[first] > row)
        {
            if(windows == max_windows) return 0;
            // The first bucket that ends beyond this window's row starts the next: not the window's
            // first (it fits), at most the last (the segment ends beyond the row).
            const unsigned int end = out_first[first] + row;
            unsigned int lo = first + 1, hi = buckets - 1;
            while(lo < hi)
            {
                const unsigned int mid = (lo + hi) / 2;
                if(out_first[mid + 1] > end) hi = mid;
                else lo = mid + 1;
            }
            first = lo;
            window_first[windows++] = first;
        }
        window_first[windows] = buckets;
        return windows;
    }

private:
    /// Brings in[0, size) into L2, one line per thread and step.
    HIPFLASHSORT_DEVICE static void prefetch_segment(const Key* in, unsigned int size)
    {
        for(unsigned int i = threadIdx.x * line_items; i < size; i += BlockSize * line_items) prefetch_l2(in + i);
    }

    /// Stages the keys of buckets [first, last) at their rows, shifted down by the window's first
    /// row `base`; also copies every key to `copy_to` where it is given.
    template <class Classify>
    HIPFLASHSORT_DEVICE void stage(const Key* in, unsigned int size, const Classify& classify, unsigned int first,
                                   unsigned int last, unsigned int base, Key* copy_to)
    {
        Key* const row = staged() - base;
        for_each_striped<BlockSize, items>(in, size, [&](unsigned int p, const Key& key) {
            const unsigned int b = classify(key, image(key, ord));
            if(!Windowed || (b >= first && b < last)) row[atomicAdd(&lds.cursor[b], 1u)] = key;
            if(Windowed && copy_to != nullptr) copy_to[p] = key;
        });
        syncthreads();
    }

    /// The networks put -0 before +0; the zeros' run, from output position `below`, is rewritten
    /// in input order from the bit masks (each thread a range of words, in order).
    HIPFLASHSORT_DEVICE void restore_zero_order(Key* out, unsigned int size, unsigned int below)
    {
        constexpr unsigned int per_thread = (mask_words + BlockSize - 1) / BlockSize;
        const unsigned int words = (size + 31) / 32;
        const unsigned int first = threadIdx.x * per_thread;
        unsigned int mine = 0;
        for(unsigned int w = 0; w < per_thread; w++)
        {
            if(first + w < words) mine += popcount(zero_mask()[first + w]);
        }
        syncthreads(); // the bucket sorts' writes are done (and visible to the block)
        unsigned int total;
        unsigned int at = below + block_inclusive_scan<BlockSize>(mine, total, lds.scan) - mine;
        for(unsigned int w = 0; w < per_thread; w++)
        {
            if(first + w >= words) continue;
            std::uint32_t zero = zero_mask()[first + w];
            const std::uint32_t negative = negative_mask()[first + w];
            while(zero != 0)
            {
                const unsigned int bit = static_cast<unsigned int>(__ffs(static_cast<int>(zero)) - 1);
                out[at++] = codec::from_bits(((negative >> bit) & 1u) != 0 ? codec::sign_bit : 0);
                zero &= zero - 1;
            }
        }
    }
};

/// One block per listed segment, sorted in dynamic LDS by flash_network_sort (keys alone) or
/// flash_network_pair_sort (keys and values; `values_scratch`, free over the listed ranges, holds
/// the values of a segment sorted in place): list[0, count), then more[0, more_count) (a smaller
/// class's list too short for a launch of its own). A segment with a bucket too large for the
/// networks is appended to `deferred` (counter `deferred_count`) and left for the partition.
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize, 2) void flash_network_segments_kernel(
    const std::uint64_t* list, unsigned int count, const std::uint64_t* more, unsigned int more_count,
    const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, Value* values_scratch,
    segment_range* deferred, unsigned int* deferred_count, order ord)
{
    using sorter = std::conditional_t<has_values<Value>, flash_network_pair_sort<Key, Value, BlockSize, Capacity>,
                                      flash_network_sort<Key, BlockSize, Capacity>>;
    extern __shared__ __align__(16) unsigned char dynamic_lds[];
    sorter sort{*reinterpret_cast<typename sorter::storage_type*>(dynamic_lds), ord};
    for(unsigned int index = blockIdx.x; index < count + more_count; index += gridDim.x)
    {
        const std::uint64_t entry = index < count ? list[index] : more[index - count];
        const std::uint64_t begin = packed_segment::begin(entry);
        const unsigned int size = packed_segment::size(entry);
        bool sorted;
        if constexpr(has_values<Value>)
            sorted = sort.sort(keys_in + begin, keys_out + begin, values_in + begin, values_out + begin, size,
                               values_scratch + begin);
        else
            sorted = sort.sort(keys_in + begin, keys_out + begin, size);
        if(!sorted && threadIdx.x == 0) deferred[atomicAdd(deferred_count, 1u)] = segment_range{begin, begin + size};
        syncthreads();
    }
}

/// The wide flash network class (keys alone): one block per entry of list[0, count), sorted by
/// flash_network_sort in windows of `slots` staged keys. An entry with a bucket too large for
/// the networks is appended to `deferred` (counter `deferred_count`) for the partition.
/// `scratch`: the round's other buffer, free over the entries' ranges. 1024 / BlockSize blocks per
/// multiprocessor (the wide class two of 512 threads, the full wide class one of 1024), `resident`
/// blocks in all. Each block prefetches the entry that follows its own: in a grid of one block
/// per entry, the hardware starts about entry index + resident when the block of entry index
/// ends; in a capped grid, the block takes index + gridDim.x itself.
template <class Key, unsigned int BlockSize, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize, 1024 / BlockSize) void wide_flash_network_kernel(
    const segment_range* list, unsigned int count, unsigned int slots, const Key* keys_in, Key* keys_out,
    Key* scratch, segment_range* deferred, unsigned int* deferred_count, unsigned int resident, order ord)
{
    using sorter = flash_network_sort<Key, BlockSize, Capacity, true>;
    extern __shared__ __align__(16) unsigned char dynamic_lds[];
    sorter sort{*reinterpret_cast<typename sorter::storage_type*>(dynamic_lds), ord, slots};
    for(unsigned int index = blockIdx.x; index < count; index += gridDim.x)
    {
        const segment_range r = list[index];
        const auto size = static_cast<unsigned int>(r.end - r.begin);
        const unsigned int following = index + (gridDim.x < count ? gridDim.x : resident);
        const segment_range n = following < count ? list[following] : segment_range{0, 0};
        // The entry is read again for a deferral, rather than held across the sort.
        if(!sort.sort(keys_in + r.begin, keys_out + r.begin, size, scratch + r.begin, keys_in + n.begin,
                      static_cast<unsigned int>(n.end - n.begin))
           && threadIdx.x == 0)
            deferred[atomicAdd(deferred_count, 1u)] = list[index];
        syncthreads();
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
