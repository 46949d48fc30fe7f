// The sort command's files, host only: round trips, parse errors with line numbers, the stable
// merge of runs in rounds of windows (the GPU's sort played by the host) in hipflashsort's order,
// and nothing written when a sort fails.
#include <gtest/gtest.h>

#include "../clients/tool/device_merge.hpp"
#include "../clients/tool/file_io.hpp"

#include <hipflashsort/thread/radix_key_codec.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using tool::elem_type;

const elem_type all_types[] = {elem_type::u8,  elem_type::u16, elem_type::u32, elem_type::u64, elem_type::i8,
                               elem_type::i16, elem_type::i32, elem_type::i64, elem_type::f32, elem_type::f64};

// A fresh directory per test, removed (with what is left in it) at the end.
struct scratch_dir
{
    std::string path;
    scratch_dir()
    {
        std::string pattern = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + std::string("/hfs_files_XXXXXX");
        path = mkdtemp(&pattern[0]) ? pattern : "";
    }
    ~scratch_dir()
    {
        for(const auto& f : files()) std::remove((path + "/" + f).c_str());
        rmdir(path.c_str());
    }
    std::vector<std::string> files() const
    {
        std::vector<std::string> names;
        if(DIR* d = opendir(path.c_str()))
        {
            while(const dirent* e = readdir(d))
                if(e->d_name[0] != '.') names.push_back(e->d_name);
            closedir(d);
        }
        return names;
    }
    std::string file(const std::string& name, const std::string& content = "") const
    {
        std::ofstream(path + "/" + name, std::ios::binary) << content;
        return path + "/" + name;
    }
};

bool exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

