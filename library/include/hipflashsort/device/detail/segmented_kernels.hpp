// Kernels of the segmented flash sort that bin a round's segments by size class and sort the small
// ones where they lie (networks or rank sorts per thread group, block networks and block flash
// sorts per block). The large ones are partitioned by partition_kernels.hpp.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_KERNELS_HPP_

#include <cstdint>

#include "../../block/block_flash_sort.hpp"
#include "../../block/detail/block_primitives.hpp"
#include "../../warp/warp_bitonic_sort.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "segmented_config.hpp"

namespace hipflashsort {
namespace detail {

// ---------------------------------------------------------------- segment sources and binning

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

struct listed_segments
{
    const segment_range* list;
    HIPFLASHSORT_DEVICE segment_range operator()(std::uint64_t i) const { return list[i]; }
};

/// Class limits of one round: class c holds sizes in (limit[c-1], limit[c]]; sizes above the
/// last limit go to the large list.
struct class_limits
{
    std::uint64_t limit[16];
    unsigned int classes;

    HIPFLASHSORT_HOST_DEVICE unsigned int of(std::uint64_t size) const
    {
        unsigned int c = 0;
        while(c < classes && size > limit[c]) c++;
        return c;
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

/// A listed segment of a small class in 8 bytes, begin << 12 | (size - 1): half the list traffic
/// of a 16-byte range (segments of up to 4096 keys, begins below 2^52).
struct packed_segment
{
    static constexpr unsigned int size_bits = 12;
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
/// small[c_offset[c]], the large ones go to `large` as ranges; counts[c] ends as the length of
/// each list. Each region holds every segment its class could get (fixed from the sizes), so one
/// pass bins without counting first.
struct class_lists
{
    std::uint64_t* small;
    segment_range* large;
    std::uint64_t offset[16];
};

/// One pass over the round's segments: segments of one element are copied (when the output is
/// elsewhere), the others listed in their class. The order inside a list does not matter, each
/// segment is sorted on its own. Slots are reserved once per block and class (one global atomic
/// each), not once per segment: per-segment atomics on one counter serialize in L2.
template <class Source, class Key, class Value>
__global__ void bin_segments_kernel(Source source, std::uint64_t segments, class_limits limits, class_lists lists,
                                    unsigned int* counts, const Key* keys_in, Key* keys_out, const Value* values_in,
                                    Value* values_out)
{
    __shared__ unsigned int local[17];
    __shared__ unsigned int base[17];
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    // Block-uniform trip count, so the barriers below are reached by every thread.
    for(std::uint64_t first = blockIdx.x * std::uint64_t(blockDim.x); first < segments; first += stride)
    {
        if(threadIdx.x <= limits.classes) local[threadIdx.x] = 0;
        __syncthreads();
        const std::uint64_t i = first + threadIdx.x;
        segment_range r{0, 0};
        if(i < segments) r = source(i);
        const std::uint64_t size = r.end - r.begin;
        const unsigned int cls = limits.of(size);
        unsigned int rank = 0;
        if(size == 1) copy_single(r, keys_in, keys_out, values_in, values_out);
        if(size > 1) rank = atomicAdd(&local[cls], 1u);
        __syncthreads();
        if(threadIdx.x <= limits.classes && local[threadIdx.x] != 0)
            base[threadIdx.x] = atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
        __syncthreads();
        if(size > 1)
        {
            if(cls < limits.classes) lists.small[lists.offset[cls] + base[cls] + rank] = packed_segment::pack(r);
            else lists.large[base[cls] + rank] = r;
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------- small segments

/// The small classes' loop: the block is cut into groups of Group threads (Group at most a
/// wavefront), and each group takes listed segments of class `cls` in turn, copies one into its LDS
/// slice of Capacity keys (and values) and calls sort(range, size, member, keys, values) on it.
/// A group lives inside one wavefront, so wavefront barriers order its LDS accesses and the
/// wavefronts of a block never wait for each other: one whose segment is still loading does not
/// hold up the others' sorting.
template <unsigned int BlockSize, unsigned int Group, unsigned int Capacity, class Key, class Value, class Sort>
HIPFLASHSORT_DEVICE void for_each_staged_segment(const std::uint64_t* list, unsigned int count, const Key* keys_in,
                                                 const Value* values_in, Key* staged_keys, Value* staged_values,
                                                 Sort sort)
{
    static_assert(Group <= device_wavefront_size(), "a group must not span wavefronts");
    constexpr unsigned int groups = BlockSize / Group;
    const unsigned int group = threadIdx.x / Group;
    const unsigned int member = threadIdx.x % Group;
    Key* keys = staged_keys + group * Capacity;
    Value* values = staged_values + (has_values<Value> ? group * Capacity : 0);
    for(unsigned int first = blockIdx.x * groups; first < count; first += gridDim.x * groups)
    {
        const unsigned int index = first + group;
        const std::uint64_t packed = index < count ? list[index] : 0;
        const std::uint64_t begin = packed_segment::begin(packed);
        const unsigned int size = index < count ? packed_segment::size(packed) : 0;
        for(unsigned int i = member; i < size; i += Group)
        {
            keys[i] = keys_in[begin + i];
            if constexpr(has_values<Value>) values[i] = values_in[begin + i];
        }
        wave_barrier();
        sort(begin, size, member, keys, values);
        wave_barrier();
    }
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

/// Reads lane `member`'s ItemsPerThread consecutive keys of an LDS row in one access when they
/// make an aligned word of 4, 8 or 16 bytes: read one by one, a blocked row puts ItemsPerThread
/// lanes on each bank (4-way conflicts for 4 items, 75% of the network kernel's LDS wavefronts on
/// an H100). `row` must be aligned to that word.
template <class Key, unsigned int ItemsPerThread>
struct blocked_lds
{
    static constexpr unsigned int bytes = sizeof(Key) * ItemsPerThread;
    static constexpr bool vector = bytes == 4 || bytes == 8 || bytes == 16;
    struct alignas(vector ? bytes : alignof(Key)) word
    {
        Key items[ItemsPerThread];
    };

    HIPFLASHSORT_DEVICE static void load(const Key* row, unsigned int member, Key (&items)[ItemsPerThread])
    {
        const word w = reinterpret_cast<const word*>(row)[member];
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) items[j] = w.items[j];
    }

    HIPFLASHSORT_DEVICE static void store(Key* row, unsigned int member, const Key (&items)[ItemsPerThread])
    {
        word w;
#pragma unroll
        for(unsigned int j = 0; j < ItemsPerThread; j++) w.items[j] = items[j];
        reinterpret_cast<word*>(row)[member] = w;
    }
};

/// Copies a sorted LDS row to global memory, consecutive lanes on consecutive keys.
template <unsigned int LogicalWave, class T>
HIPFLASHSORT_DEVICE void copy_striped(const T* row, T* out, unsigned int size, unsigned int member)
{
    for(unsigned int i = member; i < size; i += LogicalWave) out[i] = row[i];
}

/// Puts the zeros of a float segment back in input order: the sorted row holds them as a run
/// (-0 before +0) starting after the keys that sort below zero; the i-th zero of the input is
/// written to the run's i-th slot. `original` is lane `member`'s blocked share of the input.
template <class Key, unsigned int LogicalWave, unsigned int ItemsPerThread>
HIPFLASHSORT_DEVICE void restore_zero_order(const Key (&original)[ItemsPerThread], Key* row, unsigned int size,
                                            unsigned int member, order ord)
{
    using codec = radix_key_codec<Key>;
    const auto zero_image = codec::order_image(Key(0), ord);
    unsigned int below = 0, zeros = 0;
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        if(member * ItemsPerThread + j < size)
        {
            const auto image = codec::order_image(original[j], ord);
            below += image < zero_image;
            zeros += image == zero_image;
        }
    }
    // Sum of `below` and exclusive prefix of `zeros` over the logical wave.
    unsigned int zeros_before = zeros;
#pragma unroll
    for(unsigned int offset = 1; offset < LogicalWave; offset *= 2)
    {
        below += shuffle_xor(below, static_cast<int>(offset), static_cast<int>(LogicalWave));
        const unsigned int other = shuffle_up(zeros_before, offset, static_cast<int>(LogicalWave));
        if(member >= offset) zeros_before += other;
    }
    unsigned int slot = below + zeros_before - zeros;
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        if(member * ItemsPerThread + j < size && codec::order_image(original[j], ord) == zero_image)
            row[slot++] = original[j];
    }
}

/// Keys without values: the network sorts bare 32-bit lossless images, with half the shuffles of
/// an (image, position) composite. Equal images are equal keys, so the unstable network gives
/// the stable result, with one exception: floats' -0 and +0 are equal keys with distinct images,
/// and the network groups them by sign; their run is then rewritten in input order. Padding takes
/// the largest image, which decodes to a real key when it ties.
///
/// The sorted keys go back to the LDS row and leave it in striped order, so that every global
/// store of the wavefront writes consecutive keys.
template <class Key, unsigned int LogicalWave, unsigned int ItemsPerThread>
HIPFLASHSORT_DEVICE void sort_images_only(Key* row, Key* out, unsigned int size, unsigned int member, order ord)
{
    using codec = radix_key_codec<Key>;
    using lds = blocked_lds<Key, ItemsPerThread>;
    Key keys[ItemsPerThread];
    lds::load(row, member, keys);
    std::uint32_t images[ItemsPerThread];
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        const bool real = member * ItemsPerThread + j < size;
        images[j] = real ? std::uint32_t(codec::lossless_image(keys[j], ord)) : ~std::uint32_t(0);
    }
    warp_bitonic_sort<std::uint32_t, LogicalWave, ItemsPerThread>().sort(images);
    Key sorted[ItemsPerThread];
    bool zeros = false;
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        sorted[j] = codec::decode_lossless(static_cast<typename codec::bit_key_type>(images[j]), ord);
        zeros |= codec::is_float && member * ItemsPerThread + j < size && sorted[j] == Key(0);
    }
    wave_barrier(); // every lane has read its items before any is overwritten
    lds::store(row, member, sorted);
    if constexpr(codec::is_float)
    {
        if(ballot(zeros) != 0)
        {
            wave_barrier();
            restore_zero_order<Key, LogicalWave, ItemsPerThread>(keys, row, size, member, ord);
        }
    }
    wave_barrier();
    copy_striped<LogicalWave>(row, out, size, member);
}

/// A row of 32 items per lane, swizzled: lane l's blocked item j lives at l * 32 + (j ^ l % 32).
/// A wavefront storing item j of every lane, and one reading 32 consecutive positions, then
/// touch 32 distinct banks; the plain blocked row puts all 32 lanes on one bank.
struct swizzled_row
{
    HIPFLASHSORT_DEVICE static unsigned int slot(unsigned int position) { return position ^ (position / 32 % 32); }
};

/// Reads a lane's Items keys striped from an LDS row, item j from position first + j * Lanes +
/// member (a network sorts a set, so any assignment will do, and this one has no bank conflicts),
/// as 32-bit lossless images, padding past `size` with the largest. Float zeros are noted here so
/// that the keys need not stay live across the network: bit j of `zero` / `negative` for item j,
/// and `below` counts the keys ordered below zero.
template <unsigned int Lanes, class Key, unsigned int Items>
HIPFLASHSORT_DEVICE void read_striped_images(const Key* row, unsigned int first, unsigned int size,
                                             unsigned int member, order ord, std::uint32_t (&images)[Items],
                                             std::uint32_t& zero, std::uint32_t& negative, unsigned int& below)
{
    using codec = radix_key_codec<Key>;
    const auto zero_image = codec::order_image(Key(0), ord);
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        const unsigned int pos = first + j * Lanes + member;
        const Key key = pos < size ? row[pos] : Key(0);
        images[j] = pos < size ? std::uint32_t(codec::lossless_image(key, ord)) : ~std::uint32_t(0);
        if constexpr(codec::is_float)
        {
            const auto image = codec::order_image(key, ord);
            zero |= std::uint32_t(pos < size && image == zero_image) << j;
            negative |= std::uint32_t((codec::to_bits(key) & codec::sign_bit) != 0) << j;
            below += pos < size && image < zero_image;
        }
    }
}

/// Puts the float zeros noted by read_striped_images back into a sorted swizzled row in input
/// order (position order of the reads: j = 0, 1, ..., lanes in order within each). The network
/// puts -0 before +0; the i-th zero of the input goes to slot `run` + i, where `run` is where this
/// logical wavefront's zeros start (after every key ordered below zero, and after the zeros of
/// earlier wavefronts of a block).
template <unsigned int Lanes, class Key>
HIPFLASHSORT_DEVICE void write_zero_run(Key* row, std::uint32_t zero, std::uint32_t negative, unsigned int run,
                                        unsigned int member)
{
    using codec = radix_key_codec<Key>;
    const unsigned int hardware_lane = lane_id();
    const lane_mask_type lower = (lane_mask_type(1) << member) - 1;
#pragma unroll 1 // unrolled, the 32 ballots doubled the kernel's registers
    for(unsigned int j = 0; j < 32; j++) // one bit of the masks per item
    {
        const bool is_zero = (zero >> j) & 1u;
        const lane_mask_type votes = logical_ballot<Lanes>(is_zero, hardware_lane);
        const Key key = codec::from_bits(((negative >> j) & 1u) ? codec::sign_bit : 0);
        if(is_zero) row[swizzled_row::slot(run + popcount(votes & lower))] = key;
        run += popcount(votes);
    }
}

/// sort_images_only for 32 items per lane. The lane's items are read striped (item j from
/// position j * LogicalWave + member: the network sorts a set, so any assignment will do, and
/// this one has no bank conflicts); the sorted blocked items go to a swizzled row. Float zeros are
/// counted in input order across the striped reads.
template <class Key, unsigned int LogicalWave, unsigned int ItemsPerThread>
HIPFLASHSORT_DEVICE void sort_images_only_wide(Key* row, Key* out, unsigned int size, unsigned int member, order ord)
{
    static_assert(ItemsPerThread == 32, "the swizzle covers rows of 32 items per lane");
    using codec = radix_key_codec<Key>;
    std::uint32_t images[ItemsPerThread];
    std::uint32_t zero = 0, negative = 0;
    unsigned int below = 0;
    read_striped_images<LogicalWave>(row, 0, size, member, ord, images, zero, negative, below);
    warp_bitonic_sort<std::uint32_t, LogicalWave, ItemsPerThread>().sort(images);
    wave_barrier(); // every lane has read its items before any is overwritten
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        row[swizzled_row::slot(member * ItemsPerThread + j)]
            = codec::decode_lossless(static_cast<typename codec::bit_key_type>(images[j]), ord);
    }
    if constexpr(codec::is_float)
    {
        if(ballot(zero != 0) != 0)
        {
            const unsigned int run = logical_wave_sum<LogicalWave>(below);
            wave_barrier();
            write_zero_run<LogicalWave>(row, zero, negative, run, member);
        }
    }
    wave_barrier();
    for(unsigned int i = member; i < size; i += LogicalWave) out[i] = row[swizzled_row::slot(i)];
}

/// Keys with values: the network sorts (image << 32 | position), which is unique, so the result
/// is the stable order; each lane then gathers its sorted keys and values from the row, puts them
/// back in blocked order and the row is copied out striped, as for keys alone.
template <class Key, class Value, unsigned int LogicalWave, unsigned int ItemsPerThread>
HIPFLASHSORT_DEVICE void sort_composites(Key* row_keys, Value* row_values, Key* keys_out, Value* values_out,
                                         unsigned int size, unsigned int member, order ord)
{
    using codec = radix_key_codec<Key>;
    Key keys[ItemsPerThread];
    blocked_lds<Key, ItemsPerThread>::load(row_keys, member, keys);
    std::uint64_t composite[ItemsPerThread];
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        const unsigned int pos = member * ItemsPerThread + j;
        composite[j] = pos < size ? (std::uint64_t(codec::order_image(keys[j], ord)) << 32) | pos : ~std::uint64_t(0);
    }
    warp_bitonic_sort<std::uint64_t, LogicalWave, ItemsPerThread>().sort(composite);
    Value values[ItemsPerThread];
#pragma unroll
    for(unsigned int j = 0; j < ItemsPerThread; j++)
    {
        // Padding (past size) gathers slot 0: any slot will do, it is never copied out.
        const unsigned int from = member * ItemsPerThread + j < size ? static_cast<unsigned int>(composite[j]) : 0u;
        keys[j] = row_keys[from];
        values[j] = row_values[from];
    }
    wave_barrier(); // every lane has gathered before any slot is overwritten
    blocked_lds<Key, ItemsPerThread>::store(row_keys, member, keys);
    blocked_lds<Value, ItemsPerThread>::store(row_values, member, values);
    wave_barrier();
    copy_striped<LogicalWave>(row_keys, keys_out, size, member);
    copy_striped<LogicalWave>(row_values, values_out, size, member);
}

/// Segments up to LogicalWave * ItemsPerThread keys of at most 4 bytes, one logical wavefront
/// each, sorted by a bitonic network in registers and shuffles: O(log^2 m) steps instead of the
/// rank sort's O(m) compares per key.
template <class Key, class Value, unsigned int BlockSize, unsigned int LogicalWave, unsigned int ItemsPerThread>
__global__ __launch_bounds__(BlockSize) void bitonic_sort_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, const Value* values_in,
    Value* values_out, order ord)
{
    static_assert(sizeof(Key) <= 4, "the composite holds a 32-bit image and a 32-bit position");
    constexpr unsigned int capacity = LogicalWave * ItemsPerThread;
    constexpr unsigned int groups = BlockSize / LogicalWave;
    // Aligned for blocked_lds's word reads of a lane's items.
    __shared__ __align__(16) Key keys[groups * capacity];
    __shared__ __align__(16) Value values[has_values<Value> ? groups * capacity : 1];
    for_each_staged_segment<BlockSize, LogicalWave, capacity>(
        list, count, keys_in, values_in, keys, values,
        [&](std::uint64_t begin, unsigned int size, unsigned int member, Key* my_keys, Value* my_values) {
            if constexpr(!has_values<Value>)
            {
                (void)my_values;
                if constexpr(ItemsPerThread >= 32)
                    sort_images_only_wide<Key, LogicalWave, ItemsPerThread>(my_keys, keys_out + begin, size, member, ord);
                else
                    sort_images_only<Key, LogicalWave, ItemsPerThread>(my_keys, keys_out + begin, size, member, ord);
            }
            else
            {
                sort_composites<Key, Value, LogicalWave, ItemsPerThread>(my_keys, my_values, keys_out + begin,
                                                                          values_out + begin, size, member, ord);
            }
        });
}

