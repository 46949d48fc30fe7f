// Segments that reach a flash network class already in order: sorted or reverse-sorted input
// arrives so from the partition, whose scatter is stable. The classes copy or reverse such a
// segment instead of sorting it.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_SORTED_RUNS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_SORTED_RUNS_HPP_

#include <cstdint>

#include "../../block/detail/block_primitives.hpp"
#include "../../intrinsics/barrier.hpp"

namespace hipflashsort {
namespace detail {

/// 1 where the images image(0) .. image(size - 1) of a segment rise (each at most the next), -1
/// where they fall (each at least the next; strictly below it where strict_fall), 0 otherwise;
/// lo <= hi are the segment's extreme images (so size >= 2 where lo < hi), first and last those
/// of its ends. All keys equal (lo == hi) rise without a read; otherwise only a segment whose
/// ends are its extremes (random keys nearly never are) is read again, in steps that end once a
/// pair is out of order (nearly-sorted keys end in the first). A falling run must be strict where
/// reversing equal keys would turn an input order that the result keeps (values, float zeros).
/// All threads of the block call it together; the answer is the same for every thread.
template <unsigned int BlockSize, class Image>
HIPFLASHSORT_DEVICE int run_direction(unsigned int size, std::uint32_t lo, std::uint32_t hi, std::uint32_t first,
                                      std::uint32_t last, bool strict_fall, const Image& image)
{
    if(lo == hi) return 1;
    const bool rising = first == lo && last == hi;
    if(!rising && !(first == hi && last == lo)) return 0;
    constexpr unsigned int step = 8 * BlockSize;
    for(unsigned int base = 0; base + 1 < size; base += step)
    {
        const unsigned int end = min_of(base + step, size - 1);
        bool broken = false;
        for(unsigned int i = base + threadIdx.x; i < end; i += BlockSize)
        {
            const std::uint32_t a = image(i), b = image(i + 1);
            broken |= rising ? a > b : (a < b || (strict_fall && a == b));
        }
        if(syncthreads_or(broken)) return 0;
    }
    return rising ? 1 : -1;
}

/// As above, reading the ends' images where they are needed; fewer than two keys rise.
template <unsigned int BlockSize, class Image>
HIPFLASHSORT_DEVICE int run_direction(unsigned int size, std::uint32_t lo, std::uint32_t hi, bool strict_fall,
                                      const Image& image)
{
    if(lo == hi || size < 2) return 1;
    return run_direction<BlockSize>(size, lo, hi, image(0), image(size - 1), strict_fall, image);
}

/// out[0, size) = in[0, size) (nothing where they are the same).
template <unsigned int BlockSize, class T>
HIPFLASHSORT_DEVICE void copy_run(const T* in, T* out, unsigned int size)
{
    if(in != out)
        for(unsigned int i = threadIdx.x; i < size; i += BlockSize) out[i] = in[i];
}

/// out[0, size) = in[0, size) backwards; in place too (each pair swapped by one thread).
/// Each thread's pairs come Batch at a time, every load of a batch before its stores.
/// With one pair in flight per thread the reversal waits on DRAM for each: with the tight rows
/// (same reversal code, other registers) 2^28 u32 / f32 reverse sorts read -11.8 / -12.9%;
/// batched by 2 +13.5 / +9.3% against the 96-key buckets' build (H200, three rotated rounds;
/// by 4 the same, with 4 bytes of spill).
template <unsigned int BlockSize, unsigned int Batch = 2, class T>
HIPFLASHSORT_DEVICE void reverse_run(const T* in, T* out, unsigned int size)
{
    constexpr unsigned int batch = Batch;
    const unsigned int half = (size + 1) / 2;
    for(unsigned int i0 = threadIdx.x; i0 < half; i0 += batch * BlockSize)
    {
        T a[batch], b[batch];
#pragma unroll
        for(unsigned int j = 0; j < batch; j++)
        {
            const unsigned int i = i0 + j * BlockSize;
            if(i < half)
            {
                a[j] = in[i];
                b[j] = in[size - 1 - i];
            }
        }
#pragma unroll
        for(unsigned int j = 0; j < batch; j++)
        {
            const unsigned int i = i0 + j * BlockSize;
            if(i < half)
            {
                out[i] = b[j];
                out[size - 1 - i] = a[j];
            }
        }
    }
}

} // namespace detail
} // namespace hipflashsort

#endif
