// Kernels of the device-level bitonic sort (device_bitonic_sort.hpp).
//
// Network: Batcher's bitonic sort in the "direction" form over P = next_pow2(size) positions:
// merge k (k = 2, 4, ..., P) runs strides j = k/2 ... 1, and the pair (i, i ^ j) is ordered
// ascending when bit k of i is clear, descending otherwise. Every stage compares images
// (radix_key_codec::lossless_image, complemented for descending order), so the whole network is
// unsigned min/max and the final merge is ascending. The direction form, unlike the "mirror" form of
// block_bitonic_sort, only ever pairs i with i ^ j, which is what lets a block gather any set of
// address bits and run every stride among them.
//
// Blocks: a block of block_size threads holds tile = block_size * items positions. A thread keeps
// its images as 16-byte vectors (vector_items images each), and the block's positions are numbered
// by tile_log2 "place bits" q, low to high: the image within a vector and the lane within groups
// of line_lanes lanes (the line), then the upper places: the vector, the remaining lane bits, the
// wavefront. So the line_lanes neighbouring lanes of a vector instruction read or write one whole
// 128-byte line of consecutive positions (coalesced), whatever the pass; a thread reading its own
// 128-byte run instead kept the passes at a third of the copy bandwidth (ncu, H100). A stage of
// place bit q runs in registers (image or vector bits), through shuffles (lane bits) or through
// LDS (wavefront bits). Which global positions a block holds (bitonic_block_engine):
//   - tile passes: contiguous, above block * tile;
//   - merge passes: the line's bits stay the low position bits, the upper places land on a
//     window of fused_strides consecutive position bits; stages of any stride inside the window
//     run in the block, so one pass runs up to fused_strides global strides of a merge, and the
//     contiguous pass (window right above the line) all the strides below the tile.
// Tiles of keys up to 4 bytes are sorted by the segmented sort's block network instead
// (bitonic_network_tile_kernel), when the device grants it the tile in LDS.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_BITONIC_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_BITONIC_KERNELS_HPP_

#include <cstdint>

#include "../../config.hpp"
#include "../../detail/bit_math.hpp"
#include "../../intrinsics/intrinsics.hpp"
#include "../../thread/radix_key_codec.hpp"
#include "network_teams.hpp"

namespace hipflashsort {
namespace detail {

/// Tuning of the device bitonic sort per key size. Nothing here depends on the wavefront size, so
/// the host (which plans the passes) and every device target agree.
template <class Key>
struct device_bitonic_config
{
    using image_type = typename radix_key_codec<Key>::bit_key_type;

    static constexpr unsigned int block_size = 512;
    // Images per thread: 128 bytes for 4- and 8-byte keys; 32 for 1-2 byte keys, where registers,
    // not bytes, are the limit.
    static constexpr unsigned int items = sizeof(image_type) == 8 ? 16 : 32;
    static constexpr unsigned int tile = block_size * items;
    static constexpr unsigned int tile_log2 = log2_ceil(tile);
    // Images move as 16-byte vectors; line_lanes neighbouring lanes' vectors make one 128-byte line.
    static constexpr unsigned int vector_items = 16 / sizeof(image_type);
    static constexpr unsigned int vectors = items / vector_items;
    static constexpr unsigned int line_lanes = 8;
    static constexpr unsigned int line_log2 = log2_ceil(vector_items * line_lanes);
    // Position bits that a global pass gathers above one line: strides fused per pass.
    static constexpr unsigned int fused_strides = tile_log2 - line_log2;
    // Blocks per multiprocessor the kernels are compiled for (64 registers on an H100). Merge
    // passes: 2^24 u32 keys sorted in 1.67 ms with 2, 1.70 without (85 registers, one block);
    // tiles on the network: 1.40 against 1.45 ms (84 registers without).
    static constexpr unsigned int merge_blocks = 2;
    static constexpr unsigned int network_tile_blocks = 2;

