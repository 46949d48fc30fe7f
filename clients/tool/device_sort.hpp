// The library call behind `hipflashsort sort`, instantiated in one translation unit per key type
// (device_sort.cpp.in), so that they compile in parallel: with all 50 sorts in one file, the
// tool's build did not finish within ten minutes on a 16-core machine.
#ifndef HIPFLASHSORT_CLIENTS_TOOL_DEVICE_SORT_HPP_
#define HIPFLASHSORT_CLIENTS_TOOL_DEVICE_SORT_HPP_

#include <hipflashsort/config.hpp>

#include <cstddef>

namespace tool {

/// hipflashsort::sort_keys (Value void) or sort_pairs of n elements in place, two-phase: with
/// temp == nullptr only sets bytes. Values travel as unsigned integers of their size.
template <class Key, class Value>
hipError_t device_sort(void* temp, std::size_t& bytes, Key* keys, Value* values, std::size_t n,
                       hipflashsort::order ord);

} // namespace tool

#endif
