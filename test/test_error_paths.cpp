// Argument checks of every public sort, without a GPU: each check happens before the first HIP
// call, so host memory stands in for device memory and must come back untouched. Also checks
// that no public function prints.
#include <gtest/gtest.h>

#include <hipflashsort/hipflashsort.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using hipflashsort::order;

constexpr unsigned char poison = 0xA5;
const order bad_order = static_cast<order>(7);

/// Host stand-ins for keys, values, offsets and temporary storage, all poisoned.
struct host_arena
{
    std::vector<std::uint32_t> keys_in, keys_out, values_in, values_out;
    std::vector<int> begins, ends;
    std::vector<unsigned char> temp;

    explicit host_arena(std::size_t n, std::size_t temp_bytes)
        : keys_in(n), keys_out(n), values_in(n), values_out(n), begins(4, 0), ends(4, 0), temp(temp_bytes, poison)
    {
        for(auto* v : {&keys_in, &keys_out, &values_in, &values_out})
            std::memset(v->data(), poison, v->size() * sizeof(std::uint32_t));
    }

    bool untouched() const
    {
        for(const auto* v : {&keys_in, &keys_out, &values_in, &values_out})
        {
            const auto* bytes = reinterpret_cast<const unsigned char*>(v->data());
            for(std::size_t i = 0; i < v->size() * sizeof(std::uint32_t); i++)
                if(bytes[i] != poison) return false;
        }
        for(const unsigned char b : temp)
            if(b != poison) return false;
        return true;
    }
};

/// Runs `call` with stdout and stderr captured; the library must print nothing.
template <class Call>
hipError_t silently(Call call)
{
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const hipError_t result = call();
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(out, "");
    EXPECT_EQ(err, "");
    return result;
}

// One signature for every public sort: (temp, bytes, arena, size, segments, order).
using sort_call = hipError_t (*)(void*, std::size_t&, host_arena&, std::size_t, std::size_t, order);

struct named_sort
{
    const char* name;
    sort_call call;
};

const std::vector<named_sort>& public_sorts()
{
    static const std::vector<named_sort> sorts{
        {"sort_keys",
         [](void* t, std::size_t& b, host_arena& a, std::size_t n, std::size_t, order o) {
             return hipflashsort::sort_keys(t, b, a.keys_in.data(), a.keys_out.data(), n, o);
         }},
        {"sort_pairs",
         [](void* t, std::size_t& b, host_arena& a, std::size_t n, std::size_t, order o) {
             return hipflashsort::sort_pairs(t, b, a.keys_in.data(), a.keys_out.data(), a.values_in.data(),
                                             a.values_out.data(), n, o);
         }},
        {"bitonic_sort_keys",
         [](void* t, std::size_t& b, host_arena& a, std::size_t n, std::size_t, order o) {
             return hipflashsort::bitonic_sort_keys(t, b, a.keys_in.data(), a.keys_out.data(), n, o);
         }},
        {"segmented_sort_keys",
         [](void* t, std::size_t& b, host_arena& a, std::size_t n, std::size_t s, order o) {
             return hipflashsort::segmented_sort_keys(t, b, a.keys_in.data(), a.keys_out.data(), n, s,
                                                      a.begins.data(), a.ends.data(), o);
         }},
        {"segmented_sort_pairs",
         [](void* t, std::size_t& b, host_arena& a, std::size_t n, std::size_t s, order o) {
             return hipflashsort::segmented_sort_pairs(t, b, a.keys_in.data(), a.keys_out.data(), a.values_in.data(),
                                                       a.values_out.data(), n, s, a.begins.data(), a.ends.data(), o);
         }},
    };
    return sorts;
}

constexpr std::size_t n = 1000;

std::size_t temp_size_of(const named_sort& s, std::size_t size = n, std::size_t segments = 4)
{
    host_arena a(0, 0);
    std::size_t bytes = 0;
    EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, size, segments, order::ascending); }), hipSuccess)
        << s.name;
    return bytes;
}

TEST(ErrorPaths, SizeQueryWritesOnlyTheSize)
{
    for(const auto& s : public_sorts())
    {
        host_arena a(n, 0);
        std::size_t bytes = 0;
        EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, n, 4, order::descending); }), hipSuccess) << s.name;
        EXPECT_GT(bytes, 0u) << s.name;
        EXPECT_TRUE(a.untouched()) << s.name;
    }
}

TEST(ErrorPaths, TooSmallTempStorageTouchesNothing)
{
    for(const auto& s : public_sorts())
    {
        const std::size_t needed = temp_size_of(s);
        host_arena a(n, needed);
        std::size_t small = needed - 1;
        EXPECT_EQ(silently([&] { return s.call(a.temp.data(), small, a, n, 4, order::ascending); }), hipErrorInvalidValue)
            << s.name;
        EXPECT_EQ(small, needed - 1) << s.name << " changed the caller's size";
        EXPECT_TRUE(a.untouched()) << s.name;
    }
}