    // Static LDS stays at 32 KiB: LDS stages move the registers through it in lds_rounds rounds of
    // lds_items per thread, as lds_chunks 16-byte vectors each.
    static constexpr unsigned int lds_budget_items = 32768 / sizeof(image_type) / block_size;
    static constexpr unsigned int lds_items = items < lds_budget_items ? items : lds_budget_items;
    static constexpr unsigned int lds_rounds = items / lds_items;
    static constexpr unsigned int lds_chunks = lds_items / vector_items;
    static constexpr unsigned int lds_size = block_size * lds_items;

    static_assert(items % vector_items == 0, "internal: registers are whole vectors");
    static_assert(items % lds_items == 0, "internal: LDS rounds must cover the registers");
    static_assert(lds_chunks >= 1 && lds_chunks <= 8 && (lds_chunks & (lds_chunks - 1)) == 0,
                  "internal: a thread's LDS share is 1-8 whole vectors");
    static_assert(lds_size * sizeof(image_type) < 48 * 1024, "static LDS must stay below 48 KiB");
};

/// Which pairs of a stage are descending: desc = base_desc XOR (tile position & bit != 0).
struct bitonic_direction
{
    bool base_desc;
    unsigned int bit; // 0: the direction is uniform over the block
};

/// One stage of a block: a register stride (mask = J), a shuffle (mask = lane mask) or an LDS
/// exchange between wavefronts (mask = thread mask).
struct bitonic_stage
{
    enum kind_type
    {
        registers,
        shuffle,
        lds
    } kind;
    unsigned int mask;
};

/// Where a block's positions live, and its stages. Above the line (place bits below line_log2:
/// the images of a vector, then the low lanes), the upper places are the vector bits, the high
/// lane bits (both inside a wavefront: "intra") and the wavefront bits; they hold a window of
/// fused_strides position bits b (position window_log + b), upper place u holding bit(u):
///   - WavesLow false (the tile passes): u -> u, the window's top bits on the wavefronts, which
///     leaves the fewest LDS exchanges to a whole tile sort;
///   - WavesLow true (the merge passes): the window's high bits on the intra places and its low
///     bits on the wavefronts, so a global pass of up to `intra` strides (a merge's top ones)
///     needs no LDS.
template <class Key, bool WavesLow>
struct bitonic_block_engine
{
    using config = device_bitonic_config<Key>;
    using image_type = typename config::image_type;

    static constexpr unsigned int items = config::items;
    static constexpr unsigned int wave = device_wavefront_size();
    static constexpr unsigned int vector_items = config::vector_items;
    static constexpr unsigned int line_lanes = config::line_lanes;
    static constexpr unsigned int vector_bits = log2_ceil(config::vectors);
    static constexpr unsigned int high_lane_bits = log2_ceil(wave) - log2_ceil(line_lanes);
    static constexpr unsigned int intra = vector_bits + high_lane_bits;
    static constexpr unsigned int wave_places = config::fused_strides - intra;

    static_assert(config::block_size % wave == 0, "block size must be a multiple of the wavefront size");
    static_assert(wave >= line_lanes, "a wavefront must span one line");
    static_assert(wave_places == log2_ceil(config::block_size / wave), "internal: place bits");

    /// Window bit held by upper place u (vector bits, then high lane bits, then wavefront bits).
    static constexpr HIPFLASHSORT_HOST_DEVICE unsigned int bit(unsigned int u)
    {
        if constexpr(!WavesLow) return u;
        else return u >= intra ? u - intra : wave_places + u;
    }

    /// The stage of place bit q: line bits below line_log2, window bit q - line_log2 above.
    static constexpr HIPFLASHSORT_HOST_DEVICE bitonic_stage stage_of(unsigned int q)
    {
        constexpr unsigned int line_log2 = config::line_log2, e_bits = log2_ceil(vector_items);
        if(q < e_bits) return {bitonic_stage::registers, 1u << q};
        if(q < line_log2) return {bitonic_stage::shuffle, 1u << (q - e_bits)};
        const unsigned int b = q - line_log2;
        const unsigned int u = !WavesLow ? b : b < wave_places ? intra + b : b - wave_places; // bit(u) == b
        if(u < vector_bits) return {bitonic_stage::registers, vector_items << u};
        if(u < intra) return {bitonic_stage::shuffle, line_lanes << (u - vector_bits)};
        return {bitonic_stage::lds, wave << (u - intra)};
    }

