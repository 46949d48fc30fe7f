// Bitonic sort of one thread block's tile held in registers, and a bitonic network over keys
// already resident in shared memory (the flash sort's in-bucket stage).
//
// The network is the "all ascending" form of Batcher's bitonic sort: merge step k (k = 2, 4, ...)
// first compares position i with its mirror i ^ (k - 1), then i with i ^ j for j = k/4 ... 1, and
// every comparator puts the smaller element at the lower position. Because no comparator ever
// moves a maximal element downwards past an equal one, padding placed at the logical tail with the
// maximal image never moves: partial tiles and non-power-of-two sizes need no special cases in the
// stages, only "skip partners at or past the tail".
//
// Keys are compared as lossless images (radix_key_codec), complemented for descending order:
// unsigned compares are cheaper than float compares, and the lossless image gives back the exact
// key bits (so -0 and +0, and NaN payloads, survive the sort). It orders -0 before +0 in ascending
// order, a refinement of the library's float order (-0 == +0), which an unstable sort may use.
#ifndef HIPFLASHSORT_BLOCK_BLOCK_BITONIC_SORT_HPP_
#define HIPFLASHSORT_BLOCK_BLOCK_BITONIC_SORT_HPP_

#include <type_traits>

#include "../config.hpp"
#include "../detail/bit_math.hpp"
#include "../detail/empty_type.hpp"
#include "../intrinsics/intrinsics.hpp"
#include "../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

/// Smallest power of two >= x (1 for x <= 1), at run time without a loop.
HIPFLASHSORT_DEVICE unsigned int bitonic_ceil_pow2_rt(unsigned int x)
{
    return x <= 1 ? 1u : 1u << (32 - leading_zeros(x - 1));
}

/// Storage for N objects of T that are never constructed: keeps __shared__ declarations legal
/// for value types whose default constructor is not trivial.
template <class T, unsigned int N>
struct bitonic_raw_array
{
    alignas(T) unsigned char bytes[sizeof(T) * N];

    HIPFLASHSORT_DEVICE T& operator[](unsigned int i) { return reinterpret_cast<T*>(bytes)[i]; }
};

// Copies a value between shared memory and registers as 32-bit words when its layout allows.
// LLVM 15 (ROCm 5.x) leaves a private (scratch) temporary for an aggregate copied from shared
// memory; word loads and stores keep it in registers.
template <class T>
constexpr bool bitonic_copy_by_words = sizeof(T) % sizeof(unsigned int) == 0 && alignof(T) >= alignof(unsigned int);

template <class T>
union bitonic_word_image
{
    T value;
    unsigned int words[sizeof(T) / sizeof(unsigned int)];
    HIPFLASHSORT_DEVICE bitonic_word_image() {}
};

template <class T>
HIPFLASHSORT_DEVICE T bitonic_shared_load(const T* p)
{
    if constexpr(bitonic_copy_by_words<T>)
    {
        bitonic_word_image<T> image;
#pragma unroll
        for(unsigned int w = 0; w < sizeof(T) / sizeof(unsigned int); w++)
            image.words[w] = reinterpret_cast<const unsigned int*>(p)[w];
        return image.value;
    }
    else
    {
        return *p;
    }
}

template <class T>
HIPFLASHSORT_DEVICE void bitonic_shared_store(T* p, const T& value)
{
    if constexpr(bitonic_copy_by_words<T>)
    {
        bitonic_word_image<T> image;
        image.value = value;
#pragma unroll
        for(unsigned int w = 0; w < sizeof(T) / sizeof(unsigned int); w++)
            reinterpret_cast<unsigned int*>(p)[w] = image.words[w];
    }
    else
    {
        *p = value;
    }
}

template <class Image, class Value, unsigned int N, bool HasValues = has_values<Value>>
struct block_bitonic_storage
{
    Image images[N];
    bitonic_raw_array<Value, N> values;
};

template <class Image, class Value, unsigned int N>
struct block_bitonic_storage<Image, Value, N, false>
{
    Image images[N];
};

