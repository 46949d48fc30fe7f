// Command-line parsing of the hipflashsort tool: host-only, so CI tests it without a GPU.
#ifndef HIPFLASHSORT_CLIENTS_TOOL_OPTIONS_HPP_
#define HIPFLASHSORT_CLIENTS_TOOL_OPTIONS_HPP_

#include <cstdint>
#include <string>
#include <vector>

namespace tool {

struct bench_options
{
    std::string type = "";            // empty: the default suite
    std::uint64_t n = 0;              // 0: the suite's sizes
    std::string dist = "uniform";
    std::uint64_t segments = 0;       // 0 with segment_size 0: one array
    std::uint64_t segment_size = 0;
    bool pairs = false;
    unsigned int repeat = 10;
    std::string json;
};

/// `sort`: a file of keys (and optionally a parallel file of values), raw little-endian or text.
struct sort_options
{
    std::string type;                 // key type (required)
    std::string input, output;        // required
    std::string values, values_out;   // both or neither, with value_type
    std::string value_type;
    bool descending = false;
    bool text = false;                // --format text: input, output and values
    bool verify = true;
    std::uint64_t max_device_memory = 0; // 0: 80% of the free device memory
};

/// Exit codes of the tool (usage() lists them).
enum exit_code : int
{
    exit_ok = 0,
    exit_error = 1,         // bad or unreadable input, cannot write, verification failed, HIP error
    exit_no_gpu = 2,        // no HIP device
    exit_out_of_memory = 3, // device memory (or --max-device-memory) too small
    exit_usage = 4          // unknown command or option, missing or bad option value
};

struct options
{
    std::string command; // bench | sort | info | help
    bench_options bench;
    sort_options sort;
    bool quiet = false;
};

/// Parses a count: decimal, or 2^K. Returns false on anything else.
bool parse_count(const std::string& text, std::uint64_t& value);

/// Parses a byte count: N, N with K/M/G/T or KiB/MiB/GiB/TiB (powers of 1024), or 2^K.
bool parse_bytes(const std::string& text, std::uint64_t& value);

const std::vector<std::string>& key_type_names();

/// Parses argv; on failure returns false with a one-line message in `error`.
bool parse(int argc, const char* const* argv, options& out, std::string& error);

std::string usage();

} // namespace tool

#endif