    /// This thread's vector 0 in a pass over the block at `base`: its low lanes pick the vector
    /// within the line, its high lanes and wavefront the window bits of their places. Vector v
    /// lies vector_upper(v) << window_log further.
    static HIPFLASHSORT_DEVICE std::uint64_t first(std::uint64_t base, unsigned int window_log)
    {
        const unsigned int t = threadIdx.x, lane = t % wave;
        unsigned int upper = 0;
#pragma unroll
        for(unsigned int j = 0; j < high_lane_bits; j++)
            upper |= ((lane / line_lanes >> j) & 1u) << bit(vector_bits + j);
#pragma unroll
        for(unsigned int k = 0; k < wave_places; k++) upper |= ((t / wave >> k) & 1u) << bit(intra + k);
        return base + lane % line_lanes * vector_items + (std::uint64_t(upper) << window_log);
    }

    static HIPFLASHSORT_DEVICE unsigned int vector_upper(unsigned int v)
    {
        unsigned int upper = 0;
#pragma unroll
        for(unsigned int i = 0; i < vector_bits; i++) upper |= ((v >> i) & 1u) << bit(i);
        return upper;
    }

    /// Tile position of register r of the thread whose vector 0 is at tile position `lead`.
    static HIPFLASHSORT_DEVICE unsigned int tile_position(unsigned int lead, unsigned int r)
    {
        return lead | (r % vector_items) | (vector_upper(r / vector_items) << config::line_log2);
    }

    /// Runs the stages of place bits q_hi, q_hi - 1, ..., q_lo (q_lo <= q_hi < tile_log2), in
    /// that order, which is the order of their position strides. Uniform: d.bit == 0 (the
    /// direction is the block's); else `lead` is this thread's vector 0 as a tile position.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void merge(image_type (&img)[items], image_type* lds, bitonic_direction d,
                                          unsigned int lead, unsigned int q_hi, unsigned int q_lo)
    {
        for(unsigned int q = q_hi + 1; q-- > q_lo;)
        {
            const bitonic_stage s = stage_of(q);
            if(s.kind == bitonic_stage::lds) lds_stage<Uniform>(img, lds, d, lead, s.mask);
            else if(s.kind == bitonic_stage::shuffle) shuffle_stage<Uniform>(img, d, lead, s.mask);
            else register_stage_of<items / 2, Uniform>(img, d, lead, s.mask);
        }
    }

    /// A uniform merge over every place bit, Q = tile_log2 - 1 down to 0, unrolled: the
    /// contiguous merge pass. The run-time loop cost that pass about a fifth (ncu, H100, 2^24 u32
    /// keys: 67 against 54 us per pass); unrolled with a run-time end, the global passes ran
    /// slower (the sort 1.65 against 1.45 ms).
    template <unsigned int Q = config::tile_log2 - 1>
    static HIPFLASHSORT_DEVICE void merge_all(image_type (&img)[items], image_type* lds, bitonic_direction d)
    {
        constexpr bitonic_stage s = stage_of(Q);
        if constexpr(s.kind == bitonic_stage::lds) lds_stage<true>(img, lds, d, 0, s.mask);
        else if constexpr(s.kind == bitonic_stage::shuffle) shuffle_stage<true>(img, d, 0, s.mask);
        else register_stage<s.mask, true>(img, d, 0);
        if constexpr(Q > 0) merge_all<Q - 1>(img, lds, d);
    }