TEST(ErrorPaths, BadOrderIsRejected)
{
    for(const auto& s : public_sorts())
    {
        std::size_t bytes = temp_size_of(s);
        host_arena a(n, bytes);
        EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, n, 4, bad_order); }), hipErrorInvalidValue) << s.name;
        EXPECT_EQ(silently([&] { return s.call(a.temp.data(), bytes, a, n, 4, bad_order); }), hipErrorInvalidValue)
            << s.name;
        EXPECT_TRUE(a.untouched()) << s.name;
    }
}

TEST(ErrorPaths, NullDataWithItemsIsRejected)
{
    std::size_t bytes = 0;
    const std::uint32_t* no_keys = nullptr;
    std::vector<std::uint32_t> keys(n);
    std::vector<unsigned char> temp;
    auto query = [&](auto call) {
        bytes = 0;
        EXPECT_EQ(silently([&] { return call(nullptr); }), hipSuccess);
        temp.assign(bytes, poison);
        return silently([&] { return call(temp.data()); });
    };
    EXPECT_EQ(query([&](void* t) { return hipflashsort::sort_keys(t, bytes, no_keys, keys.data(), n); }),
              hipErrorInvalidValue);
    EXPECT_EQ(query([&](void* t) {
                  return hipflashsort::sort_keys(t, bytes, keys.data(), static_cast<std::uint32_t*>(nullptr), n);
              }),
              hipErrorInvalidValue);
    EXPECT_EQ(query([&](void* t) {
                  return hipflashsort::sort_pairs(t, bytes, keys.data(), keys.data(),
                                                  static_cast<const float*>(nullptr), static_cast<float*>(nullptr), n);
              }),
              hipErrorInvalidValue);
    EXPECT_EQ(query([&](void* t) { return hipflashsort::bitonic_sort_keys(t, bytes, no_keys, keys.data(), n); }),
              hipErrorInvalidValue);
    EXPECT_EQ(query([&](void* t) {
                  return hipflashsort::segmented_sort_keys(t, bytes, keys.data(), keys.data(), n, 3,
                                                           static_cast<const long long*>(nullptr),
                                                           static_cast<const long long*>(nullptr));
              }),
              hipErrorInvalidValue);
    for(const unsigned char b : temp) ASSERT_EQ(b, poison);
}

TEST(ErrorPaths, NothingToSortSucceedsWithNullData)
{
    std::size_t bytes = 0;
    const double* no_keys = nullptr;
    double* no_out = nullptr;
    // Query, then run, with size 0; a non-null temporary of the reported size.
    auto query_and_run = [&](auto call) {
        bytes = 0;
        EXPECT_EQ(silently([&] { return call(nullptr); }), hipSuccess);
        std::vector<unsigned char> temp(bytes + 1, poison);
        EXPECT_EQ(silently([&] { return call(temp.data()); }), hipSuccess);
    };
    query_and_run([&](void* t) { return hipflashsort::sort_keys(t, bytes, no_keys, no_out, 0); });
    query_and_run([&](void* t) {
        return hipflashsort::sort_pairs(t, bytes, no_keys, no_out, static_cast<const int*>(nullptr),
                                        static_cast<int*>(nullptr), 0);
    });
    query_and_run([&](void* t) { return hipflashsort::bitonic_sort_keys(t, bytes, no_keys, no_out, 0); });
    // Zero segments: nothing is read, not even the offsets.
    query_and_run([&](void* t) {
        return hipflashsort::segmented_sort_keys(t, bytes, no_keys, no_out, 0, 0, static_cast<const int*>(nullptr),
                                                 static_cast<const int*>(nullptr));
    });
    std::vector<double> keys(n);
    query_and_run([&](void* t) {
        return hipflashsort::segmented_sort_pairs(t, bytes, keys.data(), keys.data(), static_cast<const int*>(nullptr),
                                                  static_cast<int*>(nullptr), n, 0,
                                                  static_cast<const std::uint64_t*>(nullptr),
                                                  static_cast<const std::uint64_t*>(nullptr));
    });
}

TEST(ErrorPaths, SizesThatOverflowInternalOffsetsAreRejected)
{
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    const std::size_t too_many_segments = std::size_t(std::numeric_limits<std::uint32_t>::max()) + 1;
    for(const auto& s : public_sorts())
    {
        host_arena a(0, 0);
        std::size_t bytes = 12345;
        EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, huge, 4, order::ascending); }), hipErrorInvalidValue)
            << s.name;
        EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, huge / 2, 4, order::ascending); }),
                  hipErrorInvalidValue)
            << s.name;
        EXPECT_EQ(bytes, 12345u) << s.name << " wrote a size for a rejected call";
    }
    for(const auto& s : {public_sorts()[3], public_sorts()[4]})
    {
        host_arena a(0, 0);
        std::size_t bytes = 0;
        EXPECT_EQ(silently([&] { return s.call(nullptr, bytes, a, n, too_many_segments, order::ascending); }),
                  hipErrorInvalidValue)
            << s.name;
    }
}

} // namespace
