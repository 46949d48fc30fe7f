// Timing and verification shared by the benchmarks: inputs generated on the GPU, outputs poisoned
// before each run, HIP events around each run after warm-up, the median of the runs reported as
// the iteration time, and every result compared bitwise with the vendor's.
#ifndef HIPFLASHSORT_BENCHMARK_BENCH_UTILS_HPP_
#define HIPFLASHSORT_BENCHMARK_BENCH_UTILS_HPP_

#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "../clients/common/data_generation.hpp"

namespace bench {

#define BENCH_CHECK(expr)                                                                  \
    do {                                                                                   \
        const hipError_t bench_error_ = (expr);                                            \
        if(bench_error_ != hipSuccess)                                                     \
        {                                                                                  \
            state.SkipWithError((std::string(#expr) + ": " + hipGetErrorString(bench_error_)).c_str()); \
            return;                                                                        \
        }                                                                                  \
    } while(0)

template <class T>
struct device_array
{
    T* ptr = nullptr;
    explicit device_array(std::size_t n) { if(n && hipMalloc(&ptr, n * sizeof(T)) != hipSuccess) ptr = nullptr; }
    ~device_array() { (void)hipFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

inline int repeats() { return 15; }

/// Times `run` (enqueues one sort on the stream): 2 warm-ups, then `repeats()` timed runs, each
/// preceded by `before` (poisoning, not timed). Returns the median in seconds, or < 0 on error.
template <class Run, class Before>
double median_seconds(Run run, Before before, hipStream_t stream)
{
    hipEvent_t start, stop;
    if(hipEventCreate(&start) != hipSuccess || hipEventCreate(&stop) != hipSuccess) return -1;
    std::vector<double> times;
    for(int i = 0; i < 2 + repeats(); i++)
    {
        before();
        (void)hipEventRecord(start, stream);
        if(run() != hipSuccess) return -1;
        (void)hipEventRecord(stop, stream);
        if(hipEventSynchronize(stop) != hipSuccess) return -1;
        float ms = 0;
        (void)hipEventElapsedTime(&ms, start, stop);
        if(i >= 2) times.push_back(ms * 1e-3);
    }
    (void)hipEventDestroy(start);
    (void)hipEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

inline void report(benchmark::State& state, double seconds, std::size_t n, std::size_t bytes_per_key)
{
    state.SetIterationTime(seconds);
    state.counters["Gkeys/s"] = double(n) / seconds * 1e-9;
    state.counters["ms"] = seconds * 1e3;
    state.counters["keys"] = double(n);
    state.counters["GB/s_min"] = double(n) * bytes_per_key / seconds * 1e-9;
}

/// Times `run` for the benchmark state and reports it; false (state marked) when a run failed.
template <class Run, class Before>
bool time_sort(benchmark::State& state, Run run, Before before, std::size_t n, std::size_t bytes_per_key,
               hipStream_t stream)
{
    for(auto _ : state)
    {
        const double seconds = median_seconds(run, before, stream);
        if(seconds < 0)
        {
            state.SkipWithError("sort failed");
            return false;
        }
        report(state, seconds, n, bytes_per_key);
    }
    return true;
}

/// Requires two device results to be bitwise equal (keys, and values unless `values_a` is null);
/// records the mismatch count and marks the state failed otherwise.
template <class Key, class Value>
void require_equal(benchmark::State& state, const Key* keys_a, const Key* keys_b, const Value* values_a,
                   const Value* values_b, std::size_t n, const char* what)
{
    unsigned long long bad = 0, bad_values = 0;
    if(hipDeviceSynchronize() != hipSuccess || clients::count_mismatches(keys_a, keys_b, n, bad) != hipSuccess ||
       (values_a && clients::count_mismatches(values_a, values_b, n, bad_values) != hipSuccess))
    {
        state.SkipWithError("verification failed to run");
        return;
    }
    state.counters["mismatches"] = double(bad + bad_values);
    if(bad + bad_values != 0) state.SkipWithError(what);
}

} // namespace bench

#endif
