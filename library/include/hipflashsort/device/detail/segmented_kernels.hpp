// Kernels of the segmented flash sort that bin a round's segments by size class and sort the small
// ones where they lie (networks or rank sorts per thread group, block networks and block flash
// sorts per block). The large ones are partitioned (partition_kernels.hpp, partition_scatter.hpp).
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_KERNELS_HPP_

#include <cstdint>

#include "../../block/block_flash_sort.hpp"
#include "../../block/detail/block_primitives.hpp"
#include "../../detail/bit_math.hpp"
#include "../../detail/empty_type.hpp"
#include "../../warp/warp_bitonic_sort.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "composite_sort.hpp"
#include "lds_rows.hpp"
#include "network_teams.hpp"

namespace hipflashsort {
namespace detail {

// ---------------------------------------------------------------- segment sources and binning

/// One sub-array, [begin, end) in elements of the whole input.
struct segment_range
{
    std::uint64_t begin;
    std::uint64_t end;
};

template <class Offset>
struct user_segments
{
    const Offset* begins;
    const Offset* ends;
    HIPFLASHSORT_DEVICE segment_range operator()(std::uint64_t i) const
    {
        const std::uint64_t b = static_cast<std::uint64_t>(begins[i]);
        const std::uint64_t e = static_cast<std::uint64_t>(ends[i]);
        return segment_range{b, e < b ? b : e}; // end <= begin: empty
    }
};

/// Most size classes a round bins into, the wide flash network classes (the wide class, then the
/// full wide class), and all its lists: the classes', the large list and the wide lists.
constexpr unsigned int max_size_classes = 16;
constexpr unsigned int wide_classes = 2;
constexpr unsigned int max_class_lists = max_size_classes + 1 + wide_classes;
/// Threads of a binning block (bin_segments_kernel).
constexpr unsigned int binning_block = 256;

/// Class limits of one round: class c holds sizes in (limit[c-1], limit[c]]; sizes above the
/// last limit go to the large list.
struct class_limits
{
    std::uint64_t limit[max_size_classes];
    unsigned int classes;
    std::uint64_t wide; // largest segment of the wide lists (limit[classes - 1] when they are off)
    std::uint64_t wide_split; // largest segment of the first wide list (wide when the second is off)

    HIPFLASHSORT_HOST_DEVICE unsigned int of(std::uint64_t size) const
    {
        unsigned int c = 0;
        while(c < classes && size > limit[c]) c++;
        return c;
    }
    /// The list a segment goes to: its class (< classes), the large list (classes), or a wide
    /// list (classes + 1 up to wide_split, classes + 2 above).
    HIPFLASHSORT_HOST_DEVICE unsigned int list_of(std::uint64_t size) const
    {
        const unsigned int c = of(size);
        if(c < classes || size > wide) return c;
        return size <= wide_split ? classes + 1 : classes + 2;
    }
};

// Segments of one element need no sort, only a copy when the data is elsewhere.
template <class Key, class Value>
HIPFLASHSORT_DEVICE void copy_single(const segment_range& r, const Key* keys_in, Key* keys_out,
                                     const Value* values_in, Value* values_out)
{
    if(keys_in != keys_out) keys_out[r.begin] = keys_in[r.begin];
    if constexpr(has_values<Value>)
    {
        if(values_in != values_out) values_out[r.begin] = values_in[r.begin];
    }
}

/// A listed segment of a small class in 8 bytes, begin << 14 | (size - 1): half the list traffic
/// of a 16-byte range (segments of up to 16384 keys, begins below 2^50).
struct packed_segment
{
    static constexpr unsigned int size_bits = 14;
    static constexpr std::uint64_t max_begin = std::uint64_t(1) << (64 - size_bits);

