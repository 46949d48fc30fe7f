// What a partition round knows of each large segment: its plan (buckets, chunks, where its count
// matrix and next-round buckets start), the statistics words that the min/max and histogram
// kernels fill, and the classifier that every histogram and scatter block builds from them.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_PARTITION_SEGMENTS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_PARTITION_SEGMENTS_HPP_

#include <cstdint>
#include <limits>

#include "../../block/detail/block_primitives.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "bucket_classifier.hpp"
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

} // namespace detail
} // namespace hipflashsort

#endif
