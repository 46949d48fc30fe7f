// The merge of sorted runs on the GPU, in rounds. The runs are consecutive parts of the input,
// run 0 first, each sorted stably. A round refills a pinned window of W elements per run (k runs,
// k * W at most the device capacity and at most 512 MiB of keys and values; the unconsumed tail
// of the previous round stays at the front), chooses a prefix of every window (the tie rule
// below), copies the prefixes to the device concatenated in run order, sorts them there with the
// library's stable sort and writes them out. Within a round the stable sort orders equal keys by
// run, then by position; the tie rule makes every round's output precede everything after it in
// that order, so the result is the stable sort of the whole input (pairs keep input order among
// equal keys, and so do -0 and +0).
//
// Tie rule, on the sort's order images (radix_key_codec::order_image: ascending or descending,
// -0 = +0). Among the runs whose window does not reach the end of their file, m is the smallest
// last loaded key and t the first run (lowest index) whose last loaded key equals m. Run r
// outputs its loaded keys before m, and those equal to m when r <= t. Keys before m are all
// loaded (the runs are sorted); runs before t have all their m-keys loaded (their last key is
// after m), run t's further m-keys come next round and runs after t hold their m-keys back. Run t
// outputs its whole window, so every round makes progress. When no window ends before its file,
// everything loaded is output.
#include "device_merge.hpp"

#include "file_io.hpp"

#include <hipflashsort/thread/radix_key_codec.hpp>

#include <cstring>
#include <memory>
#include <vector>

namespace tool {

namespace {

struct window
{
    std::unique_ptr<binary_reader> keys, values;
    unsigned char *k = nullptr, *v = nullptr; // pinned, W elements each
    std::size_t loaded = 0, take = 0;
    std::uint64_t left = 0; // elements not read yet
};

// Sets every window's `take` by the tie rule; returns their sum.
template <class Key>
std::size_t choose_prefixes(std::vector<window>& windows, hipflashsort::order ord)
{
    using codec = hipflashsort::radix_key_codec<Key>;
    auto image = [&](const window& w, std::size_t i) {
        Key key;
        std::memcpy(&key, w.k + i * sizeof(Key), sizeof(Key));
        return codec::order_image(key, ord);
    };
    const std::size_t none = windows.size();
    std::size_t t = none;
    typename codec::bit_key_type m = 0;
    for(std::size_t r = 0; r < windows.size(); r++) // a window with keys left in its file is full
        if(windows[r].left && (t == none || image(windows[r], windows[r].loaded - 1) < m))
        {
            t = r;
            m = image(windows[r], windows[r].loaded - 1);
        }
    std::size_t total = 0;
    for(std::size_t r = 0; r < windows.size(); r++)
    {
        window& w = windows[r];
        std::size_t lo = 0, hi = w.loaded; // first key after m (r <= t) or not before m (r > t)
        if(t == none) lo = hi;
        while(lo < hi)
        {
            const std::size_t mid = lo + (hi - lo) / 2;
            const auto key = image(w, mid);
            if(key < m || (key == m && r <= t)) lo = mid + 1;
            else hi = mid;
        }
        w.take = lo;
        total += lo;
    }
    return total;
}

} // namespace

void merge_runs(const layout& l, std::deque<run>& runs, const merge_device& device, progress& p)
{
    const std::size_t kb = size_of(l.key), vb = l.value_bytes(), k = runs.size();
    const std::size_t per_run = std::min(device.capacity, device.window_bytes / (kb + vb)) / k;
    if(per_run == 0) throw tool_error("internal error: more runs than merge capacity");
    const auto ord = l.descending ? hipflashsort::order::descending : hipflashsort::order::ascending;
    std::vector<window> windows(k);
    std::uint64_t total = 0;
    for(std::size_t r = 0; r < k; r++)
    {
        window& w = windows[r];
        w.keys = std::make_unique<binary_reader>(runs[r].keys.path());
        if(vb) w.values = std::make_unique<binary_reader>(runs[r].values.path());
        w.k = device.windows + r * per_run * kb;
        w.v = device.windows + k * per_run * kb + r * per_run * vb;
        w.left = runs[r].count;
        total += runs[r].count;
    }
    p.start("merge " + std::to_string(k) + " runs", total * (kb + vb));
    for(std::uint64_t done = 0; done < total;)
    {
        for(window& w : windows)
        {
            const std::size_t more = static_cast<std::size_t>(std::min<std::uint64_t>(per_run - w.loaded, w.left));
            w.keys->read(w.k + w.loaded * kb, more * kb);
            if(vb) w.values->read(w.v + w.loaded * vb, more * vb);
            w.loaded += more;
            w.left -= more;
        }
        const std::size_t n = visit(l.key, [&](auto zero) { return choose_prefixes<decltype(zero)>(windows, ord); });
        std::size_t at = 0;
        for(const window& w : windows)
        {
            if(w.take != 0) device.upload(w.k, w.v, at, w.take);
            at += w.take;
        }
        device.sort_and_write(n); // waits for the uploads too: the windows may change after this
        for(window& w : windows)
        {
            std::memmove(w.k, w.k + w.take * kb, (w.loaded - w.take) * kb);
            if(vb) std::memmove(w.v, w.v + w.take * vb, (w.loaded - w.take) * vb);
            w.loaded -= w.take;
        }
        done += n;
    }
}

} // namespace tool
