// Input generation on the GPU (no host round trip, so benchmarks can use 2^28 keys), output
// poisoning and on-GPU comparison of two results.
#ifndef HIPFLASHSORT_CLIENTS_COMMON_DATA_GENERATION_HPP_
#define HIPFLASHSORT_CLIENTS_COMMON_DATA_GENERATION_HPP_

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace clients {

enum class distribution
{
    uniform,
    normal,
    exponential,
    zipf,
    sorted,
    reverse,
    nearly_sorted,
    few_unique,
    all_equal,
    outlier,
    reduced_entropy
};

constexpr distribution all_distributions[] = {
    distribution::uniform,     distribution::normal,    distribution::exponential,   distribution::zipf,
    distribution::sorted,      distribution::reverse,   distribution::nearly_sorted, distribution::few_unique,
    distribution::all_equal,   distribution::outlier,   distribution::reduced_entropy};

inline const char* name_of(distribution d)
{
    switch(d)
    {
        case distribution::uniform: return "uniform";
        case distribution::normal: return "normal";
        case distribution::exponential: return "exponential";
        case distribution::zipf: return "zipf";
        case distribution::sorted: return "sorted";
        case distribution::reverse: return "reverse";
        case distribution::nearly_sorted: return "nearly-sorted";
        case distribution::few_unique: return "few-unique";
        case distribution::all_equal: return "all-equal";
        case distribution::outlier: return "outlier";
        case distribution::reduced_entropy: return "reduced-entropy";
    }
    return "?";
}

inline bool parse_distribution(const std::string& s, distribution& d)
{
    for(const distribution c : all_distributions)
    {
        if(s == name_of(c))
        {
            d = c;
            return true;
        }
    }
    return false;
}

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__device__ inline double unit(std::uint64_t bits) { return double(bits >> 11) * (1.0 / 9007199254740992.0); }

// A real-valued sample in roughly [0, 1) scaled per distribution; converted to Key below.
template <class Key>
__device__ Key make_key(distribution d, std::uint64_t i, std::uint64_t n, std::uint64_t seed)
{
    const std::uint64_t r = mix64(i ^ mix64(seed));
    constexpr bool is_float = std::is_floating_point<Key>::value;
    // Integers spread over their whole range; floats over [0, 1) unless said otherwise.
    auto from_unit = [](double u) -> Key {
        if(is_float) return static_cast<Key>(u);
        using U = std::make_unsigned_t<std::conditional_t<is_float, int, Key>>;
        const double top = double(std::numeric_limits<U>::max());
        U v = static_cast<U>(u * top);
        Key k;
        __builtin_memcpy(&k, &v, sizeof(Key));
        return k;
    };
    switch(d)
    {
        case distribution::uniform:
            if(is_float) return static_cast<Key>(unit(r));
            {
                Key k;
                __builtin_memcpy(&k, &r, sizeof(Key));
                return k;
            }
        case distribution::normal:
        {
            const double u1 = unit(r) + 1e-300, u2 = unit(mix64(r));
            const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            return is_float ? static_cast<Key>(z) : from_unit(fmin(fmax(0.5 + z / 10.0, 0.0), 1.0));
        }
        case distribution::exponential:
        {
            const double e = -log(unit(r) + 1e-300);
            return is_float ? static_cast<Key>(e) : from_unit(fmin(e / 40.0, 1.0));
        }
        case distribution::zipf:
        {
            // Heavy-tailed ranks: many small keys, few large ones.
            const double z = pow(unit(r) + 1e-12, -1.2) - 1.0;
            return is_float ? static_cast<Key>(z) : from_unit(fmin(z / 1e6, 1.0));
        }
        case distribution::sorted: return from_unit(double(i) / double(n));
        case distribution::reverse: return from_unit(double(n - 1 - i) / double(n));
        case distribution::nearly_sorted:
        {
            const bool moved = (r % 100) == 0;
            return from_unit(moved ? unit(mix64(r)) : double(i) / double(n));
        }
        case distribution::few_unique: return from_unit(double(mix64(r % 16 + seed) % 1000) / 1000.0);
        case distribution::all_equal: return from_unit(0.375);
        case distribution::outlier:
            if(i == n / 2) return is_float ? std::numeric_limits<Key>::max() : from_unit(1.0);
            return is_float ? static_cast<Key>(unit(r) * 1000.0) : from_unit(unit(r) * 1e-6);
        case distribution::reduced_entropy:
        {
            const std::uint64_t bits = r & mix64(r) & mix64(mix64(r));
            if(is_float) return static_cast<Key>(unit(bits));
            Key k;
            __builtin_memcpy(&k, &bits, sizeof(Key));
            return k;
        }
    }
    return Key(0);
}

template <class Key>
__global__ void generate_kernel(Key* keys, std::uint64_t n, distribution d, std::uint64_t seed)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
        i += std::uint64_t(gridDim.x) * blockDim.x)
        keys[i] = make_key<Key>(d, i, n, seed);
}

template <class Value>
__global__ void iota_kernel(Value* values, std::uint64_t n)
{
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
        i += std::uint64_t(gridDim.x) * blockDim.x)
    {
        Value v;
        __builtin_memset(&v, 0, sizeof(Value));
        const std::uint64_t w = i;
        __builtin_memcpy(&v, &w, sizeof(Value) < sizeof(w) ? sizeof(Value) : sizeof(w));
        values[i] = v;
    }
}

template <class T>
__device__ bool bytes_differ(const T& a, const T& b)
{
    const unsigned char* x = reinterpret_cast<const unsigned char*>(&a);
    const unsigned char* y = reinterpret_cast<const unsigned char*>(&b);
    bool differ = false;
    for(unsigned int i = 0; i < sizeof(T); i++) differ |= x[i] != y[i];
    return differ;
}

template <class T>
__global__ void mismatch_kernel(const T* a, const T* b, std::uint64_t n, unsigned long long* mismatches)
{
    unsigned long long local = 0;
    for(std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
        i += std::uint64_t(gridDim.x) * blockDim.x)
        local += bytes_differ(a[i], b[i]);
    if(local) atomicAdd(mismatches, local);
}

template <class Key>
hipError_t generate(Key* keys, std::uint64_t n, distribution d, std::uint64_t seed, hipStream_t stream = 0)
{
    generate_kernel<<<1024, 256, 0, stream>>>(keys, n, d, seed);
    return hipGetLastError();
}

template <class Value>
hipError_t fill_index(Value* values, std::uint64_t n, hipStream_t stream = 0)
{
    iota_kernel<<<1024, 256, 0, stream>>>(values, n);
    return hipGetLastError();
}

/// Number of elements of a and b that differ bitwise (0 means equal), synchronously.
template <class T>
hipError_t count_mismatches(const T* a, const T* b, std::uint64_t n, unsigned long long& mismatches)
{
    unsigned long long* d = nullptr;
    hipError_t e = hipMalloc(&d, sizeof(*d));
    if(e != hipSuccess) return e;
    e = hipMemset(d, 0, sizeof(*d));
    if(e == hipSuccess)
    {
        mismatch_kernel<<<1024, 256>>>(a, b, n, d);
        e = hipGetLastError();
    }
    if(e == hipSuccess) e = hipMemcpy(&mismatches, d, sizeof(*d), hipMemcpyDeviceToHost);
    (void)hipFree(d);
    return e;
}

} // namespace clients

#endif
