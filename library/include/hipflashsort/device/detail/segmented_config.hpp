// Tuning of the segmented / device flash sort: plain constexpr values, chosen per key and value
// size in this one place.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_CONFIG_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_CONFIG_HPP_

#include <cstdint>
#include <type_traits>

#include "../../block/block_flash_sort.hpp"
#include "../../detail/empty_type.hpp"
#include "flash_network_kernels.hpp"

namespace hipflashsort {
namespace detail {

// Static LDS of one block stays under 48 KiB, the limit without opt-in on NVIDIA and under the
// 64 KiB of gfx9 LDS.
constexpr unsigned int lds_budget = 46 * 1024;

template <class Key, class Value, unsigned int BlockSize, unsigned int Capacity>
constexpr unsigned int largest_flash_capacity()
{
    if constexpr(Capacity <= BlockSize)
    {
        return Capacity;
    }
    else if constexpr(sizeof(typename block_flash_sort<Key, Value, BlockSize, Capacity>::storage_type) <= lds_budget)
    {
        return Capacity;
    }
    else
    {
        return largest_flash_capacity<Key, Value, BlockSize, Capacity / 2>();
    }
}

/// How many of `values` are at most `limit`.
template <unsigned int N>
constexpr unsigned int count_at_most(const unsigned int (&values)[N], unsigned int limit)
{
    unsigned int n = 0;
    for(const unsigned int v : values) n += v <= limit;
    return n;
}

template <class Key, class Value>
struct segmented_config
{
    static constexpr unsigned int item_bytes = sizeof(Key) + (has_values<Value> ? sizeof(Value) : 0);

    // Size classes. Segments up to rank_capacity[i] are sorted by a group of threads inside one
    // wavefront (several groups per block): a bitonic network for keys of up to 4 bytes, else a
    // rank sort by rank_group[i] threads; up to block_network_capacity(i) by one block's bitonic
    // network; up to flash_capacity(i) by one block of flash_block(i) threads with
    // block_flash_sort; then the dynamic-LDS classes (dynamic flash, flash network); larger ones
    // are partitioned by many blocks.
    // Neighbouring capacities differ by 2x, so throughput has no cliff inside a family of classes.
    //
    // Keys of up to 4 bytes use networks: on bare images without values, up to 1024 keys (one
    // wavefront of 32 lanes x 32 items); on 32-bit (image bits, position) composites with values,
    // up to 512. Wider keys keep the rank sort up to 128 (the composite holds a 32-bit image).
    // Measured on an H100 (2^26 keys, Gkeys/s): 64 and 112 keys 45 and 24 rank-sorted (e9144a6);
    // 16-key u32 112 rank-sorted, 174 with networks; pairs of 16 and 32 keys 60 and 64
    // rank-sorted, 101 with networks. Block flash against networks (1c59c08 + this change):
    // u32 256 / 512 / 1024 keys 41 / 48 / 50 against 221 / 198 / 149, f32 1024 keys 42 against
    // 109. Pairs (u32+u32) on 32-bit composites: 512 keys 116 against 47 block-flash-sorted;
    // 1024 keys 43 against 46, at 168 registers and 12 wavefronts per SM, so pairs stop at 512
    // (a block network class takes them on to 1024).
    static constexpr bool networks = sizeof(Key) <= 4;
    // 8-byte keys alone take wavefront networks too, on 64-bit images, up to 512 keys (16 items
    // of 8 bytes fill swizzled_row's 128-byte lane share); with values they keep the rank sort.
    // H200, 2^27 u64 keys, medians of three rotated rounds, Gkeys/s, rank sorts up to 128 and
    // block flash sorts from 256 -> networks up to 512: exponential 14.89 -> 22.18, zipf 13.93
    // -> 20.08 (its 128 class took 4.8 of 9.6 ms, ncu), reduced-entropy 7.44 -> 8.16; uniform,
    // normal and f64 uniform within 0.2%.
    static constexpr bool wide_networks = sizeof(Key) == 8 && !has_values<Value>;
    static constexpr bool wave_networks = networks || wide_networks;
    static constexpr unsigned int network_classes = has_values<Value> || wide_networks ? 6 : 7;
    static constexpr unsigned int rank_classes = wave_networks ? network_classes : 4;
    static constexpr unsigned int rank_capacity[7] = {16, 32, 64, 128, 256, 512, 1024};
    static constexpr unsigned int rank_group[4] = {4, 8, 16, 32};
    static constexpr unsigned int rank_block = 256;
    // Items per thread of each network class (its logical wavefront is capacity / items). More
    // items per lane move stages from shuffles into registers, fewer leave more segments per
    // wavefront; u32 keys on an H100, Gkeys/s with 4 / 8 / 16 items: 16 keys 190 / 147 / -,
    // 32 keys 185 / 131 / -, 64 keys 169 / 183 / -, 112 keys 164 / 164 / 168; pairs of 64 keys
    // 81 / 93 / - on 64-bit composites at 36f6034 (2^26 keys, CUB DeviceSegmentedSort 208, 66,
    // 111, 168; 68 for 64-key pairs).
    // From 256 keys on the logical wavefront is 16 or 32 lanes, and 1024 keys take 32 items.
    // Pairs take fewer items per lane from 64 to 256 (4, 8, 8 against 8, 16, 16): their
    // composite networks hold keys, values and positions, and a wider logical wavefront spreads
    // them. u32+u32 segments, Gkeys/s (H100, 2^26 pairs, one run): 64 / 65 / 112 / 128 / 200 /
    // 256 pairs 137.5 / 78.3 / 108.9 / 121.5 / 110.8 / 138.5 -> 147.7 / 90.4 / 125.8 / 155.2 /
    // 115.6 / 153.2; 8 items at 128 alone gave 112 pairs 124.7, 4 items there 97.1.
    static constexpr unsigned int network_items[7]
        = {4, 4, has_values<Value> ? 4u : 8u, has_values<Value> ? 8u : 16u, has_values<Value> ? 8u : 16u, 16, 32};
    // Keys alone of up to 4 bytes in the first class (up to 16 keys) are sorted one segment per
    // thread instead (thread_sort_key_segments_kernel: Batcher's odd-even merge sort in
    // registers, 63 compare-exchanges, no lanes on padding, no shuffles in the network). H100,
    // 2^26 keys, medians of five rotated rounds, Gkeys/s, 4 lanes x 4 items -> one thread: f32
    // segments of 4 / 8 / 12 / 16 keys 90.9 / 168.0 / 210.4 / 250.0 -> 119.0 / 194.3 / 213.4 /
    // 254.2, u32 115.0 / 184.4 / 214.9 / 253.5 -> 144.0 / 212.4 / 222.5 / 258.9; 17-64 keys and
    // the power-law mixes within 0.4%. Segments of 17-32 keys keep the wavefront networks: one
    // thread's network of 24 or 32 costs more than the lanes' (a probe of the kernels alone,
    // f32 segments of 17 / 24 / 32 keys: 157.7 / 204.1 / 226.2 Gkeys/s one per thread, against
    // 174.5 / 228.0 / 272.5 end to end for the library's wavefront class).
    static constexpr bool thread_network_class(unsigned int c)
    {
        return networks && !has_values<Value> && rank_capacity[c] <= 16;
    }
    static constexpr unsigned int thread_network_block = 128;
    // Pairs' network classes stage each segment in LDS before their network: in a loop of
    // load-store pairs, or with every load of a lane issued before its first store
    // (stage_segment) where that ran faster. u32+u32 / f32+u32 segments, H100, 2^26 pairs,
    // Gkeys/s, medians of three rounds, loop against batched: 16 pairs 140.2 / 137.7 against
    // 139.7 / 135.4, 32 142.1 / 143.1 against 139.8 / 141.3, 64 156.4 / 155.4 against 156.4 /
    // 155.4, 112 (the 128 class) 126.9 / 123.5 against 138.3 / 139.5, 113 112.7 / 111.8 against
    // 124.7 / 125.0, 256 157.5 / 149.6 against 150.0 / 143.5, 512 134.5 / 112.5 against 128.4 /
    // 113.5.
    static constexpr bool network_batched_staging[7] = {false, false, false, true, false, false, false};
    // A network class's block stages BlockSize * items keys and values in LDS: 256 threads,
    // halved while that passes 23 KiB (16-byte values), so that several blocks share a
    // multiprocessor and the static LDS stays far below its 48 KiB limit.
    static constexpr unsigned int network_block(unsigned int c)
    {
        unsigned int block = 256;
        while(block > rank_capacity[c] / network_items[c] && block * network_items[c] * item_bytes > 23 * 1024)
            block /= 2;
        return block;
    }

