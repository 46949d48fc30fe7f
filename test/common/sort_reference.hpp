// Input generators and the host reference for sort tests: a stable sort on the codec's order
// image, which is exactly the contract (CUB radix order, ±0 equal, stable).
#ifndef HIPFLASHSORT_TEST_COMMON_SORT_REFERENCE_HPP_
#define HIPFLASHSORT_TEST_COMMON_SORT_REFERENCE_HPP_

#include <hipflashsort/thread/radix_key_codec.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace test_utils {

enum class distribution
{
    uniform_bits,
    all_equal,
    two_values,
    few_unique,
    sorted,
    reverse,
    special_floats,
    outlier,
    small_range,
    extremes_and_small,
    coarse_and_fine,
    heavy_tail
};

inline std::string name_of(distribution d)
{
    switch(d)
    {
        case distribution::uniform_bits: return "uniform_bits";
        case distribution::all_equal: return "all_equal";
        case distribution::two_values: return "two_values";
        case distribution::few_unique: return "few_unique";
        case distribution::sorted: return "sorted";
        case distribution::reverse: return "reverse";
        case distribution::special_floats: return "special_floats";
        case distribution::outlier: return "outlier";
        case distribution::small_range: return "small_range";
        case distribution::extremes_and_small: return "extremes_and_small";
        case distribution::coarse_and_fine: return "coarse_and_fine";
        case distribution::heavy_tail: return "heavy_tail";
    }
    return "?";
}

template <class Key>
Key random_key(std::mt19937_64& rng)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    return codec::from_bits(static_cast<typename codec::bit_key_type>(rng()));
}

template <class Key>
std::vector<Key> special_values()
{
    using codec = hipflashsort::radix_key_codec<Key>;
    std::vector<Key> v = {Key(0), Key(1), std::numeric_limits<Key>::lowest(), std::numeric_limits<Key>::max()};
    if constexpr(std::is_floating_point<Key>::value)
    {
        const Key inf = std::numeric_limits<Key>::infinity();
        const Key nan = std::numeric_limits<Key>::quiet_NaN();
        v.insert(v.end(), {-Key(0), inf, -inf, nan, codec::from_bits(codec::to_bits(nan) | codec::sign_bit),
                           std::numeric_limits<Key>::denorm_min(), -std::numeric_limits<Key>::denorm_min(),
                           codec::from_bits(codec::to_bits(nan) + 1), Key(-1.5), Key(2.25)});
    }
    else if constexpr(std::is_signed<Key>::value)
    {
        v.push_back(Key(-1));
    }
    return v;
}

/// A zipf-like key (most small, a tail up to about 10^10, clipped to the type; integers 100 times
/// the magnitude), negative one time in eight where `signs` and the type has a sign: equal-width
/// buckets would leave nearly every such key in the first, round after round.
template <class Key>
Key heavy_tail_key(std::mt19937_64& rng, bool signs)
{
    const double top = static_cast<double>(std::numeric_limits<Key>::max());
    const double u = (static_cast<double>(rng() >> 11) + 1.0) / 9007199254740992.0;
    double z = std::pow(u, -1.2) - 1.0;
    if(!std::is_floating_point<Key>::value) z = std::floor(std::min(z * 100.0, top));
    const bool negative = signs && std::numeric_limits<Key>::is_signed && rng() % 8 == 0;
    return static_cast<Key>(negative ? -z : z);
}

