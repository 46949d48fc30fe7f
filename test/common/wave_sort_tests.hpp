// What the tests of the wavefront-level sorts (warp_bitonic_sort / warp_rank_sort in
// test_warp_sort.cpp, wave_flash_sort in test_wave_flash_sort.cpp) share: the test shape, type
// names for test labels, a self-checking 16-byte value, values that encode their input index, a
// mismatch log and the device buffers of one test.
#ifndef HIPFLASHSORT_TEST_COMMON_WAVE_SORT_TESTS_HPP_
#define HIPFLASHSORT_TEST_COMMON_WAVE_SORT_TESTS_HPP_

#include <hipflashsort/detail/empty_type.hpp>

#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace wave_sort_tests {

/// A 16-byte value whose fields check each other, so a torn or mixed-up value is caught.
struct wide_value
{
    std::uint32_t index;
    std::uint32_t check;
    std::uint64_t pattern;
};

/// The value carried by input element `index`; its low 32 bits (or `index` field) give the index
/// back, and for 64-bit values both halves must move.
template <class Value>
Value value_of_index(unsigned int index)
{
    if constexpr(std::is_same<Value, wide_value>::value)
        return wide_value{index, index * 2654435761u, std::uint64_t(index) * 0x9E3779B97F4A7C15ull};
    else if constexpr(std::is_same<Value, std::uint64_t>::value)
        return (std::uint64_t(~index) << 32) | index;
    else if constexpr(std::is_same<Value, hipflashsort::empty_type>::value)
        return Value{};
    else
        return Value(index);
}

/// One tested instantiation: key and value types, logical wavefront size, items per thread.
template <class Key, class Value, unsigned int LogicalWaveSize, unsigned int ItemsPerThread>
struct shape
{
    using key_type = Key;
    using value_type = Value;
    static constexpr unsigned int logical_wave_size = LogicalWaveSize;
    static constexpr unsigned int items_per_thread = ItemsPerThread;
};

template <class T>
std::string type_name()
{
    if(std::is_same<T, float>::value) return "f32";
    if(std::is_same<T, double>::value) return "f64";
    if(std::is_same<T, hipflashsort::empty_type>::value) return "keys";
    if(std::is_same<T, wide_value>::value) return "wide";
    return (std::is_signed<T>::value ? "i" : "u") + std::to_string(8 * sizeof(T));
}

/// Every key type the library sorts, for typed suites.
using key_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                                   std::int16_t, std::int32_t, std::int64_t, float, double>;

/// Test labels of a typed suite over key types.
struct key_names
{
    template <class Key>
    static std::string GetName(int)
    {
        return type_name<Key>();
    }
};

/// Collects the first few mismatches of one launch instead of flooding the log.
class mismatch_log
{
public:
    template <class... Args>
    void add(const Args&... args)
    {
        if(count_++ < 8)
        {
            std::ostringstream line;
            (line << ... << args);
            text_ += line.str() + "\n";
        }
    }
    unsigned int count() const { return count_; }
    const std::string& text() const { return text_; }

private:
    unsigned int count_ = 0;
    std::string text_;
};

/// Device buffers of one test, freed on every exit path: `count` keys (and values for pairs)
/// in and out, and `sizes` with each of the `arrays` arrays' size.
template <class Key, class Value>
struct device_buffers
{
    static constexpr bool pairs = hipflashsort::detail::has_values<Value>;
    Key* keys_in = nullptr;
    Key* keys_out = nullptr;
    Value* values_in = nullptr;
    Value* values_out = nullptr;
    unsigned int* sizes = nullptr;
    std::size_t count = 0;

    hipError_t allocate(std::size_t elements, unsigned int arrays)
    {
        count = elements;
        hipError_t e = hipMalloc(&keys_in, count * sizeof(Key));
        if(e == hipSuccess) e = hipMalloc(&keys_out, count * sizeof(Key));
        if(e == hipSuccess) e = hipMalloc(&sizes, arrays * sizeof(unsigned int));
        if(e == hipSuccess && pairs) e = hipMalloc(&values_in, count * sizeof(Value));
        if(e == hipSuccess && pairs) e = hipMalloc(&values_out, count * sizeof(Value));
        return e;
    }

    /// Fills the outputs with 0xA5 bytes, so that an element left unwritten shows.
    hipError_t poison_outputs()
    {
        hipError_t e = hipMemset(keys_out, 0xA5, count * sizeof(Key));
        if(e == hipSuccess && pairs) e = hipMemset(values_out, 0xA5, count * sizeof(Value));
        return e;
    }

    hipError_t download(std::vector<Key>& keys, std::vector<Value>& values) const
    {
        keys.resize(count);
        values.resize(count);
        hipError_t e = hipMemcpy(keys.data(), keys_out, count * sizeof(Key), hipMemcpyDeviceToHost);
        if(e == hipSuccess && pairs)
            e = hipMemcpy(values.data(), values_out, count * sizeof(Value), hipMemcpyDeviceToHost);
        return e;
    }

    ~device_buffers()
    {
        (void)hipFree(keys_in);
        (void)hipFree(keys_out);
        (void)hipFree(values_in);
        (void)hipFree(values_out);
        (void)hipFree(sizes);
    }
};

} // namespace wave_sort_tests

#endif
