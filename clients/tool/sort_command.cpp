// The GPU side of `hipflashsort sort`: chunk sizing against the device budget, device and pinned
// buffers, the library's two-phase sort, HIP errors mapped to exit codes; the merge of the runs
// is in device_merge.cpp.
//
// Memory bounds. Device: each chunk is sorted in place (the library allows keys_in == keys_out),
// so a chunk of C elements uses C * (key + value bytes) plus the temporary storage the library
// reports for C (about one more copy, 1-2 bytes per key and at most 32 MiB of counts); C is the
// largest that keeps this under --max-device-memory (default 80% of the free device memory).
// The merge of the k runs (k <= 256 and k <= C) sorts in the same buffers. Host: one pinned
// staging buffer of at most 64 MiB (chunks move through it, and the merge's output), plus, while
// merging, pinned windows of W elements per run with k * W * (key + value bytes) at most 512 MiB
// (and k * W <= C): below about 580 MiB of pinned memory whatever the file size.
#include "sort_command.hpp"

#include "device_merge.hpp"
#include "device_sort.hpp"
#include "file_io.hpp"

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace tool {

namespace {

constexpr std::size_t staging_bytes = std::size_t(64) << 20;
constexpr std::uint64_t max_runs = 256; // two open files each while merging; at most C too
constexpr std::size_t alignment_slack = 3 * 4096; // hipMalloc rounds each of the three buffers up

void check(hipError_t e, const std::string& what)
{
    if(e == hipErrorOutOfMemory) throw tool_error("out of device memory during " + what, exit_out_of_memory);
    if(e != hipSuccess) throw tool_error(what + ": " + hipGetErrorString(e));
}

struct pinned_buffer
{
    unsigned char* ptr = nullptr;
    std::size_t bytes;
    pinned_buffer(std::size_t size, const std::string& purpose) : bytes(size)
    {
        if(hipHostMalloc(reinterpret_cast<void**>(&ptr), bytes, 0) != hipSuccess)
            throw tool_error("cannot allocate " + std::to_string(bytes) + " bytes of pinned host memory for " + purpose);
    }
    ~pinned_buffer() { (void)hipHostFree(ptr); }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;
};

struct device_buffer
{
    void* ptr = nullptr;
    device_buffer(std::size_t bytes, std::uint64_t budget)
    {
        if(bytes && hipMalloc(&ptr, bytes) != hipSuccess)
            throw tool_error("out of device memory: hipMalloc of " + std::to_string(bytes) + " bytes failed (budget " +
                                 std::to_string(budget) + " bytes; lower --max-device-memory)",
                             exit_out_of_memory);
    }
    ~device_buffer() { (void)hipFree(ptr); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
};

template <class Key, class Value>
std::size_t temp_bytes(std::size_t n)
{
    std::size_t bytes = 0;
    check(device_sort<Key, Value>(nullptr, bytes, nullptr, nullptr, n, hipflashsort::order::ascending),
          "temporary storage query");
    return bytes;
}

// The largest chunk whose device bytes fit the budget: from budget / element bytes down in steps
// of 1/16 (the temporary storage grows about linearly, so this ends within a few dozen queries).
template <class Key, class Value>
std::size_t chunk_size(std::uint64_t count, std::uint64_t budget, std::size_t element_bytes)
{
    auto need = [&](std::size_t n) { return n * element_bytes + temp_bytes<Key, Value>(n) + alignment_slack; };
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, budget / element_bytes));
    while(n && need(n) > budget) n -= std::max<std::size_t>(1, n / 16);
    if(n == 0)
        throw tool_error("device memory budget of " + std::to_string(budget) + " bytes is below the " +
                             std::to_string(need(1)) + " bytes one element needs",
                         exit_out_of_memory);
    const std::uint64_t runs = (count + n - 1) / n;
    const std::uint64_t most = std::min<std::uint64_t>(max_runs, n); // the merge loads >= 1 element per run
    if(runs > most)
        throw tool_error("device memory budget of " + std::to_string(budget) + " bytes would need " +
                             std::to_string(runs) + " runs of " + std::to_string(n) + " elements (at most " +
                             std::to_string(most) + "); raise --max-device-memory",
                         exit_out_of_memory);
    return n;
}

std::uint64_t device_budget(const sort_options& o)
{
    if(o.max_device_memory) return o.max_device_memory;
    std::size_t free = 0, total = 0;
    check(hipMemGetInfo(&free, &total), "hipMemGetInfo");
    return free / 5 * 4;
}

// File → pinned staging → device, in staging-sized pieces.
void upload(binary_reader& in, void* device, std::size_t bytes, pinned_buffer& staging, progress& p)
{
    for(std::size_t at = 0; at < bytes; at += staging.bytes)
    {
        const std::size_t piece = std::min(staging.bytes, bytes - at);
        in.read(staging.ptr, piece);
        check(hipMemcpy(static_cast<char*>(device) + at, staging.ptr, piece, hipMemcpyHostToDevice), "upload");
        p.advance(piece);
    }
}

// Device → pinned staging → sink(keys, values, count), in pieces of whole elements.
template <class Sink>
void download(const void* keys, const void* values, std::size_t n, std::size_t kb, std::size_t vb,
              pinned_buffer& staging, progress& p, Sink sink)
{
    const std::size_t step = staging.bytes / (kb + vb);
    unsigned char* value_stage = staging.ptr + step * kb;
    for(std::size_t at = 0; at < n; at += step)
    {
        const std::size_t m = std::min(step, n - at);
        check(hipMemcpy(staging.ptr, static_cast<const char*>(keys) + at * kb, m * kb, hipMemcpyDeviceToHost),
              "download");
        if(vb)
            check(hipMemcpy(value_stage, static_cast<const char*>(values) + at * vb, m * vb, hipMemcpyDeviceToHost),
                  "download");
        sink(staging.ptr, value_stage, m);
        p.advance(m * (kb + vb));
    }
}

// Pinned host memory for the merge's windows: more only means fewer, larger rounds.
constexpr std::size_t merge_window_bytes = std::size_t(512) << 20;

template <class Key, class Value>
void sort_file(const sort_options& o, const layout& l, binary_input& keys, binary_input* values, output_sink& out,
               progress& p)
{
    const std::size_t kb = sizeof(Key), vb = l.value_bytes();
    const std::uint64_t budget = device_budget(o);
    const std::size_t chunk = chunk_size<Key, Value>(keys.count, budget, kb + vb);
    const std::uint64_t chunks = (keys.count + chunk - 1) / chunk;
    const auto ord = l.descending ? hipflashsort::order::descending : hipflashsort::order::ascending;
    std::size_t temp_capacity = temp_bytes<Key, Value>(chunk);
    device_buffer d_keys(chunk * kb, budget), d_values(chunk * vb, budget), d_temp(temp_capacity, budget);
    pinned_buffer staging(static_cast<std::size_t>(std::min<std::uint64_t>(staging_bytes, keys.count * (kb + vb))),
                          "staging");
    auto sort = [&](std::size_t n) { // in place, then waits
        check(device_sort(d_temp.ptr, temp_capacity, static_cast<Key*>(d_keys.ptr), static_cast<Value*>(d_values.ptr),
                          n, ord),
              "sort");
        check(hipDeviceSynchronize(), "sort");
    };
    std::deque<run> runs;
    {
        binary_reader key_in(keys.path);
        std::unique_ptr<binary_reader> value_in(values ? new binary_reader(values->path) : nullptr);
        for(std::uint64_t c = 0; c < chunks; c++)
        {
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, keys.count - c * chunk));
            const std::string name = chunks > 1 ? "chunk " + std::to_string(c + 1) + "/" + std::to_string(chunks) + ": " : "";
            p.start(name + "upload", n * (kb + vb));
            upload(key_in, d_keys.ptr, n * kb, staging, p);
            if(value_in) upload(*value_in, d_values.ptr, n * vb, staging, p);
            p.start(name + "sort", 1);
            sort(n);
            p.advance(1);
            p.start(name + (chunks > 1 ? "download" : "download and write"), n * (kb + vb));
            if(chunks == 1)
            {
                download(d_keys.ptr, d_values.ptr, n, kb, vb, staging, p,
                         [&](const void* k, const void* v, std::size_t m) { out.write(k, v, m); });
                return;
            }
            run& r = runs.emplace_back(o.output, static_cast<std::size_t>(c));
            r.count = n;
            download(d_keys.ptr, d_values.ptr, n, kb, vb, staging, p, [&](const void* k, const void* v, std::size_t m) {
                r.keys.write(k, m * kb);
                r.values.write(v, m * vb);
            });
            r.keys.close();
            r.values.close();
        }
    } // the input files close before the merge
    pinned_buffer windows(std::min(merge_window_bytes, chunk * (kb + vb)), "the merge windows");
    const auto upload_piece = [&](const void* k, const void* v, std::size_t at, std::size_t n) {
        check(hipMemcpyAsync(static_cast<char*>(d_keys.ptr) + at * kb, k, n * kb, hipMemcpyHostToDevice, 0),
              "merge upload");
        if(vb)
            check(hipMemcpyAsync(static_cast<char*>(d_values.ptr) + at * vb, v, n * vb, hipMemcpyHostToDevice, 0),
                  "merge upload");
    };
    const auto sort_and_write = [&](std::size_t n) {
        sort(n);
        download(d_keys.ptr, d_values.ptr, n, kb, vb, staging, p,
                 [&](const void* k, const void* v, std::size_t m) { out.write(k, v, m); });
    };
    merge_runs(l, runs, merge_device{chunk, windows.ptr, windows.bytes, upload_piece, sort_and_write}, p);
}

} // namespace

