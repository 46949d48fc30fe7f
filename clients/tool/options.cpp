#include "options.hpp"

#include "../common/data_generation.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace tool {

bool parse_count(const std::string& text, std::uint64_t& value)
{
    if(text.empty()) return false;
    if(text.rfind("2^", 0) == 0)
    {
        std::uint64_t exponent = 0;
        if(!parse_count(text.substr(2), exponent) || exponent > 40) return false;
        value = std::uint64_t(1) << exponent;
        return true;
    }
    if(!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) || text.size() > 19)
        return false;
    value = std::strtoull(text.c_str(), nullptr, 10);
    return true;
}

bool parse_bytes(const std::string& text, std::uint64_t& value)
{
    if(text.rfind("2^", 0) == 0) return parse_count(text, value);
    static const char* const suffixes[][2] = {{"K", "KiB"}, {"M", "MiB"}, {"G", "GiB"}, {"T", "TiB"}};
    std::size_t digits = text.find_first_not_of("0123456789");
    if(digits == std::string::npos) digits = text.size();
    const std::string unit = text.substr(digits);
    unsigned int shift = 0;
    for(unsigned int i = 0; i < 4 && unit.size(); i++)
        if(unit == suffixes[i][0] || unit == suffixes[i][1]) shift = 10 * (i + 1);
    std::uint64_t count = 0;
    if((!unit.empty() && shift == 0) || !parse_count(text.substr(0, digits), count)) return false;
    if(count > (~std::uint64_t(0) >> shift)) return false;
    value = count << shift;
    return true;
}

const std::vector<std::string>& key_type_names()
{
    static const std::vector<std::string> names = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"};
    return names;
}

std::string usage()
{
    return "usage: hipflashsort <command> [options]\n"
           "  bench [--type T] [--n N|2^K] [--dist D] [--segments S | --segment-size L] [--pairs]\n"
           "        [--repeat R] [--json FILE]\n"
           "        Generate keys on the GPU, sort them with hipflashsort and with the vendor library\n"
           "        (CUB on NVIDIA, rocPRIM on AMD) in the same run, verify both, print ms, Gkeys/s\n"
           "        and the ratio. With no options: a short default suite.\n"
           "        T: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64. D: uniform normal exponential zipf sorted\n"
           "        reverse nearly-sorted few-unique all-equal outlier reduced-entropy.\n"
           "  sort  --type T --input FILE --output FILE [--values FILE --values-out FILE --value-type V]\n"
           "        [--desc] [--format binary|text] [--no-verify] [--max-device-memory BYTES]\n"
           "        Sort a file of keys on the GPU (stable; with --values, a parallel file of values is\n"
           "        moved with its keys). binary: raw little-endian (default); text: one number per line,\n"
           "        for every file. Text floats: nan, inf, -inf, -0, hex; written so that they read back\n"
           "        exactly, except NaN payloads (written as nan or -nan). The result is checked (order,\n"
           "        value count) unless --no-verify, then renamed into place: nothing is written on\n"
           "        failure. T, V: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64.\n"
           "        Memory: device bytes <= BYTES (N, 2^K, N with K M G T or KiB MiB GiB TiB, powers of\n"
           "        1024; default 80% of free device memory). Larger files are sorted in chunks that fit\n"
           "        into sorted runs (at most 256), temporary files next to the output, then merged on\n"
           "        the GPU. Host memory: 64 MiB of pinned staging, and while merging at most 512 MiB of\n"
           "        pinned windows of the runs.\n"
           "  info  Platform, device, architecture, wavefront size, LDS, memory, library version.\n"
           "  help  This text.\n"
           "  --quiet  no progress on stderr.\n"
           "exit codes: 0 success, 1 error (input, output, verification, HIP), 2 no GPU,\n"
           "  3 out of device memory, 4 usage error.\n";
}

