// The last kernel of a partition round: the stable scatter of every chunk into its segment's
// buckets, staged in LDS so that each bucket's run of a tile is written contiguously. The buckets
// become the next round's segments.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_PARTITION_SCATTER_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_PARTITION_SCATTER_HPP_

#include <cstdint>

#include "../../block/detail/block_primitives.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "partition_kernels.hpp"
#include "segmented_config.hpp"

namespace hipflashsort {
namespace detail {

/// LDS of the scatter: per-bucket output cursors, the wavefronts' bucket counters (of type
/// Counter) and the tile staged in bucket order.
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets,
          class Counter>
struct scatter_storage_of
{
    using counter_type = Counter;
    // Output position of the bucket's first key of this tile, minus the bucket's first slot in
    // the staged tile: a staged key at `slot` goes to cursor[bucket] + slot.
    std::uint64_t cursor[MaxBuckets];
    // Where the previous tile's run of each bucket ended in that staged tile.
    std::uint32_t previous_end[MaxBuckets];
    // Each bucket's group, where the segment's buckets are grouped (list_groups).
    std::uint16_t group_of[MaxBuckets];
    // 16-bit counters sit two to a 32-bit word, which add_to_counter's atomics update.
    alignas(4) Counter counters[block_shape<BlockSize>::waves * MaxBuckets];
    Key keys[BlockSize * ItemsPerThread];
    Value values[has_values<Value> ? BlockSize * ItemsPerThread : 1];
    std::uint32_t scan_scratch[block_shape<BlockSize>::waves];
};

/// Scatter blocks that `bytes` of static LDS each leave resident on a multiprocessor (at most
/// the kernel's three).
HIPFLASHSORT_HOST_DEVICE constexpr unsigned int scatter_blocks_in_lds(unsigned int bytes)
{
    return target_multiprocessor_lds() / bytes < 3 ? target_multiprocessor_lds() / bytes : 3u;
}

/// Whether the scatter takes 32-bit counters, given the bytes of its LDS with them (`wide`) and
/// with 16-bit ones (`narrow`): where the wide layout fits the static LDS and leaves as many
/// blocks resident. A 32-bit counter takes an atomic on its own address; a 16-bit one a shift
/// and mask of its word's half before and after it. H200, three rotated rounds against 16-bit
/// counters, both with chunk_scatter's whole tiles and plain classifiers (fifty-sixth session):
/// 2^28 f32 / u32 uniform +0.9 / -0.0%, reduced-entropy +2.1 / -0.2%, sorted +2.9 / +2.9%; 2^24
/// +2.0 / +1.0%; u64 2^27 +1.8%.
HIPFLASHSORT_HOST_DEVICE constexpr bool scatter_takes_wide_counters(unsigned int wide, unsigned int narrow)
{
    return wide <= 48 * 1024 && scatter_blocks_in_lds(wide) >= scatter_blocks_in_lds(narrow);
}

template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
struct scatter_storage_choice
{
    template <class Counter>
    using with = scatter_storage_of<Key, Value, BlockSize, ItemsPerThread, MaxBuckets, Counter>;
    using type = std::conditional_t<scatter_takes_wide_counters(sizeof(with<std::uint32_t>),
                                                                sizeof(with<std::uint16_t>)),
                                    with<std::uint32_t>, with<std::uint16_t>>;
};

/// The scatter's LDS, with the counters scatter_takes_wide_counters chooses.
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
using scatter_storage = typename scatter_storage_choice<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>::type;

/// Stable scatter of one chunk into its segment's buckets (or bucket groups: below, bucket means
/// either), tile by tile: rank each item within the tile per wavefront (input order), scan the
/// ranks into the tile's bucket starts, stage the tile in LDS in bucket order, then write each
/// bucket's run contiguously at the chunk's cursor for that bucket. The next tile's loads are
/// issued before the write-out, into the registers the staged tile no longer needs, so they are
/// in flight while the block writes.
///
/// The write-out classifies a staged key again instead of keeping a bucket per slot in LDS: three
/// blocks of 256 fit an H100 SM (two a gfx9 CU) with 16 items of 4 bytes per thread.
///
/// Whole tiles (all but a chunk's last) skip the items' bound tests, and segments whose buckets
/// are plain (partition_classifier::plain, not grouped) skip the classifier's tests of its kind,
/// each in code of its own. With the bound test, the kind's tests (a branch, a select and a
/// predicated group lookup per key) and bucket and rank packed into one register, ranking took
/// about 45 of the scatter's 89 instructions per u32 key (ncu source counters, 2^28 uniform);
/// now the scatter executes 521 M warp instructions there instead of 745 M (33 M of the saving
/// from the 32-bit counters of scatter_storage). H200, 2^28 keys, three rotated rounds against
/// 6e66be6, with the counters: f32 / u32 uniform +3.7 / +0.7% (at the GPU's own clocks the u32
/// scatter, 1214 -> 1185 us, waits on memory more than on its instructions), normal +2.8 /
/// +0.3%, reduced-entropy +7.4 / +2.3%, sorted +15.7 / +17.8%, reverse +12.8 / +13.8%,
/// few-unique +10.5 / +8.7%; 2^24 +3.4 / +2.5%; u32+u32 pairs -0.5%, u64 +0.2% (fifty-sixth
/// session).
template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
struct chunk_scatter
{
    using shape = block_shape<BlockSize>;
    using word = image_word_t<Key>;
    using storage_type = scatter_storage<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>;
    static constexpr unsigned int tile = BlockSize * ItemsPerThread;
    static constexpr unsigned int span = ItemsPerThread * shape::wave; // positions per wavefront
    static constexpr unsigned int bucket_bits = log2_ceil(MaxBuckets);
    static constexpr unsigned int buckets_per_thread = (MaxBuckets + BlockSize - 1) / BlockSize;
    static constexpr bool with_values = has_values<Value>;
    static_assert(tile <= 65536 && MaxBuckets <= 65536 && MaxBuckets % 2 == 0,
                  "packed, bucket and rank share 32 bits; 16-bit counters pair up in words");