// ---------------------------------------------------------------- block networks

/// One stage of a block network between wavefronts: position p (this lane's item j at
/// first + j) meets p ^ mask through the swizzled LDS row, and the lower position keeps the
/// smaller image. mask = level - 1 is a level's flip stage, a single bit from 1024 on one of its
/// half-cleaners; either way the partner lies in another wavefront.
template <unsigned int Items>
HIPFLASHSORT_DEVICE void exchange_across_waves(std::uint32_t* row, std::uint32_t (&images)[Items], unsigned int first,
                                               unsigned int mask)
{
    syncthreads(); // the row's previous readers are done
#pragma unroll
    for(unsigned int j = 0; j < Items; j++) row[swizzled_row::slot(first + j)] = images[j];
    syncthreads();
    // The highest bit of the mask tells the lower position from the upper: it is a wavefront bit,
    // the same for all of this lane's items.
    const unsigned int top = 1u << (31 - __clz(static_cast<int>(mask)));
    const bool lower = (first & top) == 0;
#pragma unroll
    for(unsigned int j = 0; j < Items; j++)
    {
        const std::uint32_t partner = row[swizzled_row::slot((first + j) ^ mask)];
        images[j] = lower ? min_of(images[j], partner) : max_of(images[j], partner);
    }
}

/// The block network's float zeros: each wavefront's run starts after the keys below zero in
/// the whole block and the zeros of earlier wavefronts; per-wavefront counts go through
/// `wave_counts`.
template <unsigned int Waves, unsigned int Lanes, class Key>
HIPFLASHSORT_DEVICE void restore_block_zero_order(Key* row, unsigned int* wave_counts, std::uint32_t zero,
                                                  std::uint32_t negative, unsigned int below, unsigned int wave,
                                                  unsigned int member)
{
    const unsigned int zeros = logical_wave_sum<Lanes>(popcount(zero));
    below = logical_wave_sum<Lanes>(below);
    if(member == 0)
    {
        wave_counts[wave] = zeros;
        wave_counts[Waves + wave] = below;
    }
    syncthreads();
    unsigned int run = 0, total = 0;
#pragma unroll
    for(unsigned int w = 0; w < Waves; w++)
    {
        run += wave_counts[Waves + w] + (w < wave ? wave_counts[w] : 0u);
        total += wave_counts[w];
    }
    if(total != 0) write_zero_run<Lanes>(row, zero, negative, run, member); // block-uniform
}