    HIPFLASHSORT_HOST_DEVICE static std::uint64_t pack(const segment_range& r)
    {
        return r.begin << size_bits | (r.end - r.begin - 1);
    }
    HIPFLASHSORT_HOST_DEVICE static std::uint64_t begin(std::uint64_t packed) { return packed >> size_bits; }
    HIPFLASHSORT_HOST_DEVICE static unsigned int size(std::uint64_t packed)
    {
        return static_cast<unsigned int>(packed & ((1u << size_bits) - 1)) + 1;
    }
};

/// Where one round's binning writes: class c (< classes) lists packed segments from
/// small[c_offset[c]], the large ones go to `large` and those of the wide classes to `wide[w]` as
/// ranges; counts[c] ends as the length of each list (classes + 1 + w: the wide ones). Each region
/// holds every segment its list could get (fixed from the sizes), so one pass bins without
/// counting first.
struct class_lists
{
    std::uint64_t* small;
    segment_range* large;
    segment_range* wide[wide_classes];
    std::uint64_t offset[max_size_classes];
};

/// Lists the block's segments, one per thread (r, where `listed`), in their lists. The order
/// inside a list does not matter, each segment is sorted on its own. Slots are reserved once per
/// block and list (one global atomic each), not once per segment: per-segment atomics on one
/// counter serialize in L2. All threads call it together. Its LDS is static, so only kernels
/// without dynamic LDS call it.
HIPFLASHSORT_DEVICE void bin_block(const segment_range& r, bool listed, const class_limits& limits,
                                   const class_lists& lists, unsigned int* counts)
{
    __shared__ unsigned int local[max_class_lists]; // the block's segments per list, then their ranks
    __shared__ unsigned int base[max_class_lists];  // the block's first slot in each list
    if(threadIdx.x <= limits.classes + wide_classes) local[threadIdx.x] = 0;
    __syncthreads();
    const unsigned int cls = limits.list_of(r.end - r.begin);
    unsigned int rank = 0;
    if(listed) rank = atomicAdd(&local[cls], 1u);
    __syncthreads();
    if(threadIdx.x <= limits.classes + wide_classes && local[threadIdx.x] != 0)
        base[threadIdx.x] = atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
    __syncthreads();
    if(listed)
    {
        if(cls < limits.classes) lists.small[lists.offset[cls] + base[cls] + rank] = packed_segment::pack(r);
        else if(cls == limits.classes) lists.large[base[cls] + rank] = r;
        else lists.wide[cls - limits.classes - 1][base[cls] + rank] = r;
    }
    __syncthreads();
}

// ---------------------------------------------------------------- small segments

/// The small classes' loop: the block is cut into groups of Group threads (Group at most a
/// wavefront), and each group takes listed segments in turn and calls visit(begin, size, group,
/// member) on one (size 0 where the list has run out, so that whole wavefronts keep calling).
/// A group lives inside one wavefront, so wavefront barriers order its LDS accesses and the
/// wavefronts of a block never wait for each other: one whose segment is still loading does not
/// hold up the others' sorting.
template <unsigned int BlockSize, unsigned int Group, class Visit>
HIPFLASHSORT_DEVICE void for_each_listed_segment(const std::uint64_t* list, unsigned int count, Visit visit)
{
    static_assert(Group <= device_wavefront_size(), "a group must not span wavefronts");
    constexpr unsigned int groups = BlockSize / Group;
    const unsigned int group = threadIdx.x / Group;
    const unsigned int member = threadIdx.x % Group;
    for(unsigned int first = blockIdx.x * groups; first < count; first += gridDim.x * groups)
    {
        const unsigned int index = first + group;
        const std::uint64_t packed = index < count ? list[index] : 0;
        const unsigned int size = index < count ? packed_segment::size(packed) : 0;
        visit(packed_segment::begin(packed), size, group, member);
    }
}

/// Copies a segment of `size` <= Threads * PerThread keys (and values) into LDS with every load of
/// thread `member` (positions member, member + Threads, ...) issued before its first store, and
/// leaves its keys in `k` (k[j] for position j * Threads + member; untouched past `size`). The row
/// (Threads * PerThread positions) is written whole: past `size` with k's and zero values.
template <unsigned int Threads, unsigned int PerThread, class Key, class Value>
HIPFLASHSORT_DEVICE void stage_striped(const Key* keys_in, const Value* values_in, Key* keys, Value* values,
                                       unsigned int size, unsigned int member, Key (&k)[PerThread])
{
    // One lane pointer and constant offsets, as in load_striped_images.
    const Key* const lane_keys = keys_in + member;
    [[maybe_unused]] const Value* const lane_values = values_in + (has_values<Value> ? member : 0);
    [[maybe_unused]] Value v[has_values<Value> ? PerThread : 1] = {};
#pragma unroll
    for(unsigned int j = 0; j < PerThread; j++)
    {
        if(j * Threads + member < size)
        {
            k[j] = lane_keys[j * Threads];
            if constexpr(has_values<Value>) v[j] = lane_values[j * Threads];
        }
    }
    // Every position of the row is stored, those past `size` with padding that nothing reads: a
    // store per item under its bound test became a branch each, and nvcc (sm_90) computed the
    // LDS window's address (S2UR SR_CgaCtaId, ULEA) again in every one, 14 instructions per
    // item, 9% of the block pair network's (ncu source counters, segments of 1000 pairs). H200,
    // 2^26 pairs, medians of eight rotated rounds, Gkeys/s, u32+u32 / f32+u32 segments of 1000
    // pairs 121.0 / 114.3 -> 124.1 / 116.4, 1024 126.8 / 119.4 -> 129.7 / 121.2, 65536 44.3 /
    // 44.2 -> 44.7 / 44.6; the 128 class (112 / 113 pairs) and keys alone within 0.6%.
#pragma unroll
    for(unsigned int j = 0; j < PerThread; j++)
    {
        keys[j * Threads + member] = k[j];
        if constexpr(has_values<Value>) values[j * Threads + member] = v[j];
    }
}

/// Copies a segment of `size` <= Threads * PerThread keys (and values) into LDS, thread `member`
/// of Threads taking positions member, member + Threads, ...: in a loop of load-store pairs, or
/// (Batched) with every load of the thread issued before its first store
/// (segmented_config::network_batched_staging says where that is faster).
template <unsigned int Threads, unsigned int PerThread, bool Batched, class Key, class Value>
HIPFLASHSORT_DEVICE void stage_segment(const Key* keys_in, const Value* values_in, Key* keys, Value* values,
                                       unsigned int size, unsigned int member)
{
    if constexpr(!Batched)
    {
        for(unsigned int i = member; i < size; i += Threads)
        {
            keys[i] = keys_in[i];
            if constexpr(has_values<Value>) values[i] = values_in[i];
        }
    }
    else
    {
        Key k[PerThread] = {};
        stage_striped<Threads>(keys_in, values_in, keys, values, size, member, k);
    }
}

/// for_each_listed_segment that first copies each segment into the group's LDS slice of
/// Capacity keys (and values) with stage_segment and calls sort(begin, size, member, keys,
/// values) on it.
template <unsigned int BlockSize, unsigned int Group, unsigned int Capacity, bool Batched = false, class Key,
          class Value, class Sort>
HIPFLASHSORT_DEVICE void for_each_staged_segment(const std::uint64_t* list, unsigned int count, const Key* keys_in,
                                                 const Value* values_in, Key* staged_keys, Value* staged_values,
                                                 Sort sort)
{
    for_each_listed_segment<BlockSize, Group>(
        list, count, [&](std::uint64_t begin, unsigned int size, unsigned int group, unsigned int member) {
            Key* keys = staged_keys + group * Capacity;
            Value* values = staged_values + (has_values<Value> ? group * Capacity : 0);
            static_assert(Capacity % Group == 0, "whole items per thread");
            // Keys alone have no values to offset (values_in may be null).
            stage_segment<Group, Capacity / Group, Batched>(keys_in + begin,
                                                            has_values<Value> ? values_in + begin : values_in, keys,
                                                            values, size, member);
            wave_barrier();
            sort(begin, size, member, keys, values);
            wave_barrier();
        });
}

/// Rank sort of segments up to Capacity keys, one group of Group threads each: each key's rank
/// is the number of keys before it in sorted order (smaller, or equal and earlier), so the sort
/// is stable.
template <class Key, class Value, unsigned int BlockSize, unsigned int Group, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize) void rank_sort_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    using codec = radix_key_codec<Key>;
    constexpr unsigned int groups = BlockSize / Group;
    __shared__ Key keys[groups * Capacity];
    __shared__ Value values[has_values<Value> ? groups * Capacity : 1];
    for_each_staged_segment<BlockSize, Group, Capacity>(
        list, count, keys_in, values_in, keys, values,
        [&](std::uint64_t begin, unsigned int size, unsigned int member, const Key* my_keys, const Value* my_values) {
            for(unsigned int i = member; i < size; i += Group)
            {
                const auto mine = codec::order_image(my_keys[i], ord);
                unsigned int rank = 0;
                for(unsigned int j = 0; j < size; j++)
                {
                    const auto theirs = codec::order_image(my_keys[j], ord);
                    rank += (theirs < mine) || (theirs == mine && j < i);
                }
                keys_out[begin + rank] = my_keys[i];
                if constexpr(has_values<Value>) values_out[begin + rank] = my_values[i];
            }
        });
}

