// Files of the `sort` command, host only (CI tests them without a GPU): binary and text element
// files, temporary files renamed into place, sorted run files (merged on the GPU,
// device_merge.hpp) and the order check. The order is hipflashsort's own (radix_key_codec), so
// the check agrees with the GPU sort on ±0 and NaNs.
#ifndef HIPFLASHSORT_CLIENTS_TOOL_FILE_IO_HPP_
#define HIPFLASHSORT_CLIENTS_TOOL_FILE_IO_HPP_

#include "options.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace tool {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "binary files are read and written as raw little-endian");

/// One-line error with the tool's exit code; main prints "hipflashsort: error: <what>".
struct tool_error : std::runtime_error
{
    int code;
    explicit tool_error(const std::string& what, int exit = exit_error) : std::runtime_error(what), code(exit) {}
};

enum class elem_type : unsigned char { u8, u16, u32, u64, i8, i16, i32, i64, f32, f64 };

/// A name of key_type_names(); throws tool_error on anything else.
elem_type parse_elem_type(const std::string& name);
std::size_t size_of(elem_type t);
const char* name_of(elem_type t);

/// Calls f(T()) with the C++ type of t.
template <class F>
decltype(auto) visit(elem_type t, F&& f)
{
    switch(t)
    {
        case elem_type::u8: return f(std::uint8_t());
        case elem_type::u16: return f(std::uint16_t());
        case elem_type::u32: return f(std::uint32_t());
        case elem_type::u64: return f(std::uint64_t());
        case elem_type::i8: return f(std::int8_t());
        case elem_type::i16: return f(std::int16_t());
        case elem_type::i32: return f(std::int32_t());
        case elem_type::i64: return f(std::int64_t());
        case elem_type::f32: return f(float());
        default: return f(double());
    }
}

/// Parses one text number of type t into `out` (size_of(t) bytes). Integers: decimal, in range.
/// Floats: what strtof/strtod accept (nan, inf, -inf, -0, hex), finite unless written as inf.
bool parse_text(elem_type t, const char* text, void* out, std::string& why);
/// Writes one element as text that parse_text reads back to the same bits (NaN payloads aside:
/// NaNs are written as nan or -nan). Returns the length; `text` holds 40 chars.
std::size_t format_text(elem_type t, const void* elem, char* text);

/// How the elements of one sort look in memory and in the files.
struct layout
{
    elem_type key = elem_type::u32, value = elem_type::u32;
    bool pairs = false, text = false, descending = false;
    std::size_t value_bytes() const { return pairs ? size_of(value) : 0; }
};

/// Progress lines on stderr ("\r"-rewritten), only when enabled (stderr a terminal, no --quiet).
class progress
{
public:
    explicit progress(bool enabled) : enabled_(enabled) {}
    ~progress() { clear(); }
    void start(const std::string& phase, std::uint64_t total);
    void advance(std::uint64_t done);
    void clear();
private:
    bool enabled_;
    std::string phase_;
    std::uint64_t total_ = 0, done_ = 0;
    int shown_ = -1;
};

/// A temporary file next to `target` (same directory, so rename() is atomic); removed when
/// destroyed unless commit() renamed it onto the target.
class temp_file
{
public:
    temp_file(const std::string& target, const std::string& tag);
    ~temp_file();
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    const std::string& path() const { return path_; }
    void write(const void* data, std::size_t bytes);
    void close();  // flushes; throws when the data did not reach the file
    void commit(); // close(), then rename onto the target
private:
    std::string target_, path_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

/// Sequential reads of a binary file; throws tool_error naming the file.
class binary_reader
{
public:
    explicit binary_reader(const std::string& path);
    ~binary_reader();
    binary_reader(const binary_reader&) = delete;
    binary_reader& operator=(const binary_reader&) = delete;
    void read(void* out, std::size_t bytes);
private:
    std::string path_;
    std::FILE* file_ = nullptr;
};

/// Elements of type t to a file: raw, or text one per line.
class element_writer
{
public:
    element_writer(temp_file* file, elem_type t, bool text) : file_(file), type_(t), text_(text) {}
    void write(const void* elems, std::size_t count);
private:
    temp_file* file_;
    elem_type type_;
    bool text_;
};

/// Finds the first key out of the sort's order in a stream of keys.
class order_check
{
public:
    order_check(elem_type t, bool descending) : type_(t), descending_(descending) {}
    void feed(const void* keys, std::size_t count);
    std::uint64_t first_unsorted() const { return first_bad_; } // ~0: none
private:
    elem_type type_;
    bool descending_;
    std::uint64_t count_ = 0, last_ = 0, first_bad_ = ~std::uint64_t(0);
};

/// An input as a binary file of `count` elements: the file itself (checked: regular, readable,
/// length a multiple of the element size), or a binary temporary copy of a text file (parsed
/// here, so every error is found before the GPU is touched).
struct binary_input
{
    std::string path;
    std::uint64_t count = 0;
    std::unique_ptr<temp_file> converted;
};
binary_input open_input(const std::string& path, elem_type t, bool text, const std::string& temp_next_to,
                        const std::string& tag, progress& p);

/// The sorted result: keys (and values) go to temporary files next to their targets, checked on
/// the way (order, counts) when verify is on, and replace the targets only in commit().
class output_sink
{
public:
    output_sink(const sort_options& o, const layout& l, std::uint64_t count);
    void write(const void* keys, const void* values, std::size_t count);
    void commit();
private:
    layout layout_;
    bool verify_;
    std::uint64_t expected_, keys_written_ = 0, values_written_ = 0;
    std::unique_ptr<temp_file> keys_file_, values_file_;
    element_writer keys_, values_;
    order_check check_;
};

/// One sorted run: raw keys and raw values (pairs) in temporary files, removed with the run.
struct run
{
    run(const std::string& next_to, std::size_t index)
        : keys(next_to, "run" + std::to_string(index) + ".keys"), values(next_to, "run" + std::to_string(index) + ".values")
    {
    }
    temp_file keys, values;
    std::uint64_t count = 0;
};

} // namespace tool

#endif