    // Block network classes (keys of up to 4 bytes): one block of block_network_waves[i] logical
    // wavefronts of 32 lanes sorts a segment with one bitonic network, block_network_items per
    // lane, strides within a wavefront in registers and shuffles, larger ones through LDS.
    // - Keys alone (bitonic_block_segments_kernel): 1024 keys per wavefront, 2048 and 4096 per
    //   block. They replace the block flash classes there: u32 segments of 2048 / 4096 keys 58 /
    //   57 Gkeys/s block-flash-sorted, 121 / 98 with the networks; f32 93 / 74 (H100, 2^26
    //   keys). At 1024 keys one wavefront of 32 items stays faster than a block: u32 153
    //   against 141 (2 wavefronts of 16 items) and 135 (4 of 8).
    // - Pairs (bitonic_block_pair_segments_kernel, sort_composites on 32-bit composites): 1024
    //   per block of 4 wavefronts of 8 items. u32+u32 segments of 1000 / 1024 pairs 44.8 / 48.6
    //   block-flash-sorted, 75.8 / 83.9 so (2 wavefronts of 16 items: 74.7 / 81.2, at 123
    //   registers against 96); 2048 pairs on 4 wavefronts of 16 items ran at 36 against 55
    //   block-flash-sorted, so pairs stop at 1024.
    static constexpr unsigned int block_network_classes = !networks ? 0 : has_values<Value> ? 1 : 2;
    static constexpr unsigned int block_network_waves[2] = {has_values<Value> ? 4u : 2u, 4};
    static constexpr unsigned int block_network_items = has_values<Value> ? 8 : 32;
    static constexpr unsigned int block_network_capacity(unsigned int c)
    {
        return block_network_waves[c] * block_network_lanes * block_network_items;
    }
    static constexpr unsigned int wave_and_network_top
        = block_network_classes ? block_network_capacity(block_network_classes - 1) : rank_capacity[rank_classes - 1];

    // Block flash classes: the capacities above the last network or rank class, up to the
    // largest whose storage fits the static LDS budget.
    static constexpr unsigned int flash_all[4] = {256, 512, 1024, 2048};
    static constexpr unsigned int flash_blocks[4] = {64, 128, 256, 256};
    static constexpr unsigned int flash_top = largest_flash_capacity<Key, Value, 256, 2048>();
    static constexpr unsigned int flash_count = flash_top >= 2048 ? 4 : flash_top >= 1024 ? 3 : 2;
    static constexpr unsigned int flash_first = count_at_most(flash_all, wave_and_network_top);
    static constexpr unsigned int flash_classes = flash_count > flash_first ? flash_count - flash_first : 0;
    static constexpr unsigned int flash_capacity(unsigned int c) { return flash_all[flash_first + c]; }
    static constexpr unsigned int flash_block(unsigned int c) { return flash_blocks[flash_first + c]; }

