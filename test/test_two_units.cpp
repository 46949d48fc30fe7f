// A header-only library's kernels are instantiated in every translation unit that uses them. The
// sorts must work from each unit of one program, whichever unit's copy of the host code the
// linker keeps (kernels that opt in to more LDS bind that attribute per unit).
#include "common/sort_reference.hpp"
#include "common/test_utils.hpp"

#include <hipflashsort/device/device_flash_sort.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

hipError_t sort_in_second_unit(void* temp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out,
                               std::size_t n);

namespace {

using test_utils::device_buffer;

template <class Sort>
void check_unit(Sort sort, std::size_t n, std::uint64_t seed)
{
    const std::vector<std::uint32_t> keys = test_utils::generate<std::uint32_t>(n, test_utils::distribution::uniform_bits, seed);
    device_buffer<std::uint32_t> in(n), out(n);
    HIP_CHECK(in.upload(keys));
    HIP_CHECK(out.poison());
    std::size_t bytes = 0;
    HIP_CHECK(sort(nullptr, bytes, in.ptr, out.ptr, n));
    device_buffer<char> temp(bytes);
    HIP_CHECK(sort(temp.ptr, bytes, in.ptr, out.ptr, n));
    std::vector<std::uint32_t> got;
    HIP_CHECK(out.download(got));
    std::vector<std::uint32_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(got, expected) << "n=" << n;
}

TEST(TwoUnits, EachUnitSortsEverySizeClass)
{
    HIPFLASHSORT_REQUIRE_GPU();
    auto here = [](void* t, std::size_t& b, const std::uint32_t* i, std::uint32_t* o, std::size_t n) {
        return hipflashsort::sort_keys(t, b, i, o, n);
    };
    // Sizes in the wavefront network, block network, flash network (dynamic LDS) and partition
    // paths.
    for(const std::size_t n : {std::size_t(3), std::size_t(100), std::size_t(1500), std::size_t(3000),
                               std::size_t(4096), std::size_t(10000), std::size_t(100000)})
    {
        check_unit(here, n, n);
        check_unit(sort_in_second_unit, n, n + 1);
    }
}

} // namespace
