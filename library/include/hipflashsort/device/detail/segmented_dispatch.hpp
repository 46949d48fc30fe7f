// Host side of the segmented flash sort: temporary-storage plan, argument checks and the round
// loop (bin → sort small → partition large → repeat on the buckets).
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_DISPATCH_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SEGMENTED_DISPATCH_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../../config.hpp"
#include "count_mailbox.hpp"
#include "partition_plan.hpp"
#include "partition_scatter.hpp"
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

/// Where a partition round's plan lies, packed from byte `first` on, for at most `n_segments`
/// segments and `n_chunks` chunks: the round's totals, the segments' statistics
/// (segment_stat_words each), the segments, the chunks.
struct round_layout
{
    static_assert(sizeof(round_totals) % 8 == 0 && sizeof(partition_segment) % 8 == 0
                      && sizeof(partition_chunk) % 8 == 0,
                  "packed 8-byte fields");
    std::size_t totals, stats, segments, chunks, end;
    round_layout(std::size_t first, std::uint64_t n_segments, std::uint64_t n_chunks)
        : totals(first), stats(totals + sizeof(round_totals)),
          segments(stats + segment_stat_words * sizeof(std::uint64_t) * n_segments),
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
    // After the counters: how many of a partition round's listing blocks have binned (round_binning).
    static constexpr unsigned int listed_blocks = counters;
    // After that count: whether a round met crowded integer keys (chunk_histogram_kernel).
    static constexpr unsigned int crowded_word = listed_blocks + 1;
    static constexpr unsigned int count_words = crowded_word + 1; // the counters and both words
    static_assert(config::classes <= max_size_classes, "one limit and one list per class");

    std::size_t keys_tmp = 0, values_tmp = 0, small_lists = 0, large_list = 0, wide_lists[wide_classes] = {},
                next = 0, groups = 0, counts = 0, round = 0, matrix = 0, bytes = 0;
    std::uint64_t class_offset[config::classes] = {};
    std::uint64_t next_capacity = 0, large_capacity = 0, chunk_capacity = 0, matrix_capacity = 0;
    std::uint64_t keys = 0; // the whole input's

