// Kernels of one partition round over the large segments: min/max of each segment's images, a
// bucket histogram per chunk, the scan of the counts into output positions, and the stable
// scatter of every chunk into its segment's buckets, which become the next round's segments.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_PARTITION_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_PARTITION_KERNELS_HPP_

#include <cstdint>
#include <limits>

#include "../../block/detail/block_primitives.hpp"
#include "../../detail/empty_type.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "bucket_classifier.hpp"
#include "count_mailbox.hpp"
#include "segmented_config.hpp"

namespace hipflashsort {
namespace detail {

/// A large segment being partitioned this round (planned by plan_partition_kernel, completed by
/// the partition's kernels).
struct partition_segment
{
    segment_range range;
    std::uint64_t chunk_items;   // keys per chunk, whole tiles, the last chunk fewer
    std::uint64_t matrix_offset; // first entry of its buckets × chunks count matrix
    std::uint64_t next_first;    // index of its first bucket in the next round's segment list
    // Bucket slots reserved (columns of the matrix), at most partition_wide_buckets or
    // partition_max_buckets; 16 bits, beside the margin, keep the plan 56 bytes a segment (64
    // made the plan of a round of thousands of segments a fifth slower: ncu, 2^28 u32 zipf).
    std::uint16_t buckets;
    std::uint16_t margin_gaps;   // a sampled round's margin on each side, two or more sample gaps
    unsigned int first_chunk;
    unsigned int chunks;         // row length of the matrix: one entry per chunk and bucket
    // Adjacent buckets whose keys fit about this many share one next-round segment (bucket_groups);
    // 0: every bucket is its own.
    unsigned int group_keys;
};

struct partition_chunk
{
    std::uint64_t begin;
    std::uint64_t end;
    unsigned int segment;
    unsigned int index; // within its segment
};

/// What plan_partition_kernel leaves for the launches after it: the round's chunks (the
/// partition kernels' grids are bounds, blocks past this many leave at once).
struct round_totals
{
    std::uint64_t chunks;
};

template <class Key>
HIPFLASHSORT_DEVICE std::uint64_t wide_image(const Key& k, order ord)
{
    return static_cast<std::uint64_t>(radix_key_codec<Key>::order_image(k, ord));
}

template <class Key>
using image_word_t = wide_image_t<typename radix_key_codec<Key>::bit_key_type>;

/// Words of each segment's statistics: what chunk_min_max_kernel measured (its smallest and
/// largest image, the sum of magnitude_bits and how many keys it read: all, or a sample), then,
/// where a sampled round needs it (needs_exact_range), the smallest and largest image of all its
/// keys (chunk_histogram_kernel), then, in a sampled round, bounds of the samples inside the
/// sample's ends (trim_outlying_samples), then whether each image has a bucket of its own
/// (chunk_histogram_kernel, for segment_is_final).
constexpr unsigned int segment_stat_words = 9;
enum segment_stat : unsigned int
{
    stat_lo,
    stat_hi,
    stat_magnitudes,
    stat_read,
    stat_exact_lo,
    stat_exact_hi,
    stat_inner_lo,
    stat_inner_hi,
    stat_direct // stat_direct_buckets | stat_direct_spill, from chunk_histogram_kernel
};
/// stat_direct's bits: the classifier gives each image a bucket of its own; a key lies outside
/// its range (clamped into an end bucket, with other images).
constexpr std::uint64_t stat_direct_buckets = 1, stat_direct_spill = 2;

/// Whether statistics word `w` starts at its largest value (a minimum merged by atomicMin).
HIPFLASHSORT_HOST_DEVICE constexpr bool stat_is_minimum(unsigned int w)
{
    return w == stat_lo || w == stat_exact_lo || w == stat_inner_lo;
}

/// Keys between two samples of a segment's range in a sampled round (1: every key). A sampled
/// round's min/max pass reads one key per 512 bytes (u32: every 128th, a 32-byte sector
/// in 16) and at most about 2048 keys per segment, instead of every key (4 of a pair's 16 bytes
/// per round, and a DRAM pass of its own); segments that would give fewer than 128 samples are
/// read whole. Widened by two sample gaps or more on each side (sampled_margin_gaps), the sample's
/// range holds nearly all of uniform keys; those outside it go to the end buckets
/// (partition_classifier).
/// H100, A/B in one call, medians of 3-5 rotated rounds, exact first round -> sampled, Gkeys/s:
/// device sorts of 2^28 u32 / f32 keys 37.5 / 36.1 -> 39.8 / 37.9, normal 35.7 / 33.6 -> 38.0 /
/// 36.5, zipf 32.9 / 29.7 -> 34.7 / 34.5, sorted 38.2 / 36.2 -> 39.9 / 36.9, u32+u32 pairs 16.8
/// -> 17.3; segments of 65536 u32+u32 / f32+u32 pairs 37.7 / 38.5 -> 39.4 / 39.5 (2^26 pairs).
/// The first round's histogram and scatter pay for the clamps: 139M -> 159M and 708M -> 742M
/// warp instructions for 2^28 u32 keys (ncu), against a min/max pass of 411 us -> 10 us.
/// At most 2048 samples per segment rather than 16384: a 2^28 f32 sort's second round sampled
/// about 6000 keys of each of its 341 segments, 50 us against the first round's 10 (ncu). H200,
/// 5 rotated rounds, Gkeys/s: 2^28 u32 / f32 exponential 41.5 / 38.5 -> 44.0 / 40.7, zipf 42.0 /
/// 41.1 -> 42.7 / 42.4, sorted 43.1 / 40.4 -> 43.8 / 40.8, uniform 48.6 / 44.8 unchanged.
template <class Key>
HIPFLASHSORT_HOST_DEVICE std::uint64_t sample_stride(std::uint64_t size)
{
    constexpr std::uint64_t base = 512 / sizeof(Key);
    if(size / base < 128) return 1;
    const std::uint64_t spread = size >> 11;
    return spread > base ? spread : base;
}

/// A key's magnitude in bits: a float's biased exponent, an integer's bit length of |key|.
template <class Key>
HIPFLASHSORT_HOST_DEVICE unsigned int magnitude_bits(const Key& k)
{
    using codec = radix_key_codec<Key>;
    using bits = typename codec::bit_key_type;
    const bits b = codec::to_bits(k);
    if constexpr(codec::is_float)
    {
        return static_cast<unsigned int>(bits(b & bits(~codec::sign_bit)) >> (std::numeric_limits<Key>::digits - 1));
    }
    else
    {
        using word = wide_image_t<bits>;
        const bool negative = codec::is_signed && (b & codec::sign_bit) != 0;
        const word m = negative ? word(bits(bits(0) - b)) : word(b);
        return m == 0 ? 0u : 8 * static_cast<unsigned int>(sizeof(word)) - leading_zeros(m); // clz needs m != 0
    }
}

/// Whether a segment's keys crowd near its smallest one with a long tail above, so that buckets
/// of equal width would leave nearly all of them in the first: their mean magnitude lies more
/// than tail_bits below the range's (for integers also above the smallest key's, so that
/// distances from it are about the keys' magnitudes). Zipf-like keys are; uniform, normal and
/// exponential ones are not.
template <class Key>
HIPFLASHSORT_HOST_DEVICE bool crowds_low(image_word_t<Key> lo, image_word_t<Key> hi, std::uint64_t magnitude_sum,
                                         std::uint64_t size, order ord)
{
    using codec = radix_key_codec<Key>;
    using bits = typename codec::bit_key_type;
    using word = image_word_t<Key>;
    constexpr std::uint64_t tail_bits = 6;
    std::uint64_t top;
    if constexpr(codec::is_float)
    {
        const unsigned int first = magnitude_bits(codec::decode_lossless(static_cast<bits>(lo), ord));
        const unsigned int last = magnitude_bits(codec::decode_lossless(static_cast<bits>(hi), ord));
        top = first < last ? last : first;
    }
    else
    {
        const Key smallest = codec::decode_lossless(static_cast<bits>(ord == order::ascending ? lo : hi), ord);
        if(hi == lo || std::uint64_t(magnitude_bits(smallest)) * size > magnitude_sum) return false;
        top = 8 * sizeof(word) - leading_zeros(word(hi - lo));
    }
    return magnitude_sum + tail_bits * size < top * size;
}

/// A segment's classifier in a partition round: flash_classifier over the measured range, and in
/// a sampled round (the range of a sample, widened by sampled_margin_gaps on each side) the end
/// buckets for keys outside it. Monotone in the key's order, so buckets stay ordered ranges.
/// Images are clamped into [lo, hi] (two instructions, no branch; a no-op where the range was
/// measured from all keys). Floats classified by value clamp their position instead, and a
/// sampled round sends NaNs, outside every finite range, to the end their sign orders them to.
template <class Key>
struct partition_classifier
{
    using codec = radix_key_codec<Key>;
    using word = image_word_t<Key>;
    flash_classifier<Key> inner;
    word lo;
    word hi;
    bool sampled;
    bool crowded; // by crowds_low's rule (make_logarithmic)

