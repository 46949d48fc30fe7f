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
// Block engine: a block of block_size threads holds tile = block_size * items positions, indexed by
// a block-local λ in blocked order (thread t holds λ = t * items + r in register r). A stage of
// λ-stride j runs in registers (j < items), through shuffles (within a wavefront) or through LDS
// (across wavefronts). Which global positions a block holds is a map λ → position:
//   - tile / local passes: position = block * tile + λ (contiguous);
//   - global passes: λ's low log2(items) bits stay the low position bits (each thread still reads
//     items contiguous images: whole cache lines), its remaining bits land on a window of
//     fused_strides consecutive position bits; stages of any stride inside the window run in the
//     block, so one pass runs up to fused_strides global strides of a merge.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_BITONIC_KERNELS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_BITONIC_KERNELS_HPP_

#include <cstdint>

#include "../../config.hpp"
#include "../../detail/bit_math.hpp"
#include "../../intrinsics/intrinsics.hpp"
#include "../../thread/radix_key_codec.hpp"

namespace hipflashsort {
namespace detail {

/// Tuning of the device bitonic sort per key size. Nothing here depends on the wavefront size, so
/// the host (which plans the passes) and every device target agree.
template <class Key>
struct device_bitonic_config
{
    using image_type = typename radix_key_codec<Key>::bit_key_type;

    static constexpr unsigned int block_size = 512;
    // Images per thread: 128 contiguous bytes for 4- and 8-byte keys (one cache line per thread in
    // the global passes); 32 for 1-2 byte keys, where registers, not lines, are the limit.
    static constexpr unsigned int items = sizeof(image_type) == 8 ? 16 : 32;
    static constexpr unsigned int items_log2 = log2_ceil(items);
    static constexpr unsigned int tile = block_size * items;
    static constexpr unsigned int tile_log2 = log2_ceil(tile);
    // Position bits that a global pass gathers above the contiguous items: strides fused per pass.
    static constexpr unsigned int fused_strides = tile_log2 - items_log2;

    // Static LDS stays at 32 KiB of images (+ padding): LDS stages move the registers through it in
    // lds_rounds rounds of lds_items per thread.
    static constexpr unsigned int lds_budget_items = 32768 / sizeof(image_type) / block_size;
    static constexpr unsigned int lds_items = items < lds_budget_items ? items : lds_budget_items;
    static constexpr unsigned int lds_rounds = items / lds_items;
    // One padding image every 128 bytes: with lds_items * sizeof(image) >= 64 bytes per thread, the
    // blocked writes and partner reads of a wavefront then hit distinct banks (4- and 8-byte images).
    static constexpr unsigned int lds_period = 128 / sizeof(image_type);
    static constexpr unsigned int lds_size = block_size * lds_items + block_size * lds_items / lds_period;

    static_assert(items % lds_items == 0, "internal: LDS rounds must cover the registers");
    static_assert(lds_size * sizeof(image_type) < 48 * 1024, "static LDS must stay below 48 KiB");
};

/// Which pairs of a stage are descending: desc(λ) = base_desc XOR (λ & lambda_bit != 0).
struct bitonic_direction
{
    bool base_desc;
    unsigned int lambda_bit; // 0: the direction is uniform over the block
};

template <class Key>
struct bitonic_block_engine
{
    using config = device_bitonic_config<Key>;
    using image_type = typename config::image_type;

    static constexpr unsigned int items = config::items;
    static constexpr unsigned int wave = device_wavefront_size();
    // λ-strides from here on cross wavefronts.
    static constexpr unsigned int lds_stride = items * wave;

    static_assert(config::block_size % wave == 0, "block size must be a multiple of the wavefront size");

    // Uniform: the caller guarantees lambda_bit == 0, which frees the registers of the per-element test.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE bool descending(bitonic_direction d, unsigned int lambda)
    {
        if constexpr(Uniform) return d.base_desc;
        else return d.base_desc != ((lambda & d.lambda_bit) != 0);
    }

    static HIPFLASHSORT_DEVICE image_type min_of(image_type a, image_type b) { return b < a ? b : a; }
    static HIPFLASHSORT_DEVICE image_type max_of(image_type a, image_type b) { return b < a ? a : b; }

    static HIPFLASHSORT_DEVICE unsigned int lds_index(unsigned int e) { return e + e / config::lds_period; }

