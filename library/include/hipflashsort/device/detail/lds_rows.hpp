// Layouts of LDS rows that a logical wavefront or a block reads and writes in vector words: blocked
// rows (a lane's items side by side) and swizzled rows (the same, without bank conflicts when
// lanes' shares start a line apart).
#ifndef HIPFLASHSORT_DEVICE_DETAIL_LDS_ROWS_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_LDS_ROWS_HPP_

#include <cstdint>

#include "../../config.hpp"

namespace hipflashsort {
namespace detail {

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

/// Copies a sorted LDS row to global memory, consecutive lanes on consecutive keys: in 16-byte
/// words where both ends are 16-byte aligned and the items 4 or 8 bytes, else key by key.
/// sort_composites copies out this way only from members of more than 8 items.
/// Address arithmetic per key was about a tenth of the block pair network's instructions. H100,
/// 2^26 pairs, Gkeys/s, medians of three rounds, key by key against words (sort_composites' copies
/// of keys and values): u32+u32 segments of 32 / 112 / 113 / 256 / 1000 / 1024 pairs 142.0 /
/// 136.7 / 123.8 / 157.3 / 97.9 / 103.3 -> 144.2 / 149.7 / 131.6 / 159.6 / 102.6 / 106.5; f32+u32
/// 143.2 / 139.2 / 125.1 / 150.4 / 90.3 / 95.1 -> 149.2 / 143.6 / 129.9 / 148.4 / 94.3 / 98.3;
/// f32+u32 segments of 64 pairs 156.0 -> 153.1, other sizes within the rounds' spread. Words for
/// the staging copies as well cost segments of 1000 f32+u32 pairs 3% (and two loops instead of one
/// for keys and values cost the wavefront classes 5-10%), so stage_segment copies key by key.
template <unsigned int LogicalWave, class T>
HIPFLASHSORT_DEVICE void copy_striped(const T* row, T* out, unsigned int size, unsigned int member)
{
    unsigned int done = 0;
    if constexpr(sizeof(T) == 4 || sizeof(T) == 8)
    {
        struct alignas(16) word
        {
            std::uint32_t bits[4];
        };
        constexpr unsigned int per_word = sizeof(word) / sizeof(T);
        if(((reinterpret_cast<std::uintptr_t>(row) | reinterpret_cast<std::uintptr_t>(out)) % sizeof(word)) == 0)
        {
            const unsigned int words = size / per_word;
            for(unsigned int w = member; w < words; w += LogicalWave)
                reinterpret_cast<word*>(out)[w] = reinterpret_cast<const word*>(row)[w];
            done = words * per_word;
        }
    }
    for(unsigned int i = done + member; i < size; i += LogicalWave) out[i] = row[i];
}

/// An LDS row holding Items keys per lane in blocked order (lane h at positions h * Items ...),
/// written with one vector store per 16 bytes of a lane. The 16-byte chunks of each 128-byte line
/// are swizzled: chunk c of line l lives at chunk c ^ (l % lane_chunks). The lanes whose rows start
/// a multiple of 128 bytes apart then store to distinct banks (unswizzled, all 8 lanes of a
/// quarter-wavefront collide for 32 keys of 4 bytes), and reading consecutive keys stays
/// conflict-free. Only lane_chunks vector addresses per lane: a swizzle per key had the compiler
/// keep Items store addresses in registers across the segment loop (32 -> 59 registers for 16
/// u32 keys per lane).
template <class Key, unsigned int Items>
struct swizzled_row
{
    static constexpr unsigned int lane_bytes = Items * sizeof(Key);
    static_assert((lane_bytes & (lane_bytes - 1)) == 0 && lane_bytes <= 128, "a power-of-two share of a line");
    static constexpr unsigned int chunk_bytes = lane_bytes < 16 ? lane_bytes : 16;
    static constexpr unsigned int chunk_items = chunk_bytes / sizeof(Key);
    static constexpr unsigned int lane_chunks = Items / chunk_items;
    static constexpr unsigned int line_items = 128 / sizeof(Key); // keys of one swizzled line
    struct alignas(chunk_bytes) chunk
    {
        Key items[chunk_items];
    };

    /// Where the key of blocked position `position` lives.
    HIPFLASHSORT_DEVICE static unsigned int slot(unsigned int position)
    {
        const unsigned int line = position / line_items;
        return position ^ (line % lane_chunks * chunk_items);
    }

    /// Stores a lane's Items keys at blocked positions first ... first + Items - 1 (first a
    /// multiple of Items; the row aligned to 16 bytes).
    HIPFLASHSORT_DEVICE static void store(Key* row, unsigned int first, const Key (&keys)[Items])
    {
#pragma unroll
        for(unsigned int c = 0; c < lane_chunks; c++) store_chunk(row, first + c * chunk_items, keys, c);
    }

    /// The chunk holding blocked positions from `position` (a multiple of chunk_items).
    HIPFLASHSORT_DEVICE static chunk load_chunk(const Key* row, unsigned int position)
    {
        return *reinterpret_cast<const chunk*>(row + slot(position));
    }

private:
    HIPFLASHSORT_DEVICE static void store_chunk(Key* row, unsigned int position, const Key (&keys)[Items],
                                                unsigned int c)
    {
        chunk w;
#pragma unroll
        for(unsigned int i = 0; i < chunk_items; i++) w.items[i] = keys[c * chunk_items + i];
        *reinterpret_cast<chunk*>(row + slot(position)) = w;
    }
};

} // namespace detail
} // namespace hipflashsort

#endif