    storage_type& lds;
    partition_classifier<Key> classify;
    order ord;
    bool grouped;
    unsigned int count; // buckets, or groups where grouped
    unsigned int row;   // counters per wavefront, 4-byte aligned for wave_stable_rank

    HIPFLASHSORT_DEVICE chunk_scatter(storage_type& storage, const partition_classifier<Key>& c, bool g, order o)
        : lds(storage), classify(c), ord(o), grouped(g), count(c.buckets()), row((c.buckets() + 1u) & ~1u)
    {
    }

    /// Plain: the segment's buckets are not grouped and its classifier is plain(), so that its
    /// kind is not tested.
    template <bool Plain>
    HIPFLASHSORT_DEVICE unsigned int bucket_of(const Key& k) const
    {
        const auto image = static_cast<word>(wide_image(k, ord));
        if constexpr(Plain) return classify.plain_bucket(k, image);
        const unsigned int b = classify(k, image);
        return grouped ? lds.group_of[b] : b;
    }
    HIPFLASHSORT_DEVICE bool plain() const { return !grouped && classify.plain(); }
    HIPFLASHSORT_DEVICE unsigned int buckets() const { return count; }
    using counter_type = typename storage_type::counter_type;
    HIPFLASHSORT_DEVICE counter_type* counters() { return lds.counters; }

    /// Each item's bucket and rank in the tile, held from the ranks to the staging. Keys alone
    /// hold them apart (packed, they cost a pack and an unpack per key, where the compiler held
    /// them in two registers anyway); with values, whose registers are short, they share one as
    /// bucket << 16 | rank (apart, u32+u32 2^28 sorts lost 5.7%).
    struct tile_places
    {
        unsigned int first[ItemsPerThread];                    // bucket, or bucket << 16 | rank
        unsigned int second[with_values ? 1 : ItemsPerThread]; // rank, unless packed
        HIPFLASHSORT_DEVICE void set(unsigned int r, unsigned int bucket, unsigned int rank)
        {
            if constexpr(with_values) first[r] = bucket << 16 | rank;
            else
            {
                first[r] = bucket;
                second[r] = rank;
            }
        }
        HIPFLASHSORT_DEVICE unsigned int bucket(unsigned int r) const { return with_values ? first[r] >> 16 : first[r]; }
        HIPFLASHSORT_DEVICE unsigned int rank(unsigned int r) const
        {
            if constexpr(with_values) return first[r] & 0xffffu;
            else return second[r];
        }
    };
    HIPFLASHSORT_DEVICE static unsigned int wave_first() { return threadIdx.x / shape::wave * span + lane_id(); }
    HIPFLASHSORT_DEVICE static unsigned int first_bucket() { return threadIdx.x * buckets_per_thread; }