/// What the wavefront networks of keys alone sort: 32-bit lossless images for keys of up to 4
/// bytes, the 64-bit ones of 8-byte keys.
template <class Key>
using network_image_t = std::conditional_t<(sizeof(Key) <= 4), std::uint32_t, std::uint64_t>;

/// Reads a logical wavefront's share of a segment from global memory as lossless images
/// (network_image_t), striped: lane `member`'s item j is key j * Lanes + member. A network sorts
/// a set, so any assignment will do, and with this one every load instruction reads consecutive
/// keys and all Items loads of a lane are in flight at once. Past `size`, padding takes the
/// largest image.
template <unsigned int Lanes, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void load_striped_images(const Key* in, unsigned int size, unsigned int member, order ord,
                                             network_image_t<Key> (&images)[Items])
{
    using image_type = network_image_t<Key>;
    using codec = radix_key_codec<Key>;
    // One lane pointer and constant offsets: the 32-bit positions, zero-extended, would give each
    // load its own 64-bit address.
    const Key* const lane_in = in + member;
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        const bool real = j * Lanes + member < size;
        const Key key = real ? lane_in[j * Lanes] : Key(0);
        images[j] = real ? image_type(codec::lossless_image(key, ord)) : ~image_type(0);
    }
}

/// Keys back from the lossless images a network sorted.
template <class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void decode_images(const network_image_t<Key> (&images)[Items], order ord, Key (&keys)[Items])
{
    using codec = radix_key_codec<Key>;
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
        keys[j] = codec::decode_lossless(static_cast<typename codec::bit_key_type>(images[j]), ord);
}

/// Whether a lane's sorted images (ascending across its items) hold a float zero. Only a lane
/// whose range reaches the two zero images (-0 and +0 are neighbours) tests its items, so the
/// zeros cost the other lanes two compares; padding, the largest image, is never a zero.
template <class Key>
struct zero_images
{
    network_image_t<Key> low, high; // the images of -0 and +0, in the order's sense
};

template <class Key>
HIPFLASHSORT_DEVICE zero_images<Key> zero_images_of(order ord)
{
    using codec = radix_key_codec<Key>;
    using image_type = network_image_t<Key>;
    const image_type plus = codec::lossless_image(Key(0), ord);
    const image_type minus = codec::lossless_image(codec::from_bits(codec::sign_bit), ord);
    return {min_of(plus, minus), max_of(plus, minus)};
}