/// Compare-exchange of two registers: the smaller image (and its value) ends in (a, va).
/// Equal images stay put, which keeps both partners of a cross-thread exchange consistent.
template <bool WithValues, class Image, class Value>
HIPFLASHSORT_DEVICE void bitonic_compare_exchange(Image& a, Image& b, Value& va, Value& vb)
{
    const bool swap = b < a;
    const Image lo = swap ? b : a;
    const Image hi = swap ? a : b;
    a = lo;
    b = hi;
    if constexpr(WithValues)
    {
        // A branch, not `swap ? vb : va`: selecting between two aggregates selects their addresses,
        // which pins register arrays of struct values to scratch memory.
        if(swap)
        {
            const Value tmp = va;
            va = vb;
            vb = tmp;
        }
    }
}

/// The register-tile network of block_bitonic_sort for keys (Value = empty_type) or pairs. Works on
/// the storage's image and value arrays, so that a keys-only sort of a pairs instantiation can
/// use the keys-only network on the same storage.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread, class Value>
class block_bitonic_network
{
    using codec = radix_key_codec<Key>;

public:
    using image_type = typename codec::bit_key_type;

    static constexpr bool with_values = has_values<Value>;
    static constexpr unsigned int wave = device_wavefront_size();
    static constexpr unsigned int items = ItemsPerThread;
    // Register slots per thread; slots >= items hold padding (or, after the relayout, real items).
    static constexpr unsigned int slots = ceil_pow2(ItemsPerThread);
    static constexpr unsigned int threads_p2 = ceil_pow2(BlockSize);
    static constexpr unsigned int tile = BlockSize * ItemsPerThread;
    static constexpr unsigned int network = threads_p2 * slots;
    // With a non-power-of-two IPT the padding slots are spread over all threads; moving the items
    // to logical positions 0..n-1 first puts all padding at the tail, where it never moves.
    static constexpr bool relayout = slots != items;
    // Every logical position is a real item of a full tile: the validity checks fold away.
    static constexpr bool dense = !relayout && threads_p2 == BlockSize;
    static constexpr image_type padding = image_type(~image_type(0));
    // The first merge step whose mirror stage crosses wavefronts: its LDS stage is the first use
    // of the storage in a call, unless the relayout used it already.
    static constexpr unsigned int first_lds_merge = 2 * slots * wave;

    // Every row of `slots` consecutive logical positions below the tile size lies inside the
    // storage, which the swizzled index relies on.
    static_assert(tile % slots == 0, "internal: tile must be a whole number of rows");

    /// lds_images / lds_values: `tile` entries each (lds_values unused without values).
    template <bool Full>
    static HIPFLASHSORT_DEVICE void run(image_type* lds_images, Value* lds_values, Key (&keys)[items],
                                        Value (&values)[items], unsigned int valid_items, order ord)
    {
        const unsigned int t = threadIdx.x;
        const unsigned int valid = Full ? tile : (valid_items < tile ? valid_items : tile);
        image_type img[slots];
        Value val[slots];
        load<Full>(lds_images, lds_values, keys, values, img, val, t, valid, ord);
        merge_steps<Full, 2>(lds_images, lds_values, img, val, t, valid);
        store<Full>(lds_images, lds_values, keys, values, img, val, t, valid, ord);
    }

private:
    // Position of logical element `position` in storage: the column is XORed with the row so that
    // the threads of a wavefront touching the same slot hit different banks.
    static HIPFLASHSORT_DEVICE unsigned int lds_index(unsigned int position)
    {
        return position ^ ((position / slots) & (slots - 1));
    }

    template <bool Full>
    static HIPFLASHSORT_DEVICE bool is_real(unsigned int position, unsigned int valid)
    {
        return (Full && dense) || position < valid;
    }

