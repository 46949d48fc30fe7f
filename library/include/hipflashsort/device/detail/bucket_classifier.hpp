// Flash sort's classification: bucket = floor(B * (image - min) / (max - min + 1)), computed with
// one multiply-high instead of a division. Monotone in the image, so buckets are ordered ranges.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_BUCKET_CLASSIFIER_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_BUCKET_CLASSIFIER_HPP_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../../config.hpp"
#include "../../intrinsics/bits.hpp"
#include "../../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

/// Images are classified as 32-bit (keys of 1-4 bytes) or 64-bit words.
template <class BitKey>
using wide_image_t = std::conditional_t<(sizeof(BitKey) <= 4), std::uint32_t, std::uint64_t>;

template <class Word>
struct bucket_classifier
{
    Word min_image;
    Word scale;         // floor(buckets * 2^bits / (range + 1)), when !direct
    unsigned int buckets;
    bool direct;        // range + 1 <= buckets: each distinct image gets its own bucket

    /// Classifier for images in [lo, hi] into at most `max_buckets` (a power of two >= 1) buckets.
    HIPFLASHSORT_HOST_DEVICE static bucket_classifier make(Word lo, Word hi, unsigned int max_buckets)
    {
        bucket_classifier c;
        c.min_image = lo;
        const Word range = hi - lo;
        if(range < Word(max_buckets))
        {
            c.direct = true;
            c.buckets = static_cast<unsigned int>(range) + 1;
            c.scale = 0;
        }
        else
        {
            c.direct = false;
            c.buckets = max_buckets;
            c.scale = scale_for(range, max_buckets);
        }
        return c;
    }

    HIPFLASHSORT_HOST_DEVICE unsigned int operator()(Word image) const
    {
        const Word offset = image - min_image;
        return direct ? static_cast<unsigned int>(offset) : static_cast<unsigned int>(mul_hi(offset, scale));
    }

    /// operator() where !direct, without the test.
    HIPFLASHSORT_HOST_DEVICE unsigned int interpolate(Word image) const
    {
        return static_cast<unsigned int>(mul_hi(Word(image - min_image), scale));
    }

private:
    // buckets * 2^bits / (range + 1) < 2^bits because range >= buckets; range + 1 may overflow Word.
    HIPFLASHSORT_HOST_DEVICE static Word scale_for(Word range, unsigned int buckets)
    {
        if(range == ~Word(0))
        {
            return Word(buckets); // range + 1 = 2^bits
        }
        return divide_shifted(Word(buckets), range + 1);
    }

    // floor(a * 2^bits / d) for a < d. Every thread of a block computes this before its first
    // key, so it must be short: a bit-serial loop took 15% of the stall samples of the 4096-pair
    // block flash sort (H100 ncu), and a 64-bit integer division made the flash network class
    // spill. Long division by two half-word digits (Knuth's algorithm D, divisor normalized so
    // that each digit's estimate is off by at most two) needs only word-sized divisions.
    HIPFLASHSORT_HOST_DEVICE static Word divide_shifted(Word a, Word d)
    {
        constexpr unsigned int half = 4 * sizeof(Word);
        const unsigned int shift = leading_zeros(d);
        d <<= shift;
        const Word d1 = d >> half, d0 = d & low_mask;
        // a < d, so a << shift keeps every bit (the dividend's low word is zero).
        const Word top = a << shift;
        const Word q1 = quotient_digit(top, d1, d0);
        const Word rest = (top << half) - q1 * d; // top * 2^half - q1 * d, below d
        const Word q0 = quotient_digit(rest, d1, d0);
        return (q1 << half) | q0;
    }

    static constexpr Word low_mask = (Word(1) << (4 * sizeof(Word))) - 1;

    // The digit floor(u * 2^half / (d1 * 2^half + d0)) for u below that divisor, d1's top bit set.
    HIPFLASHSORT_HOST_DEVICE static Word quotient_digit(Word u, Word d1, Word d0)
    {
        constexpr unsigned int half = 4 * sizeof(Word);
        Word q = u / d1;
        Word r = u - q * d1;
        // At most two corrections; a remainder past the digit ends them.
        for(int i = 0; i < 2 && r <= low_mask && (q > low_mask || q * d0 > (r << half)); i++)
        {
            q--;
            r += d1;
        }
        return q;
    }
};

/// Bucket ids of keys. Integers (and floats whose range holds an infinity or NaN) interpolate
/// their images. Finite floats interpolate their values: images of floats grow with the exponent,
/// so [0, 1) would crowd half its keys into the top 1/30 of the image range, while value
/// interpolation spreads uniform, normal or exponential data evenly. Both maps are monotone in
/// the sort order (IEEE rounding is monotone), which is all the partition needs.
template <class Key>
struct flash_classifier
{
    using codec = radix_key_codec<Key>;
    using word = wide_image_t<typename codec::bit_key_type>;
    using real = std::conditional_t<codec::is_float, Key, float>;

    bucket_classifier<word> by_image;
    real origin; // by_value: the first key in the sort order
    real scale;  // by_value: buckets per unit of k - origin, negative descending (keys fall from origin)
    word log_origin; // by_log: the image that distances are taken from
    unsigned int buckets;
    bool by_value;
    bool by_log;
    bool descending;