template <class Key, unsigned int Items>
HIPFLASHSORT_DEVICE bool holds_zero(const network_image_t<Key> (&sorted)[Items], order ord)
{
    const auto [low, high] = zero_images_of<Key>(ord);
    bool zero = false;
    if(sorted[0] <= high && sorted[Items - 1] >= low)
    {
#pragma unroll
        for(unsigned int j = 0; j < Items; j++) zero |= sorted[j] == low || sorted[j] == high;
    }
    return zero;
}

/// Float zeros of the lane's striped share of the input, read again (the rare path of segments
/// that hold zeros, so that the network does not keep these marks or the keys live): bit j of
/// `zero` / `negative` for item j, and `below` counts the lane's keys ordered below zero.
template <unsigned int Lanes, unsigned int Items, class Key>
HIPFLASHSORT_DEVICE void note_zeros(const Key* in, unsigned int size, unsigned int member, order ord,
                                    std::uint32_t& zero, std::uint32_t& negative, unsigned int& below)
{
    using codec = radix_key_codec<Key>;
    static_assert(Items <= 32, "one bit per item");
    const auto zero_image = codec::order_image(Key(0), ord);
    zero = negative = below = 0;
#pragma unroll 4
    for(unsigned int j = 0; j < Items; j++)
    {
        const unsigned int pos = j * Lanes + member;
        if(pos < size)
        {
            const Key key = in[pos];
            const auto image = codec::order_image(key, ord);
            zero |= std::uint32_t(image == zero_image) << j;
            negative |= std::uint32_t((codec::to_bits(key) & codec::sign_bit) != 0) << j;
            below += image < zero_image;
        }
    }
}

/// Puts the float zeros noted by note_zeros back into a sorted swizzled row in input order
/// (striped position order: item j, then lanes in order). The network puts -0 before +0; the
/// i-th zero of the input goes to row position `run` + i, where `run` is where this logical
/// wavefront's zeros start (after every key ordered below zero, and after the zeros of earlier
/// wavefronts of a block).
template <unsigned int Lanes, unsigned int Items, class Key>
HIPFLASHSORT_DEVICE void write_zero_run(Key* row, std::uint32_t zero, std::uint32_t negative, unsigned int run,
                                        unsigned int member)
{
    using codec = radix_key_codec<Key>;
    const unsigned int hardware_lane = lane_id();
    const lane_mask_type lower = (lane_mask_type(1) << member) - 1;
#pragma unroll 1 // unrolled, the 32 ballots doubled the kernel's registers
    for(unsigned int j = 0; j < Items; j++)
    {
        const bool is_zero = (zero >> j) & 1u;
        const lane_mask_type votes = logical_ballot<Lanes>(is_zero, hardware_lane);
        const Key key = codec::from_bits(((negative >> j) & 1u) ? codec::sign_bit : 0);
        if(is_zero) row[swizzled_row<Key, Items>::slot(run + popcount(votes & lower))] = key;
        run += popcount(votes);
    }
}

/// Keys without values, one logical wavefront per segment: the network sorts bare lossless
/// images (network_image_t), with half the shuffles of an (image, position) composite. Equal
/// images are equal keys, so the unstable network gives the stable result, with one exception: floats' -0
/// and +0 are equal keys with distinct images, and the network groups them by sign; when the
/// wavefront holds a zero, their run is rewritten in input order. Padding takes the largest
/// image, which decodes to a real key when it ties.
///
/// The keys come straight from global memory into registers (load_striped_images); the sorted
/// keys go through the wavefront's swizzled LDS slice, from `first` in `row`, and leave it in
/// striped order, so that every global store writes consecutive keys. `in` is read again only
/// for zeros, before the copy-out, so `in == out` is fine. Against staging the input in LDS
/// first (H100, 2^26 keys, Gkeys/s): u32 segments of 32 / 256 / 1000 keys 230 / 224 / 137 ->
/// 277 / 233 / 149, f32 of 1000 keys 99 -> 135.
template <class Key, unsigned int Lanes, unsigned int Items>
HIPFLASHSORT_DEVICE void sort_images_only(const Key* in, Key* out, Key* row, unsigned int first, unsigned int size,
                                          unsigned int member, order ord)
{
    using codec = radix_key_codec<Key>;
    using slots = swizzled_row<Key, Items>;
    using image_type = network_image_t<Key>;
    image_type images[Items];
    load_striped_images<Lanes>(in, size, member, ord, images);
    warp_bitonic_sort<image_type, Lanes, Items>().sort(images);
    Key sorted[Items];
    decode_images(images, ord, sorted);
    wave_barrier(); // the slice's previous segment has been copied out
    slots::store(row, first + member * Items, sorted);
    if constexpr(codec::is_float)
    {
        if(ballot(holds_zero<Key>(images, ord)) != 0) // wavefront-uniform
        {
            std::uint32_t zero, negative;
            unsigned int below;
            note_zeros<Lanes, Items>(in, size, member, ord, zero, negative, below);
            const unsigned int run = first + logical_wave_sum<Lanes>(below);
            wave_barrier();
            write_zero_run<Lanes, Items>(row, zero, negative, run, member);
        }
    }
    wave_barrier();
    for(unsigned int i = member; i < size; i += Lanes) out[i] = row[slots::slot(first + i)];
}