    template <bool Full>
    static HIPFLASHSORT_DEVICE void load(image_type* lds_images, Value* lds_values, Key (&keys)[items],
                                         Value (&values)[items], image_type (&img)[slots], Value (&val)[slots],
                                         unsigned int t, unsigned int valid, order ord)
    {
        if constexpr(!relayout)
        {
#pragma unroll
            for(unsigned int s = 0; s < slots; s++)
            {
                img[s] = is_real<Full>(t * slots + s, valid) ? codec::lossless_image(keys[s], ord) : padding;
                if constexpr(with_values) val[s] = values[s];
            }
        }
        else
        {
            // Items at or past `valid` are stored too: no stage writes their positions, so the
            // store reads them back unchanged without a condition.
#pragma unroll
            for(unsigned int i = 0; i < items; i++)
            {
                const unsigned int p = t * items + i;
                lds_images[lds_index(p)] = codec::lossless_image(keys[i], ord);
                if constexpr(with_values) bitonic_shared_store(&lds_values[lds_index(p)], values[i]);
            }
            syncthreads();
#pragma unroll
            for(unsigned int s = 0; s < slots; s++)
            {
                const unsigned int position = t * slots + s;
                img[s] = padding;
                if(position < valid)
                {
                    img[s] = lds_images[lds_index(position)];
                    if constexpr(with_values) val[s] = bitonic_shared_load(&lds_values[lds_index(position)]);
                }
            }
        }
    }

    template <bool Full>
    static HIPFLASHSORT_DEVICE void store(image_type* lds_images, Value* lds_values, Key (&keys)[items],
                                          Value (&values)[items], image_type (&img)[slots], Value (&val)[slots],
                                          unsigned int t, unsigned int valid, order ord)
    {
        if constexpr(!relayout)
        {
            // Padding positions never move, so their value slots still hold the caller's values:
            // values are copied back unconditionally (a conditional copy of struct values into the
            // caller's array would pin that array to scratch memory).
#pragma unroll
            for(unsigned int s = 0; s < slots; s++)
            {
                keys[s] = is_real<Full>(t * slots + s, valid) ? codec::decode_lossless(img[s], ord) : keys[s];
                if constexpr(with_values) values[s] = val[s];
            }
        }
        else
        {
            // Other threads may still read the storage in the last LDS stage (or in the load).
            syncthreads();
#pragma unroll
            for(unsigned int s = 0; s < slots; s++)
            {
                const unsigned int position = t * slots + s;
                if(position < valid)
                {
                    lds_images[lds_index(position)] = img[s];
                    if constexpr(with_values) bitonic_shared_store(&lds_values[lds_index(position)], val[s]);
                }
            }
            syncthreads();
#pragma unroll
            for(unsigned int i = 0; i < items; i++)
            {
                // Unconditional, also for items past `valid` (see load): a conditional copy into the
                // caller's array of struct values would pin that array to scratch memory.
                const unsigned int p = t * items + i;
                keys[i] = codec::decode_lossless(lds_images[lds_index(p)], ord);
                if constexpr(with_values) values[i] = bitonic_shared_load(&lds_values[lds_index(p)]);
            }
        }
    }

    // Merge steps K, 2K, ..., network (template recursion keeps every stride a constant).
    template <bool Full, unsigned int K>
    static HIPFLASHSORT_DEVICE void merge_steps(image_type* lds_images, Value* lds_values, image_type (&img)[slots],
                                                Value (&val)[slots], unsigned int t, unsigned int valid)
    {
        if constexpr(K <= network)
        {
            // After merge step K/2 every run of K/2 positions is sorted; once the real items fit in
            // the first run the rest of the network cannot change anything. Block-uniform.
            if(valid <= K / 2) return;
            merge_stages<Full, K, K / 2>(lds_images, lds_values, img, val, t, valid);
            merge_steps<Full, 2 * K>(lds_images, lds_values, img, val, t, valid);
        }
    }

    // Stages J, J/2, ..., 1 of merge step K.
    template <bool Full, unsigned int K, unsigned int J>
    static HIPFLASHSORT_DEVICE void merge_stages(image_type* lds_images, Value* lds_values, image_type (&img)[slots],
                                                 Value (&val)[slots], unsigned int t, unsigned int valid)
    {
        if constexpr(J < slots)
        {
            register_stage<K, J>(img, val);
        }
        else if constexpr(J / slots < wave)
        {
            shuffle_stage<K, J>(img, val, t);
        }
        else
        {
            lds_stage<Full, K, J>(lds_images, lds_values, img, val, t, valid);
        }
        if constexpr(J > 1) merge_stages<Full, K, J / 2>(lds_images, lds_values, img, val, t, valid);
    }