    HIPFLASHSORT_HOST_DEVICE unsigned int operator()(const Key& k, word image) const
    {
        if constexpr(codec::is_float)
        {
            if(inner.by_value) return sampled ? clamped_value_bucket(k) : inner.value_bucket(k);
        }
        return inner(k, min_of(max_of(image, lo), hi));
    }
    HIPFLASHSORT_HOST_DEVICE unsigned int buckets() const { return inner.buckets; }

    /// Whether the segment takes the common classification, which plain_bucket computes without
    /// testing the classifier's kind: integers interpolated by image over more images than
    /// buckets, floats by value in a sampled round.
    HIPFLASHSORT_HOST_DEVICE bool plain() const
    {
        if constexpr(codec::is_float) return inner.by_value && sampled;
        else return !inner.by_log && !inner.by_image.direct;
    }

    /// operator() where plain() holds.
    HIPFLASHSORT_HOST_DEVICE unsigned int plain_bucket(const Key& k, word image) const
    {
        if constexpr(codec::is_float) return clamped_value_bucket(k);
        else return inner.by_image.interpolate(min_of(max_of(image, lo), hi));
    }

private:
    /// Selects, no branch: a NaN position (a NaN key) gives bucket 0 from the clamp below, then
    /// the end its sign orders it to (-NaN first ascending, +NaN first descending).
    HIPFLASHSORT_HOST_DEVICE unsigned int clamped_value_bucket(const Key& k) const
    {
        const Key position = inner.position_of(k);
        const unsigned int b = inner.value_bucket_at(position > Key(0) ? position : Key(0));
        const bool first = ((codec::to_bits(k) & codec::sign_bit) != 0) != inner.descending;
        return position == position ? b : first ? 0u : inner.buckets - 1;
    }
};

/// Sample gaps of margin that a sampled round of `read` samples and `buckets` buckets adds on
/// each side of a segment's range: up to `most`, but at most half a bucket's gaps, and at least
/// two. The keys beyond a sample's end span about one gap and join the end bucket. Where the
/// round aims at the flash network class (partition_planner::margin_gaps_for), an end bucket of
/// two gaps' margin now and then overflowed it, and that bucket cost the sort another partition
/// round: 2^28 u32 keys' second round, 161 buckets of 12.7 gaps, left a third round of a few
/// segments in every sort (fiftieth session). Half a bucket keeps the end bucket above the class
/// below (4096 keys), where eight gaps in every round emptied the end buckets of 2^24 keys'
/// rounds and cost those sorts 3-5%. The planner computes it, once per segment: where the
/// classifier, which every histogram and scatter block builds, computed it with two more
/// divisions, the scatter of a 2^22-key sort took 2% longer (ncu; by our reading, the
/// divisions; fifty-first session).
HIPFLASHSORT_HOST_DEVICE unsigned int sampled_margin_gaps(std::uint64_t read, unsigned int buckets,
                                                          unsigned int most)
{
    const std::uint64_t half_bucket = buckets == 0 ? 0 : read / (2 * std::uint64_t(buckets));
    return static_cast<unsigned int>(max_of<std::uint64_t>(min_of<std::uint64_t>(most, half_bucket), 2));
}

/// Widens [lo, hi], measured from `read` samples, by `gaps` (two or more) sample gaps on each
/// side, at least one image, within the image word. A sample of fewer images than buckets (one
/// value with rare others, say) then leaves the keys below and above it end buckets of their
/// own, so that the round splits the segment where its keys differ; otherwise the clamps put them
/// all into the sample's end images, and one value would keep the whole segment in one bucket.
/// A gap is at most the word over `read`, so `gaps` of them pass half the word only where the
/// sample holds fewer than 2 * gaps keys: only there does the margin stop at half the word.
template <class Word>
HIPFLASHSORT_HOST_DEVICE void sampled_bounds(Word& lo, Word& hi, std::uint64_t read, unsigned int gaps = 2)
{
    if(read == 0 || hi < lo) return;
    constexpr Word half = Word(~Word(0)) / 2;
    const Word gap = static_cast<Word>((hi - lo) / read);
    Word margin = gap == 0 ? Word(1) : static_cast<Word>(gaps * gap);
    if(read < 2 * std::uint64_t(gaps) && gap > half / gaps) margin = half;
    lo = lo > margin ? lo - margin : Word(0);
    hi = Word(~Word(0)) - hi > margin ? hi + margin : Word(~Word(0));
}

/// Leaves out of a sample's range [lo, hi] an end sample that lies farther from the other
/// samples than they spread. inner_lo and inner_hi bound the others from outside: the smallest and
/// largest of each chunk's samples after its own ends, merged over the chunks (chunk_min_max_kernel),
/// so they may lie a few samples inside the second smallest and second largest. Distances are
/// taken between values for floats, between images for integers. The keys beyond a trimmed end go
/// to the end bucket, so one extreme key that a sample happens to hold no longer stretches the
/// round's buckets over a range its other keys leave empty (2^28 f32 keys of [0, 1000) and one
/// FLT_MAX on the sample grid took a third round over most keys). H200, medians of 5 rotated
/// rounds, Gkeys/s: 2^28 f32 / u32 outlier 33.5 / 48.7 -> 43.7 / 54.1, zipf 39.8 / 41.3 -> 41.3 /
/// 42.0; the inner bounds cost the sampled min/max pass 1.2-1.7 us (2^24 u32: 36.7 -> 36.2) with
/// a second block reduction of their own, since merged into the first (now wave_two_least).
template <class Key, class Word>
HIPFLASHSORT_HOST_DEVICE void trim_outlying_samples(Word& lo, Word& hi, Word inner_lo, Word inner_hi, order ord)
{
    if(!(lo < inner_lo && inner_lo <= inner_hi && inner_hi < hi)) return;
    using codec = radix_key_codec<Key>;
    if constexpr(codec::is_float)
    {
        using bits = typename codec::bit_key_type;
        const auto value = [ord](Word w) { return codec::decode_lossless(static_cast<bits>(w), ord); };
        const auto distance = [](Key a, Key b) { return a < b ? b - a : a - b; }; // NaN: compares false below
        const Key span = distance(value(inner_lo), value(inner_hi));
        if(distance(value(lo), value(inner_lo)) > span) lo = inner_lo;
        if(distance(value(inner_hi), value(hi)) > span) hi = inner_hi;
    }
    else
    {
        const Word span = inner_hi - inner_lo;
        if(inner_lo - lo > span) lo = inner_lo;
        if(hi - inner_hi > span) hi = inner_hi;
    }
}

/// The classifier of a segment of `size` keys from its statistics (see partition_classifier);
/// a sampled round widens the range by `gaps` sample gaps (sampled_margin_gaps).
template <class Key>
HIPFLASHSORT_HOST_DEVICE partition_classifier<Key> partition_classifier_for(const std::uint64_t* mine,
                                                                           std::uint64_t size,
                                                                           unsigned int buckets, order ord,
                                                                           unsigned int gaps = 2)
{
    using word = image_word_t<Key>;
    using classifier = flash_classifier<Key>;
    auto lo = static_cast<word>(mine[stat_lo]), hi = static_cast<word>(mine[stat_hi]);
    const std::uint64_t read = mine[stat_read];
    if(read < size)
        trim_outlying_samples<Key>(lo, hi, static_cast<word>(mine[stat_inner_lo]),
                                   static_cast<word>(mine[stat_inner_hi]), ord);
    const bool low = crowds_low<Key>(lo, hi, mine[stat_magnitudes], read, ord);
    classifier c = low ? classifier::make_logarithmic(lo, hi, buckets, ord) : classifier::make(lo, hi, buckets, ord);
    if(read >= size) return partition_classifier<Key>{c, lo, hi, false, low};
    bool by_value = false;
    if constexpr(radix_key_codec<Key>::is_float)
    {
        by_value = c.by_value;
        if(by_value)
        {
            // Signed as the scale, negative descending: the range, its margin and the origin's
            // step all point along the sort order, so one formula serves both orders.
            using real = decltype(c.scale);
            const real range = static_cast<real>(c.buckets) / c.scale;
            const real margin = static_cast<real>(gaps) * range / static_cast<real>(read);
            const real origin = c.origin - margin;
            const real scale = static_cast<real>(c.buckets) / (range + 2 * margin);
            if(origin - origin == 0 && scale - scale == 0 && (c.descending ? scale < 0 : scale > 0))
            {
                c.origin = origin;
                c.scale = scale;
            }
        }
    }
    if(!by_value)
    {
        sampled_bounds(lo, hi, read, gaps);
        c = low ? classifier::make_logarithmic(lo, hi, buckets, ord) : classifier::by_image_only(lo, hi, buckets, ord);
    }
    return partition_classifier<Key>{c, lo, hi, true, low};
}

template <class Key>
HIPFLASHSORT_DEVICE partition_classifier<Key> segment_classifier(const std::uint64_t* stats,
                                                                 const partition_segment& s, unsigned int segment,
                                                                 unsigned int buckets, order ord)
{
    return partition_classifier_for<Key>(stats + segment_stat_words * segment, s.range.end - s.range.begin, buckets,
                                         ord, s.margin_gaps);
}

/// Whether a sampled round measures the segment's exact range in its histogram: only where the
/// sample's range spans fewer images than the segment has buckets (constant segments among them).
/// Elsewhere the sample's range decides what the exact one would (segment_is_constant,
/// segment_is_grouped): it lies inside it and already spans the buckets.
HIPFLASHSORT_HOST_DEVICE bool needs_exact_range(const std::uint64_t* mine, std::uint64_t size, unsigned int buckets)
{
    return mine[stat_read] < size && mine[stat_hi] - mine[stat_lo] < buckets;
}

/// The range that decides constant and grouped segments: measured from all keys, or that of the
/// sample where it spans the buckets (needs_exact_range).
HIPFLASHSORT_DEVICE void deciding_range(const std::uint64_t* stats, const partition_segment& s, unsigned int segment,
                                        std::uint64_t& lo, std::uint64_t& hi)
{
    const std::uint64_t* mine = stats + segment_stat_words * segment;
    const bool exact = needs_exact_range(mine, s.range.end - s.range.begin, s.buckets);
    lo = mine[exact ? stat_exact_lo : stat_lo];
    hi = mine[exact ? stat_exact_hi : stat_hi];
}

/// Whether every key of `segment` has the same image: its scatter is then final (one bucket,
/// identity positions) and its buckets are listed empty. Read after chunk_histogram_kernel.
HIPFLASHSORT_DEVICE bool segment_is_constant(const std::uint64_t* stats, const partition_segment& s,
                                             unsigned int segment)
{
    std::uint64_t lo, hi;
    deciding_range(stats, s, segment, lo, hi);
    return lo == hi;
}

/// Which segments a round finishes in its scatter, decided once on the host from the round's
/// buffers so that the offsets kernel (which lists a final segment's buckets empty) and the
/// scatter agree. Constant segments are always final. `direct`: so are segments each of whose
/// buckets holds one image (a direct classifier over a range that holds all their keys); such
/// buckets were found constant only in the next round and copied there: u32 zipf 2^28 carried
/// 125 M of its keys into a third round so. Only where the scatter reads neither keys_out nor
/// values_out (its writes would overwrite keys that other blocks still read). H200, four rotated
/// rounds, 2^28: u32 zipf +13.3%, u32 outlier +53%, f32 / u32 reduced-entropy +7.1 / +2.6%, the
/// other cases -0.8 to +0.2% (fifty-second session). `in_place`: the scatter reads keys_out (and
/// values_out), so a final segment, constant there, already lies in place and in order; its one
/// bucket at identity positions would copy each item onto itself, and the scatter skips it
/// (fifty-fourth session: f32 / u32 reduced-entropy +1.3 / +0.5%).
struct final_segments
{
    bool direct;
    bool in_place;

