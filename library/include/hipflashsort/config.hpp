// Common macros, the sort-order enum and small host helpers. No platform branches here: those
// live in intrinsics/.
#ifndef HIPFLASHSORT_CONFIG_HPP_
#define HIPFLASHSORT_CONFIG_HPP_

#include <hip/hip_runtime.h>

#include <hipflashsort/hipflashsort_version.hpp>

#define HIPFLASHSORT_DEVICE __device__ __forceinline__
#define HIPFLASHSORT_HOST_DEVICE __host__ __device__ __forceinline__

/// Returns the error of a HIP call from the enclosing function when it is not hipSuccess.
#define HIPFLASHSORT_RETURN_IF_ERROR(expr)        \
    do {                                           \
        const hipError_t hfs_error_ = (expr);      \
        if(hfs_error_ != hipSuccess) return hfs_error_; \
    } while(0)

namespace hipflashsort {

/// Sort direction of every public sort.
enum class order { ascending, descending };

} // namespace hipflashsort

#endif
