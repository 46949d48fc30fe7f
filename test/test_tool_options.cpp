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
        {"info", "--pairs"}};
    for(const auto& args : bad)
    {
        tool::options o;
        std::string error;
        EXPECT_FALSE(parse(args, o, error)) << args[0];
        EXPECT_FALSE(error.empty());
        EXPECT_EQ(error.find('\n'), std::string::npos);
    }
}

} // namespace