    /// All merges of a tile: k = 2 ... tile, directions from position tile_base + tile position.
    static HIPFLASHSORT_DEVICE void sort_tile(image_type (&img)[items], image_type* lds, std::uint64_t tile_base,
                                              unsigned int lead)
    {
        for(unsigned int k = 2, q = 0; k <= config::tile; k <<= 1, q++)
        {
            const bitonic_direction d{(tile_base & k) != 0, k};
            merge<false>(img, lds, d, lead, q, 0);
        }
    }

private:
    // Uniform: the caller guarantees d.bit == 0, which frees the registers of the per-element test.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE bool descending(bitonic_direction d, unsigned int lead, unsigned int r)
    {
        if constexpr(Uniform) return d.base_desc;
        else return d.base_desc != ((tile_position(lead, r) & d.bit) != 0);
    }

    static HIPFLASHSORT_DEVICE image_type min_of(image_type a, image_type b) { return b < a ? b : a; }
    static HIPFLASHSORT_DEVICE image_type max_of(image_type a, image_type b) { return b < a ? a : b; }

    // Register stride J, a power of two <= JMax chosen at run time.
    template <unsigned int JMax, bool Uniform>
    static HIPFLASHSORT_DEVICE void register_stage_of(image_type (&img)[items], bitonic_direction d, unsigned int lead,
                                                      unsigned int j)
    {
        if constexpr(JMax >= 1)
        {
            if(j == JMax) register_stage<JMax, Uniform>(img, d, lead);
            else register_stage_of<JMax / 2, Uniform>(img, d, lead, j);
        }
    }

    // Both elements of a pair are in this thread's registers; r is the lower position.
    template <unsigned int J, bool Uniform>
    static HIPFLASHSORT_DEVICE void register_stage(image_type (&img)[items], bitonic_direction d, unsigned int lead)
    {
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            if((r & J) != 0) continue;
            const image_type a = img[r];
            const image_type b = img[r | J];
            const bool desc = descending<Uniform>(d, lead, r);
            img[r] = desc ? max_of(a, b) : min_of(a, b);
            img[r | J] = desc ? min_of(a, b) : max_of(a, b);
        }
    }

    // Partner in another lane of the wavefront, same register.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void shuffle_stage(image_type (&img)[items], bitonic_direction d, unsigned int lead,
                                                  unsigned int lane_mask)
    {
        const bool lower = (threadIdx.x & lane_mask) == 0;
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            const image_type other = shuffle_xor(img[r], static_cast<int>(lane_mask));
            const bool keep_min = lower != descending<Uniform>(d, lead, r);
            img[r] = keep_min ? min_of(img[r], other) : max_of(img[r], other);
        }
    }

    /// 16-byte LDS slot of thread t's chunk c in an LDS stage. The chunks of 8 / lds_chunks
    /// neighbouring threads share a 128-byte line; XOR-ing the chunk with the thread's place among
    /// the lines puts the 8 lanes of each vector access on distinct banks, for stores and for
    /// partner loads alike (partners differ only in wavefront bits).
    static HIPFLASHSORT_DEVICE unsigned int lds_slot(unsigned int t, unsigned int c)
    {
        constexpr unsigned int n = config::lds_chunks;
        return t * n + (c ^ (t / (8 / n) % n));
    }

    // Partner in another wavefront, same register: through LDS, lds_items registers per round.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void lds_stage(image_type (&img)[items], image_type* lds, bitonic_direction d,
                                              unsigned int lead, unsigned int thread_mask)
    {
        constexpr unsigned int per_round = config::lds_items, per_chunk = vector_items;
        uint4* const chunks = reinterpret_cast<uint4*>(lds);
        const unsigned int t = threadIdx.x, partner = t ^ thread_mask;
        const bool lower = (t & thread_mask) == 0;
#pragma unroll
        for(unsigned int round = 0; round < config::lds_rounds; round++)
        {
            syncthreads(); // the previous readers of the LDS are done
#pragma unroll
            for(unsigned int c = 0; c < config::lds_chunks; c++)
            {
                uint4 x;
                __builtin_memcpy(&x, &img[round * per_round + c * per_chunk], sizeof(x));
                chunks[lds_slot(t, c)] = x;
            }
            syncthreads();
#pragma unroll
            for(unsigned int c = 0; c < config::lds_chunks; c++)
            {
                const uint4 x = chunks[lds_slot(partner, c)];
                image_type other[per_chunk];
                __builtin_memcpy(other, &x, sizeof(x));
#pragma unroll
                for(unsigned int i = 0; i < per_chunk; i++)
                {
                    const unsigned int r = round * per_round + c * per_chunk + i;
                    const bool keep_min = lower != descending<Uniform>(d, lead, r);
                    img[r] = keep_min ? min_of(img[r], other[i]) : max_of(img[r], other[i]);
                }
            }
        }
    }
};