namespace {

bool parse_type(const std::string& v, std::string& out, std::string& error)
{
    const auto& names = key_type_names();
    if(std::find(names.begin(), names.end(), v) == names.end())
    {
        error = "unknown type '" + v + "' (u8 u16 u32 u64 i8 i16 i32 i64 f32 f64)";
        return false;
    }
    out = v;
    return true;
}

// One option of `sort`; `value` fetches the option's argument.
template <class Value>
bool parse_sort_option(const std::string& arg, Value value, sort_options& o, std::string& error)
{
    std::string v;
    if(arg == "--desc") o.descending = true;
    else if(arg == "--no-verify") o.verify = false;
    else if(arg == "--type") return value(v) && parse_type(v, o.type, error);
    else if(arg == "--value-type") return value(v) && parse_type(v, o.value_type, error);
    else if(arg == "--input") return value(o.input);
    else if(arg == "--output") return value(o.output);
    else if(arg == "--values") return value(o.values);
    else if(arg == "--values-out") return value(o.values_out);
    else if(arg == "--format")
    {
        if(!value(v)) return false;
        if(v != "binary" && v != "text")
        {
            error = "unknown format '" + v + "' (binary or text)";
            return false;
        }
        o.text = v == "text";
    }
    else if(arg == "--max-device-memory")
    {
        if(!value(v)) return false;
        if(!parse_bytes(v, o.max_device_memory) || o.max_device_memory == 0)
        {
            error = "bad byte count '" + v + "' for --max-device-memory";
            return false;
        }
    }
    else
    {
        error = "unknown option '" + arg + "' for sort";
        return false;
    }
    return true;
}

bool check_sort_options(const sort_options& o, std::string& error)
{
    const char* missing = o.type.empty() ? "--type" : o.input.empty() ? "--input" : o.output.empty() ? "--output" : nullptr;
    if(missing) error = std::string("sort needs ") + missing;
    const int with_values = !o.values.empty() + !o.values_out.empty() + !o.value_type.empty();
    if(!missing && with_values != 0 && with_values != 3)
        error = "--values, --values-out and --value-type go together";
    if(error.empty() && o.output == o.values_out) error = "--output and --values-out must be different files";
    return error.empty();
}

} // namespace

bool parse(int argc, const char* const* argv, options& out, std::string& error)
{
    if(argc < 2)
    {
        out.command = "bench";
        return true;
    }
    out.command = argv[1];
    if(out.command == "-h" || out.command == "--help") out.command = "help";
    if(out.command != "bench" && out.command != "sort" && out.command != "info" && out.command != "help")
    {
        error = "unknown command '" + out.command + "' (bench, sort, info or help)";
        return false;
    }
    for(int i = 2; i < argc; i++)
    {
        const std::string arg = argv[i];
        auto value = [&](std::string& v) {
            if(i + 1 >= argc)
            {
                error = "option " + arg + " needs a value";
                return false;
            }
            v = argv[++i];
            return true;
        };
        std::string v;
        if(arg == "--quiet")
        {
            out.quiet = true;
        }
        else if(out.command == "sort")
        {
            if(!parse_sort_option(arg, value, out.sort, error)) return false;
        }
        else if(out.command != "bench")
        {
            error = "unknown option '" + arg + "' for " + out.command;
            return false;
        }
        else if(arg == "--pairs")
        {
            out.bench.pairs = true;
        }
        else if(arg == "--type")
        {
            if(!value(v)) return false;
            const auto& names = key_type_names();
            if(std::find(names.begin(), names.end(), v) == names.end())
            {
                error = "unknown key type '" + v + "'";
                return false;
            }
            out.bench.type = v;
        }
        else if(arg == "--dist")
        {
            if(!value(v)) return false;
            clients::distribution d;
            if(!clients::parse_distribution(v, d))
            {
                error = "unknown distribution '" + v + "'";
                return false;
            }
            out.bench.dist = v;
        }
        else if(arg == "--n" || arg == "--segments" || arg == "--segment-size" || arg == "--repeat")
        {
            if(!value(v)) return false;
            std::uint64_t count = 0;
            if(!parse_count(v, count) || (arg != "--segments" && count == 0))
            {
                error = "bad number '" + v + "' for " + arg;
                return false;
            }
            if(arg == "--n") out.bench.n = count;
            if(arg == "--segments") out.bench.segments = count;
            if(arg == "--segment-size") out.bench.segment_size = count;
            if(arg == "--repeat") out.bench.repeat = static_cast<unsigned int>(std::min<std::uint64_t>(count, 1000));
        }
        else if(arg == "--json")
        {
            if(!value(v)) return false;
            out.bench.json = v;
        }
        else
        {
            error = "unknown option '" + arg + "'";
            return false;
        }
    }
    if(out.command == "sort") return check_sort_options(out.sort, error);
    if(out.bench.segments != 0 && out.bench.segment_size != 0)
    {
        error = "--segments and --segment-size exclude each other";
        return false;
    }
    return true;
}

} // namespace tool