    static final_segments of(const void* keys_in, const void* keys_out, const void* values_in,
                             const void* values_out, bool with_values)
    {
        const bool reads_keys_out = keys_in == keys_out;
        const bool reads_values_out = with_values && values_in == values_out;
        const bool values_in_place = !with_values || reads_values_out;
        return final_segments{!reads_keys_out && !reads_values_out, reads_keys_out && values_in_place};
    }
};

/// Whether the scatter of `segment` is final: its keys go to keys_out and its buckets are listed
/// empty (final_segments). Read after chunk_histogram_kernel.
HIPFLASHSORT_DEVICE bool segment_is_final(const std::uint64_t* stats, const partition_segment& s,
                                          unsigned int segment, final_segments rule)
{
    return segment_is_constant(stats, s, segment)
           || (rule.direct && stats[segment_stat_words * segment + stat_direct] == stat_direct_buckets);
}

/// Entry (bucket, chunk) of a segment's count matrix, bucket-major: a bucket's counts over the
/// chunks are contiguous, so one wavefront scans them with coalesced reads.
template <class Word>
HIPFLASHSORT_DEVICE Word* matrix_entry(Word* matrix, const partition_segment& s, unsigned int bucket, unsigned int chunk)
{
    return matrix + s.matrix_offset + std::uint64_t(bucket) * s.chunks + chunk;
}

/// Reads a chunk's tile of Items items per thread, item r of a thread at `first + r * Stride`
/// of the tile, every load issued before any is used (so a wavefront has Items loads in flight,
/// not one); only a partial tile tests positions.
template <unsigned int Items, unsigned int Stride, class T>
HIPFLASHSORT_DEVICE void load_tile(const T* in, unsigned int first, unsigned int size, unsigned int tile,
                                   T (&items)[Items])
{
    const T* from = in + first;
    if(size == tile)
    {
#pragma unroll
        for(unsigned int r = 0; r < Items; r++) items[r] = from[r * Stride];
    }
    else
    {
#pragma unroll
        for(unsigned int r = 0; r < Items; r++)
        {
            if(first + r * Stride < size) items[r] = from[r * Stride];
        }
    }
}

/// Items of chunk `c` from `at` on that one tile of `tile` items holds.
HIPFLASHSORT_DEVICE unsigned int tile_size(const partition_chunk& c, std::uint64_t at, unsigned int tile)
{
    return static_cast<unsigned int>(c.end - at < tile ? c.end - at : tile);
}

/// Calls f(key) for every key of chunk `c`, tile by tile, each tile's loads issued first; Ahead,
/// the next tile's loads are issued before this tile's keys are used, so that a wavefront's loads
/// stay in flight while it counts (its registers twice the tile's keys).
template <unsigned int BlockSize, unsigned int ItemsPerThread, bool Ahead = false, class Key, class F>
HIPFLASHSORT_DEVICE void for_each_chunk_key(const Key* keys, const partition_chunk& c, F f)
{
    constexpr unsigned int tile = BlockSize * ItemsPerThread;
    Key next[ItemsPerThread];
    if(Ahead && c.begin < c.end)
        load_tile<ItemsPerThread, BlockSize>(keys + c.begin, threadIdx.x, tile_size(c, c.begin, tile), tile, next);
    for(std::uint64_t tile_begin = c.begin; tile_begin < c.end; tile_begin += tile)
    {
        const unsigned int size = tile_size(c, tile_begin, tile);
        Key k[ItemsPerThread];
        if constexpr(Ahead)
        {
#pragma unroll
            for(unsigned int r = 0; r < ItemsPerThread; r++) k[r] = next[r];
            const std::uint64_t later = tile_begin + tile;
            if(later < c.end)
                load_tile<ItemsPerThread, BlockSize>(keys + later, threadIdx.x, tile_size(c, later, tile), tile, next);
        }
        else
        {
            load_tile<ItemsPerThread, BlockSize>(keys + tile_begin, threadIdx.x, size, tile, k);
        }
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            if(threadIdx.x + r * BlockSize < size) f(k[r]);
        }
    }
}

/// Merges a block's image range into the statistics' words `first` (min) and `first + 1` (max).
HIPFLASHSORT_DEVICE void merge_range(std::uint64_t* mine, unsigned int first, std::uint64_t lo, std::uint64_t hi)
{
    atomicMin(reinterpret_cast<unsigned long long*>(&mine[first]), static_cast<unsigned long long>(lo));
    atomicMax(reinterpret_cast<unsigned long long*>(&mine[first + 1]), static_cast<unsigned long long>(hi));
}

HIPFLASHSORT_DEVICE void add_to_stat(std::uint64_t* mine, unsigned int word, std::uint64_t amount)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(&mine[word]), static_cast<unsigned long long>(amount));
}

/// Zeroes the totals of segment `s`'s buckets, which the histogram accumulates in the next
/// round's ranges; thread `thread` of `threads` does its share.
HIPFLASHSORT_DEVICE void clear_bucket_totals(const partition_segment& s, segment_range* next, unsigned int thread,
                                             unsigned int threads)
{
    for(unsigned int b = thread; b < s.buckets; b += threads) next[s.next_first + b].end = 0;
}

/// Keys of chunk `c` at the positions s.begin + i * stride of its segment `s`.
HIPFLASHSORT_DEVICE std::uint64_t samples_in(const partition_chunk& c, const partition_segment& s,
                                             std::uint64_t stride)
{
    const std::uint64_t from = c.begin - s.range.begin, to = c.end - s.range.begin;
    return (to + stride - 1) / stride - (from + stride - 1) / stride;
}

