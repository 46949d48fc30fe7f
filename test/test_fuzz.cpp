// Seeded differential fuzzing: random types, sizes, distributions, orders and segment layouts,
// compared bitwise with the host stable sort, outputs surrounded by poisoned guard zones, each case
// run twice for determinism. Runs for HIPFLASHSORT_FUZZ_SECONDS (default 10); prints its seed;
// HIPFLASHSORT_SEED=<seed> replays a run (a failure prints the seed of its own case).
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"

#include <hipflashsort/device/device_flash_sort.hpp>
#include <hipflashsort/device/device_segmented_sort.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using hipflashsort::order;
using test_utils::distribution;

constexpr std::size_t guard = 64; // elements of poison before and after every output

template <class T>
struct guarded
{
    test_utils::device_buffer<T> buffer;
    std::size_t n;
    explicit guarded(std::size_t count) : buffer(count + 2 * guard), n(count) {}
    T* data() const { return buffer.ptr + guard; }
    hipError_t poison() { return buffer.poison(); }
    /// Elements [0, n) when the guards are intact; otherwise fails the test.
    std::vector<T> read(bool& guards_ok) const
    {
        std::vector<T> all;
        guards_ok = buffer.download(all) == hipSuccess;
        const std::vector<unsigned char> bytes(reinterpret_cast<const unsigned char*>(all.data()),
                                               reinterpret_cast<const unsigned char*>(all.data() + all.size()));
        for(std::size_t i = 0; guards_ok && i < guard * sizeof(T); i++)
            guards_ok = bytes[i] == 0xA5 && bytes[bytes.size() - 1 - i] == 0xA5;
        return std::vector<T>(all.begin() + guard, all.begin() + guard + n);
    }
};

