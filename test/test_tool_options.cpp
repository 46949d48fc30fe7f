// The tool's argument parsing: one-line errors, counts as N or 2^K.
#include <gtest/gtest.h>

#include "../clients/tool/options.hpp"

#include <string>
#include <vector>

namespace {

bool parse(std::vector<const char*> args, tool::options& o, std::string& error)
{
    args.insert(args.begin(), "hipflashsort");
    return tool::parse(static_cast<int>(args.size()), args.data(), o, error);
}

TEST(ToolOptions, Counts)
{
    std::uint64_t v = 0;
    EXPECT_TRUE(tool::parse_count("2^20", v));
    EXPECT_EQ(v, 1u << 20);
    EXPECT_TRUE(tool::parse_count("12345", v));
    EXPECT_EQ(v, 12345u);
    EXPECT_FALSE(tool::parse_count("2^", v));
    EXPECT_FALSE(tool::parse_count("-5", v));
    EXPECT_FALSE(tool::parse_count("1e6", v));
    EXPECT_FALSE(tool::parse_count("2^99", v));
}

TEST(ToolOptions, BenchDefaultsAndValues)
{
    tool::options o;
    std::string error;
    ASSERT_TRUE(parse({}, o, error));
    EXPECT_EQ(o.command, "bench");
    ASSERT_TRUE(parse({"bench", "--type", "f64", "--n", "2^16", "--dist", "zipf", "--segment-size", "113",
                       "--pairs", "--repeat", "3", "--json", "x.json"},
                      o, error))
        << error;
    EXPECT_EQ(o.bench.type, "f64");
    EXPECT_EQ(o.bench.n, 65536u);
    EXPECT_EQ(o.bench.dist, "zipf");
    EXPECT_EQ(o.bench.segment_size, 113u);
    EXPECT_TRUE(o.bench.pairs);
    EXPECT_EQ(o.bench.repeat, 3u);
    EXPECT_EQ(o.bench.json, "x.json");
}

TEST(ToolOptions, ErrorsAreOneLine)
{
    const std::vector<std::vector<const char*>> bad = {
        {"sortt"}, {"bench", "--type", "u128"}, {"bench", "--dist", "gauss"}, {"bench", "--n"},
        {"bench", "--n", "0"}, {"bench", "--frobnicate"}, {"bench", "--segments", "4", "--segment-size", "8"},
        {"info", "--pairs"}, {"sort", "--type", "u32", "--input", "in"}, {"sort", "--input", "a", "--output", "b"},
        {"sort", "--type", "u32", "--output", "b"}, {"sort", "--type", "u128", "--input", "a", "--output", "b"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--values", "v"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--values", "v", "--values-out", "w"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--frobnicate"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--format", "csv"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--max-device-memory", "12X"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--max-device-memory", "0"},
        {"sort", "--type", "u32", "--input", "a", "--output", "b", "--values", "v", "--values-out", "b",
         "--value-type", "u8"},
        {"sort", "--type", "u32", "--input", "a", "--output"}, {"bench", "--desc"}};
    for(const auto& args : bad)
    {
        tool::options o;
        std::string error;
        EXPECT_FALSE(parse(args, o, error)) << args[0];
        EXPECT_FALSE(error.empty());
        EXPECT_EQ(error.find('\n'), std::string::npos);
    }
}

TEST(ToolOptions, ByteCounts)
{
    struct byte_case { const char* text; std::uint64_t value; };
    for(const byte_case& c : {byte_case{"4096", 4096}, byte_case{"8K", 8192}, byte_case{"8KiB", 8192},
                              byte_case{"3M", 3u << 20}, byte_case{"2MiB", 2u << 20}, byte_case{"1G", 1u << 30},
                              byte_case{"5GiB", 5ull << 30}, byte_case{"2T", 2ull << 40}, byte_case{"2^33", 1ull << 33}})
    {
        std::uint64_t v = 0;
        EXPECT_TRUE(tool::parse_bytes(c.text, v)) << c.text;
        EXPECT_EQ(v, c.value) << c.text;
    }
    std::uint64_t v = 0;
    for(const char* bad : {"", "K", "8k", "8 M", "8MB", "-1", "1.5G", "2^", "99999999999T", "8Ki"})
        EXPECT_FALSE(tool::parse_bytes(bad, v)) << bad;
}

TEST(ToolOptions, Sort)
{
    tool::options o;
    std::string error;
    ASSERT_TRUE(parse({"sort", "--type", "i64", "--input", "k.bin", "--output", "s.bin"}, o, error)) << error;
    EXPECT_EQ(o.command, "sort");
    EXPECT_EQ(o.sort.type, "i64");
    EXPECT_EQ(o.sort.input, "k.bin");
    EXPECT_EQ(o.sort.output, "s.bin");
    EXPECT_FALSE(o.sort.descending || o.sort.text || !o.sort.verify || o.sort.max_device_memory || o.quiet);
    EXPECT_TRUE(o.sort.values.empty());
    tool::options p;
    ASSERT_TRUE(parse({"sort", "--type", "f32", "--input", "k", "--output", "s", "--values", "v", "--values-out", "w",
                       "--value-type", "u16", "--desc", "--format", "text", "--no-verify", "--max-device-memory",
                       "512MiB", "--quiet"},
                      p, error))
        << error;
    EXPECT_EQ(p.sort.values, "v");
    EXPECT_EQ(p.sort.values_out, "w");
    EXPECT_EQ(p.sort.value_type, "u16");
    EXPECT_TRUE(p.sort.descending && p.sort.text && !p.sort.verify && p.quiet);
    EXPECT_EQ(p.sort.max_device_memory, 512u << 20);
    tool::options q;
    EXPECT_FALSE(parse({"sort", "--type", "u32", "--output", "s"}, q, error));
    EXPECT_EQ(error, "sort needs --input");
    EXPECT_FALSE(parse({"sort", "--type", "u32", "--input", "a", "--output", "b", "--pairs"}, q, error));
    EXPECT_EQ(error, "unknown option '--pairs' for sort");
    EXPECT_NE(tool::usage().find("3 out of device memory"), std::string::npos);
}

} // namespace
