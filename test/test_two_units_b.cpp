// Second translation unit of test_two_units.cpp: instantiates the same sorts on its own.
#include <hipflashsort/device/device_flash_sort.hpp>

#include <cstdint>

hipError_t sort_in_second_unit(void* temp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out,
                               std::size_t n)
{
    return hipflashsort::sort_keys(temp, bytes, in, out, n);
}