/// Lanes of the block networks' logical wavefronts (a hardware wavefront of 64 holds two); the
/// block of Waves of them has Waves * block_network_lanes threads.
inline constexpr unsigned int block_network_lanes = 32;

/// Segments of up to Waves * 1024 keys of at most 4 bytes, one block each, sorted by a bitonic
/// network on bare images: every wavefront of 32 lanes sorts 1024 of them in registers (32 per
/// lane, warp_bitonic_sort), then each merge level above 1024 runs its strides of 1024 and more
/// between wavefronts through LDS and its smaller ones inside each wavefront (merge_bitonic).
/// Float zeros are put back in input order, as in sort_images_only_wide.
///
/// Registers are capped at 168 (3 blocks of 4 wavefronts per H100 SM) and 128: uncapped, the
/// 4096-key kernel took 206-255 and ran u32 at 96 Gkeys/s against 98 capped (f32 78 against
/// 74); a cap of 128 spills and gives 66.
template <class Key, unsigned int Waves>
__global__ __launch_bounds__(Waves * block_network_lanes, Waves >= 4 ? 3 : 8) void bitonic_block_segments_kernel(
    const std::uint64_t* list, unsigned int count, const Key* keys_in, Key* keys_out, order ord)
{
    static_assert(sizeof(Key) <= 4, "the network sorts 32-bit images");
    constexpr unsigned int lanes = block_network_lanes, items = 32, span = lanes * items, capacity = Waves * span;
    using codec = radix_key_codec<Key>;
    using network = warp_bitonic_sort<std::uint32_t, lanes, items>;
    __shared__ __align__(16) std::uint32_t row[capacity];
    __shared__ unsigned int wave_counts[2 * Waves]; // zeros, then keys below zero, per wavefront
    const unsigned int wave = threadIdx.x / lanes;
    const unsigned int member = threadIdx.x % lanes;
    const unsigned int first = wave * span + member * items; // this lane's blocked positions
    Key* const staged = reinterpret_cast<Key*>(row);
    for(unsigned int index = blockIdx.x; index < count; index += gridDim.x)
    {
        const std::uint64_t begin = packed_segment::begin(list[index]);
        const unsigned int size = packed_segment::size(list[index]);
        syncthreads(); // the previous segment's copy-out is done
        for(unsigned int i = threadIdx.x; i < size; i += Waves * lanes) staged[i] = keys_in[begin + i];
        syncthreads();
        std::uint32_t images[items];
        std::uint32_t zero = 0, negative = 0;
        unsigned int below = 0;
        read_striped_images<lanes>(staged, wave * span, size, member, ord, images, zero, negative, below);
        network().sort(images);
#pragma unroll
        for(unsigned int level = 2 * span; level <= capacity; level *= 2)
        {
            exchange_across_waves(row, images, first, level - 1);
#pragma unroll
            for(unsigned int stride = level / 4; stride >= span; stride /= 2)
                exchange_across_waves(row, images, first, stride);
            network().merge_bitonic(images);
        }
        syncthreads();
#pragma unroll
        for(unsigned int j = 0; j < items; j++)
            staged[swizzled_row::slot(first + j)] = codec::decode_lossless(typename codec::bit_key_type(images[j]), ord);
        if constexpr(codec::is_float)
            restore_block_zero_order<Waves, lanes>(staged, wave_counts, zero, negative, below, wave, member);
        syncthreads();
        for(unsigned int i = threadIdx.x; i < size; i += Waves * lanes) keys_out[begin + i] = staged[swizzled_row::slot(i)];
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
