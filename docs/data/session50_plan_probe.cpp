// Fiftieth session: the partition planner's choices for device sorts of u32 keys, on the host (no GPU):
// a runner for 132 multiprocessors, 396 resident scatter blocks, the dynamic flash classes and the flash
// network class granted (as on an H200). Round 2's segment: round 1's buckets joined up to group_keys.
// Built with nvcc as the host tests are (-D__HIP_PLATFORM_NVIDIA__, -x cu); output in session50_plan_probe.txt.
#include <hipflashsort/hipflashsort.hpp>
#include <cstdio>
#include <algorithm>
using namespace hipflashsort::detail;
template <class Key, class Value>
struct probe {
    using config = segmented_config<Key, Value>;
    using plan_type = segmented_plan<Key, Value>;
    using runner_type = segmented_runner<Key, Value>;
    static void granted_kernel(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*, hipflashsort::order) {}
    static void net(const std::uint64_t*, unsigned int, const Key*, Key*, const Value*, Value*, Value*, segment_range*, unsigned int*, hipflashsort::order) {}
    static void run(std::uint64_t n) {
        const plan_type plan(n, 1);
        runner_type runner{plan, nullptr, nullptr, nullptr, hipflashsort::order::ascending, 0, 132};
        std::fill_n(runner.dynamic_flash, config::dynamic_flash_classes, &granted_kernel);
        runner.scatter_blocks = 396;
        runner.flash_network = &net;
        const auto rules = runner.planner();
        partition_segment s = rules.plan_lone(n);
        std::printf("n=%llu round1: buckets=%u group_keys=%u samples=%llu (stride %llu) gaps/bucket=%.2f\n",
            (unsigned long long)n, s.buckets, s.group_keys,
            (unsigned long long)(n / sample_stride<Key>(n)), (unsigned long long)sample_stride<Key>(n),
            double(n / sample_stride<Key>(n)) / s.buckets);
        // a round-2 segment: groups of buckets up to group_keys (or one bucket)
        const std::uint64_t per_bucket = n / s.buckets;
        std::uint64_t seg = per_bucket;
        if(s.group_keys) seg = std::max<std::uint64_t>(per_bucket, s.group_keys / per_bucket * per_bucket);
        const std::uint64_t tiles = rules.tiles_in(n);
        const std::uint64_t segs = n / seg;
        const auto chunk_tiles = rules.chunk_tiles(tiles, segs);
        partition_segment t = rules.plan_segment(segment_range{0, seg}, n, chunk_tiles);
        const std::uint64_t read = seg / sample_stride<Key>(seg);
        std::printf("   round2 segment of %llu keys: buckets=%u group_keys=%u samples=%llu gaps/bucket=%.2f keys/bucket=%llu margin rule(m8l)=%u\n",
            (unsigned long long)seg, t.buckets, t.group_keys, (unsigned long long)read, double(read) / t.buckets,
            (unsigned long long)(seg / t.buckets), sampled_margin_gaps_probe(read, t.buckets, t.group_keys == 0));
    }
    static unsigned sampled_margin_gaps_probe(std::uint64_t read, unsigned buckets, bool last) { return last && read < 8 * std::uint64_t(buckets) ? 8u : 2u; }
};
int main() {
    for(std::uint64_t n : {std::uint64_t(1) << 22, std::uint64_t(1) << 24, std::uint64_t(1) << 26, std::uint64_t(1) << 28})
        probe<std::uint32_t, hipflashsort::empty_type>::run(n);
}