    // Dynamic flash classes: flash classes of twice (and, for keys wider than 4 bytes, four
    // times) the largest static capacity, in dynamic LDS up to dynamic_lds_limit(): 63 KiB on gfx9
    // (64 KiB per workgroup), 99 KiB on NVIDIA, where a GPU that refuses the opt-in sends these
    // segments to the next class that takes them, or to the partition. Each exists where its
    // storage fits.
    // - Twice: u32 segments of 4096 keys 21 Gkeys/s through the multi-block partition, 52 with
    //   this class (H100, 2^26 keys; CUB DeviceSegmentedSort: 46); u32+u32 pairs of 4096 (76 KiB):
    //   21 against 45. Pairs of keys of up to 4 bytes and items of up to 8 bytes take 512 threads
    //   where their storage fits (75 KiB for u32+u32 on NVIDIA): segments of 2500 / 3000 / 4096
    //   u32+u32 pairs 40.4 / 40.5 / 44.5 -> 42.3 / 44.2 / 48.5 Gkeys/s (H100, 2^26 keys, one run).
    //   Wider keys keep 256: 512 threads cost u64 segments of 1500 / 2048 keys 37.9 / 44.7 ->
    //   26.9 / 31.6 and u64 2^27 12.7 -> 11.5.
    // - Four times: keys wider than 4 bytes have no network classes (and no flash network class),
    //   so their largest small class was 2048 (u64, 47 KiB); 4096 u64 keys take 95 KiB with 256
    //   threads. H100, median of 31, Gkeys/s, 2048 against 4096 as the only dynamic class: u64
    //   segments of 1500 / 2048 / 3000 / 4096 keys 38.0 / 44.9 / 9.0 / 14.4 against 29.5 / 34.8 /
    //   36.3 / 41.4 (2^26 keys), hence both. Both against 2048 alone: u64 sorts of 2^20 / 2^27
    //   keys 5.0 / 12.8 -> 9.3 / 15.0 (one partition round instead of two at 2^20), segments of
    //   3000 / 4096 keys 8.9 / 14.7 -> 36.5 / 41.4.
    static constexpr unsigned int max_dynamic_flash_classes = 2; // twice and four times
    static constexpr unsigned int dynamic_flash_base = flash_classes ? flash_capacity(flash_classes - 1) : 2048;
    static constexpr unsigned int dynamic_flash_capacity(unsigned int d) { return dynamic_flash_base << (d + 1); }
    template <unsigned int Capacity, unsigned int BlockSize>
    static constexpr unsigned int block_flash_bytes()
    {
        return sizeof(typename block_flash_sort<Key, Value, BlockSize, Capacity>::storage_type);
    }
    template <unsigned int Capacity>
    static constexpr unsigned int pick_dynamic_flash_block()
    {
        if constexpr(networks && has_values<Value> && item_bytes <= 8)
        {
            if constexpr(block_flash_bytes<Capacity, 512>() <= dynamic_lds_limit()) return 512;
        }
        return 256;
    }
    template <unsigned int D>
    struct dynamic_flash
    {
        static constexpr unsigned int capacity = dynamic_flash_capacity(D);
        static constexpr unsigned int block = pick_dynamic_flash_block<capacity>();
        static constexpr unsigned int lds = block_flash_bytes<capacity, block>();
        static constexpr bool fits = capacity > wave_and_network_top && lds <= dynamic_lds_limit();
    };
    static constexpr unsigned int count_dynamic_flash_classes()
    {
        if constexpr(!dynamic_flash<0>::fits)
            return 0;
        else if constexpr(networks)
            return 1;
        else
            return dynamic_flash<1>::fits ? 2 : 1;
    }
    static constexpr unsigned int dynamic_flash_classes = count_dynamic_flash_classes();
    static_assert(dynamic_flash_classes <= max_dynamic_flash_classes, "the runner holds one kernel per class");
    /// Largest capacity of the dynamic flash classes, or of the classes below them.
    static constexpr unsigned int dynamic_flash_top
        = dynamic_flash_classes                 ? dynamic_flash_capacity(dynamic_flash_classes - 1)
          : flash_classes ? flash_capacity(flash_classes - 1) : wave_and_network_top;