    // Both positions in this thread's registers.
    template <unsigned int K, unsigned int J>
    static HIPFLASHSORT_DEVICE void register_stage(image_type (&img)[slots], Value (&val)[slots])
    {
        constexpr unsigned int partner_mask = J == K / 2 ? K - 1 : J;
#pragma unroll
        for(unsigned int s = 0; s < slots; s++)
        {
            const unsigned int p = s ^ partner_mask;
            if(p > s) bitonic_compare_exchange<with_values>(img[s], img[p], val[s], val[p]);
        }
    }

    // The lower partner keeps the smaller element, the upper one the larger; on equal images both
    // keep their own, so the two sides always agree on whether the pair swapped.
    static HIPFLASHSORT_DEVICE bool takes_other(bool lower, image_type mine, image_type other)
    {
        return lower ? other < mine : mine < other;
    }

    // Slot `dst` takes (or not) the partner lane's slot `src`; the partner runs the same call.
    template <int LaneMask>
    static HIPFLASHSORT_DEVICE void exchange_slot_with_lanes(bool lower, unsigned int dst, unsigned int src,
                                                             image_type (&img)[slots], Value (&val)[slots])
    {
        const image_type other = shuffle_xor(img[src], LaneMask);
        const bool take = takes_other(lower, img[dst], other);
        if constexpr(with_values)
        {
            const Value value = shuffle_xor(val[src], LaneMask);
            if(take) val[dst] = value;
        }
        img[dst] = take ? other : img[dst];
    }

    // Slot s pairs with the partner thread's slot s, or, in the first stage of a merge step, with
    // its mirrored slot slots-1-s.
    template <unsigned int K, unsigned int J>
    static HIPFLASHSORT_DEVICE void shuffle_stage(image_type (&img)[slots], Value (&val)[slots], unsigned int t)
    {
        constexpr unsigned int thread_stride = J / slots;
        constexpr bool mirror = J == K / 2;
        constexpr int lane_mask = static_cast<int>(mirror ? K / slots - 1 : thread_stride);
        const bool lower = (t & thread_stride) == 0;
        if constexpr(mirror && slots == 1)
        {
            exchange_slot_with_lanes<lane_mask>(lower, 0, 0, img, val);
        }
        else if constexpr(mirror)
        {
            // Slot s and slot slots-1-s are each other's source: fetch both before updating either.
#pragma unroll
            for(unsigned int s = 0; s < slots / 2; s++)
            {
                constexpr unsigned int last = slots - 1;
                const image_type other_lo = shuffle_xor(img[last - s], lane_mask);
                const image_type other_hi = shuffle_xor(img[s], lane_mask);
                const bool take_lo = takes_other(lower, img[s], other_lo);
                const bool take_hi = takes_other(lower, img[last - s], other_hi);
                if constexpr(with_values)
                {
                    const Value value_lo = shuffle_xor(val[last - s], lane_mask);
                    const Value value_hi = shuffle_xor(val[s], lane_mask);
                    if(take_lo) val[s] = value_lo;
                    if(take_hi) val[last - s] = value_hi;
                }
                img[s] = take_lo ? other_lo : img[s];
                img[last - s] = take_hi ? other_hi : img[last - s];
            }
        }
        else
        {
#pragma unroll
            for(unsigned int s = 0; s < slots; s++) exchange_slot_with_lanes<lane_mask>(lower, s, s, img, val);
        }
    }

