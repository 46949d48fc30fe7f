// Host side of the segmented flash sort: temporary-storage plan, argument checks and the round
// loop (bin → sort small → partition large → repeat on the buckets).
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_DISPATCH_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_DISPATCH_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "../../config.hpp"
#include "partition_kernels.hpp"
#include "segmented_config.hpp"
#include "segmented_kernels.hpp"

namespace hipflashsort {
namespace detail {

/// The whole input as one segment (device-level sort).
struct single_segment
{
    std::uint64_t size;
    HIPFLASHSORT_DEVICE segment_range operator()(std::uint64_t) const { return segment_range{0, size}; }
};

inline std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

/// Where a partition round's plan lies, packed from byte `first` on: the seeds of the segments'
/// statistics (segment_stat_words each), the segments, the chunks.
struct round_layout
{
    static_assert(sizeof(partition_segment) % 8 == 0 && sizeof(partition_chunk) % 8 == 0, "packed 8-byte fields");
    std::size_t stats, segments, chunks, end;
    round_layout(std::size_t first, std::uint64_t n_segments, std::uint64_t n_chunks)
        : stats(first), segments(stats + segment_stat_words * sizeof(std::uint64_t) * n_segments),
          chunks(segments + sizeof(partition_segment) * n_segments), end(chunks + sizeof(partition_chunk) * n_chunks)
    {
    }
};

/// Layout of the temporary storage; every bound depends on sizes only, never on key values.
template <class Key, class Value>
struct segmented_plan
{
    using config = segmented_config<Key, Value>;
    static constexpr unsigned int counters = max_class_lists; // the classes, the large list, the two wide lists
    static_assert(config::classes <= max_size_classes, "one limit and one list per class");

    std::size_t keys_tmp = 0, values_tmp = 0, small_lists = 0, large_list = 0, wide_lists[wide_classes] = {},
                next = 0, groups = 0, counts = 0, round = 0, matrix = 0, bytes = 0;
    std::uint64_t class_offset[config::classes] = {};
    std::uint64_t next_capacity = 0, large_capacity = 0, chunk_capacity = 0, matrix_capacity = 0;

    segmented_plan(std::uint64_t size, std::uint64_t segment_count)
    {
        // Every bucket of a partition holds partition_bucket_target keys or more on average.
        next_capacity = size / config::partition_bucket_target + 1;
        // A round lists the user's segments or the previous round's buckets; a class whose sizes
        // start at m holds at most size / m of them.
        const std::uint64_t listed = std::max<std::uint64_t>(segment_count, next_capacity);
        std::uint64_t entries = 0;
        for(unsigned int c = 0; c < config::classes; c++)
        {
            class_offset[c] = entries;
            const std::uint64_t smallest = (c == 0 ? 1 : config::class_limit(c - 1)) + 1;
            entries += std::min<std::uint64_t>(listed, size / smallest) + 1;
        }
        large_capacity = size / (config::largest_static + 1) + 1;
        // A round cuts its S keys into chunks of at least one tile, about at most max_round_chunks
        // of them plus one per segment (plan_partition); a segment of S_i keys has at most
        // S_i / partition_bucket_target buckets.
        const std::uint64_t round_chunks
            = std::min<std::uint64_t>(config::max_round_chunks, size / config::partition_tile + 1);
        chunk_capacity = round_chunks + large_capacity + 1;
        matrix_capacity = round_chunks * config::partition_max_buckets + size / config::partition_bucket_target + 1;
        std::size_t at = 0;
        auto take = [&](std::size_t& field, std::size_t bytes_needed) {
            field = at;
            at = align_up(at + bytes_needed, 256);
        };
        take(keys_tmp, size * sizeof(Key));
        take(values_tmp, has_values<Value> ? size * sizeof(Value) : 0);
        take(small_lists, entries * sizeof(std::uint64_t));
        take(large_list, large_capacity * sizeof(segment_range));
        for(std::size_t& wide_list : wide_lists)
            take(wide_list, config::has_wide_flash_network ? large_capacity * sizeof(segment_range) : 0);
        take(next, next_capacity * sizeof(segment_range));
        take(groups, next_capacity * sizeof(std::uint16_t));
        // The counters and the round's plan follow each other: a partition uploads both at once.
        take(counts, counters * sizeof(unsigned int));
        take(round, round_layout(0, large_capacity, chunk_capacity).end);
        take(matrix, matrix_capacity * sizeof(std::uint64_t));
        bytes = at;
    }
};

template <class Key, class Value>
struct segmented_runner
{
    using config = segmented_config<Key, Value>;
    using plan_type = segmented_plan<Key, Value>;

