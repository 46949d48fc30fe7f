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
           "  info  Platform, device, architecture, wavefront size, LDS, memory, library version.\n"
           "  help  This text.\n"
           "  --quiet  no progress on stderr.\n";
}

bool parse(int argc, const char* const* argv, options& out, std::string& error)
{
    if(argc < 2)
    {
        out.command = "bench";
        return true;
    }
    out.command = argv[1];
    if(out.command == "-h" || out.command == "--help") out.command = "help";
    if(out.command != "bench" && out.command != "info" && out.command != "help")
    {
        error = "unknown command '" + out.command + "' (bench, info or help)";
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
    if(out.bench.segments != 0 && out.bench.segment_size != 0)
    {
        error = "--segments and --segment-size exclude each other";
        return false;
    }
    return true;
}

} // namespace tool
