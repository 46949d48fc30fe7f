// Shared helpers of the GPU and host tests.
#ifndef HIPFLASHSORT_TEST_COMMON_TEST_UTILS_HPP_
#define HIPFLASHSORT_TEST_COMMON_TEST_UTILS_HPP_

#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <string>

#define HIP_CHECK(expr)                                                                  \
    do {                                                                                 \
        const hipError_t hip_check_error_ = (expr);                                      \
        ASSERT_EQ(hip_check_error_, hipSuccess) << #expr << ": " << hipGetErrorString(hip_check_error_); \
    } while(0)

namespace test_utils {

/// Whether a HIP device is usable; when not, `reason` says why. Probed once per process.
inline bool gpu_available(std::string& reason)
{
    static std::string cached_reason;
    static const bool available = [] {
        int count = 0;
        const hipError_t error = hipGetDeviceCount(&count);
        if(error != hipSuccess)
        {
            cached_reason = hipGetErrorString(error);
            return false;
        }
        if(count == 0)
        {
            cached_reason = "hipGetDeviceCount returned 0 devices";
            return false;
        }
        return true;
    }();
    reason = cached_reason;
    return available;
}

} // namespace test_utils

/// First statement of every GPU test: skips it, with the reason on one line, when there is no device.
#define HIPFLASHSORT_REQUIRE_GPU()                                      \
    do {                                                                \
        std::string no_gpu_reason_;                                     \
        if(!test_utils::gpu_available(no_gpu_reason_))                  \
            GTEST_SKIP() << "no HIP device: " << no_gpu_reason_;        \
    } while(0)

#endif