    const plan_type& plan;
    char* temp;
    Key* keys_out;
    Value* values_out;
    order ord;
    hipStream_t stream;
    int multiprocessors = 1;
    int device = 0;
    // Resident scatter blocks, the partition's chunk target; 0 until the first partition asks
    // the GPU (resident_scatter_blocks), so sorts without large segments never query it.
    unsigned int scatter_blocks = 0;
    std::vector<unsigned char> staging; // the partition plan's host copy
    using segments_kernel = void (*)(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*, order);
    using deferring_kernel = void (*)(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*,
                                      Value*, segment_range*, unsigned int*, order);
    // The dynamic-LDS classes' kernels once they have opted in to their LDS, else null. Opt-in
    // and launch go through these pointers: a kernel template instantiated in several
    // translation units has one host stub (and registered function) per unit, and the opt-in
    // binds to the stub it is given, which need not be the one a <<<>>> elsewhere in the code
    // would name.
    segments_kernel dynamic_flash[config::max_dynamic_flash_classes] = {}; // the first dynamic_flash_classes
    deferring_kernel flash_network = nullptr;
    using wide_kernel = void (*)(const segment_range*, unsigned int, unsigned int, const Key*, Key*, Key*,
                                 segment_range*, unsigned int*, unsigned int, order);
    /// A wide flash network class as the device took it: its kernel (null where it is off), block,
    /// dynamic LDS, staged row in keys, and largest segment (the most its windows take).
    struct wide_class
    {
        wide_kernel kernel = nullptr;
        unsigned int block = 0, lds = 0, slots = 0, limit = 0;
    };
    // The wide class, then the full wide class: one block of wide_full_flash_network_block threads
    // per multiprocessor with all of its LDS, for the segments above wide_split (what the wide
    // class is expected to take in one window).
    wide_class wide[wide_classes];
    unsigned int wide_split = 0;

    /// Opts the dynamic-LDS classes in to their LDS; a device that refuses sends those segments
    /// to the next class that takes them, or to the partition.
    void enable_dynamic_classes()
    {
        enable_dynamic_flash(std::make_integer_sequence<unsigned int, config::dynamic_flash_classes>{});
        if constexpr(config::has_flash_network)
        {
            const deferring_kernel kernel = flash_network_segments_kernel<Key, Value, config::flash_network_block,
                                                                          config::flash_network_capacity>;
            if(opt_in(reinterpret_cast<const void*>(kernel), config::flash_network_lds)) flash_network = kernel;
        }
        if constexpr(config::has_wide_flash_network)
        {
            if(flash_network) enable_wide_flash_network();
        }
    }

    /// The wide flash network class, with the LDS that leaves room for two of its blocks per
    /// multiprocessor, for the segments its windows take (all of its capacity on an H100), where
    /// that reaches above the flash network class; then the full wide class.
    void enable_wide_flash_network()
    {
        int per_sm = 0;
        if(hipDeviceGetAttribute(&per_sm, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, device) != hipSuccess)
        {
            (void)hipGetLastError();
            return;
        }
        using sorter = typename config::wide_flash_network_sorter;
        const wide_row row = wide_row_in<sorter>(static_cast<unsigned int>(per_sm) / 2);
        if(row.limit <= config::flash_network_capacity
           || !take_wide<sorter, config::wide_flash_network_block>(wide[0], row))
            return;
        enable_wide_full_flash_network(static_cast<unsigned int>(per_sm), sorter::typical_one_window(row.slots));
    }

    /// The full wide class, with all of a multiprocessor's LDS, above `split` (the wide class's
    /// expected one-window segments): where its row takes every segment the wide class does, and
    /// more.
    void enable_wide_full_flash_network(unsigned int per_sm, unsigned int split)
    {
        using sorter = typename config::wide_full_flash_network_sorter;
        const wide_row row = wide_row_in<sorter>(per_sm);
        if(row.limit < wide[0].limit || row.limit <= split
           || !take_wide<sorter, config::wide_full_flash_network_block>(wide[1], row))
            return;
        wide_split = split;
    }

    /// A wide class's LDS out of a multiprocessor's `share` (at most what its whole capacity
    /// needs, in 16-byte steps), the staged row it gives, and the largest segment its windows
    /// take there (0 when none).
    struct wide_row
    {
        unsigned int bytes, slots, limit;
    };
    template <class Sorter>
    static wide_row wide_row_in(unsigned int share)
    {
        if(share <= lds_reserved_per_block()) return {0, 0, 0};
        const unsigned int usable = share - lds_reserved_per_block();
        const unsigned int bytes = std::min(Sorter::lds_bytes(Sorter::full_slots), usable) / 16 * 16;
        const unsigned int slots = Sorter::slots_in(bytes);
        return {bytes, slots, Sorter::largest_windowed(slots)};
    }

    /// Opts the wide kernel of Block threads in to `row`'s LDS and, where granted, fills `c`
    /// (launched with the LDS its staged row needs).
    template <class Sorter, unsigned int Block>
    bool take_wide(wide_class& c, const wide_row& row)
    {
        const wide_kernel kernel = wide_flash_network_kernel<Key, Block, config::wide_flash_network_capacity>;
        if(!opt_in(reinterpret_cast<const void*>(kernel), row.bytes)) return false;
        c = {kernel, Block, Sorter::lds_bytes(row.slots), row.slots, row.limit};
        return true;
    }

    template <unsigned int... D>
    void enable_dynamic_flash(std::integer_sequence<unsigned int, D...>)
    {
        ((dynamic_flash[D] = opted_in_flash<D>()), ...);
    }

    template <unsigned int D>
    static segments_kernel opted_in_flash()
    {
        using c = typename config::template dynamic_flash<D>;
        const segments_kernel kernel = flash_sort_segments_dynamic_kernel<Key, Value, c::block, c::capacity>;
        return opt_in(reinterpret_cast<const void*>(kernel), c::lds) ? kernel : nullptr;
    }

    static bool opt_in(const void* kernel, unsigned int bytes)
    {
        const bool granted = hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(bytes))
                             == hipSuccess;
        (void)hipGetLastError(); // a refusal is not the caller's error
        return granted;
    }