/// Min and max image and the sum of magnitude_bits of every key of chunk `c`, by the whole
/// block, merged into the segment's statistics `mine`. `scratch` holds 2 * waves words.
template <unsigned int BlockSize, unsigned int ItemsPerThread, class Key>
HIPFLASHSORT_DEVICE void measure_chunk_keys(const Key* keys, const partition_chunk& c, std::uint64_t* mine,
                                            order ord, std::uint64_t* scratch)
{
    std::uint64_t lo = ~std::uint64_t(0), hi = 0, magnitudes = 0;
    for_each_chunk_key<BlockSize, ItemsPerThread>(keys, c, [&](const Key& k) {
        const std::uint64_t v = wide_image(k, ord);
        lo = min_of(lo, v);
        hi = max_of(hi, v);
        magnitudes += magnitude_bits(k);
    });
    // One addition per wavefront: a block-wide sum would add two barriers to a pass bound by
    // bandwidth.
    magnitudes = logical_wave_sum<block_shape<BlockSize>::wave>(magnitudes);
    if(lane_id() == 0) add_to_stat(mine, stat_magnitudes, magnitudes);
    block_min_max<BlockSize>(lo, hi, scratch);
    if(threadIdx.x == 0)
    {
        add_to_stat(mine, stat_read, c.end - c.begin);
        merge_range(mine, stat_lo, lo, hi);
    }
}

/// As measure_chunk_keys for the keys of chunk `c` at every `stride`-th position of its segment
/// `s`, by one wavefront, which also keeps the nearest sample inside each end (distinct images,
/// for trim_outlying_samples). Each lane issues up to `batch` loads before it uses one (a chunk
/// holds at most about 2048 samples, mostly far fewer).
template <class Key>
HIPFLASHSORT_DEVICE void measure_chunk_samples(const Key* keys, const partition_chunk& c, const partition_segment& s,
                                               std::uint64_t stride, std::uint64_t* mine, order ord)
{
    constexpr unsigned int lanes = device_wavefront_size();
    constexpr unsigned int batch = 8;
    std::uint64_t lo = ~std::uint64_t(0), hi = 0, next_lo = ~std::uint64_t(0), next_hi = 0, magnitudes = 0;
    const std::uint64_t first = s.range.begin + (c.begin - s.range.begin + stride - 1) / stride * stride;
    for(std::uint64_t at = first + lane_id() * stride; at < c.end; at += batch * lanes * stride)
    {
        Key k[batch];
#pragma unroll
        for(unsigned int r = 0; r < batch; r++)
        {
            if(at + r * lanes * stride < c.end) k[r] = keys[at + r * lanes * stride];
        }
#pragma unroll
        for(unsigned int r = 0; r < batch; r++)
        {
            if(at + r * lanes * stride < c.end)
            {
                const std::uint64_t v = wide_image(k[r], ord);
                next_lo = v < lo ? lo : v > lo ? min_of(next_lo, v) : next_lo;
                next_hi = v > hi ? hi : v < hi ? max_of(next_hi, v) : next_hi;
                lo = min_of(lo, v);
                hi = max_of(hi, v);
                magnitudes += magnitude_bits(k[r]);
            }
        }
    }
    magnitudes = logical_wave_sum<lanes>(magnitudes);
    std::uint64_t top = ~hi, top2 = ~next_hi;
    wave_two_least(lo, next_lo, top, top2);
    if(lane_id() == 0)
    {
        add_to_stat(mine, stat_magnitudes, magnitudes);
        add_to_stat(mine, stat_read, samples_in(c, s, stride));
        merge_range(mine, stat_lo, lo, ~top);
        merge_range(mine, stat_inner_lo, next_lo, ~top2);
    }
}

/// Min and max image, the sum of magnitude_bits and the number of keys read of each chunk,
/// merged into its segment's statistics: every key, or in a sampled round every
/// sample_stride-th key of the segment. A segment's first chunk also zeroes its buckets' totals.
/// A sampled round gives each wavefront a chunk (a block per `waves` chunks): with a block per
/// chunk, most of its threads idle for a chunk's few samples, 2^26 pairs in segments of 65536
/// (3072 chunks) took 30 us, now 25 (H100, ncu; DRAM fetches about 70 bytes per 4-byte sample).
/// Chunks of segments too small to sample are then read by the whole block, one after another.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread>
__global__ __launch_bounds__(BlockSize) void chunk_min_max_kernel(const round_totals* totals,
                                                                 const partition_chunk* chunks,
                                                                 const partition_segment* segments, const Key* keys,
                                                                 std::uint64_t* stats, segment_range* next, order ord,
                                                                 bool sampled)
{
    using shape = block_shape<BlockSize>;
    __shared__ std::uint64_t scratch[2 * shape::waves];
    __shared__ bool whole[shape::waves];
    const unsigned int per_block = sampled ? shape::waves : 1;
    const std::uint64_t first = std::uint64_t(blockIdx.x) * per_block;
    const std::uint64_t round_chunks = totals->chunks;
    if(first >= round_chunks) return;
    const unsigned int wave_id = threadIdx.x / shape::wave;
    if(wave_id < per_block)
    {
        bool read_all = false;
        if(first + wave_id < round_chunks)
        {
            const partition_chunk c = chunks[first + wave_id];
            const partition_segment s = segments[c.segment];
            if(c.index == 0) clear_bucket_totals(s, next, lane_id(), shape::wave);
            const std::uint64_t stride = sampled ? sample_stride<Key>(s.range.end - s.range.begin) : 1;
            read_all = stride == 1;
            if(!read_all) measure_chunk_samples(keys, c, s, stride, stats + segment_stat_words * c.segment, ord);
        }
        if(lane_id() == 0) whole[wave_id] = read_all;
    }
    __syncthreads();
    for(unsigned int w = 0; w < per_block; w++) // block-uniform
    {
        if(!whole[w]) continue;
        const partition_chunk c = chunks[first + w];
        measure_chunk_keys<BlockSize, ItemsPerThread>(keys, c, stats + segment_stat_words * c.segment, ord, scratch);
    }
}

/// Bucket counts of one chunk (LDS atomics), one column entry of its segment's matrix each, and
/// added to the bucket's total, parked in its next-round range until partition_offsets_kernel.
/// Where a sampled round needs it (needs_exact_range), also the segment's exact range. Sets
/// `crowded` where the segment's integer keys crowd low (plan_partition_kernel).
///
/// Where a thread's tile is at most 64 bytes (keys of up to 4 bytes: 16 items, or 12 where
/// 4-byte values ride along in the scatter), the next tile's loads are issued before this tile's
/// keys are counted (for_each_chunk_key's Ahead). Every instantiation's registers are capped for
/// three blocks per multiprocessor, not four: uncapped, ptxas took 64 for the loads ahead and
/// spilled 20 bytes (u32); the u64 histogram, not ahead, takes 72 instead of 64 under the cap.
/// H200, three rotated rounds against the tile-by-tile loads (fifty-seventh session): 2^28 u32 /
/// f32 uniform +1.1 / +0.9%, normal +1.1 / +0.8%, reduced-entropy +0.6 / +0.5%, few-unique +2.9
/// / +2.3%, all-equal +6.6 / +4.4%; u32+u32 pairs +0.6%; 2^24 u32 / f32 -0.4 / -0.7%; u64 2^27
/// -0.3%. Ahead at 64 registers: 2^28 u32 +0.8%; with u64 histograms ahead too, u64 2^27 -1.6%.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize, register_cap_blocks(3)) void chunk_histogram_kernel(
    const round_totals* totals, const partition_chunk* chunks, const partition_segment* segments, std::uint64_t* stats,
    const Key* keys, std::uint64_t* matrix, segment_range* next, unsigned int* crowded, order ord)
{
    using word = image_word_t<Key>;
    constexpr bool ahead = ItemsPerThread * sizeof(Key) <= 64;
    __shared__ unsigned int counts[MaxBuckets];
    __shared__ word scratch[2 * block_shape<BlockSize>::waves];
    if(blockIdx.x >= totals->chunks) return;
    const partition_chunk c = chunks[blockIdx.x];
    const partition_segment s = segments[c.segment];
    const auto classify = segment_classifier<Key>(stats, s, c.segment, s.buckets, ord);
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) counts[b] = 0;
    __syncthreads();
    const auto count = [&](const Key& k, word image) { atomicAdd(&counts[classify(k, image)], 1u); };
    std::uint64_t* const mine = stats + segment_stat_words * c.segment;
    const std::uint64_t size = s.range.end - s.range.begin;
    const bool exact = needs_exact_range(mine, size, s.buckets);
    // Direct buckets count only where the keys outside the classifier's range are looked for:
    // a sample's range trimmed of outlying samples can be direct while the sample spans the
    // buckets, and then no exact range is measured.
    const bool direct
        = classify.inner.by_image.direct && !classify.inner.by_value && (exact || mine[stat_read] >= size);
    if(exact)
    {
        word lo = ~word(0), hi = 0;
        for_each_chunk_key<BlockSize, ItemsPerThread, ahead>(keys, c, [&](const Key& k) {
            const auto image = static_cast<word>(wide_image(k, ord));
            lo = min_of(lo, image);
            hi = max_of(hi, image);
            count(k, image);
        });
        block_min_max<BlockSize>(lo, hi, scratch);
        if(threadIdx.x == 0)
        {
            merge_range(mine, stat_exact_lo, lo, hi);
            if(direct && (lo < classify.lo || hi > classify.hi))
                atomicOr(reinterpret_cast<unsigned long long*>(mine + stat_direct), stat_direct_spill);
        }
    }
    else
    {
        for_each_chunk_key<BlockSize, ItemsPerThread, ahead>(
            keys, c, [&](const Key& k) { count(k, static_cast<word>(wide_image(k, ord))); });
    }
    if(direct && c.index == 0 && threadIdx.x == 0)
        atomicOr(reinterpret_cast<unsigned long long*>(mine + stat_direct), stat_direct_buckets);
    if constexpr(!radix_key_codec<Key>::is_float)
    {
        if(classify.crowded && c.index == 0 && threadIdx.x == 0) atomicOr(crowded, 1u);
    }
    __syncthreads();
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        *matrix_entry(matrix, s, b, c.index) = counts[b];
        if(counts[b] != 0)
        {
            atomicAdd(reinterpret_cast<unsigned long long*>(&next[s.next_first + b].end),
                      static_cast<unsigned long long>(counts[b]));
        }
    }
}

