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

struct options
{
    std::string command; // bench | info | help
    bench_options bench;
    bool quiet = false;
};

/// Parses a count: decimal, or 2^K. Returns false on anything else.
bool parse_count(const std::string& text, std::uint64_t& value);

const std::vector<std::string>& key_type_names();

/// Parses argv; on failure returns false with a one-line message in `error`.
bool parse(int argc, const char* const* argv, options& out, std::string& error);

std::string usage();

} // namespace tool

#endif
