// Sorting networks over the few items one thread holds in registers.
//
// Every comparator (i, j), i < j, puts the smaller item at i. A count N that is not a power of
// two is handled by imagining the array padded to the next power of two with maxima: a
// comparator never moves a maximum down, so every comparator touching an index >= N is dropped.
//
// A thread's sort is Batcher's odd-even merge sort, with fewer comparators than the bitonic sort
// (19 / 63 / 191 against 24 / 80 / 240 for 8 / 16 / 32 items). The half-cleaner stages are the
// bitonic merge's: warp_bitonic_sort finishes its merges across lanes with them.
//
// Stage structure is unrolled by template recursion and the innermost loops have constant trip
// counts under #pragma unroll, so every register index is a compile-time constant (no scratch).
#ifndef HIPFLASHSORT_THREAD_THREAD_SORTING_NETWORK_HPP_
#define HIPFLASHSORT_THREAD_THREAD_SORTING_NETWORK_HPP_

#include <type_traits>

#include "../config.hpp"
#include "../detail/empty_type.hpp"
#include "radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

/// Comparators that are plain `<` on unsigned integer images (or on floats that are never NaN or
/// -0: polarity_network.hpp's words). Without values, two such items that compare equal are the
/// same bits, so a compare-exchange may be a min and a max (one instruction each) instead of a
/// compare and two selects.
template <class Less>
struct is_natural_less : std::false_type
{
};

/// Smallest power of two >= n (the padded size of a network over n items).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int thread_network_padded_size(unsigned int n)
{
    unsigned int size = 1;
    while(size < n) size *= 2;
    return size;
}

/// `take_second ? second : first`, on copies: a conditional between two elements of one array
/// would select between their addresses, which the compiler folds into a run-time index and so
/// moves the whole array to scratch memory.
template <class T>
HIPFLASHSORT_DEVICE T thread_network_select(bool take_second, T first, T second)
{
    return take_second ? second : first;
}

/// Orders slots lo < hi so that keys[lo] is not greater than keys[hi]; values follow their keys.
/// Equal keys are left in place.
template <class Key, class Value, unsigned int Size, class Less>
HIPFLASHSORT_DEVICE void thread_network_compare_exchange(Key (&keys)[Size], Value (&values)[Size],
                                                         unsigned int lo, unsigned int hi, Less less)
{
    if constexpr(!has_values<Value> && is_natural_less<Less>::value && std::is_same<Key, float>::value)
    {
        // The float min and max, which a `<` and selects would not always compile to.
        const float a = keys[lo], b = keys[hi];
        keys[lo] = fminf(a, b);
        keys[hi] = fmaxf(a, b);
        return;
    }
    else if constexpr(!has_values<Value> && is_natural_less<Less>::value)
    {
        const Key a = keys[lo], b = keys[hi];
        keys[lo] = b < a ? b : a;
        keys[hi] = b < a ? a : b;
        return;
    }
    // Selects rather than a branch: both arms are cheap and the lanes of a wave then never diverge.
    const bool swap = less(keys[hi], keys[lo]);
    const Key lo_key = thread_network_select(swap, keys[lo], keys[hi]);
    const Key hi_key = thread_network_select(swap, keys[hi], keys[lo]);
    keys[lo] = lo_key;
    keys[hi] = hi_key;
    if constexpr(has_values<Value>)
    {
        const Value lo_value = thread_network_select(swap, values[lo], values[hi]);
        const Value hi_value = thread_network_select(swap, values[hi], values[lo]);
        values[lo] = lo_value;
        values[hi] = hi_value;
    }
}

/// Half-cleaner stages Stride, Stride/2, ..., 1 over the first Count slots: the tail of a bitonic
/// merge whose first (flip) stage is done.
template <unsigned int Count, unsigned int Stride, class Key, class Value, unsigned int Size, class Less>
HIPFLASHSORT_DEVICE void thread_network_half_cleaners(Key (&keys)[Size], Value (&values)[Size], Less less)
{
    static_assert(Count <= Size, "the network covers part of the array at most");
    if constexpr(Stride > 0)
    {
#pragma unroll
        for(unsigned int i = 0; i < Count; i++)
        {
            if((i & Stride) == 0 && i + Stride < Count)
            {
                thread_network_compare_exchange(keys, values, i, i + Stride, less);
            }
        }
        thread_network_half_cleaners<Count, Stride / 2>(keys, values, less);
    }
}

/// Batcher's odd-even merge of slots Lo ... Hi (inclusive) whose halves are sorted, on the
/// subsequence of slots R apart; comparators that reach slot Count or above are left out.
template <unsigned int Count, unsigned int Lo, unsigned int Hi, unsigned int R, class Key, class Value,
          unsigned int Size, class Less>
HIPFLASHSORT_DEVICE void thread_network_odd_even_merge(Key (&keys)[Size], Value (&values)[Size], Less less)
{
    constexpr unsigned int step = 2 * R;
    if constexpr(step < Hi - Lo)
    {
        thread_network_odd_even_merge<Count, Lo, Hi, step>(keys, values, less);
        thread_network_odd_even_merge<Count, Lo + R, Hi, step>(keys, values, less);
#pragma unroll
        for(unsigned int i = Lo + R; i + R < Hi; i += step)
        {
            if(i + R < Count) thread_network_compare_exchange(keys, values, i, i + R, less);
        }
    }
    else if constexpr(Lo + R < Count)
    {
        thread_network_compare_exchange(keys, values, Lo, Lo + R, less);
    }
}