    // Keys of up to 4 bytes take the flash network class last, in dynamic LDS: one block of 512
    // threads cuts a segment into buckets of about 20 keys (pairs: 192) and sorts them with
    // wavefront networks, on bare images for keys alone (flash_network_sort), on (image bits,
    // position) composites with values (flash_network_pair_sort, which stages 16-bit input
    // positions in place of the values). Its capacity is the largest of 16384, 8192, ... whose
    // storage fits dynamic_lds_limit(): keys alone 16384 (8192 on gfx9), pairs of 4-byte keys
    // 16384 whatever the value size (8192 on gfx9).
    // Pairs staged with their values in LDS, stable ranks per wavefront, held 8192 u32+u32 pairs
    // and ran at 37-38 Gkeys/s; with positions instead (H100, 2^26 pairs, medians of three
    // rounds, Gkeys/s) u32+u32 segments of 8192 / 12000 / 16384 pairs 37.8 / 35.1 / 37.0 (the
    // last two through the partition) -> 55.4 / 57.4 / 58.9, f32+u32 37.2 / 32.7 / 35.2 -> 51.1 /
    // 51.9 / 51.8; u32+u32 device sorts of 2^22 / 2^28 pairs 11.3 / 13.0 -> 13.2 / 13.5.
    // For keys alone it follows the block networks. Pairs keep their block flash classes (1025 to
    // 4096, above their block network) below it: a 512-thread block spends a fixed share of its
    // time per segment (min/max, ranking, scans, a dozen barriers), and on an H100 (2^26 keys,
    // u32+u32, Gkeys/s) segments of 1000 / 2048 / 4096 pairs ran at 21 / 28 / 34 in this class
    // against 44 / 54 / 46 block-flash-sorted, 8192 at 36 against 33 through the partition, and
    // 2^28 pairs whose partition's last round aims at this class at 13.1 against 11.0.
    static constexpr unsigned int flash_network_block = 512;
    template <unsigned int Capacity>
    static constexpr unsigned int flash_network_bytes()
    {
        if constexpr(!networks)
            return 0;
        else if constexpr(has_values<Value>)
            return sizeof(typename flash_network_pair_sort<Key, Value, flash_network_block, Capacity>::storage_type);
        else
        {
            using sorter = flash_network_sort<Key, flash_network_block, Capacity>;
            return sorter::lds_bytes(sorter::full_slots);
        }
    }
    template <unsigned int Capacity = 16384>
    static constexpr unsigned int fitting_flash_network_capacity()
    {
        if constexpr(Capacity <= 1024 || flash_network_bytes<Capacity>() <= dynamic_lds_limit())
            return Capacity;
        else
            return fitting_flash_network_capacity<Capacity / 2>();
    }
    static constexpr unsigned int flash_network_capacity = fitting_flash_network_capacity();
    static constexpr unsigned int flash_network_lds = flash_network_bytes<flash_network_capacity>();
    static constexpr bool has_flash_network =
        networks
        && flash_network_capacity > dynamic_flash_top;

    // Keys alone of up to 4 bytes take the small flash network class between the block networks
    // and the flash network class, where that class holds more than small_flash_network_capacity
    // (NVIDIA): the same sorter with a block of 256 threads on a capacity of 8192 (49 KiB of
    // dynamic LDS for u32, 51.5 KiB for f32), so that four blocks share a multiprocessor (three
    // for f32, at 79 registers on sm_90) and a segment of 4097-8192 keys spends less of its
    // block's time on fixed costs (scans, barriers).
    // H200, a probe of the kernels alone (data/session67_probe_4096.cu, 2^26 keys, one block per
    // segment, medians of 15), Gkeys/s, 512 threads on 16384 -> this class: u32 uniform segments
    // of 4097 / 6000 / 8192 keys 109.5 / 126.6 / 157.0 -> 153.7 / 168.0 / 192.1, f32 uniform 97.5
    // / 111.9 / 141.4 -> 129.5 / 137.7 / 166.7, u32 normal 6000 / 8192 94.0 / 110.7 -> 119.0 /
    // 130.7, f32 normal (about zero) 76.5 / 92.9 -> 86.3 / 103.9. End to end (sixty-eighth
    // session, call 1, four rotated rounds against 8d244d1, the class launched whatever its
    // count): u32 segments of 4097 / 6000 / 8192 keys 106.30 / 122.71 / 150.59 -> 143.86 /
    // 155.89 / 175.33, f32 96.03 / 110.37 / 136.81 -> 123.60 / 132.02 / 154.58, f32 normal 8192
    // 92.38 -> 100.35. Lone segments (the device sort of 4097-8192 keys: one block's latency) and
    // a partition's buckets keep the 512 threads. With the buckets too (the same call), device
    // sorts of 2^28 keys read 0.1-0.6% slower on 17 of their 22 u32 and f32 distributions (u32
    // zipf +0.8%; without the buckets all 22 within -0.1 / +0.3%), and those of 2^16-2^20 u32
    // keys 1.62 / 5.88 / 17.65 -> 1.48 / 5.62 / 17.34 Gkeys/s, though f32 and i32 there read
    // 0.5-2.3% faster: no gain to take.
    static constexpr unsigned int small_flash_network_block = 256;
    static constexpr unsigned int small_flash_network_capacity = 8192;
    using small_flash_network_sorter = flash_network_sort<Key, small_flash_network_block, small_flash_network_capacity>;
    static constexpr unsigned int small_flash_network_lds()
    {
        if constexpr(networks && !has_values<Value>)
            return small_flash_network_sorter::lds_bytes(small_flash_network_sorter::full_slots);
        else
            return 0;
    }
    static constexpr bool has_small_flash_network = has_flash_network && !has_values<Value>
                                                    && small_flash_network_capacity > dynamic_flash_top
                                                    && small_flash_network_capacity < flash_network_capacity
                                                    && small_flash_network_lds() <= dynamic_lds_limit();