int require_gpu()
{
    int devices = 0;
    const hipError_t e = hipGetDeviceCount(&devices);
    if(e == hipSuccess && devices > 0) return exit_ok;
    std::fprintf(stderr, "hipflashsort: no GPU: %s\n", e != hipSuccess ? hipGetErrorString(e) : "no device");
    return exit_no_gpu;
}

int run_sort(const options& opt)
{
    const sort_options& o = opt.sort;
    layout l;
    l.key = parse_elem_type(o.type);
    l.pairs = !o.values.empty();
    if(l.pairs) l.value = parse_elem_type(o.value_type);
    l.text = o.text;
    l.descending = o.descending;
    progress p(!opt.quiet && isatty(2));
    // Everything that can fail without a GPU comes first, so CI tests these paths through the tool.
    binary_input keys = open_input(o.input, l.key, l.text, o.output, "keys", p);
    binary_input values;
    if(l.pairs) values = open_input(o.values, l.value, l.text, o.output, "values", p);
    if(l.pairs && values.count != keys.count)
        throw tool_error(o.input + " has " + std::to_string(keys.count) + " keys but " + o.values + " has " +
                         std::to_string(values.count) + " values");
    output_sink out(o, l, keys.count);
    if(const int status = require_gpu()) return status;
    if(keys.count != 0)
    {
        visit(l.key, [&](auto key) {
            using Key = decltype(key);
            switch(l.value_bytes())
            {
                case 0: return sort_file<Key, void>(o, l, keys, nullptr, out, p);
                case 1: return sort_file<Key, std::uint8_t>(o, l, keys, &values, out, p);
                case 2: return sort_file<Key, std::uint16_t>(o, l, keys, &values, out, p);
                case 4: return sort_file<Key, std::uint32_t>(o, l, keys, &values, out, p);
                default: return sort_file<Key, std::uint64_t>(o, l, keys, &values, out, p);
            }
        });
    }
    p.clear();
    out.commit();
    return exit_ok;
}

} // namespace tool