    /// Fewest wide-class segments worth its launch: one block per segment, two per
    /// multiprocessor, so fewer would leave multiprocessors idle while the partition spreads
    /// them over all (H100: one segment of 65536 keys, the device sort of 2^16 keys, ran at 0.38
    /// Gkeys/s in the wide class against 1.2-1.3 partitioned).
    unsigned int wide_min_segments() const { return 2u * static_cast<unsigned int>(std::max(1, multiprocessors)); }

    /// Largest segment of the classes on packed lists: the partition sizes its buckets for them.
    std::uint64_t largest_small() const
    {
        if(flash_network) return config::flash_network_capacity;
        for(unsigned int d = config::dynamic_flash_classes; d-- > 0;)
        {
            if(dynamic_flash[d]) return config::dynamic_flash_capacity(d);
        }
        return config::largest_static;
    }

    template <class T>
    T* at(std::size_t offset) const { return reinterpret_cast<T*>(temp + offset); }

    /// Where a class that sorts values in place keeps a copy of them: the values' round buffer,
    /// free over a segment's range whenever that segment is sorted in place (the user's in-place
    /// sort before any partition, or the buckets a partition round scattered into values_out).
    Value* values_scratch() const { return has_values<Value> ? at<Value>(plan.values_tmp) : nullptr; }

    /// The classes' limits; `with_wide`: whether the wide classes take their segments (the
    /// partition's buckets skip them: a plan that aims at a further round cuts buckets of up to
    /// 65536 keys, and a round of 2^24 u32 keys sorted them at 24.6-25.1 Gkeys/s in the wide class
    /// against 28.9-30.1 through that round on an H100).
    class_limits limits(bool with_wide) const
    {
        class_limits l{};
        for(unsigned int c = 0; c < config::classes; c++) l.limit[c] = config::class_limit(c);
        // A disabled dynamic class repeats the previous limit, so no size falls into it.
        if constexpr(config::dynamic_flash_classes > 0)
        {
            for(unsigned int d = 0; d < config::dynamic_flash_classes; d++)
            {
                const unsigned int c = config::first_dynamic_flash_class + d;
                if(!dynamic_flash[d]) l.limit[c] = l.limit[c - 1];
            }
        }
        if constexpr(config::has_flash_network)
        {
            if(!flash_network) l.limit[config::flash_network_class] = l.limit[config::flash_network_class - 1];
        }
        l.classes = config::classes;
        l.wide = wide[0].kernel && with_wide ? wide[0].limit : l.limit[config::classes - 1];
        l.wide_split = l.wide;
        if(wide[1].kernel && with_wide)
        {
            l.wide = wide[1].limit;
            l.wide_split = wide_split;
        }
        return l;
    }