    // Keys alone of up to 4 bytes take the wide flash network class above the flash network
    // class, up to wide_flash_network_capacity keys (fewer where its windows do not take that
    // many: the runner's wide[0].limit): flash_network_sort by one block of 512 threads, two per
    // multiprocessor, each with half its LDS (113 KiB on an H100, a row of about 27800 4-byte
    // keys), in windows of buckets where the row is short of the segment's rows, each window
    // reading the segment again (from L2 mostly). Its segments are large ones: it takes them
    // before the partition, which gets those it defers.
    // H100, 2^26 keys, Gkeys/s, scratch driver, two runs each:
    // - at beac043 (capacity 24576) segments of 16385 / 20000 / 24576 keys went from the
    //   partition to this class: u32 57.0 / 55.6 / 58.7 -> 75.9-76.7 / 76.3-77.9 / 76.4-77.6,
    //   f32 50.9 / 54.2 / 56.1 -> 65.8-66.3 / 66.6-67.3 / 56.2-56.8; larger capacities then ran
    //   slower than the partition (65536 keys in three windows at 43.7 against 56-58).
    // - Since flash_network_sort issues its loads in batches (7b2b927), rereading costs less:
    //   capacity 65536, segments of 24577 / 32768 / 40000 / 65536 keys, partition -> this
    //   class: u32 57.4-58.9 / 58.4-59.9 / 58.8-60.8 / 58.2-58.8 -> 79.5-80.2 / 72.6-73.4 /
    //   71.8-72.2 / 62.3-62.8, f32 53.1-55.8 / 56.5-56.9 / 53.6-56.0 / 52.7-54.2 -> 68.3-68.7 /
    //   73.2-73.4 / 71.3-71.7 / 54.7-55.2 (four windows: the float zero masks shorten the row);
    //   50000 keys (three windows) 59.7-59.8 and 59.1-59.2. One block of 1024 threads per
    //   multiprocessor with all of its LDS ran 24577 keys at 58.5-59.1 (u32) and 63.4 (f32),
    //   65536 at 62.2-62.8 and 66.3.
    static constexpr bool has_wide_flash_network = has_flash_network && !has_values<Value>;
    static constexpr unsigned int wide_flash_network_block = 512;
    static constexpr unsigned int wide_flash_network_capacity = 65536;
    using wide_flash_network_sorter
        = flash_network_sort<Key, wide_flash_network_block, wide_flash_network_capacity, true>;
    // The full wide class: segments above the wide class's expected one-window size (about 24700
    // 4-byte keys on an H100) go to one block of 1024 threads per multiprocessor with all of its LDS
    // (a row of 56960 keys on an H100: 65536 in two windows, and 132 resident segments of 256 KiB
    // stay in the 50 MB L2, where 264 of the wide class's do not). H100, 2^26 keys, Gkeys/s,
    // experiment on 42998c9 (tool, two runs), wide class -> this class alone: u32 24577 / 32768 /
    // 40000 / 49152 / 65536 89.8-88.9 / 80.1-82.0 / 79.2-79.3 / 73.7 / 67.5-68.9 -> 69.4-72.1 /
    // 84.3-84.7 / 81.9-82.9 / 80.8-82.5 / 75.2-76.1; f32 81.3-81.4 / 74.9-75.1 / 73.0-73.7 /
    // 66.9-67.8 / 63.4-64.3 -> 59.4-62.9 / 75.7-76.7 / 75.8-77.5 / 73.8-75.2 / 68.3-70.2. Hence
    // two classes, split where the wide class was expected to need a second window (an estimate
    // for the padded rows of then). Split at the bound largest_windowed(row, 1) of then instead
    // (23033 u32 keys, 19506 f32 ones, the masks counted), 24577 u32 keys and 20000 / 24577 f32
    // ones went to this class: 71.5 / 61.8 / 65.8 Gkeys/s (one run of 67d78b0), against 89.6 / 82 / 81 on the wide
    // class at 42998c9.
    // Since the rows are tight (buckets of about 20 keys, no padding), a zero-free segment takes
    // one window up to the whole row (zero_free_one_window, about 22270 4-byte keys on an H200).
    // H200, 2^26 keys, three rotated rounds, fifty-ninth session, Gkeys/s, split there / at two
    // windows / none (every segment above 16385 keys in this class): u32 20000 147.5 / 148.1 /
    // 114.7, 24577 113.5 / 121.4 / 113.8, 32768 133.7 / 132.6 / 134.0, power-law mix 74.3 / 72.3 /
    // 76.0; f32 24577 105.9 / 117.0 / 106.1, power-law 71.0 / 69.6 / 72.1. No split wins
    // everywhere; the one-window split is kept.
    static constexpr unsigned int wide_full_flash_network_block = 1024;
    using wide_full_flash_network_sorter
        = flash_network_sort<Key, wide_full_flash_network_block, wide_flash_network_capacity, true>;

    static constexpr unsigned int static_classes = rank_classes + block_network_classes + flash_classes;
    static constexpr unsigned int first_dynamic_flash_class = static_classes;
    static constexpr unsigned int small_flash_network_class // when has_small_flash_network
        = static_classes + dynamic_flash_classes;
    static constexpr unsigned int flash_network_class // when has_flash_network
        = small_flash_network_class + (has_small_flash_network ? 1 : 0);
    static constexpr unsigned int classes = flash_network_class + (has_flash_network ? 1 : 0);
    static_assert(!has_flash_network || flash_network_capacity <= 16384, "listed sizes in 14 bits");

    /// Largest segment of class c (the dynamic classes' when they are enabled).
    static constexpr unsigned int class_limit(unsigned int c)
    {
        return c < rank_classes                           ? rank_capacity[c]
               : c < rank_classes + block_network_classes ? block_network_capacity(c - rank_classes)
               : c < static_classes         ? flash_capacity(c - rank_classes - block_network_classes)
               : c == flash_network_class   ? flash_network_capacity
               : has_small_flash_network && c == small_flash_network_class ? small_flash_network_capacity
                                            : dynamic_flash_capacity(c - static_classes);
    }
    /// Smallest segment that class c may list: one above the class below, or, for a class in
    /// dynamic LDS, one above the classes in static LDS, as every dynamic class below it may be
    /// refused or left out and pass its sizes on (segmented_runner::limits).
    static constexpr unsigned int smallest_listed(unsigned int c)
    {
        return c == 0 ? 1u : class_limit((c < static_classes ? c : static_classes) - 1) + 1;
    }
    /// Largest segment of the classes in static LDS.
    static constexpr unsigned int largest_static = class_limit(static_classes - 1);
    static_assert(largest_static <= 16384 && classes <= 16, "listed sizes in 14 bits, class counters");
    static constexpr unsigned int large_class = classes; // index of the "partition" list

