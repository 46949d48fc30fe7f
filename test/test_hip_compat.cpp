// The HIP runtime wrappers that the compatibility step edits must behave on a real device.
#include "common/test_utils.hpp"

#include <hipflashsort/hipflashsort.hpp>

#include <cstring>

namespace {

TEST(HipCompat, DevicePropertiesArePlausible)
{
    HIPFLASHSORT_REQUIRE_GPU();
    int device = 0;
    HIP_CHECK(hipGetDevice(&device));
    hipDeviceProp_t prop;
    std::memset(&prop, 0, sizeof(prop));
    HIP_CHECK(hipGetDeviceProperties(&prop, device));
    EXPECT_EQ(static_cast<unsigned int>(prop.warpSize), hipflashsort::device_wavefront_size());
    EXPECT_GT(prop.clockRate, 100000) << "kHz";           // > 100 MHz
    EXPECT_GT(prop.memoryClockRate, 100000) << "kHz";
    EXPECT_GT(prop.clockInstructionRate, 0);
    EXPECT_GT(prop.multiProcessorCount, 0);
    EXPECT_GE(prop.sharedMemPerBlock, 32u * 1024u);
    EXPECT_GT(prop.totalGlobalMem, size_t(1) << 30);
    EXPECT_GT(std::strlen(prop.name), 0u);

    int attr = 0;
    HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeWarpSize, device));
    EXPECT_EQ(attr, prop.warpSize);
    HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeClockRate, device));
    EXPECT_EQ(attr, prop.clockRate);
    HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMemoryClockRate, device));
    EXPECT_EQ(attr, prop.memoryClockRate);
    HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeCooperativeMultiDeviceLaunch, device));
    EXPECT_GE(attr, 0);
}

TEST(HipCompat, ManagedMemoryHints)
{
    HIPFLASHSORT_REQUIRE_GPU();
    int device = 0;
    HIP_CHECK(hipGetDevice(&device));
    int managed = 0;
    HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, device));
    if(!managed) GTEST_SKIP() << "device has no managed memory";
    constexpr size_t n = 1 << 20;
    int* data = nullptr;
    HIP_CHECK(hipMallocManaged(&data, n * sizeof(int)));
    for(size_t i = 0; i < n; i++) data[i] = static_cast<int>(i);
    HIP_CHECK(hipMemAdvise(data, n * sizeof(int), hipMemAdviseSetPreferredLocation, device));
    HIP_CHECK(hipMemPrefetchAsync(data, n * sizeof(int), device, 0));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemPrefetchAsync(data, n * sizeof(int), hipCpuDeviceId, 0));
    HIP_CHECK(hipDeviceSynchronize());
    EXPECT_EQ(data[n - 1], static_cast<int>(n - 1));
    HIP_CHECK(hipFree(data));
}

__global__ void add_one(int* p) { p[threadIdx.x] += 1; }

TEST(HipCompat, StreamCaptureInfo)
{
    HIPFLASHSORT_REQUIRE_GPU();
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
    HIP_CHECK(hipMemset(d, 0, 64 * sizeof(int)));

    hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
    unsigned long long id = 0;
    HIP_CHECK(hipStreamGetCaptureInfo(stream, &status, &id));
    EXPECT_EQ(status, hipStreamCaptureStatusNone);

    HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
    add_one<<<1, 64, 0, stream>>>(d);
    HIP_CHECK(hipStreamGetCaptureInfo(stream, &status, &id));
    EXPECT_EQ(status, hipStreamCaptureStatusActive);
    hipGraph_t graph;
    HIP_CHECK(hipStreamEndCapture(stream, &graph));
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    int host[64];
    HIP_CHECK(hipMemcpy(host, d, sizeof(host), hipMemcpyDeviceToHost));
    for(int v : host) EXPECT_EQ(v, 2);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(graph));
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipStreamDestroy(stream));
}

} // namespace
