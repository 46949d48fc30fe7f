// Host simulation behind the sixty-fourth session's notes (docs/performance.md): 2^27 keys of three
// AND-ed random words, sorted; windows of 1500-4000 keys; bucket sizes of block_flash_sort's
// equal-width classifier against a logarithmic one, and a rough LDS-operation count of the
// in-bucket sorts. Build: g++ -O2 session64_bucket_sim.cpp (needs about 1 GiB).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cmath>
using u64 = std::uint64_t;
static u64 mix64(u64 x){ x += 0x9e3779b97f4a7c15ull; x=(x^(x>>30))*0xbf58476d1ce4e5b9ull; x=(x^(x>>27))*0x94d049bb133111ebull; return x^(x>>31);}
static u64 logd(u64 d){ if(!d) return 0; float f=(float)d; uint32_t b; memcpy(&b,&f,4); return (u64)(b-0x3f800000u+1u);}
struct Cost{ unsigned maxb, big, bigblock; double rank, net; };
static Cost cost(const std::vector<unsigned>& c){
  Cost r{0,0,0,0,0};
  for(unsigned n: c){ r.maxb=std::max(r.maxb,n); if(n<=64) r.rank+= double(n)*n; else { r.big++; if(n>256) r.bigblock++; unsigned p=1; while(p<n) p*=2; unsigned L=0; while((1u<<L)<p) L++; r.net += double(L)*(L+1)/2*p/2*8; } }
  return r;
}
int main(int argc,char**argv){
  const size_t N = size_t(1)<<27;
  std::vector<u64> k(N);
  for(size_t i=0;i<N;i++){ u64 r=mix64(i^mix64(1)); k[i]= r & mix64(r) & mix64(mix64(r)); }
  std::sort(k.begin(), k.end());
  u64 s=12345;
  for(unsigned size: {1500u,3000u,4000u}) for(int t=0;t<4;t++){
    s=mix64(s); size_t b=s%(N-size); const u64* seg=&k[b];
    unsigned B=1; while(B*2 <= size/4) B*=2;
    u64 lo=seg[0], hi=seg[size-1];
    std::vector<unsigned> cl(B), cg(B);
    u64 top=logd(hi-lo);
    for(unsigned i=0;i<size;i++){
      u64 d=seg[i]-lo;
      unsigned bl = (unsigned)std::min<double>((long double)d*B/((long double)(hi-lo)+1), B-1);
      unsigned bg = (unsigned)std::min<double>((double)logd(d)*B/(top+1), B-1);
      cl[bl]++; cg[bg]++;
    }
    Cost a=cost(cl), g=cost(cg);
    printf("%u bits=%2d  lin max %4u big %2u blk %u rank %.0fk net %.0fk | log max %4u big %2u blk %u rank %.0fk net %.0fk\n", size, 64-__builtin_clzll(hi-lo), a.maxb,a.big,a.bigblock,a.rank/1e3,a.net/1e3, g.maxb,g.big,g.bigblock,g.rank/1e3,g.net/1e3);
  }
}