/// One wavefront per (segment, bucket) column: the column's counts become exclusive prefixes over
/// the chunks, where each chunk's share of the bucket starts inside the bucket. `groups` blocks
/// of the segment share its columns.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void scan_columns(const partition_segment& s, std::uint64_t* matrix, unsigned int group,
                                      unsigned int groups)
{
    using shape = block_shape<BlockSize>;
    const unsigned int lane = lane_id();
    for(unsigned int b = group * shape::waves + threadIdx.x / shape::wave; b < s.buckets; b += groups * shape::waves)
    {
        std::uint64_t* column = matrix_entry(matrix, s, b, 0);
        std::uint64_t running = 0;
        for(unsigned int first = 0; first < s.chunks; first += shape::wave)
        {
            const unsigned int i = first + lane;
            const std::uint64_t count = i < s.chunks ? column[i] : 0;
            const std::uint64_t inclusive = wave_inclusive_scan(count);
            if(i < s.chunks) column[i] = running + inclusive - count;
            running += shuffle(inclusive, static_cast<int>(shape::wave - 1));
        }
    }
}

/// Segments of at most this many chunks have their columns scanned by the block that lists their
/// buckets, a thread per column with every load issued first; their column-scan blocks return at
/// once. A wavefront per column in blocks of their own took 15.5 us for 1024 segments of 65536
/// pairs (3 chunks each), this 8.6 (H100, ncu); segments of 65536 pairs +0.6 to +0.7%.
constexpr unsigned int thread_scanned_chunks = 8;

/// As scan_columns, for a segment of at most thread_scanned_chunks chunks: a thread per column.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void scan_short_columns(const partition_segment& s, std::uint64_t* matrix)
{
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        std::uint64_t* column = matrix_entry(matrix, s, b, 0);
        std::uint64_t count[thread_scanned_chunks];
#pragma unroll
        for(unsigned int i = 0; i < thread_scanned_chunks; i++) count[i] = i < s.chunks ? column[i] : 0;
        std::uint64_t running = 0;
#pragma unroll
        for(unsigned int i = 0; i < thread_scanned_chunks; i++)
        {
            if(i < s.chunks) column[i] = running;
            running += count[i];
        }
    }
}

/// Whether `members` adjacent buckets holding `keys` keys, the fullest `fullest`, may share one
/// next-round segment: at most group_keys keys, and nearly even (the fullest within 5/4 of their
/// mean), as the next round cuts the group's range into equal widths sized for the mean.
HIPFLASHSORT_HOST_DEVICE bool may_group(std::uint64_t keys, std::uint64_t fullest, unsigned int members,
                                        std::uint64_t group_keys)
{
    return keys <= group_keys && 4 * std::uint64_t(members) * fullest <= 5 * keys;
}

/// Bucket totals of a segment, then their exclusive prefixes (start[b]) and the size (start[n]).
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void bucket_starts(const partition_segment& s, const segment_range* buckets, std::uint64_t* start)
{
    __shared__ std::uint64_t scratch[block_shape<BlockSize>::waves];
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) start[b] = buckets[b].end;
    syncthreads();
    block_exclusive_scan_lds<BlockSize, std::uint64_t>([&](unsigned int j) -> std::uint64_t& { return start[j]; },
                                                       s.buckets, scratch);
    if(threadIdx.x == 0) start[s.buckets] = s.range.end - s.range.begin;
    syncthreads();
}

/// The segment's buckets as the next round's segments, one per bucket. A segment whose keys are
/// all equal is already sorted: its buckets are listed empty, and its scatter (one bucket,
/// identity positions) writes the final output directly.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void list_buckets(const partition_segment& s, const std::uint64_t* start, bool constant,
                                      segment_range* buckets)
{
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        const std::uint64_t begin = s.range.begin + start[b];
        buckets[b] = constant ? segment_range{begin, begin} : segment_range{begin, s.range.begin + start[b + 1]};
    }
}

/// Groups are aligned runs of 2^l buckets (l = level[b] for each of their buckets): the longest
/// such run around each bucket that may_group accepts, found level by level from the pairs up.
/// Aligned runs nest, so the longest accepted one of each bucket partitions the buckets. Level 1
/// reads the buckets' sizes from `start`; each later level reads the previous one's run totals
/// and fullest buckets, kept in two buffers in turn (at most MaxBuckets / 2 runs, then / 4).
template <unsigned int BlockSize, unsigned int MaxBuckets>
HIPFLASHSORT_DEVICE void group_levels(const partition_segment& s, const std::uint64_t* start, std::uint8_t* level)
{
    __shared__ std::uint64_t sum_a[MaxBuckets / 2 + 1], most_a[MaxBuckets / 2 + 1], sum_b[MaxBuckets / 4 + 1],
        most_b[MaxBuckets / 4 + 1];
    // Whether each run of the level is accepted, in two buffers by level parity: a level's
    // buckets are marked after its barrier while the next level's runs are checked.
    __shared__ bool accepted[2][MaxBuckets / 2 + 1];
    const unsigned int n = s.buckets;
    for(unsigned int b = threadIdx.x; b < n; b += BlockSize) level[b] = 0;
    const std::uint64_t *from_sum = nullptr, *from_most = nullptr;
    std::uint64_t *to_sum = sum_a, *to_most = most_a;
    for(unsigned int l = 1, width = 2; width / 2 < n; l++, width *= 2)
    {
        const unsigned int runs = (n + width - 1) / width, below = (n + width / 2 - 1) / (width / 2);
        // Total and fullest of the previous level's run i (for level 1: bucket i).
        const auto sum_of = [&](unsigned int i) { return l == 1 ? start[i + 1] - start[i] : from_sum[i]; };
        const auto most_of = [&](unsigned int i) { return l == 1 ? start[i + 1] - start[i] : from_most[i]; };
        for(unsigned int j = threadIdx.x; j < runs; j += BlockSize)
        {
            const bool pair = 2 * j + 1 < below;
            const std::uint64_t keys = sum_of(2 * j) + (pair ? sum_of(2 * j + 1) : 0);
            const std::uint64_t fullest = max_of(most_of(2 * j), pair ? most_of(2 * j + 1) : std::uint64_t(0));
            to_sum[j] = keys;
            to_most[j] = fullest;
            accepted[l % 2][j] = may_group(keys, fullest, min_of(width, n - j * width), s.group_keys);
        }
        syncthreads();
        // Each bucket by the thread that set it to 0, so its levels are written in order.
        for(unsigned int b = threadIdx.x; b < n; b += BlockSize)
        {
            if(accepted[l % 2][b / width]) level[b] = static_cast<std::uint8_t>(l);
        }
        from_sum = to_sum;
        from_most = to_most;
        to_sum = to_sum == sum_a ? sum_b : sum_a;
        to_most = to_most == most_a ? most_b : most_a;
    }
    syncthreads(); // every level is marked
}