/// Segments of up to LogicalWave * ItemsPerThread keys without values, one logical wavefront
/// each, sorted by a bitonic network in registers and shuffles (sort_images_only): O(log^2 m)
/// steps instead of the rank sort's O(m) compares per key. 8-byte keys move two words per
/// shuffle and hold at most 16 items per lane (swizzled_row's 128-byte lane share).
///
/// The 32-item class (segments of up to 1024 keys) declares at least one block per
/// multiprocessor: nvcc then compiles its network differently (the same 91 registers for u32) and
/// it runs faster (H100, 2^26 keys, Gkeys/s: u32 segments of 1000 / 1024 keys 148 / 151 -> 166 /
/// 166, f32 136 / 140 -> 153 / 158). The smaller classes ran up to 17% slower with it (segments
/// of 16 and 32 keys), so they leave it out (0).
template <class Key, unsigned int BlockSize, unsigned int LogicalWave, unsigned int ItemsPerThread>
__global__ __launch_bounds__(BlockSize, ItemsPerThread >= 32 ? 1 : 0) void bitonic_sort_key_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, order ord)
{
    constexpr unsigned int capacity = LogicalWave * ItemsPerThread;
    __shared__ __align__(16) Key row[BlockSize * ItemsPerThread]; // swizzled_row's vector stores
    for_each_listed_segment<BlockSize, LogicalWave>(
        list, count, [&](std::uint64_t begin, unsigned int size, unsigned int group, unsigned int member) {
            sort_images_only<Key, LogicalWave, ItemsPerThread>(keys_in + begin, keys_out + begin, row,
                                                               group * capacity, size, member, ord);
        });
}

/// Copies the wavefront's listed segments (one per lane: `begin`, `size` <= Capacity) between
/// global memory and the wavefront's transposed tile, where key j of lane l's segment lives at
/// tile[j][l] (rows of Row = Lanes + 1 keys). Each turn moves one segment per span of lanes, the
/// smallest power of two that holds the wavefront's largest segment (`span`, the same in every
/// lane), so that every global access reads or writes consecutive keys and short segments take
/// few turns; the row padding keeps the turns free of bank conflicts.
template <bool Out, unsigned int Capacity, unsigned int Row, class Key>
HIPFLASHSORT_DEVICE void move_wave_segments(Key (&tile)[Capacity][Row], const Key* in, Key* out,
                                            std::uint64_t begin, unsigned int size, unsigned int span,
                                            unsigned int lane)
{
    constexpr unsigned int lanes = Row - 1;
    static_assert(thread_network_padded_size(Capacity) <= lanes, "a segment's turn fits the wavefront");
    const unsigned int per_turn = lanes / span;
    const unsigned int part = lane / span, j = lane % span;
    for(unsigned int turn = 0; turn < span; turn++)
    {
        const unsigned int source = turn * per_turn + part;
        const std::uint64_t b = shuffle(begin, int(source));
        const unsigned int n = shuffle(size, int(source));
        if(j < n)
        {
            if constexpr(Out)
                out[b + j] = tile[j][source];
            else
                tile[j][source] = in[b + j];
        }
    }
}

/// Puts the float zeros of a sorted column back in input order: the network orders -0 before
/// +0, but they are equal keys, so their run takes the input's order of signs. Reads the
/// segment from `in` again (only threads whose segment holds a zero).
template <unsigned int Capacity, unsigned int Row, class Key>
HIPFLASHSORT_DEVICE void restore_zero_order(Key (&tile)[Capacity][Row], const network_image_t<Key> (&sorted)[Capacity],
                                            const Key* in, unsigned int size, unsigned int lane, order ord)
{
    using codec = radix_key_codec<Key>;
    const auto low = zero_images_of<Key>(ord).low;
    unsigned int run = 0;
#pragma unroll
    for(unsigned int q = 0; q < Capacity; q++) run += sorted[q] < low;
    const auto zero_image = codec::order_image(Key(0), ord);
    for(unsigned int j = 0; j < size; j++)
    {
        const Key key = in[j];
        if(codec::order_image(key, ord) == zero_image) tile[run++][lane] = key;
    }
}

/// Sorts a wavefront's segments of up to Capacity keys without values (keys of up to 4 bytes),
/// one per lane (`size` 0 where a lane has none), in its transposed LDS tile: each thread sorts
/// its segment's lossless images in registers with Batcher's odd-even merge sort
/// (thread_network_sort, comparators on padding left out: 63 compare-exchanges for 16 keys). The
/// segments go in and out through the tile (move_wave_segments), so that global accesses stay
/// coalesced. Against a logical wavefront's bitonic network per segment, it spends no lanes on
/// padding and no shuffles. All lanes of the wavefront call it together.
template <unsigned int Capacity, unsigned int Row, class Key>
HIPFLASHSORT_DEVICE void thread_sort_wave_segments(Key (&tile)[Capacity][Row], const Key* keys_in, Key* keys_out,
                                                   std::uint64_t begin, unsigned int size, unsigned int lane,
                                                   order ord)
{
    using codec = radix_key_codec<Key>;
    using image_type = network_image_t<Key>;
    static_assert(sizeof(Key) <= 4, "32-bit images");
    const unsigned int span = thread_network_padded_size(wave_max(size));
    move_wave_segments<false>(tile, keys_in, keys_out, begin, size, span, lane);
    wave_barrier();
    image_type images[Capacity];
#pragma unroll
    for(unsigned int q = 0; q < Capacity; q++)
        images[q] = q < size ? image_type(codec::lossless_image(tile[q][lane], ord)) : ~image_type(0);
    empty_type no_values[Capacity];
    thread_network_sort<Capacity>(images, no_values, thread_network_image_less{});
    Key sorted[Capacity];
    decode_images(images, ord, sorted);
#pragma unroll
    for(unsigned int q = 0; q < Capacity; q++) tile[q][lane] = sorted[q];
    if constexpr(codec::is_float)
    {
        if(holds_zero<Key>(images, ord)) restore_zero_order(tile, images, keys_in + begin, size, lane, ord);
    }
    wave_barrier();
    move_wave_segments<true>(tile, keys_in, keys_out, begin, size, span, lane);
    wave_barrier(); // the tile's segments are out before the next ones come in
}

