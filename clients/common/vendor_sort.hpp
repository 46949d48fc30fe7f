// The vendor peer that hipflashsort is measured against: CUB on NVIDIA, rocPRIM on AMD. The one
// place in the clients that branches on the platform.
#ifndef HIPFLASHSORT_CLIENTS_COMMON_VENDOR_SORT_HPP_
#define HIPFLASHSORT_CLIENTS_COMMON_VENDOR_SORT_HPP_

#include <hip/hip_runtime.h>

#include <cstddef>
#include <string>

#if defined(__HIP_PLATFORM_NVIDIA__)
    #include <cub/device/device_radix_sort.cuh>
    #include <cub/device/device_segmented_sort.cuh>
#else
    #include <rocprim/device/device_radix_sort.hpp>
    #include <rocprim/device/device_segmented_radix_sort.hpp>
#endif

namespace vendor {

#if defined(__HIP_PLATFORM_NVIDIA__)
inline const char* platform() { return "nvidia"; }
inline const char* name() { return "CUB"; }
inline const char* segmented_name() { return "CUB DeviceSegmentedSort"; }
/// The device's architecture name: sm_XY (gcnArchName is not filled on NVIDIA).
inline std::string architecture(const hipDeviceProp_t& p)
{
    return "sm_" + std::to_string(p.major) + std::to_string(p.minor);
}
#else
inline const char* platform() { return "amd"; }
inline const char* name() { return "rocPRIM"; }
inline const char* segmented_name() { return "rocPRIM segmented_radix_sort"; }
inline std::string architecture(const hipDeviceProp_t& p) { return p.gcnArchName; }
#endif

/// Vendor radix sort of keys (keys_in is not modified). Ascending unless `descending`.
template <class Key>
hipError_t sort_keys(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n, bool descending,
                     hipStream_t stream)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    const auto e = descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, in, out, n, 0, int(sizeof(Key) * 8), stream)
                              : cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n, 0, int(sizeof(Key) * 8), stream);
    return hipCUDAErrorTohipError(e);
#else
    return descending ? rocprim::radix_sort_keys_desc(temp, bytes, in, out, n, 0, sizeof(Key) * 8, stream)
                      : rocprim::radix_sort_keys(temp, bytes, in, out, n, 0, sizeof(Key) * 8, stream);
#endif
}

template <class Key, class Value>
hipError_t sort_pairs(void* temp, std::size_t& bytes, const Key* in, Key* out, const Value* vin, Value* vout,
                      std::size_t n, bool descending, hipStream_t stream)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    const auto e = descending
                       ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, in, out, vin, vout, n, 0, int(sizeof(Key) * 8), stream)
                       : cub::DeviceRadixSort::SortPairs(temp, bytes, in, out, vin, vout, n, 0, int(sizeof(Key) * 8), stream);
    return hipCUDAErrorTohipError(e);
#else
    return descending ? rocprim::radix_sort_pairs_desc(temp, bytes, in, out, vin, vout, n, 0, sizeof(Key) * 8, stream)
                      : rocprim::radix_sort_pairs(temp, bytes, in, out, vin, vout, n, 0, sizeof(Key) * 8, stream);
#endif
}

/// Vendor segmented sort (keys, or pairs when vin != nullptr).
template <class Key, class Value, class Offset>
hipError_t segmented_sort(void* temp, std::size_t& bytes, const Key* in, Key* out, const Value* vin, Value* vout,
                          std::size_t n, std::size_t segments, const Offset* begins, const Offset* ends,
                          hipStream_t stream)
{
#if defined(__HIP_PLATFORM_NVIDIA__)
    const auto e = vin ? cub::DeviceSegmentedSort::SortPairs(temp, bytes, in, out, vin, vout, (long long)n,
                                                                   (long long)segments, begins, ends, stream)
                       : cub::DeviceSegmentedSort::SortKeys(temp, bytes, in, out, (long long)n,
                                                                  (long long)segments, begins, ends, stream);
    return hipCUDAErrorTohipError(e);
#else
    return vin ? rocprim::segmented_radix_sort_pairs(temp, bytes, in, out, vin, vout, (unsigned int)n,
                                                     (unsigned int)segments, begins, ends, 0, sizeof(Key) * 8, stream)
               : rocprim::segmented_radix_sort_keys(temp, bytes, in, out, (unsigned int)n, (unsigned int)segments,
                                                    begins, ends, 0, sizeof(Key) * 8, stream);
#endif
}

} // namespace vendor

#endif