/// The segment's bucket groups as the next round's segments, in the first slots, the rest listed
/// empty; groups[b] receives bucket b's group, which the scatter ranks by. A round that is not
/// the last cuts fine buckets (so that skewed keys still land in segments the next round
/// finishes) and groups them: the scatter then writes fewer, longer runs.
template <unsigned int BlockSize, unsigned int MaxBuckets>
HIPFLASHSORT_DEVICE void list_groups(const partition_segment& s, const std::uint64_t* start, segment_range* buckets,
                                     std::uint16_t* groups)
{
    __shared__ std::uint8_t level[MaxBuckets];
    __shared__ std::uint32_t group[MaxBuckets];
    __shared__ std::uint64_t first[MaxBuckets];
    __shared__ std::uint32_t scratch[block_shape<BlockSize>::waves];
    group_levels<BlockSize, MaxBuckets>(s, start, level);
    const auto head = [&](unsigned int b) { return (b & ((1u << level[b]) - 1u)) == 0; };
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize) group[b] = head(b);
    syncthreads();
    const unsigned int count = block_exclusive_scan_lds<BlockSize, std::uint32_t>(
        [&](unsigned int j) -> std::uint32_t& { return group[j]; }, s.buckets, scratch);
    for(unsigned int b = threadIdx.x; b < s.buckets; b += BlockSize)
    {
        const unsigned int g = group[b] + head(b) - 1;
        groups[b] = static_cast<std::uint16_t>(g);
        if(head(b)) first[g] = start[b];
    }
    syncthreads();
    for(unsigned int g = threadIdx.x; g < s.buckets; g += BlockSize)
    {
        buckets[g] = g < count ? segment_range{s.range.begin + first[g],
                                               s.range.begin + (g + 1 < count ? first[g + 1] : start[s.buckets])}
                               : segment_range{s.range.end, s.range.end};
    }
}

/// Whether a segment's scatter ranks by bucket groups (list_groups) rather than by buckets: where
/// its plan asks for them, unless its range spans fewer images than it has buckets. Each bucket
/// then holds one value, which the next round finds constant and done. (u32 outlier 2^28 lost
/// 13-16% grouped, 2.6% with this rule, on an H100; by our reading, not profiled, its round-2
/// segments span about 256 values in 256 buckets.) Constant segments never group.
HIPFLASHSORT_DEVICE bool segment_is_grouped(const partition_segment& s, const std::uint64_t* stats,
                                            unsigned int segment)
{
    std::uint64_t lo, hi;
    deciding_range(stats, s, segment, lo, hi);
    return s.group_keys != 0 && hi - lo >= s.buckets;
}

/// Where a round lists its next-round segments by class (bin_block), and how the host learns the
/// lists' lengths: counts[0, max_class_lists), published into `box` (where there is one) by the
/// last segment's listing block to finish, which `listed_blocks` (zeroed by the plan) counts.
struct round_binning
{
    class_limits limits;
    class_lists lists;
    unsigned int* counts;
    unsigned int* listed_blocks;
    unsigned int* box;
};

/// Lists the segment's next-round segments in their classes; the round's last listing block then
/// publishes the class counts. Segments of one element are listed in the smallest class like any
/// other: the scatter that moves them has not run yet.
template <unsigned int BlockSize>
HIPFLASHSORT_DEVICE void bin_next_round(const partition_segment& s, const segment_range* entries,
                                        const round_binning& bin)
{
    syncthreads(); // the entries are listed
    for(unsigned int first = 0; first < s.buckets; first += BlockSize) // block-uniform trip count
    {
        const unsigned int b = first + threadIdx.x;
        const segment_range r = b < s.buckets ? entries[b] : segment_range{0, 0};
        bin_block(r, r.end > r.begin, bin.limits, bin.lists, bin.counts);
    }
    __threadfence(); // this block's lists and counts, before its arrival is counted
    syncthreads();
    bool last = false;
    if(threadIdx.x == 0) last = atomicAdd(bin.listed_blocks, 1u) == gridDim.x - 1;
    if(syncthreads_or(last) && bin.box != nullptr)
    {
        __threadfence(); // the other blocks' counts, after their arrivals
        publish_counts(bin.counts, max_class_lists, bin.box);
    }
}

/// Where every chunk's share of every bucket goes, after the histogram: grid (segments,
/// column_groups + 1), the first column_groups blocks of a segment scan its matrix columns (for
/// a segment of few chunks the last one does), the last one turns its bucket totals into bucket
/// (or bucket group) ranges and lists them by class for the next round. One kernel instead of
/// three (offsets, binning, the counts' publication) saves launches per round, each of which at
/// 2^16 keys costs about as much as the kernel's work, and the host learns the counts while the
/// scatter runs.
template <unsigned int BlockSize, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize) void partition_offsets_kernel(const partition_segment* segments,
                                                                     const std::uint64_t* stats,
                                                                     std::uint64_t* matrix, segment_range* next,
                                                                     std::uint16_t* groups, round_binning bin,
                                                                     final_segments rule)
{
    __shared__ std::uint64_t start[MaxBuckets + 1];
    const partition_segment s = segments[blockIdx.x];
    const unsigned int column_groups = gridDim.y - 1;
    const bool short_columns = s.chunks <= thread_scanned_chunks;
    if(blockIdx.y < column_groups)
    {
        if(!short_columns) scan_columns<BlockSize>(s, matrix, blockIdx.y, column_groups);
        return;
    }
    if(short_columns) scan_short_columns<BlockSize>(s, matrix);
    const bool final = segment_is_final(stats, s, blockIdx.x, rule);
    bucket_starts<BlockSize>(s, next + s.next_first, start);
    if(segment_is_grouped(s, stats, blockIdx.x))
        list_groups<BlockSize, MaxBuckets>(s, start, next + s.next_first, groups + s.next_first);
    else
        list_buckets<BlockSize>(s, start, final, next + s.next_first);
    bin_next_round<BlockSize>(s, next + s.next_first, bin);
}

/// LDS of the scatter: per-bucket output cursors, the wavefronts' bucket counters (of type
/// Counter) and the tile staged in bucket order.
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets,
          class Counter>
struct scatter_storage_of
{
    using counter_type = Counter;
    // Output position of the bucket's first key of this tile, minus the bucket's first slot in
    // the staged tile: a staged key at `slot` goes to cursor[bucket] + slot.
    std::uint64_t cursor[MaxBuckets];
    // Where the previous tile's run of each bucket ended in that staged tile.
    std::uint32_t previous_end[MaxBuckets];
    // Each bucket's group, where the segment's buckets are grouped (list_groups).
    std::uint16_t group_of[MaxBuckets];
    // 16-bit counters sit two to a 32-bit word, which add_to_counter's atomics update.
    alignas(4) Counter counters[block_shape<BlockSize>::waves * MaxBuckets];
    Key keys[BlockSize * ItemsPerThread];
    Value values[has_values<Value> ? BlockSize * ItemsPerThread : 1];
    std::uint32_t scan_scratch[block_shape<BlockSize>::waves];
};

/// Scatter blocks that `bytes` of static LDS each leave resident on a multiprocessor (at most
/// the kernel's three).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int scatter_blocks_in_lds(unsigned int bytes)
{
    return target_multiprocessor_lds() / bytes < 3 ? target_multiprocessor_lds() / bytes : 3u;
}

/// Whether the scatter takes 32-bit counters, given the bytes of its LDS with them (`wide`) and
/// with 16-bit ones (`narrow`): where the wide layout fits the static LDS and leaves as many
/// blocks resident. A 32-bit counter takes an atomic on its own address; a 16-bit one a shift
/// and mask of its word's half before and after it. H200, three rotated rounds against 16-bit
/// counters, both with chunk_scatter's whole tiles and plain classifiers (fifty-sixth session):
/// 2^28 f32 / u32 uniform +0.9 / -0.0%, reduced-entropy +2.1 / -0.2%, sorted +2.9 / +2.9%; 2^24
/// +2.0 / +1.0%; u64 2^27 +1.8%.
HIPFLASHSORT_HOST_DEVICE constexpr bool scatter_takes_wide_counters(unsigned int wide, unsigned int narrow)
{
    return wide <= 48 * 1024 && scatter_blocks_in_lds(wide) >= scatter_blocks_in_lds(narrow);
}

template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
struct scatter_storage_choice
{
    template <class Counter>
    using with = scatter_storage_of<Key, Value, BlockSize, ItemsPerThread, MaxBuckets, Counter>;
    using type = std::conditional_t<scatter_takes_wide_counters(sizeof(with<std::uint32_t>),
                                                                sizeof(with<std::uint16_t>)),
                                    with<std::uint32_t>, with<std::uint16_t>>;
};

/// The scatter's LDS, with the counters scatter_takes_wide_counters chooses.
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
using scatter_storage = typename scatter_storage_choice<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>::type;