template <class Key>
std::vector<Key> generate(std::size_t n, distribution d, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<Key> v(n);
    switch(d)
    {
        case distribution::uniform_bits:
            for(auto& k : v) k = random_key<Key>(rng);
            break;
        case distribution::all_equal:
        {
            const Key k = random_key<Key>(rng);
            std::fill(v.begin(), v.end(), k);
            break;
        }
        case distribution::two_values:
        {
            const Key a = random_key<Key>(rng), b = random_key<Key>(rng);
            for(auto& k : v) k = (rng() & 1) ? a : b;
            break;
        }
        case distribution::few_unique:
        {
            Key pool[16];
            for(auto& p : pool) p = random_key<Key>(rng);
            for(auto& k : v) k = pool[rng() % 16];
            break;
        }
        case distribution::sorted:
        case distribution::reverse:
        {
            for(auto& k : v) k = random_key<Key>(rng);
            using codec = hipflashsort::radix_key_codec<Key>;
            std::stable_sort(v.begin(), v.end(),
                             [](Key a, Key b) { return codec::order_image(a) < codec::order_image(b); });
            if(d == distribution::reverse) std::reverse(v.begin(), v.end());
            break;
        }
        case distribution::special_floats:
        {
            const std::vector<Key> s = special_values<Key>();
            for(auto& k : v) k = (rng() % 4 == 0) ? random_key<Key>(rng) : s[rng() % s.size()];
            break;
        }
        case distribution::outlier:
        {
            // A cluster of nearby keys and one extreme key: interpolation puts nearly everything in
            // one bucket, which must be re-partitioned.
            for(auto& k : v) k = static_cast<Key>(rng() % 100);
            if(n > 0) v[rng() % n] = std::numeric_limits<Key>::max();
            break;
        }
        case distribution::small_range:
            for(auto& k : v) k = static_cast<Key>(rng() % 1000);
            break;
        case distribution::extremes_and_small:
        {
            // Small keys that differ in their low bits, with the type's extremes among them: a
            // sort that keeps only a key's high bits where the spread is wide must notice.
            const Key extremes[2] = {std::numeric_limits<Key>::lowest(), std::numeric_limits<Key>::max()};
            for(auto& k : v) k = (rng() % 8 == 0) ? extremes[rng() % 2] : static_cast<Key>(rng() % 512);
            break;
        }
        case distribution::coarse_and_fine:
        {
            // 64 random coarse values, each key one of them with random low 8 bits: any range of
            // several coarse values is wide, yet holds many keys that differ only in their lowest
            // bits (bucket sorts that keep a wide range's high bits must notice).
            using codec = hipflashsort::radix_key_codec<Key>;
            using bits = typename codec::bit_key_type;
            bits pool[64];
            for(auto& p : pool) p = static_cast<bits>(rng());
            for(auto& k : v)
                k = codec::from_bits(static_cast<bits>((pool[rng() % 64] & ~bits(0xff)) | (rng() & 0xff)));
            break;
        }
        case distribution::heavy_tail:
            // One key in eight negative where the type has a sign.
            for(auto& k : v) k = heavy_tail_key<Key>(rng, true);
            break;
    }
    return v;
}

/// Stable sort of [first, last) of keys (and the permutation applied to values).
template <class Key, class Value>
void reference_sort(std::vector<Key>& keys, std::vector<Value>* values, std::size_t first, std::size_t last,
                    hipflashsort::order ord)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    std::vector<std::size_t> idx(last - first);
    std::iota(idx.begin(), idx.end(), first);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return codec::order_image(keys[a], ord) < codec::order_image(keys[b], ord);
    });
    std::vector<Key> k(idx.size());
    for(std::size_t i = 0; i < idx.size(); i++) k[i] = keys[idx[i]];
    std::copy(k.begin(), k.end(), keys.begin() + first);
    if(values)
    {
        std::vector<Value> v(idx.size());
        for(std::size_t i = 0; i < idx.size(); i++) v[i] = (*values)[idx[i]];
        std::copy(v.begin(), v.end(), values->begin() + first);
    }
}

template <class T>
bool bitwise_equal(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Index of the first element that differs bitwise, or -1.
template <class T>
long long first_mismatch(const std::vector<T>& a, const std::vector<T>& b)
{
    if(a.size() != b.size()) return 0;
    for(std::size_t i = 0; i < a.size(); i++)
        if(!bitwise_equal(a[i], b[i])) return static_cast<long long>(i);
    return -1;
}

/// RAII device buffer.
template <class T>
struct device_buffer
{
    T* ptr = nullptr;
    std::size_t count = 0;
    explicit device_buffer(std::size_t n) : count(n)
    {
        if(n != 0 && hipMalloc(&ptr, n * sizeof(T)) != hipSuccess) ptr = nullptr;
    }
    ~device_buffer() { (void)hipFree(ptr); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    hipError_t upload(const std::vector<T>& v) { return hipMemcpy(ptr, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice); }
    hipError_t download(std::vector<T>& v) const
    {
        v.resize(count);
        return hipMemcpy(v.data(), ptr, count * sizeof(T), hipMemcpyDeviceToHost);
    }
    hipError_t poison() { return hipMemset(ptr, 0xA5, count * sizeof(T)); }
};

} // namespace test_utils

#endif