std::uint64_t env_u64(const char* name, std::uint64_t fallback)
{
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

struct layout
{
    std::vector<std::uint64_t> begins, ends;
};

layout random_layout(std::mt19937_64& rng, std::size_t n)
{
    layout l;
    std::size_t at = 0;
    const int style = static_cast<int>(rng() % 3);
    while(at < n)
    {
        std::size_t s = 0;
        if(style == 0) s = 1 + rng() % 300;
        if(style == 1) s = static_cast<std::size_t>(std::pow(2.0, 16.0 * std::uniform_real_distribution<double>(0, 1)(rng)));
        if(style == 2) s = rng() % 4 == 0 ? 0 : rng() % 5000;
        s = std::min(s, n - at);
        l.begins.push_back(at);
        l.ends.push_back(at + s);
        at += s + (rng() % 8 == 0 ? rng() % 7 : 0); // occasional gaps
    }
    return l;
}

template <class Key>
void fuzz_case(std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const std::size_t n = static_cast<std::size_t>(std::pow(2.0, 20.0 * std::uniform_real_distribution<double>(0, 1)(rng)));
    const distribution d = static_cast<distribution>(rng() % 9);
    const order ord = rng() % 2 ? order::ascending : order::descending;
    const bool segmented = rng() % 2;
    const bool pairs = rng() % 2;
    const bool in_place = rng() % 4 == 0;
    const std::vector<Key> keys = test_utils::generate<Key>(n, d, rng());
    std::vector<std::uint32_t> values(n);
    for(std::size_t i = 0; i < n; i++) values[i] = static_cast<std::uint32_t>(i);
    layout l = segmented ? random_layout(rng, n) : layout{{0}, {n}};
    std::vector<Key> ek = keys;
    std::vector<std::uint32_t> ev = values;
    for(std::size_t s = 0; s < l.begins.size(); s++)
        test_utils::reference_sort(ek, pairs ? &ev : nullptr, l.begins[s], l.ends[s], ord);
    // Gaps keep whatever the output held: the input, since the output starts as a copy of it.
    SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " dist " + test_utils::name_of(d) +
                 (segmented ? " segmented" : "") + (pairs ? " pairs" : "") + (in_place ? " in-place" : ""));

    test_utils::device_buffer<Key> in(n);
    test_utils::device_buffer<std::uint32_t> vin(n);
    test_utils::device_buffer<std::uint64_t> d_begins(l.begins.size()), d_ends(l.ends.size());
    HIP_CHECK(in.upload(keys));
    HIP_CHECK(vin.upload(values));
    HIP_CHECK(d_begins.upload(l.begins));
    HIP_CHECK(d_ends.upload(l.ends));
    std::vector<Key> first_keys;
    for(int run = 0; run < 2; run++)
    {
        guarded<Key> out(n);
        guarded<std::uint32_t> vout(n);
        HIP_CHECK(out.poison());
        HIP_CHECK(vout.poison());
        if(n) HIP_CHECK(hipMemcpy(out.data(), keys.data(), n * sizeof(Key), hipMemcpyHostToDevice));
        if(n) HIP_CHECK(hipMemcpy(vout.data(), values.data(), n * sizeof(std::uint32_t), hipMemcpyHostToDevice));
        std::size_t bytes = 0;
        const Key* src = in_place ? out.data() : in.ptr;
        const std::uint32_t* vsrc = in_place ? vout.data() : vin.ptr;
        auto call = [&](void* t) {
            if(segmented)
                return pairs ? hipflashsort::segmented_sort_pairs(t, bytes, src, out.data(), vsrc, vout.data(), n,
                                                                  l.begins.size(), d_begins.ptr, d_ends.ptr, ord)
                             : hipflashsort::segmented_sort_keys(t, bytes, src, out.data(), n, l.begins.size(),
                                                                 d_begins.ptr, d_ends.ptr, ord);
            return pairs ? hipflashsort::sort_pairs(t, bytes, src, out.data(), vsrc, vout.data(), n, ord)
                         : hipflashsort::sort_keys(t, bytes, src, out.data(), n, ord);
        };
        HIP_CHECK(call(nullptr));
        guarded<char> scratch(bytes);
        HIP_CHECK(scratch.poison());
        HIP_CHECK(call(scratch.data()));
        HIP_CHECK(hipDeviceSynchronize());
        bool guards_ok = false;
        const std::vector<Key> got = out.read(guards_ok);
        ASSERT_TRUE(guards_ok) << "write outside keys_out";
        (void)scratch.read(guards_ok);
        ASSERT_TRUE(guards_ok) << "write outside the temporary storage";
        ASSERT_EQ(test_utils::first_mismatch(got, ek), -1);
        if(pairs)
        {
            const std::vector<std::uint32_t> gv = vout.read(guards_ok);
            ASSERT_TRUE(guards_ok) << "write outside values_out";
            ASSERT_EQ(test_utils::first_mismatch(gv, ev), -1);
        }
        if(run == 0) first_keys = got;
        else ASSERT_EQ(test_utils::first_mismatch(got, first_keys), -1) << "not deterministic";
    }
}

TEST(Fuzz, DifferentialAgainstHostStableSort)
{
    HIPFLASHSORT_REQUIRE_GPU();
    const std::uint64_t seconds = env_u64("HIPFLASHSORT_FUZZ_SECONDS", 10);
    const std::uint64_t seed = env_u64("HIPFLASHSORT_SEED", static_cast<std::uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count()));
    std::printf("fuzz seed %llu (replay with HIPFLASHSORT_SEED=%llu), %llu s\n", (unsigned long long)seed,
                (unsigned long long)seed, (unsigned long long)seconds);
    const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    std::uint64_t cases = 0;
    do
    {
        const std::uint64_t case_seed = test_utils::generate<std::uint64_t>(1, distribution::uniform_bits, seed + cases)[0];
        switch(case_seed % 6)
        {
            case 0: fuzz_case<std::uint32_t>(case_seed); break;
            case 1: fuzz_case<float>(case_seed); break;
            case 2: fuzz_case<double>(case_seed); break;
            case 3: fuzz_case<std::int64_t>(case_seed); break;
            case 4: fuzz_case<std::uint8_t>(case_seed); break;
            default: fuzz_case<std::int16_t>(case_seed); break;
        }
        if(HasFatalFailure())
        {
            std::printf("failing case seed %llu (run seed %llu, case %llu)\n", (unsigned long long)case_seed,
                        (unsigned long long)seed, (unsigned long long)cases);
            return;
        }
        cases++;
    } while(std::chrono::steady_clock::now() < stop);
    std::printf("fuzz: %llu cases passed\n", (unsigned long long)cases);
    EXPECT_GT(cases, 0u);
}

} // namespace