/// A wavefront's transposed tile for thread_sort_wave_segments.
template <class Key, unsigned int Capacity>
using thread_sort_tile = Key[Capacity][device_wavefront_size() + 1];

/// Listed segments of up to Capacity keys without values (a partition round's small buckets),
/// one thread each (thread_sort_wave_segments).
template <class Key, unsigned int BlockSize, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize) void thread_sort_key_segments_kernel(const std::uint64_t* list,
                                                                            unsigned int count, const Key* keys_in,
                                                                            Key* keys_out, order ord)
{
    constexpr unsigned int lanes = device_wavefront_size();
    static_assert(BlockSize % lanes == 0, "whole wavefronts");
    __shared__ thread_sort_tile<Key, Capacity> tiles[BlockSize / lanes];
    const unsigned int lane = lane_id();
    for_each_listed_segment<BlockSize, 1>(
        list, count, [&](std::uint64_t begin, unsigned int size, unsigned int, unsigned int) {
            thread_sort_wave_segments(tiles[threadIdx.x / lanes], keys_in, keys_out, begin, size, lane, ord);
        });
}

/// One pass over the user's segments: segments of one element are copied (when the output is
/// elsewhere), those of 2..SortedUpTo keys (keys alone of up to 4 bytes, whose smallest class is
/// sorted one segment per thread) sorted here (thread_sort_wave_segments), which saves their list
/// entries' write and read (16 bytes a segment) and a launch, and the others listed in their
/// class (bin_block). A partition round's buckets are listed by the round itself
/// (partition_offsets_kernel).
template <unsigned int SortedUpTo, class Source, class Key, class Value>
__global__ __launch_bounds__(binning_block) void bin_segments_kernel(Source source, std::uint64_t segments,
                                                                     class_limits limits, class_lists lists,
                                                                     unsigned int* counts, const Key* keys_in,
                                                                     Key* keys_out, const Value* values_in,
                                                                     Value* values_out, order ord)
{
    const std::uint64_t stride = std::uint64_t(gridDim.x) * binning_block;
    // Block-uniform trip count, so the barriers in bin_block are reached by every thread.
    for(std::uint64_t first = blockIdx.x * std::uint64_t(binning_block); first < segments; first += stride)
    {
        const std::uint64_t i = first + threadIdx.x;
        segment_range r{0, 0};
        if(i < segments) r = source(i);
        const std::uint64_t size = r.end - r.begin;
        if(size == 1) copy_single(r, keys_in, keys_out, values_in, values_out);
        bin_block(r, size > SortedUpTo, limits, lists, counts);
        if constexpr(SortedUpTo > 1)
        {
            static_assert(!has_values<Value>, "keys alone");
            constexpr unsigned int lanes = device_wavefront_size();
            __shared__ thread_sort_tile<Key, SortedUpTo> tiles[binning_block / lanes];
            const bool sorted_here = size > 1 && size <= SortedUpTo;
            if(ballot(sorted_here) != 0) // wavefront-uniform
            {
                thread_sort_wave_segments(tiles[threadIdx.x / lanes], keys_in, keys_out, r.begin,
                                          sorted_here ? static_cast<unsigned int>(size) : 0u, lane_id(), ord);
            }
        }
    }
}

/// Segments of up to LogicalWave * ItemsPerThread keys of at most 4 bytes with values, one
/// logical wavefront each, staged in LDS (BatchedStaging: by stage_segment) and sorted by a
/// bitonic network on (image, position) composites (sort_composites).
template <class Key, class Value, unsigned int BlockSize, unsigned int LogicalWave, unsigned int ItemsPerThread,
          bool BatchedStaging>
__global__ __launch_bounds__(BlockSize) void bitonic_sort_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    static_assert(sizeof(Key) <= 4, "composites are built from 32-bit order images");
    static_assert(has_values<Value>, "keys alone go through bitonic_sort_key_segments_kernel");
    constexpr unsigned int capacity = LogicalWave * ItemsPerThread;
    constexpr unsigned int groups = BlockSize / LogicalWave;
    // Aligned for blocked_lds's word reads of a lane's items.
    __shared__ __align__(16) Key keys[groups * capacity];
    __shared__ __align__(16) Value values[groups * capacity];
    for_each_staged_segment<BlockSize, LogicalWave, capacity, BatchedStaging>(
        list, count, keys_in, values_in, keys, values,
        [&](std::uint64_t begin, unsigned int size, unsigned int member, Key* my_keys, Value* my_values) {
            sort_composites<Key, Value, ItemsPerThread>(wave_team<LogicalWave>{member}, my_keys, my_values,
                                                        keys_out + begin, values_out + begin, size, ord);
        });
}

