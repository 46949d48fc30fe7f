#include <gtest/gtest.h>

#include <hipflashsort/hipflashsort.hpp>

#include <string>

TEST(Version, MacrosAgree)
{
    EXPECT_GE(HIPFLASHSORT_VERSION_MAJOR, 0);
    EXPECT_EQ(HIPFLASHSORT_VERSION,
              HIPFLASHSORT_VERSION_MAJOR * 10000 + HIPFLASHSORT_VERSION_MINOR * 100 + HIPFLASHSORT_VERSION_PATCH);
    const std::string expected = std::to_string(HIPFLASHSORT_VERSION_MAJOR) + "." +
                                 std::to_string(HIPFLASHSORT_VERSION_MINOR) + "." +
                                 std::to_string(HIPFLASHSORT_VERSION_PATCH);
    EXPECT_EQ(expected, HIPFLASHSORT_VERSION_STRING);
}

TEST(Version, WavefrontAbstraction)
{
    // Host pass: the compile-time size is the platform's (32 NVIDIA, 64 gfx9/DCU), and lane masks
    // have exactly one bit per lane.
    constexpr unsigned int w = hipflashsort::device_wavefront_size();
    EXPECT_TRUE(w == 32 || w == 64);
    EXPECT_EQ(sizeof(hipflashsort::lane_mask_type) * 8, w);
    EXPECT_EQ(sizeof(hipflashsort::lane_mask_t<16>), 4u);
    EXPECT_EQ(sizeof(hipflashsort::lane_mask_t<64>), 8u);
}
