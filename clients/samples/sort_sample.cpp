// hipflashsort sample: sort one array and a batch of segments on the GPU, check the results.
// Builds in-tree or against an installed package (see CMakeLists.txt next to it).
#include <hipflashsort/hipflashsort.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#define SAMPLE_CHECK(expr)                                                                     \
    do {                                                                                       \
        const hipError_t e_ = (expr);                                                          \
        if(e_ != hipSuccess)                                                                   \
        {                                                                                      \
            std::fprintf(stderr, "%s failed: %s\n", #expr, hipGetErrorString(e_));            \
            return 1;                                                                          \
        }                                                                                      \
    } while(0)

int main()
{
    int devices = 0;
    if(hipGetDeviceCount(&devices) != hipSuccess || devices == 0)
    {
        std::printf("hipflashsort %s: no HIP device, nothing to run\n", HIPFLASHSORT_VERSION_STRING);
        return 0;
    }
    unsigned int wave = 0;
    SAMPLE_CHECK(hipflashsort::wavefront_size(wave));

    const std::size_t n = 1 << 20;
    std::vector<float> keys(n);
    std::mt19937 rng(1);
    for(auto& k : keys) k = std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng);

    float* d_in = nullptr;
    float* d_out = nullptr;
    SAMPLE_CHECK(hipMalloc(&d_in, n * sizeof(float)));
    SAMPLE_CHECK(hipMalloc(&d_out, n * sizeof(float)));
    SAMPLE_CHECK(hipMemcpy(d_in, keys.data(), n * sizeof(float), hipMemcpyHostToDevice));

    // Two-phase temporary storage, as in rocPRIM and CUB.
    std::size_t bytes = 0;
    SAMPLE_CHECK(hipflashsort::sort_keys(nullptr, bytes, d_in, d_out, n));
    void* temp = nullptr;
    SAMPLE_CHECK(hipMalloc(&temp, bytes));
    SAMPLE_CHECK(hipflashsort::sort_keys(temp, bytes, d_in, d_out, n));

    // The same keys as 1024 segments of 1024, sorted descending.
    std::vector<int> offsets(1025);
    for(int i = 0; i <= 1024; i++) offsets[i] = i * 1024;
    int* d_offsets = nullptr;
    float* d_seg = nullptr;
    SAMPLE_CHECK(hipMalloc(&d_offsets, offsets.size() * sizeof(int)));
    SAMPLE_CHECK(hipMalloc(&d_seg, n * sizeof(float)));
    SAMPLE_CHECK(hipMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), hipMemcpyHostToDevice));
    std::size_t seg_bytes = 0;
    SAMPLE_CHECK(hipflashsort::segmented_sort_keys(nullptr, seg_bytes, d_in, d_seg, n, 1024, d_offsets,
                                                   d_offsets + 1, hipflashsort::order::descending));
    void* seg_temp = nullptr;
    SAMPLE_CHECK(hipMalloc(&seg_temp, seg_bytes));
    SAMPLE_CHECK(hipflashsort::segmented_sort_keys(seg_temp, seg_bytes, d_in, d_seg, n, 1024, d_offsets,
                                                   d_offsets + 1, hipflashsort::order::descending));

    std::vector<float> sorted(n), segmented(n);
    SAMPLE_CHECK(hipMemcpy(sorted.data(), d_out, n * sizeof(float), hipMemcpyDeviceToHost));
    SAMPLE_CHECK(hipMemcpy(segmented.data(), d_seg, n * sizeof(float), hipMemcpyDeviceToHost));
    std::vector<float> expected = keys;
    std::sort(expected.begin(), expected.end());
    bool ok = sorted == expected;
    for(int s = 0; s < 1024 && ok; s++)
    {
        std::vector<float> part(keys.begin() + s * 1024, keys.begin() + (s + 1) * 1024);
        std::sort(part.begin(), part.end(), [](float a, float b) { return a > b; });
        ok = std::equal(part.begin(), part.end(), segmented.begin() + s * 1024);
    }
    std::printf("hipflashsort %s, wavefront %u: sorted %zu floats and 1024 segments: %s\n",
                HIPFLASHSORT_VERSION_STRING, wave, n, ok ? "correct" : "WRONG");
    (void)hipFree(d_in);
    (void)hipFree(d_out);
    (void)hipFree(temp);
    (void)hipFree(d_offsets);
    (void)hipFree(d_seg);
    (void)hipFree(seg_temp);
    return ok ? 0 : 1;
}