// ---------------------------------------------------------------- block networks

/// The block network's float zeros, when the block saw one: each wavefront's run starts after
/// the keys below zero in the whole block and the zeros of earlier wavefronts; per-wavefront
/// counts go through `wave_counts`. `in` and `size` are this wavefront's striped share.
template <unsigned int Waves, unsigned int Lanes, unsigned int Items, class Key>
HIPFLASHSORT_DEVICE void restore_block_zero_order(const Key* in, unsigned int size, Key* row,
                                                  unsigned int* wave_counts, unsigned int wave, unsigned int member,
                                                  order ord)
{
    std::uint32_t zero, negative;
    unsigned int below;
    note_zeros<Lanes, Items>(in, size, member, ord, zero, negative, below);
    const unsigned int zeros = logical_wave_sum<Lanes>(popcount(zero));
    below = logical_wave_sum<Lanes>(below);
    if(member == 0)
    {
        wave_counts[wave] = zeros;
        wave_counts[Waves + wave] = below;
    }
    syncthreads();
    unsigned int run = 0;
#pragma unroll
    for(unsigned int w = 0; w < Waves; w++) run += wave_counts[Waves + w] + (w < wave ? wave_counts[w] : 0u);
    write_zero_run<Lanes, Items>(row, zero, negative, run, member);
}

/// Segments of up to Waves * 1024 keys of at most 4 bytes, one block each, sorted by a bitonic
/// network on bare images: every wavefront of 32 lanes loads 1024 of them straight into
/// registers (32 per lane, striped) and sorts them (warp_bitonic_sort), then each merge level
/// above 1024 runs its strides of 1024 and more between wavefronts through LDS and its smaller
/// ones inside each wavefront (merge_bitonic). Float zeros are put back in input order, as in
/// sort_images_only.
///
/// Registers are capped at 168 (3 blocks of 4 wavefronts per H100 SM) and 128, which bound the
/// kernel when it staged its input in LDS (206-255 registers uncapped). Loading straight into
/// registers it takes 96-128 under either cap; tighter caps of 128 and 85 (4 and 12 blocks per
/// SM) ran segments of 2048 keys no faster (u32 113 against 116 Gkeys/s, f32 106 against 109).
template <class Key, unsigned int Waves>
__global__ __launch_bounds__(Waves * block_network_lanes, Waves >= 4 ? 3 : 8) void bitonic_block_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, order ord)
{
    static_assert(sizeof(Key) <= 4, "the network sorts 32-bit images");
    static_assert(Waves >= 2, "the first exchange orders the row's reuse across segments");
    constexpr unsigned int lanes = block_network_lanes, items = 32, span = lanes * items, capacity = Waves * span;
    constexpr unsigned int rows = block_network_rows(Waves);
    using codec = radix_key_codec<Key>;
    using slots = swizzled_row<Key, items>;
    __shared__ __align__(16) std::uint32_t row[rows * capacity]; // the exchange rows; the first stages the output
    __shared__ unsigned int wave_counts[2 * Waves]; // zeros, then keys below zero, per wavefront
    const unsigned int wave = threadIdx.x / lanes;
    const unsigned int member = threadIdx.x % lanes;
    const unsigned int first = wave * span + member * items; // this lane's blocked positions
    Key* const sorted = reinterpret_cast<Key*>(row);
    for(unsigned int index = blockIdx.x; index < count; index += gridDim.x)
    {
        const std::uint64_t begin = packed_segment::begin(list[index]);
        const unsigned int size = packed_segment::size(list[index]);
        const Key* const in = keys_in + begin + wave * span;
        const unsigned int share = size > wave * span ? size - wave * span : 0u; // this wavefront's keys
        std::uint32_t images[items];
        load_striped_images<lanes>(in, share, member, ord, images);
        block_network_sort<Waves, lanes, items, rows>(row, images, first);
        bool zeros = false;
        if constexpr(codec::is_float) zeros = syncthreads_or(holds_zero<Key>(images, ord));
        else syncthreads();
        Key keys[items];
        decode_images(images, ord, keys);
        slots::store(sorted, first, keys);
        if constexpr(codec::is_float)
        {
            if(zeros) restore_block_zero_order<Waves, lanes, items>(in, share, sorted, wave_counts, wave, member, ord);
        }
        syncthreads();
        for(unsigned int i = threadIdx.x; i < size; i += Waves * lanes) keys_out[begin + i] = sorted[slots::slot(i)];
    }
}

