// hipflashsort command-line tool: `bench` (ours against the vendor sort, verified), `sort` (files,
// sort_command.cpp) and `info`.
#include "file_io.hpp"
#include "options.hpp"
#include "sort_command.hpp"

#include "../common/data_generation.hpp"
#include "../common/vendor_sort.hpp"

#include <hipflashsort/hipflashsort.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

struct failure
{
    std::string message;
};

void check(hipError_t e, const char* what)
{
    if(e != hipSuccess) throw failure{std::string(what) + ": " + hipGetErrorString(e)};
}

template <class T>
struct buffer
{
    T* ptr = nullptr;
    explicit buffer(std::size_t n)
    {
        if(n) check(hipMalloc(&ptr, n * sizeof(T)), "out of device memory (hipMalloc)");
    }
    ~buffer() { (void)hipFree(ptr); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
};

struct result
{
    std::string type, dist, layout;
    std::uint64_t n;
    bool pairs;
    double ours_ms, vendor_ms;
    unsigned long long mismatches;
};

template <class Run>
double median_ms(Run run, unsigned int repeat)
{
    hipEvent_t start, stop;
    check(hipEventCreate(&start), "hipEventCreate");
    check(hipEventCreate(&stop), "hipEventCreate");
    std::vector<float> times;
    for(unsigned int i = 0; i < repeat + 2; i++)
    {
        check(hipEventRecord(start, 0), "hipEventRecord");
        check(run(), "sort");
        check(hipEventRecord(stop, 0), "hipEventRecord");
        check(hipEventSynchronize(stop), "sort");
        float ms = 0;
        check(hipEventElapsedTime(&ms, start, stop), "hipEventElapsedTime");
        if(i >= 2) times.push_back(ms);
    }
    (void)hipEventDestroy(start);
    (void)hipEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

template <class Key>
result bench_case(const tool::bench_options& o, const std::string& type, std::uint64_t n, bool quiet)
{
    clients::distribution dist;
    clients::parse_distribution(o.dist, dist);
    std::vector<int> offsets;
    std::uint64_t segment_size = o.segment_size;
    if(o.segments) segment_size = (n + o.segments - 1) / o.segments;
    const bool segmented = segment_size != 0;
    if(segmented)
    {
        if(n > 0x7fffffffu) throw failure{"segmented bench: n must be below 2^31 (int offsets)"};
        for(std::uint64_t at = 0; at < n; at += segment_size) offsets.push_back(static_cast<int>(at));
        offsets.push_back(static_cast<int>(n));
    }
    const std::size_t segments = segmented ? offsets.size() - 1 : 1;
    if(!quiet && isatty(2)) std::fprintf(stderr, "generating %llu %s keys (%s)...\r", (unsigned long long)n, type.c_str(), o.dist.c_str());
    buffer<Key> in(n), ours(n), theirs(n);
    buffer<std::uint32_t> vin(o.pairs ? n : 0), vours(o.pairs ? n : 0), vtheirs(o.pairs ? n : 0);
    buffer<int> d_offsets(offsets.size());
    check(clients::generate(in.ptr, n, dist, 1234), "generate");
    if(o.pairs) check(clients::fill_index(vin.ptr, n), "generate values");
    if(segmented)
        check(hipMemcpy(d_offsets.ptr, offsets.data(), offsets.size() * sizeof(int), hipMemcpyHostToDevice), "upload");
    const int* begins = d_offsets.ptr;
    const int* ends = d_offsets.ptr + 1;
    auto run_ours = [&](void* temp, std::size_t& bytes) {
        using hipflashsort::order;
        if(segmented)
            return o.pairs ? hipflashsort::segmented_sort_pairs(temp, bytes, in.ptr, ours.ptr, vin.ptr, vours.ptr, n,
                                                                segments, begins, ends)
                           : hipflashsort::segmented_sort_keys(temp, bytes, in.ptr, ours.ptr, n, segments, begins, ends);
        return o.pairs ? hipflashsort::sort_pairs(temp, bytes, in.ptr, ours.ptr, vin.ptr, vours.ptr, n)
                       : hipflashsort::sort_keys(temp, bytes, in.ptr, ours.ptr, n);
    };
    auto run_vendor = [&](void* temp, std::size_t& bytes) {
        if(segmented)
            return vendor::segmented_sort(temp, bytes, in.ptr, theirs.ptr, o.pairs ? vin.ptr : nullptr, vtheirs.ptr, n,
                                          segments, begins, ends, 0);
        return o.pairs ? vendor::sort_pairs(temp, bytes, in.ptr, theirs.ptr, vin.ptr, vtheirs.ptr, n, false, 0)
                       : vendor::sort_keys(temp, bytes, in.ptr, theirs.ptr, n, false, 0);
    };
    std::size_t ours_bytes = 0, vendor_bytes = 0;
    check(run_ours(nullptr, ours_bytes), "hipflashsort temporary storage query");
    check(run_vendor(nullptr, vendor_bytes), "vendor temporary storage query");
    buffer<char> ours_temp(ours_bytes), vendor_temp(vendor_bytes);
    if(!quiet && isatty(2)) std::fprintf(stderr, "sorting %-40s\r", "");
    check(hipMemset(ours.ptr, 0xA5, n * sizeof(Key)), "poison");
    result r{type, o.dist, segmented ? "segments of " + std::to_string(segment_size) : "one array", n, o.pairs, 0, 0, 0};
    r.ours_ms = median_ms([&] { return run_ours(ours_temp.ptr, ours_bytes); }, o.repeat);
    r.vendor_ms = median_ms([&] { return run_vendor(vendor_temp.ptr, vendor_bytes); }, o.repeat);
    check(clients::count_mismatches(ours.ptr, theirs.ptr, n, r.mismatches), "verify");
    if(o.pairs)
    {
        unsigned long long bad = 0;
        check(clients::count_mismatches(vours.ptr, vtheirs.ptr, n, bad), "verify values");
        r.mismatches += bad;
    }
    return r;
}

result bench_dispatch(const tool::bench_options& o, std::uint64_t n, bool quiet)
{
    const std::string& t = o.type;
    if(t == "u8") return bench_case<std::uint8_t>(o, t, n, quiet);
    if(t == "u16") return bench_case<std::uint16_t>(o, t, n, quiet);
    if(t == "u32") return bench_case<std::uint32_t>(o, t, n, quiet);
    if(t == "u64") return bench_case<std::uint64_t>(o, t, n, quiet);
    if(t == "i8") return bench_case<std::int8_t>(o, t, n, quiet);
    if(t == "i16") return bench_case<std::int16_t>(o, t, n, quiet);
    if(t == "i32") return bench_case<std::int32_t>(o, t, n, quiet);
    if(t == "i64") return bench_case<std::int64_t>(o, t, n, quiet);
    if(t == "f32") return bench_case<float>(o, t, n, quiet);
    return bench_case<double>(o, t, n, quiet);
}

std::vector<tool::bench_options> default_suite()
{
    std::vector<tool::bench_options> suite;
    auto add = [&](const char* type, const char* dist, std::uint64_t n, bool pairs, std::uint64_t segment_size) {
        tool::bench_options o;
        o.type = type;
        o.dist = dist;
        o.n = n;
        o.pairs = pairs;
        o.segment_size = segment_size;
        suite.push_back(o);
    };
    add("u32", "uniform", 1 << 24, false, 0);
    add("f32", "normal", 1 << 24, false, 0);
    add("u64", "uniform", 1 << 24, false, 0);
    add("u32", "uniform", 1 << 24, true, 0);
    add("u32", "uniform", 1 << 20, false, 0);
    add("f32", "uniform", 1 << 24, false, 256);
    add("u32", "uniform", 1 << 24, false, 1024);
    add("u32", "uniform", 1 << 24, true, 65536);
    return suite;
}

int run_bench(const tool::options& opt)
{
    std::vector<tool::bench_options> cases;
    if(opt.bench.type.empty() && opt.bench.n == 0)
    {
        cases = default_suite();
        for(auto& c : cases) c.repeat = opt.bench.repeat;
    }
    else
    {
        tool::bench_options o = opt.bench;
        if(o.type.empty()) o.type = "u32";
        if(o.n == 0) o.n = 1 << 24;
        cases.push_back(o);
    }
    std::printf("%-5s %-15s %-12s %-20s %-5s | %10s %9s | %10s %9s | %6s | %s\n", "type", "dist", "n", "layout",
                "pairs", "ours ms", "Gkeys/s", "peer ms", "Gkeys/s", "ratio", "verified");
    std::vector<result> results;
    int status = 0;
    for(const auto& c : cases)
    {
        const result r = bench_dispatch(c, c.n, opt.quiet);
        results.push_back(r);
        const double ours = r.n / r.ours_ms * 1e-6, theirs = r.n / r.vendor_ms * 1e-6;
        std::printf("%-5s %-15s %-12llu %-20s %-5s | %10.3f %9.2f | %10.3f %9.2f | %6.2f | %s\n", r.type.c_str(),
                    r.dist.c_str(), (unsigned long long)r.n, r.layout.c_str(), r.pairs ? "yes" : "no", r.ours_ms, ours,
                    r.vendor_ms, theirs, ours / theirs,
                    r.mismatches == 0 ? "identical to peer" : "MISMATCH");
        if(r.mismatches != 0) status = 1;
    }
    std::printf("peer: %s / %s\n", vendor::name(), vendor::segmented_name());
    if(!opt.bench.json.empty())
    {
        std::ofstream f(opt.bench.json);
        f << "[\n";
        for(std::size_t i = 0; i < results.size(); i++)
        {
            const result& r = results[i];
            f << "  {\"type\": \"" << r.type << "\", \"dist\": \"" << r.dist << "\", \"layout\": \"" << r.layout
              << "\", \"n\": " << r.n << ", \"pairs\": " << (r.pairs ? "true" : "false") << ", \"hipflashsort_ms\": "
              << r.ours_ms << ", \"peer\": \"" << vendor::name() << "\", \"peer_ms\": " << r.vendor_ms
              << ", \"mismatches\": " << r.mismatches << "}" << (i + 1 < results.size() ? "," : "") << "\n";
        }
        f << "]\n";
        if(!f) throw failure{"cannot write " + opt.bench.json};
    }
    return status;
}

int run_info()
{
    int device = 0;
    check(hipGetDevice(&device), "hipGetDevice");
    hipDeviceProp_t p;
    check(hipGetDeviceProperties(&p, device), "hipGetDeviceProperties");
    unsigned int wave = 0;
    check(hipflashsort::wavefront_size(wave, device), "wavefront size");
    std::printf("hipflashsort %s\n", HIPFLASHSORT_VERSION_STRING);
    std::printf("platform        : %s (peer: %s)\n", vendor::platform(), vendor::name());
    std::printf("device          : %d, %s\n", device, p.name);
    std::printf("architecture    : %s (compute %d.%d)\n", vendor::architecture(p).c_str(), p.major, p.minor);
    std::printf("wavefront size  : %u\n", wave);
    std::printf("compute units   : %d\n", p.multiProcessorCount);
    std::printf("LDS per block   : %zu bytes\n", static_cast<std::size_t>(p.sharedMemPerBlock));
    std::printf("global memory   : %.1f GiB\n", double(p.totalGlobalMem) / (1ull << 30));
    std::printf("clock           : %d MHz (memory %d MHz, bus %d bits)\n", p.clockRate / 1000,
                p.memoryClockRate / 1000, p.memoryBusWidth);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    tool::options opt;
    std::string error;
    if(!tool::parse(argc, argv, opt, error))
    {
        std::fprintf(stderr, "hipflashsort: error: %s; see 'hipflashsort help'\n", error.c_str());
        return tool::exit_usage;
    }
    if(opt.command == "help")
    {
        std::printf("%s", tool::usage().c_str());
        return tool::exit_ok;
    }
    try
    {
        if(opt.command == "sort") return tool::run_sort(opt); // checks its files before the GPU
        if(const int status = tool::require_gpu()) return status;
        return opt.command == "info" ? run_info() : run_bench(opt);
    }
    catch(const tool::tool_error& e)
    {
        std::fprintf(stderr, "hipflashsort: error: %s\n", e.what());
        return e.code;
    }
    catch(const failure& f)
    {
        std::fprintf(stderr, "hipflashsort: error: %s\n", f.message.c_str());
        return tool::exit_error;
    }
    catch(const std::exception& e) // std::bad_alloc from host buffers
    {
        std::fprintf(stderr, "hipflashsort: error: %s\n", e.what());
        return tool::exit_error;
    }
}