/// The engines of the tile passes and of the merge passes.
template <class Key>
using bitonic_tile_engine = bitonic_block_engine<Key, false>;
template <class Key>
using bitonic_pass_engine = bitonic_block_engine<Key, true>;

/// Reads a thread's keys of a contiguous tile (the tile engine's layout from `first`) as images,
/// the maximal image past `size`. Whole in-range vectors of a 16-byte aligned keys_in take one load.
template <class Key>
HIPFLASHSORT_DEVICE void bitonic_read_keys(const Key* keys_in, std::uint64_t first, std::uint64_t size, order ord,
                                           typename device_bitonic_config<Key>::image_type (&img)[device_bitonic_config<Key>::items])
{
    using config = device_bitonic_config<Key>;
    using image_type = typename config::image_type;
    constexpr unsigned int per_vector = config::vector_items;
    const bool aligned = reinterpret_cast<std::uintptr_t>(keys_in) % sizeof(uint4) == 0;
#pragma unroll
    for(unsigned int v = 0; v < config::vectors; v++)
    {
        const std::uint64_t at = first + (std::uint64_t(bitonic_tile_engine<Key>::vector_upper(v)) << config::line_log2);
        Key keys[per_vector];
        if(aligned && at + per_vector <= size)
        {
            const uint4 x = *reinterpret_cast<const uint4*>(keys_in + at);
            __builtin_memcpy(keys, &x, sizeof(x));
#pragma unroll
            for(unsigned int e = 0; e < per_vector; e++)
                img[v * per_vector + e] = radix_key_codec<Key>::lossless_image(keys[e], ord);
        }
        else
        {
#pragma unroll
            for(unsigned int e = 0; e < per_vector; e++)
                img[v * per_vector + e] =
                    at + e < size ? radix_key_codec<Key>::lossless_image(keys_in[at + e], ord) : image_type(~image_type(0));
        }
    }
}

/// A thread's images in Engine's layout from `first` (vector v at first + (vector_upper(v) <<
/// window_log)): decoded into keys_out (positions below `size`; whole in-range vectors of a
/// 16-byte aligned keys_out in one store) when Final, else stored back as images.
template <class Key, bool Final, class Engine>
HIPFLASHSORT_DEVICE void bitonic_write(const typename device_bitonic_config<Key>::image_type (&img)[device_bitonic_config<Key>::items],
                                       typename device_bitonic_config<Key>::image_type* images, Key* keys_out,
                                       std::uint64_t first, unsigned int window_log, std::uint64_t size, order ord)
{
    using config = device_bitonic_config<Key>;
    constexpr unsigned int per_vector = config::vector_items;
    const bool aligned = reinterpret_cast<std::uintptr_t>(keys_out) % sizeof(uint4) == 0;
#pragma unroll
    for(unsigned int v = 0; v < config::vectors; v++)
    {
        const std::uint64_t at = first + (std::uint64_t(Engine::vector_upper(v)) << window_log);
        if constexpr(Final)
        {
            Key keys[per_vector];
#pragma unroll
            for(unsigned int e = 0; e < per_vector; e++)
                keys[e] = radix_key_codec<Key>::decode_lossless(img[v * per_vector + e], ord);
            if(aligned && at + per_vector <= size)
            {
                uint4 x;
                __builtin_memcpy(&x, keys, sizeof(x));
                *reinterpret_cast<uint4*>(keys_out + at) = x;
            }
            else
            {
#pragma unroll
                for(unsigned int e = 0; e < per_vector; e++)
                    if(at + e < size) keys_out[at + e] = keys[e];
            }
        }
        else
        {
            uint4 x;
            __builtin_memcpy(&x, &img[v * per_vector], sizeof(x));
            *reinterpret_cast<uint4*>(images + at) = x;
        }
    }
}