    /// Cursors start at the chunk's share of each bucket; counters start at zero.
    HIPFLASHSORT_DEVICE void start(const std::uint64_t* matrix, const partition_segment& s, unsigned int chunk,
                                   const segment_range* next, const std::uint16_t* groups)
    {
        if(grouped)
        {
            start_groups(matrix, s, chunk, next, groups);
            return;
        }
        for(unsigned int b = threadIdx.x; b < buckets(); b += BlockSize)
        {
            lds.cursor[b] = next[s.next_first + b].begin + *matrix_entry(matrix, s, b, chunk);
            lds.previous_end[b] = 0;
        }
        clear_counters();
        __syncthreads();
    }

    /// As start, for groups: a group's share of the chunk starts after the earlier chunks' keys
    /// of all its buckets, the sum of their column prefixes.
    HIPFLASHSORT_DEVICE void start_groups(const std::uint64_t* matrix, const partition_segment& s, unsigned int chunk,
                                          const segment_range* next, const std::uint16_t* groups)
    {
        for(unsigned int b = threadIdx.x; b < classify.buckets(); b += BlockSize)
        {
            lds.group_of[b] = groups[s.next_first + b];
            lds.cursor[b] = 0;
            lds.previous_end[b] = 0;
        }
        __syncthreads();
        for(unsigned int b = threadIdx.x; b < classify.buckets(); b += BlockSize)
        {
            atomicAdd(reinterpret_cast<unsigned long long*>(&lds.cursor[lds.group_of[b]]),
                      static_cast<unsigned long long>(*matrix_entry(matrix, s, b, chunk)));
        }
        count = lds.group_of[classify.buckets() - 1] + 1u;
        row = (count + 1u) & ~1u;
        __syncthreads();
        for(unsigned int g = threadIdx.x; g < count; g += BlockSize) lds.cursor[g] += next[s.next_first + g].begin;
        clear_counters();
        __syncthreads();
    }

    HIPFLASHSORT_DEVICE void clear_counters()
    {
        // In whole 32-bit words (row is even): 16-bit counters two at a time.
        constexpr unsigned int per_word = sizeof(std::uint32_t) / sizeof(counter_type);
        auto* const words = reinterpret_cast<std::uint32_t*>(lds.counters);
        for(unsigned int i = threadIdx.x; i < shape::waves * row / per_word; i += BlockSize) words[i] = 0;
    }

    HIPFLASHSORT_DEVICE void load(const Key* keys_in, const Value* values_in, std::uint64_t tile_begin,
                                  unsigned int size, Key (&k)[ItemsPerThread], Value (&v)[ItemsPerThread])
    {
        load_tile<ItemsPerThread, shape::wave>(keys_in + tile_begin, wave_first(), size, tile, k);
        if constexpr(with_values)
            load_tile<ItemsPerThread, shape::wave>(values_in + tile_begin, wave_first(), size, tile, v);
    }

    /// Ranks the tile's `size` items and stages them in LDS in bucket order. Whole: size is the
    /// tile, and no item is tested against it.
    template <bool Whole, bool Plain>
    HIPFLASHSORT_DEVICE void place(const Key (&k)[ItemsPerThread], const Value (&v)[ItemsPerThread],
                                   unsigned int size)
    {
        tile_places places;
        rank<Whole, Plain>(k, size, places);
        scan_counts();
        stage<Whole>(k, v, places, size);
    }

    /// Rank of each item among the tile's earlier items of its bucket, per wavefront, with its
    /// bucket (input order only where it can show: wave_rank).
    template <bool Whole, bool Plain>
    HIPFLASHSORT_DEVICE void rank(const Key (&k)[ItemsPerThread], unsigned int size,
                                  tile_places& places)
    {
        counter_type* mine = counters() + threadIdx.x / shape::wave * row;
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            const bool valid = Whole || wave_first() + r * shape::wave < size;
            const unsigned int bucket = valid ? bucket_of<Plain>(k[r]) : 0;
            places.set(r, bucket, wave_rank<bucket_bits, with_values>(bucket, valid, k[r], mine));
        }
        __syncthreads();
    }