    /// Blocks for `items` list entries taken `per_block` at a time, at most `blocks_per_sm` per
    /// multiprocessor (segmented_config's grid caps).
    unsigned int grid_for(std::uint64_t items, unsigned int per_block, unsigned int blocks_per_sm) const
    {
        const std::uint64_t blocks = (items + per_block - 1) / per_block;
        const std::uint64_t cap = std::uint64_t(std::max(1, multiprocessors)) * blocks_per_sm;
        return static_cast<unsigned int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, cap)));
    }

    const std::uint64_t* class_list(unsigned int c) const
    {
        return at<std::uint64_t>(plan.small_lists) + plan.class_offset[c];
    }

    /// Bins the round's segments, sorts every small one, and returns the large ones in `large`.
    /// The class counts come back to the host (one synchronization) before the sorts are
    /// launched, so only classes that hold segments get a launch, each with a grid of its size;
    /// the large segments' list comes back after those launches (a second synchronization, while
    /// the GPU sorts). `single_size`: the size of the only segment when the host knows it
    /// (device-level sort), which needs no read-back. `buckets`: the segments are a partition
    /// round's buckets (its plan upload zeroed the class counters).
    template <class Source>
    hipError_t sort_small(Source source, std::uint64_t segments, const Key* keys_in, const Value* values_in,
                          std::vector<segment_range>& large, bool buckets, std::uint64_t single_size = 0)
    {
        unsigned int* counts = at<unsigned int>(plan.counts);
        const class_limits l = limits(!buckets);
        class_lists lists{at<std::uint64_t>(plan.small_lists), at<segment_range>(plan.large_list),
                          {at<segment_range>(plan.wide_lists[0]), at<segment_range>(plan.wide_lists[1])}, {}};
        for(unsigned int c = 0; c < config::classes; c++) lists.offset[c] = plan.class_offset[c];
        if(!buckets)
            HIPFLASHSORT_RETURN_IF_ERROR(hipMemsetAsync(counts, 0, plan_type::counters * sizeof(unsigned int), stream));
        const unsigned int bin_grid = grid_for(segments, 256, config::grid_blocks_per_sm);
        bin_segments_kernel<<<bin_grid, 256, 0, stream>>>(source, segments, l, lists, counts, keys_in, keys_out,
                                                          values_in, values_out);
        unsigned int host[plan_type::counters] = {};
        if(single_size != 0)
        {
            if(single_size > 1) host[l.list_of(single_size)] = 1;
        }
        else
        {
            HIPFLASHSORT_RETURN_IF_ERROR(hipMemcpyAsync(host, counts, sizeof(host), hipMemcpyDeviceToHost, stream));
            HIPFLASHSORT_RETURN_IF_ERROR(hipStreamSynchronize(stream));
        }
        unsigned int widened[wide_classes] = {}, wide_total = 0;
        for(unsigned int c = 0; c < wide_classes; c++)
        {
            widened[c] = wide[c].kernel ? host[config::large_class + 1 + c] : 0u;
            wide_total += widened[c];
        }
        // Too few for the wide classes: their lists come back to the host with the large one.
        const bool widening = wide_total >= wide_min_segments();
        launch_rank_classes(host, keys_in, values_in, std::make_integer_sequence<unsigned int, config::rank_classes>{});
        launch_block_network_classes(host, keys_in, values_in,
                                     std::make_integer_sequence<unsigned int, config::block_network_classes>{});
        launch_flash_classes(host, keys_in, values_in, std::make_integer_sequence<unsigned int, config::flash_classes>{});
        launch_dynamic_flash_classes(host, keys_in, values_in,
                                     std::make_integer_sequence<unsigned int, config::dynamic_flash_classes>{});
        const unsigned int networked = config::has_flash_network ? host[config::flash_network_class] : 0u;
        const bool deferring = flash_network && networked != 0;
        if(deferring)
        {
            const unsigned int grid = grid_for(networked, 1, config::flash_network_blocks_per_sm);
            flash_network<<<grid, config::flash_network_block, config::flash_network_lds, stream>>>(
                class_list(config::flash_network_class), networked, keys_in, keys_out, values_in, values_out,
                values_scratch(), lists.large, counts + config::large_class, ord);
        }
        if constexpr(config::has_wide_flash_network)
        {
            for(unsigned int c = 0; c < wide_classes; c++)
            {
                if(!widening || widened[c] == 0) continue;
                const wide_class& w = wide[c];
                // Blocks at work at once: 1024 / block per multiprocessor (its launch bounds).
                const unsigned int resident = static_cast<unsigned int>(std::max(1, multiprocessors)) * 1024 / w.block;
                w.kernel<<<grid_for(widened[c], 1, config::segment_grid_blocks_per_sm), w.block, w.lds, stream>>>(
                    lists.wide[c], widened[c], w.slots, keys_in, keys_out, at<Key>(plan.keys_tmp), lists.large,
                    counts + config::large_class, resident, ord);
            }
        }
        HIPFLASHSORT_RETURN_IF_ERROR(hipGetLastError());
        if(deferring || widening)
        {
            // Segments left to the partition joined the large list.
            HIPFLASHSORT_RETURN_IF_ERROR(hipMemcpyAsync(&host[config::large_class], counts + config::large_class,
                                                        sizeof(unsigned int), hipMemcpyDeviceToHost, stream));
            HIPFLASHSORT_RETURN_IF_ERROR(hipStreamSynchronize(stream));
        }
        const unsigned int listed = host[config::large_class];
        large.resize(listed + (widening ? 0u : wide_total));
        if(large.empty()) return hipSuccess;
        if(listed != 0)
            HIPFLASHSORT_RETURN_IF_ERROR(hipMemcpyAsync(large.data(), lists.large, listed * sizeof(segment_range),
                                                        hipMemcpyDeviceToHost, stream));
        std::size_t at_end = listed;
        for(unsigned int c = 0; c < wide_classes && !widening; c++)
        {
            if(widened[c] == 0) continue;
            HIPFLASHSORT_RETURN_IF_ERROR(hipMemcpyAsync(large.data() + at_end, lists.wide[c],
                                                        widened[c] * sizeof(segment_range),
                                                        hipMemcpyDeviceToHost, stream));
            at_end += widened[c];
        }
        return hipStreamSynchronize(stream);
    }

    template <unsigned int... C>
    void launch_rank_classes(const unsigned int* counts, const Key* keys_in, const Value* values_in,
                             std::integer_sequence<unsigned int, C...>)
    {
        (launch_rank_class<C>(counts[C], keys_in, values_in), ...);
    }

    template <unsigned int C>
    void launch_rank_class(unsigned int count, const Key* keys_in, const Value* values_in)
    {
        if(count == 0) return;
        constexpr unsigned int capacity = config::rank_capacity[C];
        if constexpr(sizeof(Key) <= 4)
        {
            constexpr unsigned int block = config::network_block(C);
            constexpr unsigned int items = config::network_items[C];
            constexpr unsigned int wave = capacity / items;
            const unsigned int grid = grid_for(count, block / wave, config::grid_blocks_per_sm);
            if constexpr(has_values<Value>)
            {
                bitonic_sort_segments_kernel<Key, Value, block, wave, items, config::network_batched_staging[C]>
                    <<<grid, block, 0, stream>>>(class_list(C), count, keys_in, keys_out, values_in, values_out, ord);
            }
            else
            {
                bitonic_sort_key_segments_kernel<Key, block, wave, items>
                    <<<grid, block, 0, stream>>>(class_list(C), count, keys_in, keys_out, ord);
            }
        }
        else
        {
            constexpr unsigned int block = config::rank_block;
            constexpr unsigned int group = config::rank_group[C];
            const unsigned int grid = grid_for(count, block / group, config::grid_blocks_per_sm);
            rank_sort_segments_kernel<Key, Value, block, group, capacity>
                <<<grid, block, 0, stream>>>(class_list(C), count, keys_in, keys_out, values_in, values_out, ord);
        }
    }

    template <unsigned int... C>
    void launch_block_network_classes(const unsigned int* counts, const Key* keys_in, const Value* values_in,
                                      std::integer_sequence<unsigned int, C...>)
    {
        (launch_block_network_class<C>(counts[config::rank_classes + C], keys_in, values_in), ...);
    }

    template <unsigned int C>
    void launch_block_network_class(unsigned int count, const Key* keys_in, const Value* values_in)
    {
        if(count == 0) return;
        constexpr unsigned int waves = config::block_network_waves[C];
        const std::uint64_t* list = class_list(config::rank_classes + C);
        const unsigned int grid = grid_for(count, 1, config::segment_grid_blocks_per_sm);
        if constexpr(has_values<Value>)
        {
            bitonic_block_pair_segments_kernel<Key, Value, waves, config::block_network_items>
                <<<grid, waves * block_network_lanes, 0, stream>>>(list, count, keys_in, keys_out, values_in,
                                                                   values_out, ord);
        }
        else
        {
            bitonic_block_segments_kernel<Key, waves>
                <<<grid, waves * block_network_lanes, 0, stream>>>(list, count, keys_in, keys_out, ord);
        }
    }

    template <unsigned int... C>
    void launch_flash_classes(const unsigned int* counts, const Key* keys_in, const Value* values_in,
                              std::integer_sequence<unsigned int, C...>)
    {
        (launch_flash_class<C>(counts[first_flash_class + C], keys_in, values_in), ...);
    }

    template <unsigned int C>
    void launch_flash_class(unsigned int count, const Key* keys_in, const Value* values_in)
    {
        if(count == 0) return;
        constexpr unsigned int block = config::flash_block(C);
        const unsigned int grid = grid_for(count, 1, config::segment_grid_blocks_per_sm);
        flash_sort_segments_kernel<Key, Value, block, config::flash_capacity(C)>
            <<<grid, block, 0, stream>>>(class_list(first_flash_class + C), count, keys_in, keys_out, values_in,
                                         values_out, ord);
    }
    static constexpr unsigned int first_flash_class = config::rank_classes + config::block_network_classes;

    template <unsigned int... D>
    void launch_dynamic_flash_classes(const unsigned int* counts, const Key* keys_in, const Value* values_in,
                                      std::integer_sequence<unsigned int, D...>)
    {
        (launch_dynamic_flash_class<D>(counts[config::first_dynamic_flash_class + D], keys_in, values_in), ...);
    }

    template <unsigned int D>
    void launch_dynamic_flash_class(unsigned int count, const Key* keys_in, const Value* values_in)
    {
        if(count == 0 || !dynamic_flash[D]) return;
        using c = typename config::template dynamic_flash<D>;
        const unsigned int grid = grid_for(count, 1, config::segment_grid_blocks_per_sm);
        dynamic_flash[D]<<<grid, c::block, c::lds, stream>>>(
            class_list(config::first_dynamic_flash_class + D), count, keys_in, keys_out, values_in, values_out, ord);
    }

    /// Largest segment that one round cuts into buckets averaging at most 3/4 of the largest
    /// small class: uniform keys then land every bucket in a small class. (At half the class,
    /// 2^28 u32 keys cut into 256 buckets of 2^20 ± noise sent half of them through a third
    /// round, for a fifth of the sort's time.)
    std::uint64_t one_round_limit() const { return one_round_limit(config::partition_max_buckets); }

    /// As one_round_limit, with at most `most` buckets.
    std::uint64_t one_round_limit(std::uint64_t most) const { return most * (largest_small() / 4 * 3); }

    /// Buckets for a segment of `size` keys in a round of `round_keys` keys.
    /// - Up to one_round_limit (the last round): with the flash network class, buckets of 4/5 of
    ///   its capacity when that makes 64 or more (fewer buckets scatter faster) and the round
    ///   gives two such blocks per multiprocessor. Otherwise buckets averaging 4/5 of the
    ///   smallest class limit (powers of two from partition_bucket_keys, or from a smaller one
    ///   down to partition_fill_keys where the round would not give two blocks per
    ///   multiprocessor) that partition_buckets reach, so that few buckets spill into the next
    ///   class (9/10 of it for pairs' network classes: last_round_goal), up to half the largest
    ///   small class; beyond that, partition_buckets, or up to partition_max_buckets where
    ///   partition_buckets would leave the segment to two rounds.
    ///   Pairs start one class higher where the first would leave short runs (short_runs) and
    ///   the round still fills the GPU with the larger buckets.
    /// - Larger: enough buckets that the next round is the last one and lands its buckets in
    ///   half the largest small class, within [partition_round_buckets, partition_wide_buckets].
    /// H100, one run against powers of two (buckets of up to one class limit, which sent about
    /// half of them into the next class): u32 2^28 23.7 -> 26.0 Gkeys/s, 2^24 25.3 -> 27.2;
    /// segments of 16384 f32 47.3 -> 55.8, of 16384 u32+u32 26.2 -> 28.0. Flash network buckets
    /// in the last round (with partition_bucket_keys 512): u32 2^28 27.4 -> 33.7, f32 normal
    /// 2^28 24.8 -> 28.2; at 2^20 (80 such buckets) 12.9 -> 10.5, hence the fill condition.
    unsigned int buckets_for(std::uint64_t size, std::uint64_t round_keys) const
    {
        const std::uint64_t most = size > one_round_limit(config::partition_buckets) ? config::partition_max_buckets
                                                                                    : config::partition_buckets;
        if(size > one_round_limit())
        {
            const std::uint64_t next = next_round_goal();
            const std::uint64_t wanted = (size + next - 1) / next;
            return static_cast<unsigned int>(std::min<std::uint64_t>(
                std::max<std::uint64_t>(wanted, config::partition_round_buckets), config::partition_wide_buckets));
        }
        if(flash_network)
        {
            const std::uint64_t goal = bucket_goal(config::flash_network_capacity);
            if(size / goal >= 64 && fills_gpu(round_keys, goal))
                return static_cast<unsigned int>(std::min<std::uint64_t>((size + goal - 1) / goal, most));
        }
        std::uint64_t limit = std::min<std::uint64_t>(config::partition_bucket_keys, largest_small() / 2);
        while(limit > config::partition_fill_keys && !fills_gpu(round_keys, bucket_goal(limit))) limit /= 2;
        if(short_runs(size, limit) && aims_within(2 * limit) && fills_gpu(round_keys, bucket_goal(2 * limit)))
            limit *= 2;
        for(;; limit *= 2)
        {
            const std::uint64_t wanted = buckets_aimed_at(size, limit);
            if(wanted <= most)
            {
                const std::uint64_t goal = last_round_goal(limit, round_keys);
                return static_cast<unsigned int>(std::max<std::uint64_t>((size + goal - 1) / goal, 2));
            }
            if(!aims_within(2 * limit)) return static_cast<unsigned int>(most);
        }
    }

    /// Average keys per bucket of a last round aimed at the class of `limit` keys: bucket_goal,
    /// but 9/10 of the class for pairs whose class is a network (keys of up to 4 bytes, up to
    /// the block network): a network sorts a padded power of two whatever the segment's size,
    /// so fuller buckets take fewer networks per key. Only where the round still gives two
    /// blocks per multiprocessor: fewer, longer buckets there lengthen the round's slowest
    /// block. H100, 2^26 pairs, Gkeys/s, medians of three rounds, 4/5 -> 9/10: segments of
    /// 65536 u32+u32 / f32+u32 33.6 / 34.2 -> 35.2 / 36.3, the power-law mix 32.3 / 32.3 ->
    /// 33.5 / 33.3; 15/16 gave 35.3 / 36.5. 9/10 everywhere lost a device sort of 2^16 u32+u32
    /// pairs 6% (142 buckets aimed at the 512 class instead of 160), and gained nothing for keys
    /// alone (segments of 65536 u32 / f32 76.9 / 72.4 -> 76.5 / 71.8).
    std::uint64_t last_round_goal(std::uint64_t limit, std::uint64_t round_keys) const
    {
        const std::uint64_t fuller = limit / 10 * 9;
        if(config::networks && has_values<Value> && limit <= config::wave_and_network_top
           && fills_gpu(round_keys, fuller))
            return fuller;
        return bucket_goal(limit);
    }

    /// Keys per segment that a round which is not the last aims to leave to the next one: as many
    /// as partition_buckets buckets of 3/4 of half the largest small class hold.
    std::uint64_t next_round_goal() const
    {
        return std::uint64_t(config::partition_buckets) * (largest_small() / 2) / 4 * 3;
    }

    /// Most keys per bucket group (partition_segment::group_keys) for a segment of `size` keys: in
    /// a round that is not the last, adjacent, evenly filled buckets holding together up to this
    /// share one next-round segment (list_groups), so that the scatter writes longer runs to fewer
    /// places. Up to 1/48 of the segment (uniform keys in 256 buckets make 64 groups of four) and
    /// 3/4 of the next round's goal (2^28 u32 keys: 128 groups of two), within one_round_limit,
    /// so grouping adds no round. H100, Gkeys/s, medians of four rounds, ungrouped -> grouped:
    /// u32 2^24 / 2^26 / 2^28 28.9 / 31.7 / 35.9 -> 29.1 / 38.0 / 37.5, f32 2^26 31.4 -> 34.7,
    /// u32+u32 2^26 / 2^28 14.34 / 13.93 -> 16.45 / 14.41, u64 2^24 17.0 -> 18.1. Groups of about the
    /// next round's goal did worse at 2^26 (u32 36.7, 32 groups) and 2^24 (u32+u32 14.7 against
    /// 16.1 ungrouped); the goal's half left 2^28 ungrouped.
    unsigned int group_keys_for(std::uint64_t size) const
    {
        if(size <= one_round_limit()) return 0;
        return static_cast<unsigned int>(std::min<std::uint64_t>(next_round_goal() / 4 * 3, size / 48));
    }

    /// Whether a last round may aim at the class of `limit` keys: up to half the largest small class.
    bool aims_within(std::uint64_t limit) const { return limit <= largest_small() / 2; }

    /// Buckets that cut `size` keys into buckets of bucket_goal(limit) keys.
    static std::uint64_t buckets_aimed_at(std::uint64_t size, std::uint64_t limit)
    {
        return (size + bucket_goal(limit) - 1) / bucket_goal(limit);
    }

    /// Whether buckets aimed at the class of `limit` keys would leave runs shorter than
    /// partition_min_run per tile (pairs of keys of up to 4 bytes only).
    static bool short_runs(std::uint64_t size, std::uint64_t limit)
    {
        if constexpr(config::partition_min_run == 0)
            return false;
        else // no division by a zero run length where none applies
            return buckets_aimed_at(size, limit) > config::partition_tile / config::partition_min_run;
    }

    /// Average keys per bucket aimed at for a class of `limit` keys: 4/5 of it, so that few
    /// buckets spill into the next class.
    static std::uint64_t bucket_goal(std::uint64_t limit) { return limit / 5 * 4; }

    /// Whether a round of `round_keys` keys in buckets of `goal` keys gives two blocks per
    /// multiprocessor.
    bool fills_gpu(std::uint64_t round_keys, std::uint64_t goal) const
    {
        return round_keys / goal >= 2 * std::uint64_t(std::max(1, multiprocessors));
    }

    /// Plans the partition of the large segments: buckets per segment, and chunks (one block
    /// each) of whole tiles: one segment is cut into `scatter_blocks` equal chunks (one full
    /// wave), several segments into about round_chunks_per_block chunks per resident block.
    std::uint64_t plan_partition(const std::vector<segment_range>& large, std::vector<partition_segment>& segs,
                                 std::vector<partition_chunk>& chunks) const
    {
        constexpr std::uint64_t tile = config::partition_tile;
        segs.clear();
        chunks.clear();
        std::uint64_t tiles = 0;
        std::uint64_t round_keys = 0;
        for(const segment_range& r : large)
        {
            tiles += (r.end - r.begin + tile - 1) / tile;
            round_keys += r.end - r.begin;
        }
        const std::uint64_t target = std::min<std::uint64_t>(
            config::max_round_chunks,
            std::uint64_t(std::max(1u, scatter_blocks)) * (large.size() == 1 ? 1 : config::round_chunks_per_block));
        const std::uint64_t chunk_tiles = std::max<std::uint64_t>(1, (tiles + target - 1) / target);
        std::uint64_t matrix_at = 0, next_at = 0;
        // A segment as long as the one before takes its plan: each costs about ten 64-bit
        // divisions, about 35 ns a segment on the H100 machine's host, while the GPU waits, and
        // batches of equal segments are common. H100, 2^26 pairs, medians of seven rotated
        // rounds, Gkeys/s, segments of 16385 / 20000 / 32768 / 65536: u32+u32 34.4 / 35.6 / 35.2 /
        // 35.8 -> 35.8 / 36.9 / 35.9 / 36.2, f32+u32 34.2 / 35.4 / 35.4 / 36.7 -> 35.5 / 36.5 /
        // 35.8 / 37.0; the power-law mix and keys alone unchanged.
        std::uint64_t planned = 0, chunk_items = 0;
        unsigned int buckets = 0, n_chunks = 0, group_keys = 0;
        for(const segment_range& r : large)
        {
            const std::uint64_t size = r.end - r.begin;
            if(size != planned)
            {
                planned = size;
                buckets = buckets_for(size, round_keys);
                // Equal chunks: as many as chunks of chunk_tiles would make, then evened out.
                const std::uint64_t wanted_chunks = (size + chunk_tiles * tile - 1) / (chunk_tiles * tile);
                chunk_items = align_up((size + wanted_chunks - 1) / wanted_chunks, tile);
                n_chunks = static_cast<unsigned int>((size + chunk_items - 1) / chunk_items);
                group_keys = group_keys_for(size);
            }
            partition_segment s{};
            s.range = r;
            s.matrix_offset = matrix_at;
            s.next_first = next_at;
            s.buckets = buckets;
            s.group_keys = group_keys;
            s.first_chunk = static_cast<unsigned int>(chunks.size());
            s.chunks = n_chunks;
            for(unsigned int c = 0; c < n_chunks; c++)
            {
                const std::uint64_t b = r.begin + c * chunk_items;
                chunks.push_back(partition_chunk{b, std::min(r.end, b + chunk_items), static_cast<unsigned int>(segs.size()), c});
            }
            segs.push_back(s);
            matrix_at += std::uint64_t(n_chunks) * buckets;
            next_at += buckets;
        }
        return next_at;
    }

    hipError_t partition(const std::vector<partition_segment>& segs, const std::vector<partition_chunk>& chunks,
                         const Key* keys_in, Key* keys_dst, const Value* values_in, Value* values_dst)
    {
        constexpr unsigned int block = config::partition_block;
        constexpr unsigned int items = config::partition_items_per_thread;
        constexpr unsigned int max_buckets = config::partition_max_buckets;
        auto* matrix = at<std::uint64_t>(plan.matrix);
        auto* next = at<segment_range>(plan.next);
        auto* groups = at<std::uint16_t>(plan.groups);
        const unsigned int n_segs = static_cast<unsigned int>(segs.size());
        const unsigned int n_chunks = static_cast<unsigned int>(chunks.size());
        unsigned int most_buckets = 0;
        for(const partition_segment& s : segs) most_buckets = std::max(most_buckets, s.buckets);
        // Column-scan blocks of partition_offsets_kernel: one wavefront per bucket (a loop covers
        // any rest).
        const unsigned int column_groups = (most_buckets * device_wavefront_size() + block - 1) / block;
        // One copy carries zeroed class counters, min/max seeds, segments and chunks (it replaced
        // two copies, a memset and a kernel): at small sizes the sort is bound by what the host
        // issues, on the H100 here 3.6 us a launch and 2.2 us a pageable copy.
        const round_layout l(plan.round - plan.counts, n_segs, n_chunks);
        staging.assign(l.end, 0);
        const std::uint64_t seed[segment_stat_words] = {~std::uint64_t(0), 0, 0};
        for(unsigned int i = 0; i < n_segs; i++) std::memcpy(&staging[l.stats + sizeof(seed) * i], seed, sizeof(seed));
        std::memcpy(&staging[l.segments], segs.data(), sizeof(partition_segment) * n_segs);
        std::memcpy(&staging[l.chunks], chunks.data(), sizeof(partition_chunk) * n_chunks);
        HIPFLASHSORT_RETURN_IF_ERROR(
            hipMemcpyAsync(temp + plan.counts, staging.data(), staging.size(), hipMemcpyHostToDevice, stream));
        auto* stats = at<std::uint64_t>(plan.counts + l.stats);
        auto* d_segs = at<partition_segment>(plan.counts + l.segments);
        auto* d_chunks = at<partition_chunk>(plan.counts + l.chunks);
        chunk_min_max_kernel<Key, block, items>
            <<<n_chunks, block, 0, stream>>>(d_chunks, d_segs, keys_in, stats, next, ord);
        chunk_histogram_kernel<Key, block, items, max_buckets>
            <<<n_chunks, block, 0, stream>>>(d_chunks, d_segs, stats, keys_in, matrix, next, ord);
        partition_offsets_kernel<block, max_buckets>
            <<<dim3(n_segs, column_groups + 1), block, 0, stream>>>(d_segs, stats, matrix, next, groups);
        chunk_scatter_kernel<Key, Value, block, items, max_buckets><<<n_chunks, block, 0, stream>>>(
            d_chunks, d_segs, stats, matrix, next, groups, keys_in, keys_dst, keys_out, values_in, values_dst,
            values_out, ord);
        return hipGetLastError();
    }

    /// Scatter blocks the GPU holds at once (the partition's chunk target); a failed query
    /// assumes two per multiprocessor.
    static unsigned int resident_scatter_blocks(int multiprocessors)
    {
        int per_sm = 0;
        const auto kernel = chunk_scatter_kernel<Key, Value, config::partition_block,
                                                 config::partition_items_per_thread, config::partition_max_buckets>;
        if(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(kernel),
                                                        config::partition_block, 0)
               != hipSuccess
           || per_sm < 1)
        {
            (void)hipGetLastError();
            per_sm = 2;
        }
        return static_cast<unsigned int>(std::max(1, multiprocessors) * per_sm);
    }

    /// `single_size`: the size of the only segment when the host knows it (device-level sort),
    /// which saves binning and the first read-back.
    template <class Source>
    hipError_t run(Source first_round, std::uint64_t segments, const Key* keys_in, const Value* values_in,
                   std::uint64_t single_size = 0)
    {
        Key* keys_tmp = at<Key>(plan.keys_tmp);
        Value* values_tmp = has_values<Value> ? at<Value>(plan.values_tmp) : nullptr;
        std::vector<segment_range> large;
        std::vector<partition_segment> segs;
        std::vector<partition_chunk> chunks;
        const Key* src = keys_in;
        const Value* vsrc = values_in;
        Key* dst = keys_tmp;
        Value* vdst = values_tmp;
        if(single_size > largest_small()) // a lone segment: never enough for the wide class
        {
            large.assign(1, segment_range{0, single_size});
        }
        else
        {
            HIPFLASHSORT_RETURN_IF_ERROR(sort_small(first_round, segments, src, vsrc, large, false, single_size));
        }
        for(;;)
        {
            if(large.empty()) return hipSuccess;
            if(scatter_blocks == 0) scatter_blocks = resident_scatter_blocks(multiprocessors);
            const std::uint64_t next_segments = plan_partition(large, segs, chunks);
            HIPFLASHSORT_RETURN_IF_ERROR(partition(segs, chunks, src, dst, vsrc, vdst));
            // The buckets now live in dst; the buffer read this round becomes the next target.
            src = dst;
            vsrc = vdst;
            dst = dst == keys_tmp ? keys_out : keys_tmp;
            vdst = vdst == values_tmp ? values_out : values_tmp;
            HIPFLASHSORT_RETURN_IF_ERROR(
                sort_small(listed_segments{at<segment_range>(plan.next)}, next_segments, src, vsrc, large, true));
        }
    }
};