    HIPFLASHSORT_HOST_DEVICE static flash_classifier make(word lo, word hi, unsigned int max_buckets, order ord)
    {
        flash_classifier c = by_images(lo, hi, max_buckets, ord);
        if constexpr(codec::is_float)
        {
            if(!c.by_image.direct)
            {
                using bits = typename codec::bit_key_type;
                // The smallest image is the first key in the sort order.
                const Key first = codec::decode_lossless(static_cast<bits>(lo), ord);
                const Key last = codec::decode_lossless(static_cast<bits>(hi), ord);
                const Key range = c.descending ? first - last : last - first;
                const Key scale = static_cast<Key>(c.buckets) / range;
                if(is_finite(first) && is_finite(last) && is_finite(range) && range > Key(0) && is_finite(scale))
                {
                    c.by_value = true;
                    c.origin = first;
                    c.scale = c.descending ? -scale : scale;
                }
            }
        }
        return c;
    }

    /// Classifier for keys crowded near their smallest one with a long tail above (heavy tails:
    /// zipf-like keys, AND-ed random bits): buckets equal in the logarithm of the distance from the
    /// smallest key instead of in the distance itself, which would put nearly every key into the
    /// first bucket, round after round. Float images are already about logarithmic in the value,
    /// so floats are classified by image; integers by the bits of the distance as a float.
    HIPFLASHSORT_HOST_DEVICE static flash_classifier make_logarithmic(word lo, word hi, unsigned int max_buckets,
                                                                      order ord)
    {
        flash_classifier c = by_images(lo, hi, max_buckets, ord);
        if constexpr(!codec::is_float)
        {
            if(!c.by_image.direct)
            {
                // The smallest key has the smallest image ascending, the largest descending.
                c.by_log = true;
                c.log_origin = c.descending ? hi : lo;
                c.by_image = bucket_classifier<word>::make(0, log_distance(hi - lo), max_buckets);
                c.buckets = c.by_image.buckets;
            }
        }
        return c;
    }

    /// Bucket of key `k`, whose order image is `image`.
    HIPFLASHSORT_HOST_DEVICE unsigned int operator()(const Key& k, word image) const
    {
        if constexpr(codec::is_float)
        {
            if(by_value) return value_bucket(k);
        }
        else
        {
            if(by_log)
            {
                // Descending, the smallest key is the largest image: distances grow downwards.
                const unsigned int b = by_image(log_distance(descending ? log_origin - image : image - log_origin));
                return descending ? buckets - 1 - b : b;
            }
        }
        return by_image(image);
    }

    /// Bucket of a finite float key by its value: operator() where by_value holds, for callers
    /// that test by_value once for many keys.
    HIPFLASHSORT_HOST_DEVICE unsigned int value_bucket(const Key& k) const { return value_bucket_at(position_of(k)); }

    /// A finite float key's position in bucket widths from origin (nonnegative inside the range).
    /// The order's sign lives in scale: (k - origin) * -s is (origin - k) * s bit for bit, as
    /// rounding to nearest is symmetric, and saves a second subtraction and a select per key.
    HIPFLASHSORT_HOST_DEVICE real position_of(const Key& k) const { return (k - origin) * scale; }

    /// The bucket of a position at least 0 (from position_of). A NaN or a position past the
    /// last bucket gives the last (fmin returns the number). A minimum and a conversion, where a
    /// compare, a conversion and a select did the same (H200, 2^28 f32 uniform sorts +1.4%, four
    /// rotated rounds, fifty-second session).
    HIPFLASHSORT_HOST_DEVICE unsigned int value_bucket_at(real position) const
    {
        return static_cast<unsigned int>(fmin(position, real(buckets - 1)));
    }

    /// A distance's logarithm, monotone in it: the bits of the distance as a float, shifted so
    /// that 0 -> 0 and 1 -> 1 (floats' bit patterns grow with nonnegative values; conversion
    /// rounds monotonically).
    HIPFLASHSORT_HOST_DEVICE static word log_distance(word d)
    {
        if(d == 0) return 0;
        const float f = static_cast<float>(d);
        std::uint32_t bits;
        __builtin_memcpy(&bits, &f, sizeof(bits));
        return static_cast<word>(bits - 0x3f800000u + 1u);
    }

    /// Equal-width buckets of the images, for floats too (make's first step).
    HIPFLASHSORT_HOST_DEVICE static flash_classifier by_image_only(word lo, word hi, unsigned int max_buckets,
                                                                   order ord)
    {
        return by_images(lo, hi, max_buckets, ord);
    }

private:
    /// Equal-width buckets of the images, the common start of make and make_logarithmic.
    HIPFLASHSORT_HOST_DEVICE static flash_classifier by_images(word lo, word hi, unsigned int max_buckets, order ord)
    {
        flash_classifier c;
        c.by_image = bucket_classifier<word>::make(lo, hi, max_buckets);
        c.buckets = c.by_image.buckets;
        c.by_value = false;
        c.by_log = false;
        c.descending = ord == order::descending;
        c.origin = 0;
        c.scale = 0;
        c.log_origin = 0;
        return c;
    }

    HIPFLASHSORT_HOST_DEVICE static bool is_finite(real v) { return v - v == real(0); }
};

} // namespace detail
} // namespace hipflashsort

#endif
