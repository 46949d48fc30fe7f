// Order-preserving maps from keys to unsigned integers ("images"), so that every level of the
// sort classifies and compares keys as plain unsigned numbers.
//
// Float order is CUB DeviceRadixSort's: -NaN < -inf < ... < -0 = +0 < ... < +inf < +NaN, NaNs
// ordered by bit pattern. Two images exist for that reason:
//   - order_image(k): ±0 share one image (what comparisons and bucket ids use);
//   - lossless_image(k): a bijection with -0 immediately below +0, for code that moves images
//     and must give back the exact key bits (decode_lossless).
// Descending order is the bitwise complement of the ascending image.
#ifndef HIPFLASHSORT_THREAD_RADIX_KEY_CODEC_HPP_
#define HIPFLASHSORT_THREAD_RADIX_KEY_CODEC_HPP_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"

namespace hipflashsort {
namespace detail {

template <unsigned int Bytes> struct unsigned_of;
template <> struct unsigned_of<1> { using type = std::uint8_t; };
template <> struct unsigned_of<2> { using type = std::uint16_t; };
template <> struct unsigned_of<4> { using type = std::uint32_t; };
template <> struct unsigned_of<8> { using type = std::uint64_t; };

template <class T>
HIPFLASHSORT_HOST_DEVICE constexpr bool is_supported_key()
{
    return std::is_integral<T>::value && !std::is_same<T, bool>::value
           ? (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)
           : (std::is_same<T, float>::value || std::is_same<T, double>::value);
}

} // namespace detail

/// Image type and conversions of Key (u8..u64, i8..i64, float, double).
template <class Key>
struct radix_key_codec
{
    static_assert(detail::is_supported_key<Key>(), "hipflashsort keys are 1-8 byte integers, float or double");

    using bit_key_type = typename detail::unsigned_of<sizeof(Key)>::type;
    static constexpr unsigned int bits = 8 * sizeof(Key);
    static constexpr bit_key_type sign_bit = bit_key_type(bit_key_type(1) << (bits - 1));
    static constexpr bool is_float = std::is_floating_point<Key>::value;
    static constexpr bool is_signed = std::is_signed<Key>::value;

    HIPFLASHSORT_HOST_DEVICE static bit_key_type to_bits(Key key)
    {
        bit_key_type b;
        __builtin_memcpy(&b, &key, sizeof(Key));
        return b;
    }

    HIPFLASHSORT_HOST_DEVICE static Key from_bits(bit_key_type b)
    {
        Key key;
        __builtin_memcpy(&key, &b, sizeof(Key));
        return key;
    }

    /// Bijective ascending image of raw key bits. A float's is its bits xor a mask: all ones
    /// where negative, the sign bit where not. Built from the sign by an arithmetic shift, the
    /// mask takes a shift and one three-input logic operation, where a sign test and a select
    /// took more (H200, 2^28 f32 uniform sorts +1.1%, four rotated rounds, fifty-second session).
    HIPFLASHSORT_HOST_DEVICE static bit_key_type lossless_image_bits(bit_key_type b)
    {
        if(is_float) return bit_key_type(b ^ (sign_copies(b) | sign_bit));
        if(is_signed) return bit_key_type(b ^ sign_bit);
        return b;
    }

    HIPFLASHSORT_HOST_DEVICE static bit_key_type lossless_bits_of_image(bit_key_type image)
    {
        if(is_float) return bit_key_type(image ^ (bit_key_type(~sign_copies(image)) | sign_bit));
        if(is_signed) return bit_key_type(image ^ sign_bit);
        return image;
    }

    /// Bijective image in the order `ord` (-0 just before +0 when ascending).
    HIPFLASHSORT_HOST_DEVICE static bit_key_type lossless_image(Key key, order ord = order::ascending)
    {
        const bit_key_type image = lossless_image_bits(to_bits(key));
        return ord == order::ascending ? image : bit_key_type(~image);
    }

    /// Inverse of lossless_image.
    HIPFLASHSORT_HOST_DEVICE static Key decode_lossless(bit_key_type image, order ord = order::ascending)
    {
        if(ord == order::descending) image = bit_key_type(~image);
        return from_bits(lossless_bits_of_image(image));
    }

    /// Comparison image in the order `ord`: equal images ⇔ equal keys under the sort's order
    /// (so -0 and +0 share an image).
    HIPFLASHSORT_HOST_DEVICE static bit_key_type order_image(Key key, order ord = order::ascending)
    {
        bit_key_type b = to_bits(key);
        if(is_float && b == sign_bit) b = 0; // -0 compares equal to +0
        const bit_key_type image = lossless_image_bits(b);
        return ord == order::ascending ? image : bit_key_type(~image);
    }

    /// Every bit a copy of b's top bit (an arithmetic shift; no select).
    HIPFLASHSORT_HOST_DEVICE static bit_key_type sign_copies(bit_key_type b)
    {
        using signed_bits = std::make_signed_t<bit_key_type>;
        return bit_key_type(static_cast<signed_bits>(b) >> (bits - 1));
    }

    /// Whether another bit pattern shares the key's order image (only ±0 of a float type): where
    /// this is false for every key, the order of equal keys cannot show in a keys-only result.
    HIPFLASHSORT_HOST_DEVICE static constexpr bool shares_image(Key key)
    {
        return is_float && bit_key_type(to_bits(key) & bit_key_type(~sign_bit)) == 0;
    }
};

} // namespace hipflashsort

#endif