/// Stable scatter of one chunk into its segment's buckets (or bucket groups: below, bucket means
/// either), tile by tile: rank each item within the tile per wavefront (input order), scan the
/// ranks into the tile's bucket starts, stage the tile in LDS in bucket order, then write each
/// bucket's run contiguously at the chunk's cursor for that bucket. The next tile's loads are
/// issued before the write-out, into the registers the staged tile no longer needs, so they are
/// in flight while the block writes.
///
/// The write-out classifies a staged key again instead of keeping a bucket per slot in LDS: three
/// blocks of 256 fit an H100 SM (two a gfx9 CU) with 16 items of 4 bytes per thread.
///
/// Whole tiles (all but a chunk's last) skip the items' bound tests, and segments whose buckets
/// are plain (partition_classifier::plain, not grouped) skip the classifier's tests of its kind,
/// each in code of its own. With the bound test, the kind's tests (a branch, a select and a
/// predicated group lookup per key) and bucket and rank packed into one register, ranking took
/// about 45 of the scatter's 89 instructions per u32 key (ncu source counters, 2^28 uniform);
/// now the scatter executes 521 M warp instructions there instead of 745 M (33 M of the saving
/// from the 32-bit counters of scatter_storage). H200, 2^28 keys, three rotated rounds against
/// 6e66be6, with the counters: f32 / u32 uniform +3.7 / +0.7% (at the GPU's own clocks the u32
/// scatter, 1214 -> 1185 us, waits on memory more than on its instructions), normal +2.8 /
/// +0.3%, reduced-entropy +7.4 / +2.3%, sorted +15.7 / +17.8%, reverse +12.8 / +13.8%,
/// few-unique +10.5 / +8.7%; 2^24 +3.4 / +2.5%; u32+u32 pairs -0.5%, u64 +0.2% (fifty-sixth
/// session).
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
struct chunk_scatter
{
    using shape = block_shape<BlockSize>;
    using word = image_word_t<Key>;
    using storage_type = scatter_storage<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>;
    static constexpr unsigned int tile = BlockSize * ItemsPerThread;
    static constexpr unsigned int span = ItemsPerThread * shape::wave; // positions per wavefront
    static constexpr unsigned int bucket_bits = log2_ceil(MaxBuckets);
    static constexpr unsigned int buckets_per_thread = (MaxBuckets + BlockSize - 1) / BlockSize;
    static constexpr bool with_values = has_values<Value>;
    static_assert(tile <= 65536 && MaxBuckets <= 65536 && MaxBuckets % 2 == 0,
                  "packed, bucket and rank share 32 bits; 16-bit counters pair up in words");

    storage_type& lds;
    partition_classifier<Key> classify;
    order ord;
    bool grouped;
    unsigned int count; // buckets, or groups where grouped
    unsigned int row;   // counters per wavefront, 4-byte aligned for wave_stable_rank

    HIPFLASHSORT_DEVICE chunk_scatter(storage_type& storage, const partition_classifier<Key>& c, bool g, order o)
        : lds(storage), classify(c), ord(o), grouped(g), count(c.buckets()), row((c.buckets() + 1u) & ~1u)
    {
    }

    /// Plain: the segment's buckets are not grouped and its classifier is plain(), so that its
    /// kind is not tested.
    template <bool Plain>
    HIPFLASHSORT_DEVICE unsigned int bucket_of(const Key& k) const
    {
        const auto image = static_cast<word>(wide_image(k, ord));
        if constexpr(Plain) return classify.plain_bucket(k, image);
        const unsigned int b = classify(k, image);
        return grouped ? lds.group_of[b] : b;
    }
    HIPFLASHSORT_DEVICE bool plain() const { return !grouped && classify.plain(); }
    HIPFLASHSORT_DEVICE unsigned int buckets() const { return count; }
    using counter_type = typename storage_type::counter_type;
    HIPFLASHSORT_DEVICE counter_type* counters() { return lds.counters; }

    /// Each item's bucket and rank in the tile, held from the ranks to the staging. Keys alone
    /// hold them apart (packed, they cost a pack and an unpack per key, where the compiler held
    /// them in two registers anyway); with values, whose registers are short, they share one as
    /// bucket << 16 | rank (apart, u32+u32 2^28 sorts lost 5.7%).
    struct tile_places
    {
        unsigned int first[ItemsPerThread];                    // bucket, or bucket << 16 | rank
        unsigned int second[with_values ? 1 : ItemsPerThread]; // rank, unless packed
        HIPFLASHSORT_DEVICE void set(unsigned int r, unsigned int bucket, unsigned int rank)
        {
            if constexpr(with_values) first[r] = bucket << 16 | rank;
            else
            {
                first[r] = bucket;
                second[r] = rank;
            }
        }
        HIPFLASHSORT_DEVICE unsigned int bucket(unsigned int r) const { return with_values ? first[r] >> 16 : first[r]; }
        HIPFLASHSORT_DEVICE unsigned int rank(unsigned int r) const
        {
            if constexpr(with_values) return first[r] & 0xffffu;
            else return second[r];
        }
    };
    HIPFLASHSORT_DEVICE static unsigned int wave_first() { return threadIdx.x / shape::wave * span + lane_id(); }
    HIPFLASHSORT_DEVICE static unsigned int first_bucket() { return threadIdx.x * buckets_per_thread; }

    /// Cursors start at the chunk's share of each bucket; counters start at zero.
    HIPFLASHSORT_DEVICE void start(const std::uint64_t* matrix, const partition_segment& s, unsigned int chunk,
                                   const segment_range* next, const std::uint16_t* groups)
    {
        if(grouped)
        {
            start_groups(matrix, s, chunk, next, groups);
            return;
        }
        for(unsigned int b = threadIdx.x; b < buckets(); b += BlockSize)
        {
            lds.cursor[b] = next[s.next_first + b].begin + *matrix_entry(matrix, s, b, chunk);
            lds.previous_end[b] = 0;
        }
        clear_counters();
        __syncthreads();
    }

    /// As start, for groups: a group's share of the chunk starts after the earlier chunks' keys
    /// of all its buckets, the sum of their column prefixes.
    HIPFLASHSORT_DEVICE void start_groups(const std::uint64_t* matrix, const partition_segment& s, unsigned int chunk,
                                          const segment_range* next, const std::uint16_t* groups)
    {
        for(unsigned int b = threadIdx.x; b < classify.buckets(); b += BlockSize)
        {
            lds.group_of[b] = groups[s.next_first + b];
            lds.cursor[b] = 0;
            lds.previous_end[b] = 0;
        }
        __syncthreads();
        for(unsigned int b = threadIdx.x; b < classify.buckets(); b += BlockSize)
        {
            atomicAdd(reinterpret_cast<unsigned long long*>(&lds.cursor[lds.group_of[b]]),
                      static_cast<unsigned long long>(*matrix_entry(matrix, s, b, chunk)));
        }
        count = lds.group_of[classify.buckets() - 1] + 1u;
        row = (count + 1u) & ~1u;
        __syncthreads();
        for(unsigned int g = threadIdx.x; g < count; g += BlockSize) lds.cursor[g] += next[s.next_first + g].begin;
        clear_counters();
        __syncthreads();
    }

    HIPFLASHSORT_DEVICE void clear_counters()
    {
        // In whole 32-bit words (row is even): 16-bit counters two at a time.
        constexpr unsigned int per_word = sizeof(std::uint32_t) / sizeof(counter_type);
        auto* const words = reinterpret_cast<std::uint32_t*>(lds.counters);
        for(unsigned int i = threadIdx.x; i < shape::waves * row / per_word; i += BlockSize) words[i] = 0;
    }

    HIPFLASHSORT_DEVICE void load(const Key* keys_in, const Value* values_in, std::uint64_t tile_begin,
                                  unsigned int size, Key (&k)[ItemsPerThread], Value (&v)[ItemsPerThread])
    {
        load_tile<ItemsPerThread, shape::wave>(keys_in + tile_begin, wave_first(), size, tile, k);
        if constexpr(with_values)
            load_tile<ItemsPerThread, shape::wave>(values_in + tile_begin, wave_first(), size, tile, v);
    }

    /// Ranks the tile's `size` items and stages them in LDS in bucket order. Whole: size is the
    /// tile, and no item is tested against it.
    template <bool Whole, bool Plain>
    HIPFLASHSORT_DEVICE void place(const Key (&k)[ItemsPerThread], const Value (&v)[ItemsPerThread],
                                   unsigned int size)
    {
        tile_places places;
        rank<Whole, Plain>(k, size, places);
        scan_counts();
        stage<Whole>(k, v, places, size);
    }