std::vector<unsigned char> read_all(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

// Keys with duplicates, extremes and, for floats, ±0, ±inf and NaNs of both signs with payloads.
template <class T>
std::vector<T> sample(std::size_t n, std::uint64_t seed)
{
    using codec = hipflashsort::radix_key_codec<T>;
    std::mt19937_64 rng(seed);
    std::vector<T> v;
    for(std::size_t i = 0; i < n; i++)
        v.push_back(i % 3 ? codec::from_bits(static_cast<typename codec::bit_key_type>(rng()))
                          : static_cast<T>(rng() % 7));
    v.push_back(std::numeric_limits<T>::lowest());
    v.push_back(std::numeric_limits<T>::max());
    if constexpr(std::is_floating_point<T>::value)
    {
        for(T x : {T(-0.0), T(0.0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                   std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(),
                   std::numeric_limits<T>::denorm_min(), T(0.1)})
            v.push_back(x);
    }
    return v;
}

std::string error_of(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch(const tool::tool_error& e)
    {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        return e.what();
    }
    return "";
}

TEST(ToolFiles, RoundTripsEveryType)
{
    for(const elem_type t : all_types)
        for(const bool text : {false, true})
            tool::visit(t, [&](auto zero) {
                using T = decltype(zero);
                scratch_dir dir;
                const std::vector<T> keys = sample<T>(3000, 7);
                const std::string path = dir.path + "/data";
                {
                    tool::temp_file f(path, "w");
                    tool::element_writer(&f, t, text).write(keys.data(), keys.size());
                    f.commit();
                }
                tool::progress quiet(false);
                tool::binary_input in = tool::open_input(path, t, text, dir.path + "/out", "keys", quiet);
                ASSERT_EQ(in.count, keys.size());
                std::vector<T> back(keys.size());
                tool::binary_reader(in.path).read(back.data(), back.size() * sizeof(T));
                for(std::size_t i = 0; i < keys.size(); i++)
                {
                    if constexpr(std::is_floating_point<T>::value)
                        if(std::isnan(keys[i])) // text keeps the NaN's sign, not its payload
                        {
                            EXPECT_TRUE(std::isnan(back[i]));
                            EXPECT_EQ(std::signbit(back[i]), std::signbit(keys[i]));
                            continue;
                        }
                    EXPECT_EQ(std::memcmp(&back[i], &keys[i], sizeof(T)), 0)
                        << tool::name_of(t) << (text ? " text" : " binary") << " at " << i;
                }
            });
}

TEST(ToolFiles, TextForms)
{
    struct accepted { elem_type t; const char* text; double value; };
    for(const accepted& a : {accepted{elem_type::u8, " 255 \r", 255}, accepted{elem_type::i8, "-128", -128},
                             accepted{elem_type::i64, "+42", 42}, accepted{elem_type::f32, "0x1p-3", 0.125},
                             accepted{elem_type::f64, "-inf", -INFINITY}, accepted{elem_type::f32, "1e-50", 0}})
    {
        scratch_dir dir;
        tool::progress quiet(false);
        tool::binary_input in = tool::open_input(dir.file("in.txt", std::string(a.text) + "\n"), a.t, true,
                                                 dir.path + "/out", "keys", quiet);
        ASSERT_EQ(in.count, 1u) << a.text;
        tool::visit(a.t, [&](auto zero) {
            decltype(zero) v;
            tool::binary_reader(in.path).read(&v, sizeof(v));
            EXPECT_EQ(static_cast<double>(v), a.value) << a.text;
        });
    }
    char text[40];
    const float minus_zero = -0.0f, tenth = 0.1f;
    EXPECT_EQ(std::string(text, tool::format_text(elem_type::f32, &minus_zero, text)), "-0");
    EXPECT_EQ(std::string(text, tool::format_text(elem_type::f32, &tenth, text)), "0.1");
    const double nan = -std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(std::string(text, tool::format_text(elem_type::f64, &nan, text)), "-nan");
}

TEST(ToolFiles, ParseErrorsNameFileAndLine)
{
    struct bad { elem_type t; const char* content; const char* expect; };
    for(const bad& b : {bad{elem_type::u8, "1\n2\n256\n", ":3: '256' is out of range for u8"},
                        bad{elem_type::i8, "-129\n", ":1: '-129' is out of range for i8"},
                        bad{elem_type::u32, "5\n-1\n", ":2: '-1' is out of range for u32"},
                        bad{elem_type::i64, "9223372036854775808\n", ":1: '9223372036854775808' is out of range"},
                        bad{elem_type::f32, "1\n1e39\n", ":2: '1e39' is out of range for f32"},
                        bad{elem_type::f64, "1\n2\n3\nabc\n", ":4: 'abc' is not a f64 number"},
                        bad{elem_type::i32, "1.5\n", ":1: '1.5' is not a i32 number"},
                        bad{elem_type::u16, "1\n\n2\n", ":2: empty line"}})
    {
        scratch_dir dir;
        tool::progress quiet(false);
        const std::string path = dir.file("keys.txt", b.content);
        const std::string message =
            error_of([&] { tool::open_input(path, b.t, true, dir.path + "/out", "keys", quiet); });
        EXPECT_NE(message.find(path + b.expect), std::string::npos) << message;
        EXPECT_EQ(dir.files(), std::vector<std::string>{"keys.txt"}) << "temporary file left behind";
    }
}

TEST(ToolFiles, BinaryLengthAndMissingFiles)
{
    scratch_dir dir;
    tool::progress quiet(false);
    const std::string odd = dir.file("odd.bin", "12345");
    EXPECT_NE(error_of([&] { tool::open_input(odd, elem_type::u32, false, odd, "k", quiet); })
                  .find("odd.bin: length 5 bytes is not a multiple of the u32 size (4 bytes)"),
              std::string::npos);
    EXPECT_EQ(tool::open_input(odd, elem_type::u8, false, odd, "k", quiet).count, 5u);
    for(const bool text : {false, true})
        EXPECT_NE(error_of([&] { tool::open_input(dir.path + "/none", elem_type::u8, text, odd, "k", quiet); })
                      .find("cannot read " + dir.path + "/none"),
                  std::string::npos);
    EXPECT_NE(error_of([&] { tool::open_input(dir.path, elem_type::u8, false, odd, "k", quiet); }).find("not a regular file"),
              std::string::npos);
}

// Runs of random lengths, each stably sorted, merged: must equal one stable sort of everything
// (values are the input positions, so any instability shows).
template <class Key>
void check_merge(bool descending, std::uint64_t seed)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    const auto ord = descending ? hipflashsort::order::descending : hipflashsort::order::ascending;
    const std::vector<Key> keys = sample<Key>(20000, seed);
    std::vector<std::uint32_t> index(keys.size());
    std::iota(index.begin(), index.end(), 0u);
    auto by_key = [&](std::uint32_t a, std::uint32_t b) {
        return codec::order_image(keys[a], ord) < codec::order_image(keys[b], ord);
    };
    scratch_dir dir;
    tool::sort_options o;
    o.output = dir.path + "/keys.out";
    o.values_out = dir.path + "/values.out";
    tool::layout l;
    for(const elem_type t : all_types)
        if(tool::visit(t, [](auto zero) { return std::is_same<decltype(zero), Key>::value; })) l.key = t;
    l.value = elem_type::u32;
    l.pairs = true;
    l.descending = descending;
    std::deque<tool::run> runs;
    std::mt19937_64 rng(seed);
    for(std::size_t at = 0; at < keys.size();)
    {
        const std::size_t n = std::min<std::size_t>(keys.size() - at, 1 + rng() % 5000);
        std::stable_sort(index.begin() + at, index.begin() + at + n, by_key);
        tool::run& r = runs.emplace_back(o.output, runs.size());
        r.count = n;
        for(std::size_t i = at; i < at + n; i++)
        {
            r.keys.write(&keys[index[i]], sizeof(Key));
            r.values.write(&index[i], sizeof(std::uint32_t));
        }
        r.keys.close();
        r.values.close();
        at += n;
    }
    {
        // The GPU's part of the merge, on the host: a stable sort by the same order images.
        tool::output_sink out(o, l, keys.size());
        tool::progress quiet(false);
        const std::size_t capacity = 2048 + 4 * runs.size(); // small: many rounds and refills
        std::vector<Key> device_keys(capacity);
        std::vector<std::uint32_t> device_values(capacity), order(capacity);
        std::vector<unsigned char> windows(capacity * (sizeof(Key) + 4));
        const auto upload = [&](const void* k, const void* v, std::size_t at, std::size_t n) {
            std::memcpy(&device_keys[at], k, n * sizeof(Key));
            std::memcpy(&device_values[at], v, n * 4);
        };
        const auto sort_and_write = [&](std::size_t n) {
            std::iota(order.begin(), order.begin() + n, 0u);
            std::stable_sort(order.begin(), order.begin() + n, [&](std::uint32_t a, std::uint32_t b) {
                return codec::order_image(device_keys[a], ord) < codec::order_image(device_keys[b], ord);
            });
            for(std::size_t i = 0; i < n; i++) out.write(&device_keys[order[i]], &device_values[order[i]], 1);
        };
        tool::merge_runs(l, runs, tool::merge_device{capacity, windows.data(), windows.size(), upload, sort_and_write},
                         quiet);
        out.commit();
    }
    runs.clear();
    std::iota(index.begin(), index.end(), 0u);
    std::stable_sort(index.begin(), index.end(), by_key);
    const std::vector<unsigned char> got_keys = read_all(o.output), got_values = read_all(o.values_out);
    ASSERT_EQ(got_keys.size(), keys.size() * sizeof(Key));
    ASSERT_EQ(got_values.size(), keys.size() * 4);
    for(std::size_t i = 0; i < keys.size(); i++)
    {
        std::uint32_t v;
        std::memcpy(&v, &got_values[i * 4], 4);
        ASSERT_EQ(v, index[i]) << "position " << i << (descending ? " descending" : " ascending");
        ASSERT_EQ(std::memcmp(&got_keys[i * sizeof(Key)], &keys[index[i]], sizeof(Key)), 0);
    }
    EXPECT_EQ(dir.files().size(), 2u) << "run files left behind";
}

TEST(ToolFiles, MergeIsStableInTheSortOrder)
{
    for(const bool descending : {false, true})
    {
        check_merge<std::uint32_t>(descending, 1);
        check_merge<std::int16_t>(descending, 2);
        check_merge<std::uint8_t>(descending, 3);
        check_merge<float>(descending, 4);
        check_merge<double>(descending, 5);
        check_merge<std::int64_t>(descending, 6);
    }
}

TEST(ToolFiles, NothingWrittenOnFailure)
{
    scratch_dir dir;
    tool::sort_options o;
    o.output = dir.file("out.bin", "old");
    tool::layout l;
    l.key = elem_type::i32;
    const std::int32_t unsorted[] = {1, 3, 2};
    {
        tool::output_sink out(o, l, 3);
        out.write(unsorted, nullptr, 3);
        EXPECT_NE(error_of([&] { out.commit(); }).find("output key 2 is out of order"), std::string::npos);
    }
    {
        tool::output_sink out(o, l, 4); // one key short
        out.write(unsorted, nullptr, 1);
        EXPECT_NE(error_of([&] { out.commit(); }).find("verification failed"), std::string::npos);
    }
    {
        tool::temp_file abandoned(o.output, "x"); // an exception between creation and commit
        abandoned.write("new", 3);
    }
    EXPECT_EQ(dir.files(), std::vector<std::string>{"out.bin"});
    EXPECT_EQ(read_all(o.output), (std::vector<unsigned char>{'o', 'l', 'd'}));
    o.verify = false; // --no-verify writes what it is given
    tool::output_sink out(o, l, 3);
    out.write(unsorted, nullptr, 3);
    out.commit();
    EXPECT_EQ(read_all(o.output).size(), sizeof(unsorted));
    EXPECT_FALSE(exists(dir.path + "/missing/dir/out.bin"));
    o.output = dir.path + "/missing/dir/out.bin";
    EXPECT_NE(error_of([&] { tool::output_sink(o, l, 0); }).find("cannot create"), std::string::npos);
}

} // namespace