/// Batcher's odd-even merge sort of slots Lo ... Hi (inclusive, a power of two of them) but for
/// the comparators that reach slot Count or above.
template <unsigned int Count, unsigned int Lo, unsigned int Hi, class Key, class Value, unsigned int Size,
          class Less>
HIPFLASHSORT_DEVICE void thread_network_odd_even_sort(Key (&keys)[Size], Value (&values)[Size], Less less)
{
    if constexpr(Hi > Lo && Lo + 1 < Count)
    {
        constexpr unsigned int mid = Lo + (Hi - Lo) / 2;
        thread_network_odd_even_sort<Count, Lo, mid>(keys, values, less);
        thread_network_odd_even_sort<Count, mid + 1, Hi>(keys, values, less);
        thread_network_odd_even_merge<Count, Lo, Hi, 1>(keys, values, less);
    }
}

/// Sorts the first Count slots ascending by `less`.
template <unsigned int Count, class Key, class Value, unsigned int Size, class Less>
HIPFLASHSORT_DEVICE void thread_network_sort(Key (&keys)[Size], Value (&values)[Size], Less less)
{
    static_assert(Count <= Size, "the network covers part of the array at most");
    thread_network_odd_even_sort<Count, 0, thread_network_padded_size(Count) - 1>(keys, values, less);
}

/// Compares lossless images: a strict refinement of the order_image order (it only adds -0 < +0),
/// so sorting by it is a valid unstable sort by order_image.
struct thread_network_image_less
{
    template <class Image>
    HIPFLASHSORT_DEVICE bool operator()(Image a, Image b) const
    {
        return a < b;
    }
};

template <>
struct is_natural_less<thread_network_image_less> : std::true_type
{
};

template <class Key, class Value, unsigned int N>
HIPFLASHSORT_DEVICE void thread_network_sort_keys(Key (&keys)[N], Value (&values)[N], order ord)
{
    using codec = radix_key_codec<Key>;
    // Images instead of keys: one conversion per item instead of one per comparison, and integer
    // comparisons put NaNs and signed zeros in the library's order.
    typename codec::bit_key_type images[N];
#pragma unroll
    for(unsigned int i = 0; i < N; i++) images[i] = codec::lossless_image(keys[i], ord);
    thread_network_sort<N>(images, values, thread_network_image_less{});
#pragma unroll
    for(unsigned int i = 0; i < N; i++) keys[i] = codec::decode_lossless(images[i], ord);
}

} // namespace detail

/// Sorts the N keys one thread holds, ascending by the strict weak order `less`
/// (`bool less(const Key&, const Key&)`), in registers.
///
/// - Preconditions: 1 <= N <= 16; `less` is a strict weak order.
/// - Not stable: keys equal under `less` may be reordered.
/// - Cost: Batcher's odd-even merge sort padded to P = next power of two of N, minus the
///   comparators that touch the padding: at most (log2(P)^2 - log2(P) + 4) * P / 4 - 1
///   compare-exchanges (63 for 16 items); no memory beyond registers, no synchronization (each
///   thread sorts on its own).
template <class Key, unsigned int N, class Less>
HIPFLASHSORT_DEVICE void thread_sorting_network(Key (&keys)[N], Less less)
{
    static_assert(N >= 1 && N <= 16, "thread_sorting_network sorts 1 to 16 items");
    empty_type no_values[N];
    detail::thread_network_sort<N>(keys, no_values, less);
}

/// As thread_sorting_network(keys, less), moving values[i] along with keys[i].
template <class Key, class Value, unsigned int N, class Less>
HIPFLASHSORT_DEVICE void thread_sorting_network(Key (&keys)[N], Value (&values)[N], Less less)
{
    static_assert(N >= 1 && N <= 16, "thread_sorting_network sorts 1 to 16 items");
    detail::thread_network_sort<N>(keys, values, less);
}

/// Sorts the N keys one thread holds in the library's key order (radix_key_codec::order_image):
/// for floats -NaN < -inf < ... < -0 == +0 < ... < +inf < +NaN, reversed when `ord` is
/// descending. Key bits are preserved exactly (NaN payloads and the sign of zero included).
///
/// - Preconditions: 1 <= N <= 16; Key is a 1-8 byte integer, float or double.
/// - Not stable. Equal keys (and -0/+0, which are equal) may be reordered.
/// - Cost: N image conversions each way plus the network of thread_sorting_network; registers only.
template <class Key, unsigned int N>
HIPFLASHSORT_DEVICE void thread_sort(Key (&keys)[N], order ord = order::ascending)
{
    static_assert(N >= 1 && N <= 16, "thread_sort sorts 1 to 16 items");
    empty_type no_values[N];
    detail::thread_network_sort_keys(keys, no_values, ord);
}

/// As thread_sort(keys, ord), moving values[i] along with keys[i].
template <class Key, class Value, unsigned int N>
HIPFLASHSORT_DEVICE void thread_sort(Key (&keys)[N], Value (&values)[N], order ord = order::ascending)
{
    static_assert(N >= 1 && N <= 16, "thread_sort sorts 1 to 16 items");
    detail::thread_network_sort_keys(keys, values, ord);
}

} // namespace hipflashsort

#endif
