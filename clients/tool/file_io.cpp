#include "file_io.hpp"

#include <hipflashsort/thread/radix_key_codec.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <csignal>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace tool {

namespace {

// Text lines longer than this are an error, which keeps the reader's memory fixed.
constexpr std::size_t max_line = 4096;

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// Paths of the live temporary files, for SIGINT, SIGTERM and SIGHUP, which end the process
// without running destructors: the handler unlinks them (async-signal-safe) and dies of the
// signal. Slots are atomic so the handler never sees a half-written entry.
std::atomic<const char*> live_temporaries[1024];

void remove_temporaries(int sig)
{
    for(auto& slot : live_temporaries)
        if(const char* path = slot.load()) unlink(path);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void track_temporary(const char* add, const char* remove)
{
    static const bool installed = [] {
        for(const int sig : {SIGINT, SIGTERM, SIGHUP})
            if(std::signal(sig, remove_temporaries) == SIG_IGN) std::signal(sig, SIG_IGN); // keep nohup's choice
        return true;
    }();
    (void)installed;
    for(auto& slot : live_temporaries)
    {
        const char* expected = remove;
        if(slot.compare_exchange_strong(expected, add)) return;
    }
}

template <class T>
int parse_value(const char* s, T& v) // 0: ok, 1: not a number, 2: out of range
{
    char* end = nullptr;
    errno = 0;
    if constexpr(std::is_same<T, float>::value) v = std::strtof(s, &end);
    else if constexpr(std::is_same<T, double>::value) v = std::strtod(s, &end);
    if constexpr(std::is_floating_point<T>::value)
    {
        if(end == s || *end) return 1;
        return errno == ERANGE && std::isinf(v) ? 2 : 0; // overflow; underflow rounds, as strtod does
    }
    else if constexpr(std::is_signed<T>::value)
    {
        const long long x = std::strtoll(s, &end, 10);
        if(end == s || *end) return 1;
        if(errno == ERANGE || x < std::numeric_limits<T>::lowest() || x > std::numeric_limits<T>::max()) return 2;
        v = static_cast<T>(x);
        return 0;
    }
    else
    {
        const unsigned long long x = std::strtoull(s, &end, 10);
        if(end == s || *end) return 1;
        if(errno == ERANGE || *s == '-' || x > std::numeric_limits<T>::max()) return 2; // strtoull wraps "-1"
        v = static_cast<T>(x);
        return 0;
    }
}

// Shortest "%.*g" that reads back to the same value: 0.1f prints as 0.1, not 0.100000001.
template <class F>
std::size_t format_float(F v, char* text)
{
    if(std::isnan(v)) return static_cast<std::size_t>(std::sprintf(text, std::signbit(v) ? "-nan" : "nan"));
    if(std::isinf(v)) return static_cast<std::size_t>(std::sprintf(text, v < 0 ? "-inf" : "inf"));
    const int most = std::numeric_limits<F>::max_digits10;
    for(int digits = std::numeric_limits<F>::digits10;; digits++)
    {
        const int n = std::snprintf(text, 40, "%.*g", digits, static_cast<double>(v));
        F back;
        if(digits >= most || (parse_value(text, back) == 0 && back == v)) return static_cast<std::size_t>(n);
    }
}

using file_ptr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

file_ptr open_read(const std::string& path, const char* mode)
{
    struct stat st;
    if(stat(path.c_str(), &st) != 0) throw tool_error(system_error("cannot read " + path));
    if(!S_ISREG(st.st_mode)) throw tool_error("cannot read " + path + ": not a regular file");
    file_ptr f(std::fopen(path.c_str(), mode), &std::fclose);
    if(!f) throw tool_error(system_error("cannot read " + path));
    return f;
}

std::uint64_t file_bytes(const std::string& path)
{
    struct stat st;
    if(stat(path.c_str(), &st) != 0) throw tool_error(system_error("cannot read " + path));
    return static_cast<std::uint64_t>(st.st_size);
}

// Parses a text file into a binary temporary file; errors name the file and the 1-based line.
void convert_text(const std::string& path, elem_type t, temp_file& out, std::uint64_t& count, progress& p)
{
    file_ptr f = open_read(path, "r");
    p.start("read " + path, file_bytes(path));
    const std::size_t size = size_of(t);
    std::vector<unsigned char> batch(size * 8192);
    std::size_t in_batch = 0;
    char line[max_line + 2];
    for(std::uint64_t number = 1; std::fgets(line, sizeof(line), f.get()); number++)
    {
        std::size_t len = std::strlen(line);
        p.advance(len);
        auto where = [&] { return path + ":" + std::to_string(number) + ": "; }; // only for errors
        if(len && line[len - 1] == '\n') line[--len] = 0;
        else if(!std::feof(f.get())) throw tool_error(where() + "line longer than " + std::to_string(max_line) + " characters");
        while(len && std::strchr(" \t\r", line[len - 1])) line[--len] = 0; // CRLF files, trailing blanks
        const char* text = line + std::strspn(line, " \t");
        std::string why;
        if(!*text) throw tool_error(where() + "empty line, expected a " + name_of(t) + " number");
        if(!parse_text(t, text, batch.data() + in_batch * size, why)) throw tool_error(where() + why);
        if(++in_batch * size == batch.size())
        {
            out.write(batch.data(), batch.size());
            in_batch = 0;
        }
        count++;
    }
    if(std::ferror(f.get())) throw tool_error(system_error("cannot read " + path));
    out.write(batch.data(), in_batch * size);
    out.close();
}

} // namespace

elem_type parse_elem_type(const std::string& name)
{
    const auto& names = key_type_names();
    const auto at = std::find(names.begin(), names.end(), name);
    if(at == names.end()) throw tool_error("unknown type '" + name + "'", exit_usage);
    return static_cast<elem_type>(at - names.begin()); // key_type_names() is in elem_type order
}

std::size_t size_of(elem_type t)
{
    return visit(t, [](auto zero) { return sizeof(zero); });
}

const char* name_of(elem_type t) { return key_type_names()[static_cast<std::size_t>(t)].c_str(); }

bool parse_text(elem_type t, const char* text, void* out, std::string& why)
{
    return visit(t, [&](auto zero) {
        decltype(zero) v{};
        const int status = parse_value(text, v);
        if(status != 0)
            why = "'" + std::string(text).substr(0, 40) + (status == 1 ? "' is not a " : "' is out of range for ") +
                  name_of(t) + (status == 1 ? " number" : "");
        std::memcpy(out, &v, sizeof(v));
        return status == 0;
    });
}

std::size_t format_text(elem_type t, const void* elem, char* text)
{
    return visit(t, [&](auto zero) -> std::size_t {
        decltype(zero) v;
        std::memcpy(&v, elem, sizeof(v));
        if constexpr(std::is_floating_point<decltype(v)>::value) return format_float(v, text);
        else return static_cast<std::size_t>(std::to_chars(text, text + 40, v).ptr - text);
    });
}

temp_file::temp_file(const std::string& target, const std::string& tag)
    : target_(target), path_(target + ".hipflashsort-" + std::to_string(getpid()) + "-" + tag + ".tmp")
{
    file_ = std::fopen(path_.c_str(), "wbx");
    if(!file_) throw tool_error(system_error("cannot create " + path_));
    track_temporary(path_.c_str(), nullptr);
}

temp_file::~temp_file()
{
    if(file_) std::fclose(file_);
    if(committed_) return;
    std::remove(path_.c_str());
    track_temporary(nullptr, path_.c_str());
}

void temp_file::write(const void* data, std::size_t bytes)
{
    if(bytes && std::fwrite(data, 1, bytes, file_) != bytes) throw tool_error(system_error("cannot write " + path_));
}

void temp_file::close()
{
    if(!file_) return;
    const bool failed = std::ferror(file_) != 0;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if(failed || !closed) throw tool_error(system_error("cannot write " + path_));
}

void temp_file::commit()
{
    close();
    if(std::rename(path_.c_str(), target_.c_str()) != 0) throw tool_error(system_error("cannot write " + target_));
    committed_ = true;
    track_temporary(nullptr, path_.c_str());
}

binary_reader::binary_reader(const std::string& path) : path_(path)
{
    file_ = open_read(path, "rb").release();
}

binary_reader::~binary_reader() { std::fclose(file_); }

void binary_reader::read(void* out, std::size_t bytes)
{
    if(std::fread(out, 1, bytes, file_) != bytes)
        throw tool_error(std::ferror(file_) ? system_error("cannot read " + path_) : path_ + ": shorter than expected");
}

void element_writer::write(const void* elems, std::size_t count)
{
    const std::size_t size = size_of(type_);
    const auto* e = static_cast<const unsigned char*>(elems);
    if(!text_) return file_->write(e, count * size);
    char text[1 << 16];
    std::size_t used = 0;
    for(std::size_t i = 0; i < count; i++)
    {
        used += format_text(type_, e + i * size, text + used);
        text[used++] = '\n';
        if(used + 64 > sizeof(text) || i + 1 == count)
        {
            file_->write(text, used);
            used = 0;
        }
    }
}

void order_check::feed(const void* keys, std::size_t count)
{
    visit(type_, [&](auto zero) {
        using key = decltype(zero);
        const auto ord = descending_ ? hipflashsort::order::descending : hipflashsort::order::ascending;
        const auto* k = static_cast<const unsigned char*>(keys);
        for(std::size_t i = 0; i < count; i++, count_++)
        {
            key v;
            std::memcpy(&v, k + i * sizeof(key), sizeof(key));
            const std::uint64_t image = hipflashsort::radix_key_codec<key>::order_image(v, ord);
            if(count_ && image < last_ && first_bad_ == ~std::uint64_t(0)) first_bad_ = count_;
            last_ = image;
        }
    });
}

binary_input open_input(const std::string& path, elem_type t, bool text, const std::string& temp_next_to,
                        const std::string& tag, progress& p)
{
    binary_input in;
    if(text)
    {
        in.converted = std::make_unique<temp_file>(temp_next_to, tag);
        convert_text(path, t, *in.converted, in.count, p);
        in.path = in.converted->path();
        return in;
    }
    open_read(path, "rb"); // readable regular file
    const std::uint64_t bytes = file_bytes(path);
    if(bytes % size_of(t) != 0)
        throw tool_error(path + ": length " + std::to_string(bytes) + " bytes is not a multiple of the " + name_of(t) +
                         " size (" + std::to_string(size_of(t)) + " bytes)");
    in.path = path;
    in.count = bytes / size_of(t);
    return in;
}

output_sink::output_sink(const sort_options& o, const layout& l, std::uint64_t count)
    : layout_(l), verify_(o.verify), expected_(count), keys_file_(std::make_unique<temp_file>(o.output, "out")),
      values_file_(l.pairs ? std::make_unique<temp_file>(o.values_out, "out") : nullptr),
      keys_(keys_file_.get(), l.key, l.text), values_(values_file_.get(), l.value, l.text), check_(l.key, l.descending)
{
}

void output_sink::write(const void* keys, const void* values, std::size_t count)
{
    if(verify_) check_.feed(keys, count);
    keys_.write(keys, count);
    keys_written_ += count;
    if(!layout_.pairs) return;
    values_.write(values, count);
    values_written_ += count;
}

void output_sink::commit()
{
    if(keys_written_ != expected_ || (layout_.pairs && values_written_ != expected_))
        throw tool_error("verification failed: " + std::to_string(keys_written_) + " keys and " +
                         std::to_string(values_written_) + " values for " + std::to_string(expected_) +
                         " inputs; nothing written");
    if(check_.first_unsorted() != ~std::uint64_t(0))
        throw tool_error("verification failed: output key " + std::to_string(check_.first_unsorted()) +
                         " is out of order; nothing written");
    keys_file_->commit();
    if(values_file_) values_file_->commit();
}

void progress::start(const std::string& phase, std::uint64_t total)
{
    phase_ = phase;
    total_ = total;
    done_ = 0;
    shown_ = -1;
    advance(0);
}

void progress::advance(std::uint64_t done)
{
    done_ += done;
    const int percent = total_ ? static_cast<int>(std::min<std::uint64_t>(done_, total_) * 100 / total_) : 100;
    if(!enabled_ || percent == shown_) return;
    shown_ = percent;
    std::fprintf(stderr, "\r\033[Khipflashsort: %s %3d%%", phase_.c_str(), percent);
}

void progress::clear()
{
    if(enabled_ && shown_ >= 0) std::fprintf(stderr, "\r\033[K");
    shown_ = -1;
}

} // namespace tool
