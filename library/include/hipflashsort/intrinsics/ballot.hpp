// Votes across the hardware wavefront. All lanes must call together.
#ifndef HIPFLASHSORT_INTRINSICS_BALLOT_HPP_
#define HIPFLASHSORT_INTRINSICS_BALLOT_HPP_

#include "wavefront.hpp"

namespace hipflashsort {

/// Bit i set when lane i's predicate is true.
HIPFLASHSORT_DEVICE lane_mask_type ballot(bool predicate)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __ballot_sync(0xffffffffu, predicate);
#else
    return static_cast<lane_mask_type>(__ballot(predicate));
#endif
}

/// Ballot of the caller's logical wavefront of LogicalWave lanes, bit i for its lane i;
/// `hardware_lane` is the caller's lane_id().
template <unsigned int LogicalWave>
HIPFLASHSORT_DEVICE lane_mask_type logical_ballot(bool predicate, unsigned int hardware_lane)
{
    const lane_mask_type votes = ballot(predicate) & logical_wave_mask<LogicalWave>(hardware_lane);
    return votes >> (hardware_lane & ~(LogicalWave - 1) & (device_wavefront_size() - 1));
}

/// Number of set bits of a lane mask.
HIPFLASHSORT_DEVICE unsigned int popcount(std::uint32_t mask) { return __popc(mask); }
HIPFLASHSORT_DEVICE unsigned int popcount(std::uint64_t mask) { return __popcll(mask); }

/// Mask of the lanes below the caller.
HIPFLASHSORT_DEVICE lane_mask_type lanemask_lt()
{
    const unsigned int lane = lane_id();
    return (lane_mask_type(1) << lane) - 1;
}

/// Mask of the lanes whose low `Bits` bits of `value` equal the caller's: Bits ballots, no
/// hardware match instruction, on AMD and NVIDIA alike (on NVIDIA each bit's vote in PTX).
template <unsigned int Bits>
HIPFLASHSORT_DEVICE lane_mask_type match_any(unsigned int value)
{
    lane_mask_type peers = ~lane_mask_type(0);
#pragma unroll
    for(unsigned int bit = 0; bit < Bits; bit++)
    {
#if defined(__HIP_PLATFORM_NVIDIA__)
        // One predicate for the vote and the complement: through __ballot_sync's int argument
        // nvcc tested each bit twice (shift, mask and compare for the vote; a mask test and a
        // select for the complement), seven instructions per bit. H200, three rotated rounds
        // against 4528900 (fifty-sixth session): the first scatter of a 2^28 u32+u32 sort 1267 M
        // -> 1007 M warp instructions (3223 -> 3091 us at ncu's clocks); u32+u32 sorts of 2^20 /
        // 2^28 +3.5 / +0.5% (2^24 +3.7%, but that case takes one of two levels from run to run),
        // f32 keys (ranked so only in rounds with a zero) within 1.6%.
        unsigned int votes;
        asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 m;\n\t"
            "and.b32 m, %1, %2;\n\t"
            "setp.ne.u32 p, m, 0;\n\t"
            "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
            "@!p not.b32 %0, %0;\n\t}"
            : "=r"(votes)
            : "r"(value), "r"(1u << bit));
        peers &= votes;
#else
        const bool set = (value >> bit) & 1u;
        const lane_mask_type votes = ballot(set);
        peers &= set ? votes : ~votes;
#endif
    }
    return peers;
}

} // namespace hipflashsort

#endif