/// The first pass's load: this thread's keys of tile `tile_base` (the tile engine's layout from
/// `first`) as images. A tile past `size` is pure padding, already sorted in either direction: the padding is
/// stored as it is and the call returns false.
template <class Key, bool Direct>
HIPFLASHSORT_DEVICE bool bitonic_load_tile(const Key* keys_in, typename device_bitonic_config<Key>::image_type* images,
                                           std::uint64_t tile_base, std::uint64_t first, std::uint64_t size, order ord,
                                           typename device_bitonic_config<Key>::image_type (&img)[device_bitonic_config<Key>::items])
{
    using config = device_bitonic_config<Key>;
    using image_type = typename config::image_type;
    if(!Direct && tile_base >= size)
    {
#pragma unroll
        for(unsigned int r = 0; r < config::items; r++) img[r] = image_type(~image_type(0));
        bitonic_write<Key, false, bitonic_tile_engine<Key>>(img, images, nullptr, first, config::line_log2, size, ord);
        return false;
    }
    bitonic_read_keys(keys_in, first, size, ord, img);
    return true;
}

/// First pass: block b encodes keys_in[b*tile, (b+1)*tile) (padding with the maximal image past
/// `size`) and runs every merge up to the tile size. Direct (size <= tile, one block): the tile is
/// the whole network, and the block decodes straight into keys_out (it reads all of keys_in before
/// its first write, so keys_in may equal keys_out). Otherwise the images go to `images`, tile b
/// ascending when b is even, descending when odd, as the next merge expects.
template <class Key, bool Direct>
__global__ __launch_bounds__(device_bitonic_config<Key>::block_size) void bitonic_tile_kernel(
    const Key* keys_in, Key* keys_out, typename device_bitonic_config<Key>::image_type* images, std::uint64_t size,
    order ord)
{
    using config = device_bitonic_config<Key>;
    using engine = bitonic_tile_engine<Key>;
    using image_type = typename config::image_type;
    constexpr unsigned int items = config::items;
    __shared__ __align__(16) image_type lds[config::lds_size];

    const std::uint64_t tile_base = std::uint64_t(blockIdx.x) * config::tile;
    const unsigned int lead = static_cast<unsigned int>(engine::first(0, config::line_log2));
    const std::uint64_t first = tile_base + lead;
    image_type img[items];
    if(!bitonic_load_tile<Key, Direct>(keys_in, images, tile_base, first, size, ord, img)) return;
    engine::sort_tile(img, lds, tile_base, lead);
    bitonic_write<Key, Direct, engine>(img, images, keys_out, first, config::line_log2, size, ord);
}