    /// Scans the wavefronts' counters in bucket-major order (bucket, then wavefront) into each
    /// wavefront's first slot per bucket, and moves each bucket's cursor past the previous tile's
    /// run to this tile's. Each thread owns consecutive buckets: their sums, one block scan of
    /// the sums, and a rewrite, about 4 instructions per counter.
    HIPFLASHSORT_DEVICE void scan_counts()
    {
        counter_type* c = counters();
        std::uint32_t count[buckets_per_thread];
        std::uint32_t sum = 0;
#pragma unroll
        for(unsigned int i = 0; i < buckets_per_thread; i++)
        {
            const unsigned int b = first_bucket() + i;
            count[i] = 0;
#pragma unroll
            for(unsigned int w = 0; w < shape::waves; w++) count[i] += b < buckets() ? c[w * row + b] : 0u;
            sum += count[i];
        }
        // scan_scratch is written again only after the next tile's barriers.
        std::uint32_t total;
        std::uint32_t running
            = block_inclusive_scan<BlockSize, std::uint32_t, false>(sum, total, lds.scan_scratch) - sum;
#pragma unroll
        for(unsigned int i = 0; i < buckets_per_thread; i++)
        {
            const unsigned int b = first_bucket() + i;
            if(b < buckets())
            {
                lds.cursor[b] += std::uint64_t(lds.previous_end[b]) - running; // may step back: modulo 2^64
                lds.previous_end[b] = running + count[i];
#pragma unroll
                for(unsigned int w = 0; w < shape::waves; w++)
                {
                    const std::uint32_t n = c[w * row + b];
                    c[w * row + b] = static_cast<counter_type>(running);
                    running += n;
                }
            }
        }
        __syncthreads();
    }

    template <bool Whole>
    HIPFLASHSORT_DEVICE void stage(const Key (&k)[ItemsPerThread], const Value (&v)[ItemsPerThread],
                                   const tile_places& places, unsigned int size)
    {
        const counter_type* mine = counters() + threadIdx.x / shape::wave * row;
#pragma unroll
        for(unsigned int r = 0; r < ItemsPerThread; r++)
        {
            if(Whole || wave_first() + r * shape::wave < size)
            {
                const unsigned int slot = mine[places.bucket(r)] + places.rank(r);
                lds.keys[slot] = k[r];
                if constexpr(with_values) lds.values[slot] = v[r];
            }
        }
        __syncthreads();
    }