    // Partner thread in another wavefront: exchange through shared memory. Positions at or past
    // `valid` are padding and are neither written nor read.
    template <bool Full, unsigned int K, unsigned int J>
    static HIPFLASHSORT_DEVICE void lds_stage(image_type* lds_images, Value* lds_values, image_type (&img)[slots],
                                              Value (&val)[slots], unsigned int t, unsigned int valid)
    {
        constexpr unsigned int thread_stride = J / slots;
        constexpr bool mirror = J == K / 2;
        constexpr unsigned int thread_mask = mirror ? K / slots - 1 : thread_stride;
        constexpr bool first_use = !relayout && K == first_lds_merge && mirror;
        if constexpr(!first_use) syncthreads(); // earlier readers of the storage are done
#pragma unroll
        for(unsigned int s = 0; s < slots; s++)
        {
            const unsigned int position = t * slots + s;
            if(is_real<Full>(position, valid))
            {
                lds_images[lds_index(position)] = img[s];
                if constexpr(with_values) bitonic_shared_store(&lds_values[lds_index(position)], val[s]);
            }
        }
        syncthreads();
        const unsigned int partner = t ^ thread_mask;
        const bool lower = (t & thread_stride) == 0;
#pragma unroll
        for(unsigned int s = 0; s < slots; s++)
        {
            const unsigned int source = partner * slots + (mirror ? slots - 1 - s : s);
            if(is_real<Full>(source, valid))
            {
                const image_type other = lds_images[lds_index(source)];
                if(takes_other(lower, img[s], other))
                {
                    img[s] = other;
                    if constexpr(with_values) val[s] = bitonic_shared_load(&lds_values[lds_index(source)]);
                }
            }
        }
    }
};

} // namespace detail

/// \brief Block-wide bitonic sort of BlockSize * ItemsPerThread keys (and values) in registers.
///
/// \tparam Key            u8..u64, i8..i64, float or double (see radix_key_codec).
/// \tparam BlockSize      threads of the 1-D block (blockDim.x == BlockSize, blockDim.y == blockDim.z
///                        == 1); a multiple of the hardware wavefront size (device_wavefront_size()),
///                        at most 1024. Powers of two are fastest; other multiples (192, 320, ...)
///                        run the network of the next power of two, skipping the missing threads.
/// \tparam ItemsPerThread 1..16, any value; a non-power of two runs the network of the next power
///                        of two and costs two extra passes through shared memory.
/// \tparam Value          trivially copyable, default-constructible payload moved with its key, or
///                        empty_type (keys only).
///
/// Arrangement: blocked, before and after: thread t holds items t*IPT .. t*IPT + IPT - 1.
///
/// Order: ascending or descending by radix_key_codec's order; for floats
/// -NaN < -inf < ... < -0 == +0 < ... < +inf < +NaN (NaNs by bit pattern). Keys keep their exact
/// bits; -0 and +0 count as equal (in practice -0 comes first when ascending).
///
/// Stability: none. Equal keys (and their values) come out in an unspecified relative order.
///
/// Complexity: a bitonic network of P = next_pow2(BlockSize) * next_pow2(IPT) positions,
/// (P/2) * log2(P) * (log2(P) + 1) / 2 compare-exchanges: O(n log^2 n). Strides below
/// next_pow2(IPT) run in registers, strides within a wavefront through shuffles, wider strides
/// through shared memory (two block barriers each), then back to shuffles and registers for the
/// smaller strides of the same merge step.
///
/// Memory: storage_type holds one image (sizeof(Key)) and one Value per tile item.
template <class Key, unsigned int BlockSize, unsigned int ItemsPerThread, class Value = empty_type>
class block_bitonic_sort
{
    using keys_network = detail::block_bitonic_network<Key, BlockSize, ItemsPerThread, empty_type>;
    using pairs_network = detail::block_bitonic_network<Key, BlockSize, ItemsPerThread, Value>;
    using image_type = typename keys_network::image_type;
    static constexpr bool with_values = detail::has_values<Value>;
    static constexpr unsigned int wave = device_wavefront_size();

    static_assert(BlockSize > 0 && BlockSize <= 1024, "BlockSize must be in 1..1024");
    static_assert(BlockSize % wave == 0, "BlockSize must be a multiple of the wavefront size");
    static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 16, "ItemsPerThread must be in 1..16");
    static_assert(!with_values || std::is_trivially_copyable<Value>::value,
                  "values must be trivially copyable (they travel through shuffles and shared memory)");

