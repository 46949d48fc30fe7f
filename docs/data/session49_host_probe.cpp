// Host-side costs of a small device sort (forty-ninth session, docs/performance.md, calls P1 and P2).
// Built like the benchmarks (nvcc, sm_90, the NVIDIA HIP headers). Built against a copy of the
// headers whose segmented_dispatch.hpp defines HFS_MARK, recording a timestamp after each host
// step (P2), it also prints the steps of the last call of each size.
#include <hip/hip_runtime.h>
#include <hipflashsort/device/device_flash_sort.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <cstdint>

__global__ void big_lds_kernel(int* p) { extern __shared__ int s[]; s[threadIdx.x] = threadIdx.x; __syncthreads(); if(p) p[threadIdx.x] = s[threadIdx.x ^ 1]; }
__global__ void empty_kernel() {}
__global__ void flag_kernel(volatile unsigned int* f) { *f = 1; }
__global__ void fill_kernel(std::uint32_t* p, std::size_t n, std::uint32_t seed) {
  for(std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint32_t x = std::uint32_t(i) * 2654435761u ^ seed; x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15; p[i] = x; }
}
using clk = std::chrono::steady_clock;
template <class F> double med_us(F f, int reps = 200) {
  std::vector<double> t; for(int i = 0; i < reps; i++) { auto a = clk::now(); f(); t.push_back(std::chrono::duration<double, std::micro>(clk::now() - a).count()); }
  std::sort(t.begin(), t.end()); return t[reps / 2];
}
int main() {
  int dev = 0, v = 0;
  printf("hipGetDevice %.2f us\n", med_us([&] { (void)hipGetDevice(&dev); }));
  printf("hipDeviceGetAttribute(SMs) %.2f us\n", med_us([&] { (void)hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, dev); }));
  printf("hipDeviceGetAttribute(LDS/SM) %.2f us\n", med_us([&] { (void)hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, dev); }));
  printf("hipFuncSetAttribute %.2f us\n", med_us([&] { (void)hipFuncSetAttribute(reinterpret_cast<const void*>(big_lds_kernel), hipFuncAttributeMaxDynamicSharedMemorySize, 100000); }));
  printf("hipOccupancyMaxActiveBlocks %.2f us\n", med_us([&] { (void)hipOccupancyMaxActiveBlocksPerMultiprocessor(&v, reinterpret_cast<const void*>(big_lds_kernel), 512, 0); }));
  printf("empty launch (host) %.2f us\n", med_us([&] { empty_kernel<<<1, 32>>>(); }));
  (void)hipDeviceSynchronize();
  unsigned int* hf; (void)hipHostMalloc(reinterpret_cast<void**>(&hf), 64, hipHostMallocMapped);
  unsigned int* df; (void)hipHostGetDevicePointer(reinterpret_cast<void**>(&df), hf, 0);
  printf("launch+poll pinned flag round trip %.2f us\n", med_us([&] { *(volatile unsigned int*)hf = 0; flag_kernel<<<1, 1>>>(df); while(*(volatile unsigned int*)hf == 0) {} }));
  printf("launch+hipStreamSynchronize %.2f us\n", med_us([&] { empty_kernel<<<1, 32>>>(); (void)hipStreamSynchronize(0); }));
  hipEvent_t a, b; (void)hipEventCreate(&a); (void)hipEventCreate(&b);
  for(std::size_t n : {std::size_t(1) << 16, std::size_t(1) << 18, std::size_t(1) << 20}) {
    std::uint32_t *in, *out; (void)hipMalloc(&in, n * 4); (void)hipMalloc(&out, n * 4);
    fill_kernel<<<256, 256>>>(in, n, 42);
    std::size_t bytes = 0; (void)hipflashsort::sort_keys<std::uint32_t>(nullptr, bytes, in, out, n);
    void* temp; (void)hipMalloc(&temp, bytes);
    std::vector<double> ev, host;
    for(int r = 0; r < 60; r++) {
      (void)hipDeviceSynchronize();
      (void)hipEventRecord(a, 0);
      auto t0 = clk::now();
      (void)hipflashsort::sort_keys<std::uint32_t>(temp, bytes, in, out, n);
      auto t1 = clk::now();
      (void)hipEventRecord(b, 0); (void)hipEventSynchronize(b);
      float ms = 0; (void)hipEventElapsedTime(&ms, a, b);
      if(r >= 5) { ev.push_back(ms * 1e3); host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count()); }
    }
    std::sort(ev.begin(), ev.end()); std::sort(host.begin(), host.end());
#ifdef HFS_MARK
    for(int i = 1; i < hfs_probe::n_marks; i++) printf("   %-22s +%6.2f us\n", hfs_probe::marks[i].what, std::chrono::duration<double, std::micro>(hfs_probe::marks[i].t - hfs_probe::marks[i - 1].t).count());
#endif
    printf("sort_keys u32 n=%zu: event %.1f us (min %.1f), host call %.1f us (min %.1f)\n", n, ev[ev.size() / 2], ev[0], host[host.size() / 2], host[0]);
    // the same sort's GPU time alone: sort enqueued after a long kernel, so launches queue up first
    (void)hipFree(in); (void)hipFree(out); (void)hipFree(temp);
  }
  return 0;
}