    /// Runs the stages of one merge with λ-strides j_hi, j_hi/2, ..., j_lo (powers of two,
    /// j_lo <= j_hi <= tile/2; uniform over the block). Uniform: d.lambda_bit == 0.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void merge(image_type (&img)[items], image_type* lds, bitonic_direction d,
                                          unsigned int j_hi, unsigned int j_lo)
    {
        const unsigned int t = threadIdx.x;
        unsigned int j = j_hi;
        for(; j >= j_lo && j >= lds_stride; j >>= 1) lds_stage<Uniform>(img, lds, d, t, j);
        for(; j >= j_lo && j >= items; j >>= 1) shuffle_stage<Uniform>(img, d, t, j);
        register_stages<items / 2, Uniform>(img, d, t, j, j_lo);
    }

    /// All merges of a tile: k = 2 ... tile, directions from position tile_base + λ.
    static HIPFLASHSORT_DEVICE void sort_tile(image_type (&img)[items], image_type* lds, std::uint64_t tile_base)
    {
        for(unsigned int k = 2; k <= config::tile; k <<= 1)
        {
            const bitonic_direction d{(tile_base & k) != 0, k};
            merge<false>(img, lds, d, k / 2, 1);
        }
    }

private:
    template <unsigned int J, bool Uniform>
    static HIPFLASHSORT_DEVICE void register_stages(image_type (&img)[items], bitonic_direction d, unsigned int t,
                                                    unsigned int j_hi, unsigned int j_lo)
    {
        if constexpr(J >= 1)
        {
            if(J <= j_hi && J >= j_lo) register_stage<J, Uniform>(img, d, t);
            register_stages<J / 2, Uniform>(img, d, t, j_hi, j_lo);
        }
    }

    // Both elements of a pair are in this thread's registers.
    template <unsigned int J, bool Uniform>
    static HIPFLASHSORT_DEVICE void register_stage(image_type (&img)[items], bitonic_direction d, unsigned int t)
    {
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            if((r & J) != 0) continue;
            const image_type a = img[r];
            const image_type b = img[r | J];
            const bool desc = descending<Uniform>(d, t * items + r);
            img[r] = desc ? max_of(a, b) : min_of(a, b);
            img[r | J] = desc ? min_of(a, b) : max_of(a, b);
        }
    }

    // Partner in another lane of the wavefront, same register.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void shuffle_stage(image_type (&img)[items], bitonic_direction d, unsigned int t,
                                                  unsigned int j)
    {
        const unsigned int lane_mask = j / items;
        const bool lower = (t & lane_mask) == 0;
#pragma unroll
        for(unsigned int r = 0; r < items; r++)
        {
            const image_type other = shuffle_xor(img[r], static_cast<int>(lane_mask));
            const bool keep_min = lower != descending<Uniform>(d, t * items + r);
            img[r] = keep_min ? min_of(img[r], other) : max_of(img[r], other);
        }
    }

    // Partner in another wavefront, same register: through LDS, lds_items registers per round.
    template <bool Uniform>
    static HIPFLASHSORT_DEVICE void lds_stage(image_type (&img)[items], image_type* lds, bitonic_direction d,
                                              unsigned int t, unsigned int j)
    {
        constexpr unsigned int per_round = config::lds_items;
        const unsigned int thread_mask = j / items;
        const unsigned int partner = t ^ thread_mask;
        const bool lower = (t & thread_mask) == 0;
#pragma unroll
        for(unsigned int round = 0; round < config::lds_rounds; round++)
        {
            syncthreads(); // the previous readers of the LDS are done
#pragma unroll
            for(unsigned int s = 0; s < per_round; s++) lds[lds_index(t * per_round + s)] = img[round * per_round + s];
            syncthreads();
#pragma unroll
            for(unsigned int s = 0; s < per_round; s++)
            {
                const unsigned int r = round * per_round + s;
                const image_type other = lds[lds_index(partner * per_round + s)];
                const bool keep_min = lower != descending<Uniform>(d, t * items + r);
                img[r] = keep_min ? min_of(img[r], other) : max_of(img[r], other);
            }
        }
    }
};

/// Loads `Items` contiguous images from 16-byte aligned memory with 16-byte loads.
template <class Image, unsigned int Items>
HIPFLASHSORT_DEVICE void bitonic_load_run(const Image* p, Image (&img)[Items])
{
    static_assert(Items * sizeof(Image) % sizeof(uint4) == 0, "runs are whole 16-byte vectors");
    constexpr unsigned int per_vector = sizeof(uint4) / sizeof(Image);
    const uint4* v = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for(unsigned int i = 0; i < Items / per_vector; i++)
    {
        const uint4 x = v[i];
        __builtin_memcpy(&img[i * per_vector], &x, sizeof(x));
    }
}