    // Keys alone of 4-byte integers with 2049-4096 keys, where the small flash network class
    // exists (NVIDIA): the user's segments of a call with several are sorted by flash_network_sort
    // with 128 threads on a capacity of 4096 instead of the 4-wavefront block network, which hands
    // a segment with a bucket too large on to the partition (whose list then holds segments from
    // 2049 keys). H200, a probe of the kernels alone (data/session67_probe_4096.cu, 2^26 keys,
    // medians of 15), Gkeys/s, the network -> this sorter: u32 uniform segments of 2049 / 3000 /
    // 4096 keys 69.2 / 98.0 / 130.9 -> 156.5 / 167.3 / 195.1, u32 normal 3000 / 4096 98.5 / 131.0
    // -> 109.4 / 130.5. End to end at 1a71eeb (every such segment, floats too): u32 segments of
    // 4096 128.01 -> 185.11, f32 124.45 -> 161.36, but f32 normal 124.02 -> 82.43 (a range that
    // holds zero), lone device sorts of 4096 keys -27 to -31% (one block's latency), and device
    // sorts whose buckets land there -2 to -9% (u32 2^18-2^20, 2^28 reduced-entropy); hence
    // integers, and neither lone segments nor buckets.
    static constexpr bool flash_sorts_integer_4096 = has_small_flash_network && sizeof(Key) == 4
                                                     && !std::is_floating_point<Key>::value
                                                     && block_network_classes == 2;
    static constexpr unsigned int integer_4096_block = 128;
    /// Smallest segment that can reach the partition's list: above the classes in static LDS, or
    /// above the first block network class where flash_sorts_integer_4096 (which hands segments on).
    static constexpr unsigned int smallest_large
        = flash_sorts_integer_4096 ? block_network_capacity(0) + 1 : largest_static + 1;

    // Grids of the small classes' kernels (and the binning's). Their blocks loop over the class's
    // list, so a grid may be smaller than the list, and is capped: at grid_blocks_per_sm blocks
    // per multiprocessor where a block takes several segments a turn (the wavefront classes), at
    // segment_grid_blocks_per_sm where it takes one (the block classes), so that nearly every
    // such segment gets a block of its own and the hardware keeps the multiprocessors evenly
    // busy to the end. H100, 2^26 u32 keys, Gkeys/s, one cap for all classes of 8 (before) / 16 /
    // 32 / 128 blocks per multiprocessor, two runs each: segments of 256 keys 238 / 244 / 244 /
    // 229-232, of 1000 165-166 / 173 / 173-178 / 179, of 1024 171 / 177-178 / 181-183 / 182-184,
    // of 2048 128-129 / 136-137 / 140-142 / 145-146, of 4096 111-114 / 119-120 / 121-122 /
    // 124-125, of 16384 93-101 / 98 / 97-98 / 98, of 65536 58 / 57-58 / 59 / 56-57. The block
    // classes went on from 128 to 512, a block per segment for 2^26 keys in segments of 1000:
    // H200, 2^26 pairs, medians of 6 rotated rounds, 128 / 256 / 512: u32+u32 segments of 1000
    // 128.39 / 130.96 / 132.40, of 1024 134.38 / 136.85 / 137.92, of 65536 (the buckets' class)
    // 46.42 / 46.78 / 46.93; f32+u32 1000 121.48 / 123.03 / 122.29, 1024 126.66 / 128.75 /
    // 127.61; keys and other sizes within 0.5%.
    // The flash network class keeps 8: two of its blocks fit a multiprocessor, and each sorts a
    // segment of up to 16384 keys in several bucket rounds (2^26 u32 keys in segments of 16384:
    // 101.5-101.9 Gkeys/s with 8, 98.9 with 128; benchmark runs on an H100).
    static constexpr unsigned int grid_blocks_per_sm = 32;
    static constexpr unsigned int segment_grid_blocks_per_sm = 512;
    static constexpr unsigned int flash_network_blocks_per_sm = 8;
    // The small flash network class: up to four blocks resident per multiprocessor, its grid four
    // times that, as the class above. A call that lists fewer of its segments than about one wave
    // of its blocks (small_flash_network_min_per_sm per multiprocessor) sorts them with the flash network
    // class's kernel instead: by our reading a launch of their own adds one block's latency to
    // the call (about 25 us for 8192 keys at the class's throughput) with most of the GPU idle.
    // H200, 2^26 keys, the power-law mix (390 of its 12081 segments hold 4097-8192 keys) with the
    // class's own launch whatever its count, four rounds against 8d244d1: u32 75.55 -> 74.04
    // (-2.0%), f32 71.81 -> 70.74 (-1.5%), f32 normal -1.3% (sixty-eighth session, call 1; the
    // threshold itself is not measured yet).
    static constexpr unsigned int small_flash_network_blocks_per_sm = 16;
    static constexpr unsigned int small_flash_network_min_per_sm = 4;