public:
    static constexpr unsigned int block_size = BlockSize;
    static constexpr unsigned int items_per_thread = ItemsPerThread;
    static constexpr unsigned int items_per_block = BlockSize * ItemsPerThread;

    /// Shared memory the caller provides: `__shared__ typename sort_t::storage_type storage;`.
    /// Holds BlockSize * ItemsPerThread images (sizeof(Key) each) plus as many Values. It may alias
    /// other shared data (e.g. through a union) used before or after the sort, provided a
    /// syncthreads() separates those uses from the sort: before the call, once no thread still
    /// reads or writes that memory; after the call, before the memory is reused (by anything,
    /// another sort with the same storage included).
    using storage_type = detail::block_bitonic_storage<image_type, Value, items_per_block>;

    /// Sorts the BlockSize * ItemsPerThread keys of the block in order `ord`.
    /// All threads of the block call together, with the same `ord`.
    /// Post: thread t's keys[i] is element t * ItemsPerThread + i of the sorted tile.
    /// Not stable; O(n log^2 n) compare-exchanges; uses `storage` (see storage_type).
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread], order ord = order::ascending)
    {
        empty_type none[ItemsPerThread];
        keys_network::template run<true>(storage.images, nullptr, keys, none, 0, ord);
    }

    /// Sorts the keys and moves each value with its key. Values of equal keys come out in an
    /// unspecified order (not stable). Otherwise as the keys-only sort.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  order ord = order::ascending)
    {
        pairs_network::template run<true>(storage.images, value_array(storage), keys, values, 0, ord);
    }

    /// Partial tile: only the first `valid_items` items in blocked order (item t * IPT + i) are real;
    /// values above the tile size are clamped to it. All threads pass the same valid_items.
    /// Post: items 0 .. valid_items-1 hold the real keys sorted; items >= valid_items are left
    /// unchanged (and never compared). Merge steps wider than next_pow2(valid_items) are skipped,
    /// so small partial tiles cost less. Otherwise as the full-tile sort.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread], unsigned int valid_items,
                                  order ord = order::ascending)
    {
        empty_type none[ItemsPerThread];
        keys_network::template run<false>(storage.images, nullptr, keys, none, valid_items, ord);
    }

    /// Partial tile with values: as the keys-only partial sort; the values of items >= valid_items
    /// are left unchanged too.
    HIPFLASHSORT_DEVICE void sort(storage_type& storage, Key (&keys)[ItemsPerThread], Value (&values)[ItemsPerThread],
                                  unsigned int valid_items, order ord = order::ascending)
    {
        pairs_network::template run<false>(storage.images, value_array(storage), keys, values, valid_items, ord);
    }

    /// \brief Sorts `size` keys (and values) lying in shared memory, in place, with a group of threads.
    ///
    /// A plain bitonic network over shared memory, logically padded to P = next_pow2(size) with
    /// +infinity (elements at index >= size are never read or written). Same order, exact key bits
    /// and (lack of) stability as sort().
    ///
    /// Groups (chosen by group_threads; all callers of a group pass the same keys, values, size,
    /// group_threads and ord, and distinct thread_in_group):
    /// - group_threads <= device_wavefront_size(), a power of two: groups inside one wavefront,
    ///   synchronised with wave_barrier() only; thread_in_group in 0..group_threads-1. Every lane of
    ///   the wavefront calls together (lanes in groups of group_threads consecutive lanes, the same
    ///   group_threads in the whole wavefront); sizes may differ between the groups of a
    ///   wavefront, which then runs the stages of its largest group.
    /// - group_threads > device_wavefront_size(): the whole block is the group, synchronised with
    ///   syncthreads(). Every thread of the block calls, thread_in_group its index in the block;
    ///   threads with thread_in_group >= group_threads only take part in the barriers.
    /// Groups of several wavefronts smaller than the block are not supported.
    ///
    /// \param keys   shared-memory keys; the writes that produced them must already be visible to
    ///               the group (a barrier of the group's scope after writing them).
    /// \param values shared-memory values moved with their keys, or nullptr to sort keys only.
    /// Post: keys[0..size) sorted in order `ord` and visible to the whole group (every stage ends
    /// with the group's barrier). Complexity: (P/2) * log2(P) * (log2(P) + 1) / 2 compare-exchanges,
    /// log2(P) * (log2(P) + 1) / 2 barriers; each compare-exchange loads two keys and, when the pair
    /// is out of order, stores two keys (and swaps two values). No extra memory.
    static HIPFLASHSORT_DEVICE void sort_shared(Key* keys, Value* values, unsigned int size,
                                                unsigned int thread_in_group, unsigned int group_threads,
                                                order ord = order::ascending)
    {
        if(group_threads <= wave)
        {
            // Groups of a wavefront may differ in size, yet all lanes must meet the same number of
            // wave barriers: run the stages of the wavefront's largest group.
            const unsigned int own_span = detail::bitonic_ceil_pow2_rt(size);
            unsigned int span = own_span;
            for(unsigned int mask = group_threads; mask < wave; mask <<= 1)
            {
                const unsigned int other = shuffle_xor(span, static_cast<int>(mask));
                span = other > span ? other : span;
            }
            shared_network<false>(keys, values, size, own_span, span, thread_in_group, group_threads, ord);
        }
        else
        {
            const unsigned int span = detail::bitonic_ceil_pow2_rt(size);
            shared_network<true>(keys, values, size, span, span, thread_in_group, group_threads, ord);
        }
    }