template <class Image, unsigned int Items>
HIPFLASHSORT_DEVICE void bitonic_store_run(Image* p, const Image (&img)[Items])
{
    constexpr unsigned int per_vector = sizeof(uint4) / sizeof(Image);
    uint4* v = reinterpret_cast<uint4*>(p);
#pragma unroll
    for(unsigned int i = 0; i < Items / per_vector; i++)
    {
        uint4 x;
        __builtin_memcpy(&x, &img[i * per_vector], sizeof(x));
        v[i] = x;
    }
}

/// A thread's run of images at `first`: decoded into keys_out (positions below `size`) when
/// Final, else stored back as images for the next pass.
template <class Key, bool Final>
HIPFLASHSORT_DEVICE void bitonic_write_run(const typename device_bitonic_config<Key>::image_type (&img)[device_bitonic_config<Key>::items],
                                           typename device_bitonic_config<Key>::image_type* images, Key* keys_out,
                                           std::uint64_t first, std::uint64_t size, order ord)
{
    if constexpr(Final)
    {
#pragma unroll
        for(unsigned int r = 0; r < device_bitonic_config<Key>::items; r++)
            if(first + r < size) keys_out[first + r] = radix_key_codec<Key>::decode_lossless(img[r], ord);
    }
    else
    {
        bitonic_store_run(images + first, img);
    }
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
    using engine = bitonic_block_engine<Key>;
    using image_type = typename config::image_type;
    using codec = radix_key_codec<Key>;
    constexpr unsigned int items = config::items;
    constexpr image_type padding = image_type(~image_type(0));
    __shared__ image_type lds[config::lds_size];

    const std::uint64_t tile_base = std::uint64_t(blockIdx.x) * config::tile;
    const std::uint64_t first = tile_base + std::uint64_t(threadIdx.x) * items;
    image_type img[items];
    if(!Direct && tile_base >= size)
    {
        // Pure padding: already sorted in either direction.
#pragma unroll
        for(unsigned int r = 0; r < items; r++) img[r] = padding;
        bitonic_store_run(images + first, img);
        return;
    }
#pragma unroll
    for(unsigned int r = 0; r < items; r++)
        img[r] = first + r < size ? codec::lossless_image(keys_in[first + r], ord) : padding;
    engine::sort_tile(img, lds, tile_base);
    bitonic_write_run<Key, Direct>(img, images, keys_out, first, size, ord);
}

/// One pass of merge 2^merge_log: position strides 2^(λ-stride log + window_log - items_log2) for
/// λ-strides j_hi ... j_lo. λ's bits above items_log2 map to position bits
/// [window_log, window_log + fused_strides); window_log == items_log2 makes the tile contiguous.
/// Last (final merge's last pass, contiguous): decodes positions below `size` into keys_out
/// instead of storing images.
template <class Key, bool Last>
__global__ __launch_bounds__(device_bitonic_config<Key>::block_size) void bitonic_merge_kernel(
    typename device_bitonic_config<Key>::image_type* images, Key* keys_out, std::uint64_t size,
    unsigned int window_log, unsigned int merge_log, unsigned int j_hi, unsigned int j_lo, order ord)
{
    using config = device_bitonic_config<Key>;
    using engine = bitonic_block_engine<Key>;
    using image_type = typename config::image_type;
    using codec = radix_key_codec<Key>;
    constexpr unsigned int items = config::items;
    __shared__ image_type lds[config::lds_size];

    // Block bits fill the position bits outside the low items and the window.
    const std::uint64_t block = blockIdx.x;
    const unsigned int low_bits = window_log - config::items_log2;
    const std::uint64_t low = block & ((std::uint64_t(1) << low_bits) - 1);
    const std::uint64_t high = block >> low_bits;
    const std::uint64_t base = (low << config::items_log2) | (high << (window_log + config::fused_strides));
    const std::uint64_t first = base + (std::uint64_t(threadIdx.x) << window_log);

    image_type img[items];
    bitonic_load_run(images + first, img);
    // Bit merge_log lies above the window: one direction for the whole block.
    const bitonic_direction d{((base >> merge_log) & 1) != 0, 0};
    engine::template merge<true>(img, lds, d, j_hi, j_lo);
    bitonic_write_run<Key, Last>(img, images, keys_out, first, size, ord);
}

} // namespace detail
} // namespace hipflashsort

#endif