/// Segments of up to Waves * block_network_lanes * Items keys of at most 4 bytes with values, one
/// block each, staged in LDS and sorted stably by a block network on 32-bit (image bits,
/// position) composites: sort_composites with the block as its team. A wavefront network of
/// 1024 pairs needs 32 items per lane and 168 registers, and ran slower than block_flash_sort.
/// Eight blocks per multiprocessor cap it at 64 registers on NVIDIA, which it took before
/// sort_composites settled ties inside members (80 without the cap; see sort_composites).
/// Each thread loads its keys straight into registers, striped, and the first pass ranks them
/// there (sort_loaded_composites) instead of reading them back from the staged row. H200, 2^26
/// pairs, medians of seven rotated rounds, Gkeys/s: segments of 1000 / 1024 pairs u32+u32 116.1 /
/// 123.1 -> 119.0 / 124.2, f32+u32 107.5 / 114.1 -> 112.9 / 118.0; of 65536 f32+u32 43.5 -> 44.0,
/// u32+u32 unchanged. It takes 61 registers (53 before: eight blocks per multiprocessor instead of
/// nine); capped at nine blocks (56), f32+u32 spilled and ran 1.4-2% slower.
/// FloatWords: the network carries its composites as floats (block_team, polarity_network.hpp),
/// which halves the integer min/max that bind it. Only the user's segments take it: a partition's
/// buckets start anywhere and store through store_skewed, and with that code and the larger
/// network beside it the kernel stalled on instruction fetch. H100, 2^26 pairs, medians of
/// twelve rotated rounds, Gkeys/s, integer network -> float words on segments only: segments of
/// 1000 / 1024 pairs f32+u32 115.3 / 119.6 -> 119.0 / 123.9, u32+u32 123.8 / 128.9 -> 125.9 /
/// 131.7; 256, 16384, 65536 pairs and the power-law mix within -0.2 to +0.3%. On the buckets too
/// (the forty-fifth session's v30), 65536 pairs lost 0.8-2.1%.
template <class Key, class Value, unsigned int Waves, unsigned int Items, bool FloatWords>
__global__
__launch_bounds__(Waves * block_network_lanes, register_cap_blocks(8)) void bitonic_block_pair_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    static_assert(sizeof(Key) <= 4, "composites are built from 32-bit order images");
    static_assert(has_values<Value>, "keys alone go through bitonic_block_segments_kernel");
    constexpr unsigned int rows = block_network_rows(Waves);
    using team_type = block_team<Waves, block_network_lanes, rows, FloatWords>;
    constexpr unsigned int capacity = team_type::size * Items;
    // Aligned for blocked_lds's and swizzled_row's vector accesses.
    __shared__ __align__(16) Key keys[capacity];
    __shared__ __align__(16) Value values[capacity];
    __shared__ __align__(16) std::uint32_t exchanges[rows * capacity];
    __shared__ typename team_type::storage_type team_storage;
    const team_type team{threadIdx.x, exchanges, team_storage};
    for(unsigned int index = blockIdx.x; index < count; index += gridDim.x)
    {
        const std::uint64_t begin = packed_segment::begin(list[index]);
        const unsigned int size = packed_segment::size(list[index]);
        // Keys straight into registers, striped (the network sorts a set, and each composite holds
        // its position), and into the row for the gathers after it; values into their row.
        Key k[Items] = {};
        stage_striped<team_type::size>(keys_in + begin, values_in + begin, keys, values, size, threadIdx.x, k);
        sort_loaded_composites<true>(team, k, keys, values, keys_out + begin, values_out + begin, size, ord,
                                     capacity);
        syncthreads(); // the rows are copied out before the next segment is staged
    }
}

/// The block-level classes' loop: each block sorts listed segments with block_flash_sort in
/// `storage` (static or dynamic LDS).
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
HIPFLASHSORT_DEVICE void flash_sort_listed_segments(
    typename block_flash_sort<Key, Value, BlockSize, Capacity>::storage_type& storage, const std::uint64_t* list,
    unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, order ord)
{
    for(unsigned int index = blockIdx.x; index < count; index += gridDim.x)
    {
        const std::uint64_t begin = packed_segment::begin(list[index]);
        const Value* vin = nullptr;
        Value* vout = nullptr;
        if constexpr(has_values<Value>)
        {
            vin = values_in + begin;
            vout = values_out + begin;
        }
        block_flash_sort<Key, Value, BlockSize, Capacity>().sort(storage, keys_in + begin, keys_out + begin, vin,
                                                                 vout, packed_segment::size(list[index]), ord);
        __syncthreads();
    }
}

/// One block per segment of up to Capacity keys: block_flash_sort.
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize) void flash_sort_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    __shared__ typename block_flash_sort<Key, Value, BlockSize, Capacity>::storage_type storage;
    flash_sort_listed_segments<Key, Value, BlockSize, Capacity>(storage, list, count, keys_in, keys_out, values_in,
                                                                values_out, ord);
}

/// As flash_sort_segments_kernel, with the sorter's storage in dynamic LDS (above the 48 KiB
/// of static shared memory NVIDIA allows without opt-in).
template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
__global__ __launch_bounds__(BlockSize) void flash_sort_segments_dynamic_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    using storage_type = typename block_flash_sort<Key, Value, BlockSize, Capacity>::storage_type;
    extern __shared__ __align__(16) unsigned char dynamic_lds[];
    flash_sort_listed_segments<Key, Value, BlockSize, Capacity>(*reinterpret_cast<storage_type*>(dynamic_lds), list,
                                                                count, keys_in, keys_out, values_in, values_out, ord);
}

} // namespace detail
} // namespace hipflashsort

#endif
