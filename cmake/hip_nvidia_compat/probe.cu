// Configure-time probe: does HIP's NVIDIA layer compile with the CUDA toolkit in use?
// Including the runtime is enough to parse every inline wrapper; the calls below pin the
// ones hipflashsort relies on.
#include <hip/hip_runtime.h>

__global__ void hipflashsort_probe_kernel(int* out) { out[threadIdx.x] = threadIdx.x; }

int hipflashsort_probe()
{
    hipDeviceProp_t prop;
    int value = 0;
    hipStreamCaptureStatus status;
    unsigned long long id = 0;
    int err = 0;
    err |= hipGetDeviceProperties(&prop, 0);
    err |= hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 0);
    err |= hipMemPrefetchAsync(nullptr, 0, 0, 0);
    err |= hipMemAdvise(nullptr, 0, hipMemAdviseSetReadMostly, 0);
    err |= hipStreamGetCaptureInfo(0, &status, &id);
    return err;
}

// Linked, never run: linking cudart needs no GPU or driver.
int main() { return hipflashsort_probe() == hipSuccess ? 0 : 1; }
