// Forty-second session's host simulation (not part of the build): the sampled round's classifier
// (partition_classifier_for, as chunk_min_max_kernel's statistics leave it) on 1024 segments of 65536
// mt19937 u32 keys, 72 buckets, samples every 128th key; counts the buckets over 1024 keys.
#include <hipflashsort/hipflashsort.hpp>
#include <cstdio>
#include <vector>
#include <random>
#include <algorithm>
using namespace hipflashsort;
using namespace hipflashsort::detail;
int main()
{
    const unsigned seg = 65536, segs = 1024, buckets = 72, stride = 128;
    std::mt19937 g(7);
    std::vector<unsigned> k(seg);
    int over0 = 0, overl = 0, overi = 0; double sum0 = 0, suml = 0;
    unsigned long long lo_sum = 0;
    for(unsigned s = 0; s < segs; s++)
    {
        for(auto& x : k) x = g();
        std::uint64_t st[segment_stat_words] = {~0ull, 0, 0, 0, ~0ull, 0, ~0ull, 0};
        std::vector<unsigned> smp;
        for(unsigned i = 0; i < seg; i += stride) smp.push_back(k[i]);
        std::sort(smp.begin(), smp.end());
        st[stat_lo] = smp.front(); st[stat_hi] = smp.back(); st[stat_read] = smp.size();
        for(auto x : smp) st[stat_magnitudes] += magnitude_bits(x);
        st[stat_inner_lo] = smp[1]; st[stat_inner_hi] = smp[smp.size() - 2];
        auto c = partition_classifier_for<unsigned>(st, seg, buckets, order::ascending);
        std::vector<int> h(c.buckets());
        for(auto x : k) h[c(x, x)]++;
        if(s < 3 || h[0] > 1024 && over0 < 5) printf("sc %u/%u ", (unsigned)c.inner.by_image.scale, c.inner.by_image.min_image), printf("seg %u: lo %u hi %u clo %u chi %u b0 %d bl %d min %u max %u\n", s, (unsigned)st[stat_lo], (unsigned)st[stat_hi], c.lo, c.hi, h[0], h.back(), *std::min_element(k.begin(), k.end()), *std::max_element(k.begin(), k.end()));
        over0 += h[0] > 1024; overl += h.back() > 1024; sum0 += h[0]; suml += h.back();
        for(unsigned b = 1; b + 1 < h.size(); b++) overi += h[b] > 1024;
    }
    printf("over: first %d last %d interior %d; mean first %.1f last %.1f\n", over0, overl, overi, sum0 / segs, suml / segs);
}