    /// Rank of each item among the tile's earlier items of its bucket, per wavefront, with its
    /// bucket (input order only where it can show: wave_rank).
    template <bool Whole, bool Plain>
    HIPFLASHSORT_DEVICE void rank(const Key (&k)[ItemsPerThread], unsigned int size,
                                  tile_places& places)
    {
        counter_type* mine = counters() + threadIdx.x / shape::wave * row;
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            const bool valid = Whole || wave_first() + r * shape::wave < size;
            const unsigned int bucket = valid ? bucket_of<Plain>(k[r]) : 0;
            places.set(r, bucket, wave_rank<bucket_bits, with_values>(bucket, valid, k[r], mine));
        }
        __syncthreads();
    }

    /// Scans the wavefronts' counters in bucket-major order (bucket, then wavefront) into each
    /// wavefront's first slot per bucket, and moves each bucket's cursor past the previous tile's
    /// run to this tile's. Each thread owns consecutive buckets: their sums, one block scan of
    /// the sums, and a rewrite, about 4 instructions per counter.
    HIPFLASHSORT_DEVICE void scan_counts()
    {
        counter_type* c = counters();
        std::uint32_t count[buckets_per_thread];
        std::uint32_t sum = 0;
#pragma unroll
        for(unsigned int i = 0; i < buckets_per_thread; i++)
        {
            const unsigned int b = first_bucket() + i;
            count[i] = 0;
#pragma unroll
            for(unsigned int w = 0; w < shape::waves; w++) count[i] += b < buckets() ? c[w * row + b] : 0u;
            sum += count[i];
        }
        // scan_scratch is written again only after the next tile's barriers.
        std::uint32_t total;
        std::uint32_t running
            = block_inclusive_scan<BlockSize, std::uint32_t, false>(sum, total, lds.scan_scratch) - sum;
#pragma unroll
        for(unsigned int i = 0; i < buckets_per_thread; i++)
        {
            const unsigned int b = first_bucket() + i;
            if(b < buckets())
            {
                lds.cursor[b] += std::uint64_t(lds.previous_end[b]) - running; // may step back: modulo 2^64
                lds.previous_end[b] = running + count[i];
#pragma unroll
                for(unsigned int w = 0; w < shape::waves; w++)
                {
                    const std::uint32_t n = c[w * row + b];
                    c[w * row + b] = static_cast<counter_type>(running);
                    running += n;
                }
            }
        }
        __syncthreads();
    }

    template <bool Whole>
    HIPFLASHSORT_DEVICE void stage(const Key (&k)[ItemsPerThread], const Value (&v)[ItemsPerThread],
                                   const tile_places& places, unsigned int size)
    {
        const counter_type* mine = counters() + threadIdx.x / shape::wave * row;
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            if(Whole || wave_first() + r * shape::wave < size)
            {
                const unsigned int slot = mine[places.bucket(r)] + places.rank(r);
                lds.keys[slot] = k[r];
                if constexpr(with_values) lds.values[slot] = v[r];
            }
        }
        __syncthreads();
    }

    /// Consecutive threads write consecutive staged slots: each bucket's run of the tile lands
    /// contiguously at its cursor. The counters are cleared for the next tile meanwhile.
    template <bool Plain>
    HIPFLASHSORT_DEVICE void write(unsigned int size, Key* keys_dst, Value* values_dst)
    {
        clear_counters();
        for(unsigned int slot = threadIdx.x; slot < size; slot += BlockSize)
        {
            const Key key = lds.keys[slot];
            const std::uint64_t to = lds.cursor[bucket_of<Plain>(key)] + slot;
            keys_dst[to] = key;
            if constexpr(with_values) values_dst[to] = lds.values[slot];
        }
        __syncthreads();
    }
};

/// Writes a chunk's share of a final segment of keys without values whose buckets each hold one
/// image: its one key where it is constant, else (direct) the bucket's image. Each bucket's share
/// is a run of that key, written from the counts without reading the keys, as a counting sort's
/// last pass; a wavefront per bucket. Returns false, writing nothing, where a bucket may hold a
/// float zero: -0 and +0 share an image and keep their input order, so their keys must move.
/// H200, 2^28 keys, three rotated rounds against the full scatter: f32 / u32 reduced-entropy
/// +5.5 / +1.7%, u32 zipf +10.6%, u32 outlier +27.7%, few-unique +40-44%, all-equal +138-165%,
/// every other case within 0.6% (2^24 within run spread; fifty-fifth session).
template <class Key, unsigned int BlockSize>
HIPFLASHSORT_DEVICE bool fill_final_chunk(const partition_classifier<Key>& classify, const std::uint64_t* stats,
                                          const partition_segment& s, const partition_chunk& c,
                                          const std::uint64_t* matrix, const segment_range* next, Key* keys_out,
                                          order ord)
{
    using codec = radix_key_codec<Key>;
    using word = image_word_t<Key>;
    using shape = block_shape<BlockSize>;
    std::uint64_t lo, hi;
    deciding_range(stats, s, c.segment, lo, hi);
    const bool constant = lo == hi;
    const word first = constant ? static_cast<word>(lo) : classify.inner.by_image.min_image;
    const word last = constant ? first : static_cast<word>(first + (classify.buckets() - 1));
    if constexpr(codec::is_float)
    {
        const auto zero = static_cast<word>(wide_image(Key(0), ord));
        if(first <= zero && zero <= last) return false;
    }
    const segment_range* buckets = next + s.next_first;
    // Each lane finds one bucket's run, the loads of a wavefront's buckets all in flight at once;
    // then the wavefront writes the runs one after another. Where a wavefront found each run in
    // turn, its dependent loads bound the fill: H200, 2^28, three rotated rounds, u32 / f32
    // reduced-entropy +2.3 / +2.8%, few-unique +3.5 / +3.0%, all-equal +2.2 / +2.4%, every
    // other case within 1.1% (fifty-fifth session).
    for(unsigned int base = threadIdx.x / shape::wave * shape::wave; base < s.buckets;
        base += shape::waves * shape::wave)
    {
        const unsigned int b = base + lane_id();
        std::uint64_t from = 0, to = 0;
        if(b < s.buckets)
        {
            const std::uint64_t begin = buckets[b].begin; // listed empty: its end is the next one's begin
            const std::uint64_t end = b + 1 < s.buckets ? buckets[b + 1].begin : s.range.end;
            from = begin + *matrix_entry(matrix, s, b, c.index);
            to = c.index + 1 < s.chunks ? begin + *matrix_entry(matrix, s, b, c.index + 1) : end;
        }
        for(lane_mask_type runs = ballot(from != to); runs != 0; runs &= runs - 1)
        {
            const int lane = static_cast<int>(__ffsll(static_cast<unsigned long long>(runs)) - 1);
            const std::uint64_t run_from = shuffle(from, lane), run_to = shuffle(to, lane);
            const auto image = static_cast<typename codec::bit_key_type>(
                constant ? first : static_cast<word>(first + base + static_cast<unsigned int>(lane)));
            const Key key = codec::decode_lossless(image, ord);
            for(std::uint64_t i = run_from + lane_id(); i < run_to; i += shape::wave) keys_out[i] = key;
        }
    }
    return true;
}

template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize, 3) void chunk_scatter_kernel(
    const round_totals* totals, const partition_chunk* chunks, const partition_segment* segments,
    const std::uint64_t* stats, const std::uint64_t* matrix, const segment_range* next, const std::uint16_t* groups,
    const Key* keys_in, Key* keys_tmp, Key* keys_out, const Value* values_in, Value* values_tmp, Value* values_out,
    order ord, final_segments rule)
{
    using scatter = chunk_scatter<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>;
    constexpr unsigned int tile = scatter::tile;
    __shared__ typename scatter::storage_type lds;
    if(blockIdx.x >= totals->chunks) return;
    const partition_chunk c = chunks[blockIdx.x];
    const partition_segment s = segments[c.segment];
    const bool done = segment_is_final(stats, s, c.segment, rule);
    if(done && rule.in_place) return;
    const partition_classifier<Key> classify = segment_classifier<Key>(stats, s, c.segment, s.buckets, ord);
    if constexpr(!has_values<Value>)
    {
        if(done && fill_final_chunk<Key, BlockSize>(classify, stats, s, c, matrix, next, keys_out, ord)) return;
    }
    scatter agent(lds, classify, segment_is_grouped(s, stats, c.segment), ord);
    Key* keys_dst = done ? keys_out : keys_tmp;
    Value* values_dst = done ? values_out : values_tmp;
    agent.start(matrix, s, c.index, next, groups);
    const bool plain = agent.plain();
    Key k[ItemsPerThread];
    Value v[ItemsPerThread];
    agent.load(keys_in, values_in, c.begin, tile_size(c, c.begin, tile), k, v);
    for(std::uint64_t tile_begin = c.begin; tile_begin < c.end; tile_begin += tile)
    {
        const unsigned int size = tile_size(c, tile_begin, tile);
        if(size != tile) agent.template place<false, false>(k, v, size);
        else if(plain) agent.template place<true, true>(k, v, size);
        else agent.template place<true, false>(k, v, size);
        const std::uint64_t next_tile = tile_begin + tile;
        if(next_tile < c.end) agent.load(keys_in, values_in, next_tile, tile_size(c, next_tile, tile), k, v);
        if(plain) agent.template write<true>(size, keys_dst, values_dst);
        else agent.template write<false>(size, keys_dst, values_dst);
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
