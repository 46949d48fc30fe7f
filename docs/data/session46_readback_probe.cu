// Forty-sixth session probe: what a host read-back between two kernels costs the GPU (idle time), by
// way of copy and wait. Plain CUDA; built with nvcc -O2 -arch=sm_90. Output: session46_readback_probe_h100.txt.
// Cost of a host read-back between two kernels: pageable vs pinned, and overlapped.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cuda_runtime.h>
__global__ void spin_w(long long cycles, volatile unsigned int* host){
  long long t0 = clock64(); while(clock64() - t0 < cycles){} if(threadIdx.x==0 && blockIdx.x==0){ host[0]=host[0]+1; __threadfence_system(); } }
__global__ void spin(long long cycles, unsigned int* out){
  long long t0 = clock64(); while(clock64() - t0 < cycles){} if(threadIdx.x==0 && blockIdx.x==0) out[0]++; }
int main(){
  cudaStream_t s; cudaStreamCreate(&s);
  unsigned int* d; cudaMalloc(&d, 256); cudaMemset(d,0,256);
  unsigned int* pinned; cudaMallocHost(&pinned, 256);
  unsigned int pageable[64];
  cudaEvent_t a,b,c; cudaEventCreate(&a); cudaEventCreate(&b); cudaEventCreate(&c);
  int clk=0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  long long cyc = 30LL * 1000 * 1800 / 1000; // about 30 us at 1.8 GHz
  auto med=[&](auto f){ std::vector<float> v; for(int i=0;i<200;i++){ cudaEventRecord(a,s); f(); cudaEventRecord(b,s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms,a,b); if(i>=20) v.push_back(ms*1000);} std::sort(v.begin(),v.end()); return v[v.size()/2]; };
  float t2 = med([&]{ spin<<<132,128,0,s>>>(cyc,d); spin<<<132,128,0,s>>>(cyc,d); });
  float t3 = med([&]{ spin<<<132,128,0,s>>>(cyc,d); spin<<<132,128,0,s>>>(cyc,d); spin<<<132,128,0,s>>>(cyc,d); });
  float pg = med([&]{ spin<<<132,128,0,s>>>(cyc,d); cudaMemcpyAsync(pageable,d,64,cudaMemcpyDeviceToHost,s); cudaStreamSynchronize(s); spin<<<132,128,0,s>>>(cyc,d); });
  float pn = med([&]{ spin<<<132,128,0,s>>>(cyc,d); cudaMemcpyAsync(pinned,d,64,cudaMemcpyDeviceToHost,s); cudaStreamSynchronize(s); spin<<<132,128,0,s>>>(cyc,d); });
  float ov = med([&]{ spin<<<132,128,0,s>>>(cyc,d); cudaMemcpyAsync(pinned,d,64,cudaMemcpyDeviceToHost,s); cudaEventRecord(c,s); spin<<<132,128,0,s>>>(cyc,d); cudaEventSynchronize(c); spin<<<132,128,0,s>>>(cyc,d); });
  float ms2 = med([&]{ spin<<<132,128,0,s>>>(cyc,d); cudaMemsetAsync(d+32,0,64,s); spin<<<132,128,0,s>>>(cyc,d); });
  float empty = med([&]{ spin<<<132,128,0,s>>>(cyc,d); spin<<<1056,128,0,s>>>(0,d); spin<<<132,128,0,s>>>(cyc,d); });
  unsigned int* mapped; cudaHostAlloc(&mapped, 256, cudaHostAllocMapped); unsigned int* mapped_d; cudaHostGetDevicePointer(&mapped_d, mapped, 0);
  float ev = med([&]{ spin<<<132,128,0,s>>>(cyc,d); cudaEventRecord(c,s); cudaEventSynchronize(c); spin<<<132,128,0,s>>>(cyc,d); });
  float mw = med([&]{ spin_w<<<132,128,0,s>>>(cyc,mapped_d); cudaEventRecord(c,s); cudaEventSynchronize(c); volatile unsigned x = mapped[0]; (void)x; spin<<<132,128,0,s>>>(cyc,d); });
  float ovm = med([&]{ spin_w<<<132,128,0,s>>>(cyc,mapped_d); cudaEventRecord(c,s); spin<<<132,128,0,s>>>(cyc,d); cudaEventSynchronize(c); spin<<<132,128,0,s>>>(cyc,d); });
  float poll = med([&]{ unsigned before = mapped[0]; spin_w<<<132,128,0,s>>>(cyc,mapped_d); while(((volatile unsigned*)mapped)[0] == before){} spin<<<132,128,0,s>>>(cyc,d); });
  auto host_us=[&](auto f){ std::vector<double> v; for(int i=0;i<50;i++){ auto t0=std::chrono::steady_clock::now(); f(); auto t1=std::chrono::steady_clock::now(); v.push_back(std::chrono::duration<double,std::micro>(t1-t0).count()); } std::sort(v.begin(),v.end()); return v[v.size()/2]; };
  double alloc = host_us([&]{ void* p; cudaHostAlloc(&p, 256, cudaHostAllocMapped); cudaFreeHost(p); });
  static unsigned int reg[1024];
  double regt = host_us([&]{ cudaHostRegister(reg, sizeof(reg), cudaHostRegisterMapped); cudaHostUnregister(reg); });
  printf("event sync only: +%.2f us; mapped write + event sync: +%.2f us; mapped + event, a kernel launched before the wait: +%.2f us over three; polling the mapped word: +%.2f us\n", ev-t2, mw-t2, ovm-t3, poll-t2);
  printf("host: cudaHostAlloc+cudaFreeHost 256 B %.1f us; cudaHostRegister+Unregister 4 KiB %.1f us\n", alloc, regt);
  printf("two kernels %.2f us, three %.2f\n", t2, t3);
  printf("read-back pageable: +%.2f us; pinned: +%.2f us; pinned overlapped (3 kernels): +%.2f us over three\n", pg-t2, pn-t2, ov-t3);
  printf("memset between: +%.2f us; empty kernel of 1056 blocks between: +%.2f us\n", ms2-t2, empty-t2);
  return 0; }