    // Partition pass: tiles of partition_block * items_per_thread items staged in LDS, sized as
    // if each item took 2 bytes more than its key and value, within about 24 KiB (16 items of
    // 4-byte keys, 6 of 12-byte items, 5 of 8-byte pairs); items of 8 bytes (8-byte keys,
    // 4-byte pairs) take 12, about 30 KiB, where a multiprocessor has more than 64 KiB of LDS
    // (NVIDIA). Their tiles of 3072 leave each bucket longer runs than the 2304 of 9 items. On
    // gfx9 (64 KiB per CU) 12 items would leave the scatter one block per CU instead of two (35
    // KiB each with wave64's counters), so they keep 9 there (not measured: no AMD GPU here).
    // H200, medians of 7 rotated rounds, 9 / 11 / 12 / 13 / 14 items, Gkeys/s: u32+u32 pairs
    // 2^24 22.53 / 23.64 / 23.87 / 23.75 / 23.65, 2^28 20.68 / 21.74 / 22.06 / 21.42 / 21.48;
    // u64 2^27 23.32 / 24.40 / 24.78 / 24.54 / 24.35; f64 2^27 20.68 / 21.49 / 21.75 / 22.02 /
    // 21.79; segments of 65536 u32+u32 pairs 45.70 / 45.85 / 45.98 / 45.18 / 44.35 (2^26
    // pairs); 16 items lost 2.7% there.
    static constexpr unsigned int partition_block = 256;
    static constexpr unsigned int partition_items_per_thread =
        item_bytes == 8 && multiprocessor_lds() > 65536     ? 12
        : 24576 / (partition_block * (item_bytes + 2)) < 1  ? 1
        : 24576 / (partition_block * (item_bytes + 2)) > 16 ? 16
                                                            : 24576 / (partition_block * (item_bytes + 2));
    static constexpr unsigned int partition_tile = partition_block * partition_items_per_thread;
    // Buckets per segment (segmented_runner::buckets_for): a segment that one round of at most
    // partition_buckets can cut into buckets of 3/4 of the largest small class gets that one
    // round, with buckets of about partition_bucket_keys keys (4/5 of it, or of a larger class
    // limit where the buckets do not reach); a larger one gets partition_round_buckets (or a
    // few more, partition_wide_buckets) and further rounds. Keys sort fastest in the network
    // classes of about 256 to 512 keys, pairs in the 512 class (32-bit composites). H100, Gkeys/s,
    // against the former rule (512 buckets, or one per 64 keys): 2^24 u32 21.1 -> 22.1, 2^28
    // u32+u32 9.6 -> 11.3, 2^27 u64 10.1 -> 11.2; segments of 16384 u32 40 -> 47, of 16384
    // u32+u32 19 -> 25, of 65536 u32 41 -> 46 (2^26 keys). Pairs' 512 against their former 2048
    // (block flash sorts, before the 512 network class): 2^24 u32+u32 14.4 -> 15.6, 2^20 8.8 ->
    // 9.5, segments of 16384 u32+u32 27.4 -> 34.4, 2^28 and segments of 65536 unchanged. Keys'
    // 512 against 256 (with the flash network class): segments of 65536 u32 51.3 -> 57.6, f32
    // 50.3 -> 54.2, other sizes within run spread.
    // Keys wider than 4 bytes have no networks, and their flash classes sort faster per key the
    // larger they are (u64 segments of 1000 / 2048 keys: 31.5 / 44.8 Gkeys/s), so they aim at
    // 2048, where the round still gives two blocks per multiprocessor (else at the largest
    // limit down to partition_fill_keys that does). H100, median of 21, 512 -> 2048: u64 sorts
    // of 2^21 / 2^22 / 2^24 / 2^25 keys 7.2 / 8.9 / 12.1 / 12.0 -> 7.9 / 9.8 / 14.3 / 15.7
    // Gkeys/s, 2^27 unchanged; u64 segments of 8192 / 16384 / 65536 keys 16.1 / 18.4 / 16.8 ->
    // 21.0 / 23.5 / 24.4 (2^26 keys); u64+u64 segments of 65536 12.4 -> 14.3 (their largest
    // small class is 2048, so they aim at 1024). Without the fill condition 2^16 / 2^18 u64 keys
    // lost 7%.
    static constexpr unsigned int partition_buckets = 512;
    // Items of 16 bytes and more take up to partition_max_buckets where partition_buckets would
    // leave a segment to two rounds and these land it in one (their largest small class is 2048,
    // so one round of 512 reaches 786432 pairs, of 768 1179648). The scatter's LDS then holds 768
    // cursors and counters (41 KiB for u64+u64). Elsewhere a last round keeps partition_buckets,
    // whose longer runs scatter faster. H100, u64+u64, Gkeys/s, medians of five rounds, 512 against
    // 768 everywhere: 2^20 4.5 -> 7.1 (CUB 5.0), 2^18 3.5 -> 3.7; 2^27 7.0 -> 6.7, whose second
    // round took 640 buckets of 819 pairs instead of 512 of 1024, hence only where it spares a
    // round (three rounds: 2^20 4.5 -> 6.9, 2^27 7.0 -> 7.0). For other items 768 buckets where
    // they spare a round changed no benchmarked size (u32+u32 2^22, one round of 640 buckets
    // then, 12.3 -> 12.4), so they keep one capacity.
    static constexpr unsigned int partition_max_buckets = item_bytes >= 16 ? 768 : partition_buckets;
    // Fewest keys per bucket, on average (a late round's buckets; segmented_plan sizes its lists
    // by it). 8-byte keys alone take 32: their wavefront networks sort small buckets fast, and
    // the skewed segments that reach late rounds split in fewer rounds. H200, 2^27 keys, medians
    // of three rotated rounds, Gkeys/s: u64 reduced-entropy (ten partition rounds, ncu) 10.99 ->
    // 11.20; the other u64 cases and f64 uniform within run spread (sixty-third session).
    static constexpr unsigned int partition_bucket_target = wide_networks ? 32 : 64;
    static constexpr unsigned int partition_fill_keys = 512;
    static constexpr unsigned int partition_bucket_keys = networks ? partition_fill_keys : 2048;
    // Pairs of keys of up to 4 bytes step up to the next class (1024) when the 512 class would
    // leave each bucket a run of fewer than partition_min_run pairs per tile (with 4-byte values,
    // more than 82 buckets of a 2304-pair tile): short runs make the scatter slower than the
    // larger networks.
    // H100, 2^26 pairs, 3 rounds, buckets aimed at the 512 / 1024 class: segments of 16384
    // (41 / 20 buckets) u32+u32 37.2 / 33.3 Gkeys/s, f32+u32 36.0 / 33.4; of 65536 (160 / 80
    // buckets) 31.0 / 32.2 and 30.3 / 33.8; the power-law mix 28.9 / 30.2 and 28.3 / 31.3.
    static constexpr unsigned int partition_min_run = networks && has_values<Value> ? 28 : 0;
    static constexpr unsigned int partition_round_buckets = 256;
    // A round that is not the last takes up to one bucket per 12 keys of a tile, so that each
    // bucket's run of a tile stays about 48 bytes or more of 4-byte keys (at 342 buckets 2^28
    // u32 keys need two rounds and land at 1638 keys per bucket, inside the 2048 class; 8-byte
    // keys and pairs keep partition_round_buckets: u64 2^27 lost 7% at 342).
    static constexpr unsigned int partition_wide_buckets =
        partition_tile / 12 > partition_buckets         ? partition_buckets
        : partition_tile / 12 < partition_round_buckets ? partition_round_buckets
                                                        : partition_tile / 12;
    // Chunks (one block each, a whole number of tiles): a round of one segment is cut into as many
    // equal chunks as the GPU holds scatter blocks at once, so that one wave keeps every SM busy
    // to the end; a round of several segments into about round_chunks_per_block chunks per
    // resident block, so that blocks of segments of any size balance. 2^28 u32 keys at c9f0f14:
    // 512 chunks on 396 resident blocks (1.29 waves) left a second wave of 116 lone blocks.
    // 8-byte items (4-byte pairs, 8-byte keys) take 16 chunks per block, so that the scatter's
    // last blocks leave less idle behind them, but chunks of at least round_chunk_tiles tiles in
    // rounds of more than 8 tiles per resident block (partition_planner::chunk_tiles): one-tile
    // chunks cost u64 keys of 2^24 1.9-3.9%, a block's setup weighing as much as its tile.
    // H100, 2^26 pairs in segments of 65536, 8 -> 16 chunks per block (8 -> 4 tiles each): the
    // scatter 694 -> 665 us (ncu); medians of 10 rotated rounds, two calls, u32+u32 +2.2 / +2.2%,
    // f32+u32 +2.1 / +2.4%, the power-law mix of each +1.9 / +1.9% and +1.8 / +2.1%; sorts of
    // u32+u32 2^28 +1.1 / +1.0%, u64 2^27 +0.9 / +0.8%, 2^24 within 0.2%. 4-byte keys keep 8: at
    // 16 with the same floor, 2^28 u32 / f32 reduced-entropy -1.5 / -1.3% and -1.1 / -1.3%, 2^26
    // -0.6 / -0.8% and -0.4 / -0.8%.
    static constexpr unsigned int round_chunks_per_block = item_bytes == 8 ? 16 : 8;
    static constexpr unsigned int round_chunk_tiles = 2;
    // The sampled partition rounds (sampled_rounds) measure their segments' ranges from samples
    // (sample_stride) only where the input holds this many keys: smaller inputs gained nothing,
    // their min/max pass being short, and the sampled round's clamps cost f32 keys of 2^16 6%.
    // H100, 9 rotated rounds, exact first round -> sampled, Gkeys/s, medians: device sorts of 2^16
    // / 2^20 / 2^22 keys u32 0.95 / 12.88 / 25.89 -> 0.97 / 12.60 / 26.40, f32 0.97 / 12.50 / 24.87
    // -> 0.91 / 12.20 / 24.83, u64 0.97 / 10.75 / 14.78 -> 0.98 / 10.46 / 14.58 (the rounds' ranges
    // overlap except f32 at 2^16); at 2^24 u32 / f32 / u64 31.8 / 30.1 / 19.5 -> 33.4 / 30.5 /
    // 20.3, and larger sorts gained more (see sample_stride).
    static constexpr std::uint64_t sampled_round_keys = std::uint64_t(1) << 22;
    // Rounds that measure ranges from samples: the first ones. A sampled round can leave keys
    // outside the sample's range in the end buckets, whose range does not shrink, so the rounds
    // after these measure all keys: each of them cuts every range into its buckets, which keeps
    // the number of rounds bounded by the key's width. 2^28 u32 keys take two rounds, whose second
    // min/max pass read every key (about 420 us of a sort of about 7.9 ms at base clocks, ncu,
    // thirty-eighth session). H100, 4 rotated rounds, one sampled round -> two, Gkeys/s, medians:
    // 2^28 u32 / f32 uniform 39.7 / 38.2 -> 41.9 / 40.1, u32 reduced-entropy 25.4 -> 26.1, 2^27
    // u64 18.3 -> 19.1, 2^28 u32+u32 17.3 -> 17.7 (docs/performance.md, fortieth session).
    // A third sampled round spares skewed keys' third min/max pass over every key (2^28 u32
    // reduced-entropy: 285 us, ncu, H200). H200, two calls of 4 rotated rounds, two -> three,
    // Gkeys/s, medians: 2^28 u32 outlier 54.7 -> 57.1 / 54.7 -> 57.1, reduced-entropy 28.5 ->
    // 29.3 / 28.3 -> 29.3, zipf 42.6 -> 43.3 / 42.7 -> 43.3; other 2^28 cases and segments within
    // 0.8% (forty-first session). A fourth spares them a fourth such pass (H200, four rotated
    // rounds, Gkeys/s, medians, three -> four: 2^28 u32 / f32 reduced-entropy 30.15 / 26.09 ->
    // 30.76 / 26.80; every other 2^28 case, and 2^24 / 2^27 uniform keys and pairs, within 0.4%;
    // eight gained no more, 30.82 / 26.81; fiftieth session).
    static constexpr unsigned int sampled_rounds = 4;
    static constexpr unsigned int max_round_chunks = 8192; // bounds the count matrix
};

} // namespace detail
} // namespace hipflashsort

#endif