/// Shared entry of all segmented and device-level sorts: two-phase temporary storage, checks,
/// then the rounds. Never throws, never prints.
template <class Key, class Value, class Source>
hipError_t segmented_sort_entry(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                Key* keys_out, const Value* values_in, Value* values_out, std::size_t size,
                                std::size_t segments, Source source, bool sources_valid, order ord,
                                hipStream_t stream, std::uint64_t single_size = 0)
{
    if(ord != order::ascending && ord != order::descending) return hipErrorInvalidValue;
    if(segments > std::numeric_limits<std::uint32_t>::max()) return hipErrorInvalidValue;
    if(size >= packed_segment::max_begin) return hipErrorInvalidValue;
    try
    {
        const segmented_plan<Key, Value> plan(size, segments);
        if(temp_storage == nullptr)
        {
            temp_storage_bytes = plan.bytes;
            return hipSuccess;
        }
        if(temp_storage_bytes < plan.bytes) return hipErrorInvalidValue;
        if(size == 0 || segments == 0) return hipSuccess;
        if(keys_in == nullptr || keys_out == nullptr || !sources_valid) return hipErrorInvalidValue;
        if(has_values<Value> && (values_in == nullptr || values_out == nullptr)) return hipErrorInvalidValue;
        int device = 0, sms = 0;
        HIPFLASHSORT_RETURN_IF_ERROR(hipGetDevice(&device));
        HIPFLASHSORT_RETURN_IF_ERROR(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
        segmented_runner<Key, Value> runner{plan, static_cast<char*>(temp_storage), keys_out, values_out, ord,
                                            stream, sms, device};
        runner.enable_dynamic_classes();
        return runner.run(source, segments, keys_in, values_in, single_size);
    }
    catch(const std::bad_alloc&)
    {
        return hipErrorOutOfMemory;
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