    segmented_plan(std::uint64_t size, std::uint64_t segment_count) : keys(size)
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
            entries += std::min<std::uint64_t>(listed, size / config::smallest_listed(c)) + 1;
        }
        large_capacity = size / config::smallest_large + 1;
        // A round cuts its S keys into chunks of at least one tile, at most max_round_chunks of
        // them plus one per segment (partition_planner::most_chunks); a segment of S_i keys has at most
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
        take(counts, count_words * sizeof(unsigned int));
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
    count_mailbox mailbox; // where the class counts come back (read_counts); may be none
    // Resident scatter blocks, the partition's chunk target; 0 until the first partition asks
    // the GPU (resident_scatter_blocks), so sorts without large segments never query it.
    unsigned int scatter_blocks = 0;
    using segments_kernel = void (*)(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*, order);
    using deferring_kernel = void (*)(const std::uint64_t*, unsigned int, const std::uint64_t*, unsigned int,
                                      const Key*, Key*, const Value*, Value*, Value*, segment_range*, unsigned int*,
                                      order);
    // The dynamic-LDS classes' kernels once they have opted in to their LDS, else null. Opt-in
    // and launch go through these pointers: a kernel template instantiated in several
    // translation units has one host stub (and registered function) per unit, and the opt-in
    // binds to the stub it is given, which need not be the one a <<<>>> elsewhere in the code
    // would name.
    segments_kernel dynamic_flash[config::max_dynamic_flash_classes] = {}; // the first dynamic_flash_classes
    deferring_kernel flash_network = nullptr;
    // The small flash network class's kernel, opted in at its first launch (small_flash_network_kernel):
    // the device sorts never list segments there, and an opt-in on every call read as a loss of
    // their short sorts (docs/performance.md, sixty-eighth session).
    deferring_kernel small_flash_network = nullptr;
    bool small_flash_network_asked = false;
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
        enable_wide_full_flash_network(static_cast<unsigned int>(per_sm), sorter::zero_free_one_window(row.slots));
    }

    /// The full wide class, with all of a multiprocessor's LDS, above `split` (what the wide
    /// class takes in one window): where its row takes every segment the wide class does, and
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

    /// The small flash network class's kernel, opted in to its LDS on the first call; null where
    /// the device refuses (its segments then go to the flash network class's kernel).
    deferring_kernel small_flash_network_kernel()
    {
        if constexpr(config::has_small_flash_network)
        {
            if(!small_flash_network_asked)
            {
                small_flash_network_asked = true;
                const deferring_kernel kernel
                    = flash_network_segments_kernel<Key, Value, config::small_flash_network_block,
                                                    config::small_flash_network_capacity>;
                if(opt_in(reinterpret_cast<const void*>(kernel), config::small_flash_network_lds()))
                    small_flash_network = kernel;
            }
        }
        return small_flash_network;
    }

    /// Fewest segments of the small flash network class worth a launch of its own (segmented_config).
    unsigned int small_min_segments() const
    {
        return config::small_flash_network_min_per_sm * static_cast<unsigned int>(std::max(1, multiprocessors));
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
    /// against 28.9-30.1 through that round on an H100); `with_small`: whether the small flash
    /// network class takes its segments.
    class_limits limits(bool with_wide, bool with_small) const
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
        if constexpr(config::has_small_flash_network)
        {
            constexpr unsigned int c = config::small_flash_network_class;
            if(!flash_network || !with_small) l.limit[c] = l.limit[c - 1];
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

    /// Where binning lists each class's segments.
    class_lists binning_lists() const
    {
        class_lists lists{at<std::uint64_t>(plan.small_lists), at<segment_range>(plan.large_list),
                          {at<segment_range>(plan.wide_lists[0]), at<segment_range>(plan.wide_lists[1])}, {}};
        for(unsigned int c = 0; c < config::classes; c++) lists.offset[c] = plan.class_offset[c];
        return lists;
    }

    /// Bins the user's segments (bin_segments_kernel, which sorts the first class itself where it
    /// is one thread's), then sorts every small one and leaves the large ones in `large`
    /// (sort_binned). The class counts come back to the host (read_counts: the host waits
    /// for them) before the sorts are launched. `single_size`: the size of the only segment when
    /// the host knows it (device-level sort), which needs no read-back.
    template <class Source>
    hipError_t sort_small(Source source, std::uint64_t segments, const Key* keys_in, const Value* values_in,
                          round_segments& large, std::uint64_t single_size)
    {
        unsigned int* counts = at<unsigned int>(plan.counts);
        // A lone segment (the device sort) keeps the flash network class's 512 threads.
        const class_limits l = limits(true, single_size == 0);
        HIPFLASHSORT_RETURN_IF_ERROR(hipMemsetAsync(counts, 0, plan_type::counters * sizeof(unsigned int), stream));
        // Where the smallest class is sorted one segment per thread, binning sorts it too and
        // lists none of it.
        constexpr unsigned int sorted_up_to = config::thread_network_class(0) ? config::rank_capacity[0] : 1;
        bin_segments_kernel<sorted_up_to>
            <<<grid_for(segments, binning_block, config::grid_blocks_per_sm), binning_block, 0, stream>>>(
                source, segments, l, binning_lists(), counts, keys_in, keys_out, values_in, values_out, ord);
        unsigned int host[plan_type::counters] = {};
        if(single_size != 0)
        {
            if(single_size > sorted_up_to) host[l.list_of(single_size)] = 1;
        }
        else
        {
            HIPFLASHSORT_RETURN_IF_ERROR(read_counts(mailbox, counts, plan_type::counters, host, stream));
        }
        return sort_binned(host, keys_in, values_in, large, false, single_size != 0);
    }

    /// Sorts the small buckets of the partition round just launched, whose offsets kernel listed
    /// them by class and publishes the counts (round_binning): the host waits for those while the
    /// round's scatter runs.
    hipError_t sort_buckets(const Key* keys_in, const Value* values_in, round_segments& large)
    {
        unsigned int host[plan_type::counters] = {};
        HIPFLASHSORT_RETURN_IF_ERROR(
            await_counts(mailbox, at<unsigned int>(plan.counts), plan_type::counters, host, stream));
        return sort_binned(host, keys_in, values_in, large, true, false);
    }

    /// Launches the small classes that `host` (the class counts) says hold segments, each with a
    /// grid of its size, and leaves the large segments in `large` (their lists stay on the
    /// device). Where a class can hand segments on to the large list, its count comes back after
    /// those launches (a second wait, while the GPU sorts). `buckets`: the segments are a
    /// partition round's buckets.
    hipError_t sort_binned(unsigned int* host, const Key* keys_in, const Value* values_in, round_segments& large,
                           bool buckets, bool lone)
    {
        unsigned int* counts = at<unsigned int>(plan.counts);
        const class_lists lists = binning_lists();
        unsigned int widened[wide_classes] = {}, wide_total = 0;
        for(unsigned int c = 0; c < wide_classes; c++)
        {
            widened[c] = wide[c].kernel ? host[config::large_class + 1 + c] : 0u;
            wide_total += widened[c];
        }
        // Too few for the wide classes: their lists join the large one.
        const bool widening = wide_total >= wide_min_segments();
        launch_rank_classes(host, keys_in, values_in, std::make_integer_sequence<unsigned int, config::rank_classes>{});
        const bool handed_on = launch_block_network_classes(
            host, keys_in, values_in, buckets, lone, lists.large, counts + config::large_class,
            std::make_integer_sequence<unsigned int, config::block_network_classes>{});
        launch_flash_classes(host, keys_in, values_in, std::make_integer_sequence<unsigned int, config::flash_classes>{});
        launch_dynamic_flash_classes(host, keys_in, values_in,
                                     std::make_integer_sequence<unsigned int, config::dynamic_flash_classes>{});
        // The small flash network class's segments: a launch of their own, or with the flash
        // network class's.
        const unsigned int small_listed
            = config::has_small_flash_network ? host[config::small_flash_network_class] : 0u;
        const std::uint64_t* small_list
            = config::has_small_flash_network ? class_list(config::small_flash_network_class) : nullptr;
        const deferring_kernel small = small_listed >= small_min_segments() ? small_flash_network_kernel() : nullptr;
        if(small)
        {
            const unsigned int grid = grid_for(small_listed, 1, config::small_flash_network_blocks_per_sm);
            small<<<grid, config::small_flash_network_block, config::small_flash_network_lds(), stream>>>(
                small_list, small_listed, nullptr, 0, keys_in, keys_out, values_in, values_out, values_scratch(),
                lists.large, counts + config::large_class, ord);
        }
        const unsigned int merged = small ? 0u : small_listed;
        const unsigned int networked = config::has_flash_network ? host[config::flash_network_class] : 0u;
        const bool deferring = handed_on || small || (flash_network && networked + merged != 0);
        if(flash_network && networked + merged != 0)
        {
            const unsigned int grid = grid_for(networked + merged, 1, config::flash_network_blocks_per_sm);
            flash_network<<<grid, config::flash_network_block, config::flash_network_lds, stream>>>(
                class_list(config::flash_network_class), networked, small_list, merged, keys_in, keys_out, values_in,
                values_out, values_scratch(), lists.large, counts + config::large_class, ord);
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
            HIPFLASHSORT_RETURN_IF_ERROR(
                read_counts(mailbox, counts + config::large_class, 1, &host[config::large_class], stream));
        }
        large = round_segments{};
        large.list[0] = lists.large;
        large.count[0] = host[config::large_class];
        for(unsigned int c = 0; c < wide_classes && !widening; c++)
        {
            large.list[1 + c] = lists.wide[c];
            large.count[1 + c] = widened[c];
        }
        return hipSuccess;
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
        if constexpr(config::thread_network_class(C))
        {
            constexpr unsigned int threads = config::thread_network_block;
            thread_sort_key_segments_kernel<Key, threads, capacity>
                <<<grid_for(count, threads, config::grid_blocks_per_sm), threads, 0, stream>>>(
                    class_list(C), count, keys_in, keys_out, ord);
        }
        else if constexpr(config::wave_networks)
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

    /// `buckets`: the segments are a partition round's; `lone`: the call's only segment. Returns
    /// whether a launched class may hand segments on to `large` (counter `large_count`).
    template <unsigned int... C>
    bool launch_block_network_classes(const unsigned int* counts, const Key* keys_in, const Value* values_in,
                                      bool buckets, bool lone, segment_range* large, unsigned int* large_count,
                                      std::integer_sequence<unsigned int, C...>)
    {
        return (launch_block_network_class<C>(counts[config::rank_classes + C], keys_in, values_in, buckets, lone,
                                              large, large_count)
                | ... | false);
    }

    template <unsigned int C>
    bool launch_block_network_class(unsigned int count, const Key* keys_in, const Value* values_in, bool buckets,
                                    [[maybe_unused]] bool lone, [[maybe_unused]] segment_range* large,
                                    [[maybe_unused]] unsigned int* large_count)
    {
        if(count == 0) return false;
        constexpr unsigned int waves = config::block_network_waves[C];
        const std::uint64_t* list = class_list(config::rank_classes + C);
        const unsigned int grid = grid_for(count, 1, config::segment_grid_blocks_per_sm);
        if constexpr(has_values<Value>)
        {
            // A partition's buckets keep the integer network (bitonic_block_pair_segments_kernel).
            if(buckets)
                bitonic_block_pair_segments_kernel<Key, Value, waves, config::block_network_items, false>
                    <<<grid, waves * block_network_lanes, 0, stream>>>(list, count, keys_in, keys_out, values_in,
                                                                       values_out, ord);
            else
                bitonic_block_pair_segments_kernel<Key, Value, waves, config::block_network_items, true>
                    <<<grid, waves * block_network_lanes, 0, stream>>>(list, count, keys_in, keys_out, values_in,
                                                                       values_out, ord);
        }
        else
        {
            if constexpr(config::flash_sorts_integer_4096 && C == 1)
            {
                if(!buckets && !lone)
                {
                    constexpr unsigned int block = config::integer_4096_block;
                    constexpr unsigned int capacity = config::block_network_capacity(C);
                    using sorter = flash_network_sort<Key, block, capacity>;
                    constexpr unsigned int lds = sorter::lds_bytes(sorter::full_slots);
                    static_assert(lds <= 48 * 1024, "launched without opting in to more LDS");
                    flash_network_segments_kernel<Key, Value, block, capacity><<<grid, block, lds, stream>>>(
                        list, count, nullptr, 0, keys_in, keys_out, values_in, values_out, nullptr, large, large_count,
                        ord);
                    return true;
                }
            }
            bitonic_block_segments_kernel<Key, waves>
                <<<grid, waves * block_network_lanes, 0, stream>>>(list, count, keys_in, keys_out, ord);
        }
        return false;
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

    /// Where the partition round's plan lies (sized for the most a round holds).
    round_layout layout() const { return round_layout(plan.round, plan.large_capacity, plan.chunk_capacity); }

    /// The partition's sizing rules for this device and the classes it granted.
    partition_planner<Key, Value> planner() const
    {
        return partition_planner<Key, Value>{largest_small(), static_cast<unsigned int>(std::max(1, multiprocessors)),
                                             scatter_blocks, flash_network != nullptr};
    }

    /// One partition round over `large`: the plan on the GPU (plan_partition_kernel), then
    /// min/max, counts, offsets (which list the next round's segments by class and publish the
    /// class counts, round_binning) and the scatter into dst. The chunk kernels' grids are the
    /// most chunks the round can have; the offsets kernel gives each segment enough column-scan
    /// blocks that the round's segments make about eight blocks per multiprocessor, up to one
    /// wavefront per bucket column (a loop covers any rest). A lone segment's plan is known here
    /// exactly (the device sort's first round, which at small sizes is bound by what the host
    /// issues): its grids are exact. `late`: partition_planner::late; `first`: the sort's first
    /// round, which reads no crowded flag of an earlier one.
    hipError_t partition(const round_segments& large, const Key* keys_in, Key* keys_dst, const Value* values_in,
                         Value* values_dst, bool sampled, bool late, bool first)
    {
        constexpr unsigned int block = config::partition_block;
        constexpr unsigned int items = config::partition_items_per_thread;
        constexpr unsigned int max_buckets = config::partition_max_buckets;
        const std::uint64_t n_segs = large.size();
        partition_planner<Key, Value> rules = planner();
        rules.late = late;
        const round_layout l = layout();
        auto* totals = at<round_totals>(l.totals);
        auto* stats = at<std::uint64_t>(l.stats);
        auto* segs = at<partition_segment>(l.segments);
        auto* chunks = at<partition_chunk>(l.chunks);
        auto* matrix = at<std::uint64_t>(plan.matrix);
        auto* next = at<segment_range>(plan.next);
        auto* groups = at<std::uint16_t>(plan.groups);
        auto* counts = at<unsigned int>(plan.counts);
        unsigned int* const crowded = counts + plan_type::crowded_word;
        plan_partition_kernel<Key, Value, block><<<1, block, 0, stream>>>(
            rules, large, stats, segs, chunks, totals, counts, plan_type::count_words, first ? nullptr : crowded);
        std::uint64_t chunk_grid = std::min(rules.most_chunks(n_segs), plan.chunk_capacity);
        std::uint64_t most_buckets = max_buckets;
        if(large.single != 0)
        {
            const partition_segment lone = rules.plan_lone(large.single);
            chunk_grid = lone.chunks;
            most_buckets = lone.buckets;
        }
        const auto grid = static_cast<unsigned int>(chunk_grid);
        const std::uint64_t most_groups = (most_buckets * device_wavefront_size() + block - 1) / block;
        const std::uint64_t wanted_groups = (8 * std::uint64_t(rules.multiprocessors) + n_segs - 1) / n_segs;
        const auto column_groups = static_cast<unsigned int>(std::min(most_groups, wanted_groups));
        const unsigned int min_max_grid = sampled ? (grid + block_shape<block>::waves - 1) / block_shape<block>::waves
                                                  : grid; // a wavefront per sampled chunk
        chunk_min_max_kernel<Key, block, items>
            <<<min_max_grid, block, 0, stream>>>(totals, chunks, segs, keys_in, stats, next, ord, sampled);
        chunk_histogram_kernel<Key, block, items, max_buckets>
            <<<grid, block, 0, stream>>>(totals, chunks, segs, stats, keys_in, matrix, next, crowded, ord);
        // The buckets skip the wide classes and the small flash network class (limits).
        const round_binning binning{limits(false, false), binning_lists(), counts, counts + plan_type::listed_blocks,
                                    mailbox.device};
        const final_segments rule = final_segments::of(keys_in, keys_out, values_in, values_out, has_values<Value>);
        clear_flag(mailbox);
        partition_offsets_kernel<block, max_buckets>
            <<<dim3(static_cast<unsigned int>(n_segs), column_groups + 1), block, 0, stream>>>(
                segs, stats, matrix, next, groups, binning, rule);
        chunk_scatter_kernel<Key, Value, block, items, max_buckets><<<grid, block, 0, stream>>>(
            totals, chunks, segs, stats, matrix, next, groups, keys_in, keys_dst, keys_out, values_in, values_dst,
            values_out, ord, rule);
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
        round_segments large{};
        // Rounds from this one on meet what uniform keys leave: skewed keys (partition_planner::late).
        const unsigned int late_from = std::max(2u, planner().uniform_rounds(plan.keys));
        const Key* src = keys_in;
        const Value* vsrc = values_in;
        Key* dst = keys_tmp;
        Value* vdst = values_tmp;
        if(single_size > largest_small()) // a lone segment: never enough for the wide class
        {
            large.single = single_size;
        }
        else
        {
            HIPFLASHSORT_RETURN_IF_ERROR(sort_small(first_round, segments, src, vsrc, large, single_size));
        }
        for(unsigned int round = 0;; round++)
        {
            if(large.size() == 0) return hipSuccess;
            if(scatter_blocks == 0) scatter_blocks = resident_scatter_blocks(multiprocessors);
            const bool sampled = round < config::sampled_rounds && plan.keys >= config::sampled_round_keys;
            HIPFLASHSORT_RETURN_IF_ERROR(
                partition(large, src, dst, vsrc, vdst, sampled, round >= late_from, round == 0));
            // The buckets now live in dst; the buffer read this round becomes the next target.
            src = dst;
            vsrc = vdst;
            dst = dst == keys_tmp ? keys_out : keys_tmp;
            vdst = vdst == values_tmp ? values_out : values_tmp;
            HIPFLASHSORT_RETURN_IF_ERROR(sort_buckets(src, vsrc, large));
        }
    }
};

/// Shared entry of all segmented and device-level sorts: two-phase temporary storage, checks,
/// then the rounds (no host allocation). Never throws, never prints.
template <class Key, class Value, class Source>
hipError_t segmented_sort_entry(void* temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                Key* keys_out, const Value* values_in, Value* values_out, std::size_t size,
                                std::size_t segments, Source source, bool sources_valid, order ord,
                                hipStream_t stream, std::uint64_t single_size = 0)
{
    if(ord != order::ascending && ord != order::descending) return hipErrorInvalidValue;
    if(segments > std::numeric_limits<std::uint32_t>::max()) return hipErrorInvalidValue;
    if(size >= packed_segment::max_begin) return hipErrorInvalidValue;
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
    const lent_count_mailbox mailbox;
    segmented_runner<Key, Value> runner{plan, static_cast<char*>(temp_storage), keys_out, values_out, ord,
                                        stream, sms, device, mailbox.get()};
    runner.enable_dynamic_classes();
    return runner.run(source, segments, keys_in, values_in, single_size);
}

} // namespace detail
} // namespace hipflashsort

#endif