private:
    static HIPFLASHSORT_DEVICE Value* value_array(storage_type& storage)
    {
        if constexpr(with_values)
        {
            return &storage.values[0];
        }
        else
        {
            (void)storage;
            return nullptr;
        }
    }

    template <bool BlockWide>
    static HIPFLASHSORT_DEVICE void group_barrier()
    {
        if constexpr(BlockWide)
        {
            syncthreads();
        }
        else
        {
            wave_barrier();
        }
    }

    // `span` (uniform over the threads that share barriers) decides the stages; `own_span`
    // (next_pow2(size) of this group) bounds the pairs this group can have.
    template <bool BlockWide>
    static HIPFLASHSORT_DEVICE void shared_network(Key* keys, Value* values, unsigned int size, unsigned int own_span,
                                                   unsigned int span, unsigned int thread_in_group,
                                                   unsigned int group_threads, order ord)
    {
        const bool active = thread_in_group < group_threads;
        const unsigned int pairs = own_span / 2;
        for(unsigned int k = 2; k <= span; k <<= 1)
        {
            for(unsigned int j = k / 2; j > 0; j >>= 1)
            {
                const unsigned int partner_mask = j == k / 2 ? k - 1 : j;
                for(unsigned int q = thread_in_group; active && q < pairs; q += group_threads)
                {
                    // The q-th position whose bit j is clear; its partner sets that bit (and, in
                    // the mirror stage, flips the bits below), so partner > i.
                    const unsigned int i = ((q & ~(j - 1)) << 1) | (q & (j - 1));
                    const unsigned int p = i ^ partner_mask;
                    if(p < size) shared_compare_exchange(keys, values, i, p, ord);
                }
                group_barrier<BlockWide>();
            }
        }
    }

    static HIPFLASHSORT_DEVICE void shared_compare_exchange(Key* keys, Value* values, unsigned int i, unsigned int p,
                                                            order ord)
    {
        using codec = radix_key_codec<Key>;
        const Key a = keys[i];
        const Key b = keys[p];
        if(codec::lossless_image(b, ord) < codec::lossless_image(a, ord))
        {
            keys[i] = b;
            keys[p] = a;
            if constexpr(with_values)
            {
                if(values != nullptr)
                {
                    const Value va = detail::bitonic_shared_load(values + i);
                    detail::bitonic_shared_store(values + i, detail::bitonic_shared_load(values + p));
                    detail::bitonic_shared_store(values + p, va);
                }
            }
        }
    }
};

} // namespace hipflashsort

#endif