    /// Consecutive threads write consecutive staged slots: each bucket's run of the tile lands
    /// contiguously at its cursor. The counters are cleared for the next tile meanwhile.
    template <bool Plain>
    HIPFLASHSORT_DEVICE void write(unsigned int size, Key* keys_dst, Value* values_dst)
    {
        clear_counters();
        for(unsigned int slot = threadIdx.x; slot < size; slot += BlockSize)
        {
            const Key key = lds.keys[slot];
            const std::uint64_t to = lds.cursor[bucket_of<Plain>(key)] + slot;
            keys_dst[to] = key;
            if constexpr(with_values) values_dst[to] = lds.values[slot];
        }
        __syncthreads();
    }
};

/// Writes a chunk's share of a final segment of keys without values whose buckets each hold one
/// image: its one key where it is constant, else (direct) the bucket's image. Each bucket's share
/// is a run of that key, written from the counts without reading the keys, as a counting sort's
/// last pass; a wavefront per bucket. Returns false, writing nothing, where a bucket may hold a
/// float zero: -0 and +0 share an image and keep their input order, so their keys must move.
/// H200, 2^28 keys, three rotated rounds against the full scatter: f32 / u32 reduced-entropy
/// +5.5 / +1.7%, u32 zipf +10.6%, u32 outlier +27.7%, few-unique +40-44%, all-equal +138-165%,
/// every other case within 0.6% (2^24 within run spread; fifty-fifth session).
template <class Key, unsigned int BlockSize>
HIPFLASHSORT_DEVICE bool fill_final_chunk(const partition_classifier<Key>& classify, const std::uint64_t* stats,
                                          const partition_segment& s, const partition_chunk& c,
                                          const std::uint64_t* matrix, const segment_range* next, Key* keys_out,
                                          order ord)
{
    using codec = radix_key_codec<Key>;
    using word = image_word_t<Key>;
    using shape = block_shape<BlockSize>;
    std::uint64_t lo, hi;
    deciding_range(stats, s, c.segment, lo, hi);
    const bool constant = lo == hi;
    const word first = constant ? static_cast<word>(lo) : classify.inner.by_image.min_image;
    const word last = constant ? first : static_cast<word>(first + (classify.buckets() - 1));
    if constexpr(codec::is_float)
    {
        const auto zero = static_cast<word>(wide_image(Key(0), ord));
        if(first <= zero && zero <= last) return false;
    }
    const segment_range* buckets = next + s.next_first;
    // Each lane finds one bucket's run, the loads of a wavefront's buckets all in flight at once;
    // then the wavefront writes the runs one after another. Where a wavefront found each run in
    // turn, its dependent loads bound the fill: H200, 2^28, three rotated rounds, u32 / f32
    // reduced-entropy +2.3 / +2.8%, few-unique +3.5 / +3.0%, all-equal +2.2 / +2.4%, every
    // other case within 1.1% (fifty-fifth session).
    for(unsigned int base = threadIdx.x / shape::wave * shape::wave; base < s.buckets;
        base += shape::waves * shape::wave)
    {
        const unsigned int b = base + lane_id();
        std::uint64_t from = 0, to = 0;
        if(b < s.buckets)
        {
            const std::uint64_t begin = buckets[b].begin; // listed empty: its end is the next one's begin
            const std::uint64_t end = b + 1 < s.buckets ? buckets[b + 1].begin : s.range.end;
            from = begin + *matrix_entry(matrix, s, b, c.index);
            to = c.index + 1 < s.chunks ? begin + *matrix_entry(matrix, s, b, c.index + 1) : end;
        }
        for(lane_mask_type runs = ballot(from != to); runs != 0; runs &= runs - 1)
        {
            const int lane = static_cast<int>(__ffsll(static_cast<unsigned long long>(runs)) - 1);
            const std::uint64_t run_from = shuffle(from, lane), run_to = shuffle(to, lane);
            const auto image = static_cast<typename codec::bit_key_type>(
                constant ? first : static_cast<word>(first + base + static_cast<unsigned int>(lane)));
            const Key key = codec::decode_lossless(image, ord);
            for(std::uint64_t i = run_from + lane_id(); i < run_to; i += shape::wave) keys_out[i] = key;
        }
    }
    return true;
}

template <class Key, class Value, unsigned int BlockSize, unsigned int ItemsPerThread, unsigned int MaxBuckets>
__global__ __launch_bounds__(BlockSize, 3) void chunk_scatter_kernel(
    const round_totals* totals, const partition_chunk* chunks, const partition_segment* segments,
    const std::uint64_t* stats, const std::uint64_t* matrix, const segment_range* next, const std::uint16_t* groups,
    const Key* keys_in, Key* keys_tmp, Key* keys_out, const Value* values_in, Value* values_tmp, Value* values_out,
    order ord, final_segments rule)
{
    using scatter = chunk_scatter<Key, Value, BlockSize, ItemsPerThread, MaxBuckets>;
    constexpr unsigned int tile = scatter::tile;
    __shared__ typename scatter::storage_type lds;
    if(blockIdx.x >= totals->chunks) return;
    const partition_chunk c = chunks[blockIdx.x];
    const partition_segment s = segments[c.segment];
    const bool done = segment_is_final(stats, s, c.segment, rule);
    if(done && rule.in_place) return;
    const partition_classifier<Key> classify = segment_classifier<Key>(stats, s, c.segment, s.buckets, ord);
    if constexpr(!has_values<Value>)
    {
        if(done && fill_final_chunk<Key, BlockSize>(classify, stats, s, c, matrix, next, keys_out, ord)) return;
    }
    scatter agent(lds, classify, segment_is_grouped(s, stats, c.segment), ord);
    Key* keys_dst = done ? keys_out : keys_tmp;
    Value* values_dst = done ? values_out : values_tmp;
    agent.start(matrix, s, c.index, next, groups);
    const bool plain = agent.plain();
    Key k[ItemsPerThread];
    Value v[ItemsPerThread];
    agent.load(keys_in, values_in, c.begin, tile_size(c, c.begin, tile), k, v);
    for(std::uint64_t tile_begin = c.begin; tile_begin < c.end; tile_begin += tile)
    {
        const unsigned int size = tile_size(c, tile_begin, tile);
        if(size != tile) agent.template place<false, false>(k, v, size);
        else if(plain) agent.template place<true, true>(k, v, size);
        else agent.template place<true, false>(k, v, size);
        const std::uint64_t next_tile = tile_begin + tile;
        if(next_tile < c.end) agent.load(keys_in, values_in, next_tile, tile_size(c, next_tile, tile), k, v);
        if(plain) agent.template write<true>(size, keys_dst, values_dst);
        else agent.template write<false>(size, keys_dst, values_dst);
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
