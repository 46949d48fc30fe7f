// The merge phase of an out-of-core `hipflashsort sort`: windows of the sorted run files, merged
// in rounds by a device that sorts what it is given (device_merge.cpp). The rounds do no HIP
// calls themselves: the tool passes the GPU's upload and sort (sort_command.cpp), the host tests a
// host stand-in, so the tie rule is checked without a GPU.
#ifndef HIPFLASHSORT_CLIENTS_TOOL_DEVICE_MERGE_HPP_
#define HIPFLASHSORT_CLIENTS_TOOL_DEVICE_MERGE_HPP_

#include "file_io.hpp"

#include <cstddef>
#include <deque>
#include <functional>

namespace tool {

/// What a merge round needs from the device.
struct merge_device
{
    /// Elements (keys and values) the device sorts at once.
    std::size_t capacity;
    /// Host memory for the runs' windows (pinned for the GPU) and its size in bytes.
    unsigned char* windows;
    std::size_t window_bytes;
    /// Copies n keys (and values; unused for keys only) to elements [at, at + n) of the device.
    std::function<void(const void* keys, const void* values, std::size_t at, std::size_t n)> upload;
    /// Sorts elements [0, n) stably in the sort's order, writes them to the output and waits, so
    /// that the uploaded windows may change afterwards.
    std::function<void(std::size_t n)> sort_and_write;
};

/// Merges the sorted runs (consecutive parts of the input, run 0 first) into the output in
/// rounds; the result is the stable sort of the whole input. Each round hands the device at most
/// min(capacity, window_bytes / element bytes) elements; needs that to be at least runs.size().
void merge_runs(const layout& l, std::deque<run>& runs, const merge_device& device, progress& p);

} // namespace tool

#endif
