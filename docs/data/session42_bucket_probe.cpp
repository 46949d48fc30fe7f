// Forty-second session's probe (not part of the build): sorts 2^26 u32+u32 pairs of mt19937 keys in equal
// segments (argument: keys per segment) and prints the sizes of the last partition round's buckets, read
// from the temporary storage. Built with the benchmarks' nvcc flags against 5a3e6a0's headers.
// Probe: bucket sizes of the last partition round of 1024 segments of 65536 u32+u32 pairs.
#include <hipflashsort/hipflashsort.hpp>
#include <cstdio>
#include <vector>
#include <random>
#include <algorithm>
#include <map>
using namespace hipflashsort;
int main(int argc, char** argv)
{
    const unsigned seg = argc > 1 ? atoi(argv[1]) : 65536;
    const size_t n = size_t(1) << 26;
    const size_t segs = n / seg;
    std::vector<unsigned> k(n), v(n);
    std::mt19937 g(7);
    for(size_t i = 0; i < n; i++) { k[i] = g(); v[i] = i; }
    std::vector<int> b(segs), e(segs);
    for(size_t s = 0; s < segs; s++) { b[s] = s * seg; e[s] = (s + 1) * seg; }
    unsigned *dk, *dko, *dv, *dvo; int *db, *de;
    hipMalloc(&dk, n * 4); hipMalloc(&dko, n * 4); hipMalloc(&dv, n * 4); hipMalloc(&dvo, n * 4);
    hipMalloc(&db, segs * 4); hipMalloc(&de, segs * 4);
    hipMemcpy(dk, k.data(), n * 4, hipMemcpyHostToDevice);
    hipMemcpy(dv, v.data(), n * 4, hipMemcpyHostToDevice);
    hipMemcpy(db, b.data(), segs * 4, hipMemcpyHostToDevice);
    hipMemcpy(de, e.data(), segs * 4, hipMemcpyHostToDevice);
    size_t bytes = 0;
    segmented_sort_pairs(nullptr, bytes, dk, dko, dv, dvo, n, segs, db, de);
    char* tmp; hipMalloc(&tmp, bytes);
    hipError_t err = segmented_sort_pairs(tmp, bytes, dk, dko, dv, dvo, n, segs, db, de);
    hipDeviceSynchronize();
    printf("rc %d\n", int(err));
    using plan_t = detail::segmented_plan<unsigned, unsigned>;
    const plan_t plan(n, segs);
    const detail::round_layout l(plan.round, plan.large_capacity, plan.chunk_capacity);
    detail::round_totals t{};
    hipMemcpy(&t, tmp + l.totals, sizeof(t), hipMemcpyDeviceToHost);
    printf("buckets %llu chunks %llu\n", (unsigned long long)t.buckets, (unsigned long long)t.chunks);
    std::vector<detail::segment_range> next(t.buckets);
    hipMemcpy(next.data(), tmp + plan.next, t.buckets * sizeof(detail::segment_range), hipMemcpyDeviceToHost);
    std::vector<detail::partition_segment> ps(segs < plan.large_capacity ? segs : plan.large_capacity);
    hipMemcpy(ps.data(), tmp + l.segments, ps.size() * sizeof(ps[0]), hipMemcpyDeviceToHost);
    printf("segment 0: buckets %u chunks %u next_first %llu\n", ps[0].buckets, ps[0].chunks, (unsigned long long)ps[0].next_first);
    std::map<int, int> hist; int over = 0, small = 0, edge_over = 0, edge_small = 0; size_t mx = 0;
    for(size_t i = 0; i < t.buckets; i++)
    {
        const size_t sz = next[i].end - next[i].begin;
        const size_t in_seg = next[i].begin % seg;
        const bool first = in_seg == 0, last = next[i].end % seg == 0;
        hist[sz / 32 * 32]++;
        mx = std::max(mx, sz);
        if(sz > 1024) { over++; if(first || last) edge_over++; if(over <= 10) printf("over: bucket %zu size %zu first %d last %d idx %zu\n", i, sz, first, last, i % ps[0].buckets); }
        if(sz <= 512) { small++; if(first || last) edge_small++; if(small <= 10) printf("small: bucket %zu size %zu first %d last %d idx %zu\n", i, sz, first, last, i % ps[0].buckets); }
    }
    printf("over1024 %d (edge %d) small512 %d (edge %d) max %zu\n", over, edge_over, small, edge_small, mx);
    for(auto& [s, c] : hist) printf("%5d %d\n", s, c);
    return 0;
}