/// The first pass for images of up to 4 bytes, as bitonic_tile_kernel, on the block network of
/// the segmented sort: each logical wavefront of block_network_lanes sorts its share in registers
/// and shuffles (odd-even merge sort inside each lane), the levels above it exchange through an
/// LDS row of the whole tile (tile * 4 bytes of dynamic LDS). A descending tile sorts complemented
/// images. The row then hands each thread its vectors of the coalesced layout. ncu, H100, 2^24
/// u32 keys: 425 us for the tiles on bitonic_block_engine::sort_tile (286M instructions).
template <class Key, bool Direct>
__global__ __launch_bounds__(device_bitonic_config<Key>::block_size, device_bitonic_config<Key>::network_tile_blocks) void bitonic_network_tile_kernel(
    const Key* keys_in, Key* keys_out, typename device_bitonic_config<Key>::image_type* images, std::uint64_t size,
    order ord)
{
    using config = device_bitonic_config<Key>;
    using engine = bitonic_tile_engine<Key>;
    using image_type = typename config::image_type;
    constexpr unsigned int items = config::items, waves = config::block_size / block_network_lanes;
    using slots = swizzled_row<std::uint32_t, items>;
    static_assert(sizeof(image_type) <= 4 && items * block_network_lanes * waves == config::tile, "32-bit network");
    extern __shared__ __align__(16) std::uint32_t tile_row[];

    const std::uint64_t tile_base = std::uint64_t(blockIdx.x) * config::tile;
    const unsigned int lead = static_cast<unsigned int>(engine::first(0, config::line_log2));
    const std::uint64_t first = tile_base + lead;
    image_type img[items];
    if(!bitonic_load_tile<Key, Direct>(keys_in, images, tile_base, first, size, ord, img)) return;
    const std::uint32_t flip = (blockIdx.x & 1) != 0 ? ~std::uint32_t(0) : 0u;
    std::uint32_t words[items];
#pragma unroll
    for(unsigned int r = 0; r < items; r++) words[r] = std::uint32_t(img[r]) ^ flip;
    const unsigned int blocked = threadIdx.x * items;
    block_network_sort<waves, block_network_lanes>(tile_row, words, blocked);
    syncthreads(); // the network's last reads of the row are done
    slots::store(tile_row, blocked, words);
    syncthreads();
#pragma unroll
    for(unsigned int r = 0; r < items; r++)
        img[r] = static_cast<image_type>(tile_row[slots::slot(engine::tile_position(lead, r))] ^ flip);
    bitonic_write<Key, Direct, engine>(img, images, keys_out, first, config::line_log2, size, ord);
}

/// One pass of merge 2^merge_log over place bits q_hi ... q_lo of the positions from `offset` on
/// (a chunk, or 0): the line's place bits stay the low position bits, the others map to position
/// bits [window_log, window_log + fused_strides); window_log == line_log2 makes the tile contiguous. Last (final merge's last pass, contiguous):
/// decodes positions below `size` into keys_out instead of storing images.
template <class Key, bool Local, bool Last>
__global__ __launch_bounds__(device_bitonic_config<Key>::block_size, device_bitonic_config<Key>::merge_blocks) void bitonic_merge_kernel(
    typename device_bitonic_config<Key>::image_type* images, Key* keys_out, std::uint64_t size, std::uint64_t offset,
    unsigned int window_log, unsigned int merge_log, unsigned int q_lo, order ord)
{
    if constexpr(Local) window_log = device_bitonic_config<Key>::line_log2;
    using config = device_bitonic_config<Key>;
    using engine = bitonic_pass_engine<Key>;
    using image_type = typename config::image_type;
    constexpr unsigned int items = config::items;
    __shared__ __align__(16) image_type lds[config::lds_size];

    // Block bits fill the position bits between the line and the window, and above the window.
    const std::uint64_t block = blockIdx.x;
    const unsigned int low_bits = window_log - config::line_log2;
    const std::uint64_t low = block & ((std::uint64_t(1) << low_bits) - 1);
    const std::uint64_t high = block >> low_bits;
    const std::uint64_t base = offset + ((low << config::line_log2) | (high << (window_log + config::fused_strides)));
    // Bit merge_log lies above the window: one direction for the whole block.
    const bitonic_direction d{((base >> merge_log) & 1) != 0, 0};

    const std::uint64_t first = engine::first(base, window_log);
    image_type img[items];
#pragma unroll
    for(unsigned int v = 0; v < config::vectors; v++)
    {
        const uint4 x = *reinterpret_cast<const uint4*>(images + first + (std::uint64_t(engine::vector_upper(v)) << window_log));
        __builtin_memcpy(&img[v * config::vector_items], &x, sizeof(x));
    }
    if constexpr(Local) engine::merge_all(img, lds, d);
    else engine::template merge<true>(img, lds, d, 0, config::tile_log2 - 1, q_lo);
    bitonic_write<Key, Last, engine>(img, images, keys_out, first, window_log, size, ord);
}

} // namespace detail
} // namespace hipflashsort

#endif
