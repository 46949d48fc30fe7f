// Marker for "no values": sorts instantiated with Value = empty_type move keys only.
#ifndef HIPFLASHSORT_DETAIL_EMPTY_TYPE_HPP_
#define HIPFLASHSORT_DETAIL_EMPTY_TYPE_HPP_

#include <type_traits>

namespace hipflashsort {

struct empty_type
{
};

namespace detail {
template <class Value>
constexpr bool has_values = !std::is_same<Value, empty_type>::value;
} // namespace detail

} // namespace hipflashsort

#endif
