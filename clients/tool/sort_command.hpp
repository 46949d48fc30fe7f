// `hipflashsort sort`: a file of keys (and values) sorted on the GPU, out of core when it does not
// fit: GPU-sized chunks become sorted run files, merged on the GPU (device_merge.hpp).
#ifndef HIPFLASHSORT_CLIENTS_TOOL_SORT_COMMAND_HPP_
#define HIPFLASHSORT_CLIENTS_TOOL_SORT_COMMAND_HPP_

#include "options.hpp"

namespace tool {

/// exit_ok when there is a HIP device; otherwise prints "hipflashsort: no GPU: ..." and returns
/// exit_no_gpu.
int require_gpu();

/// Runs the sort command; returns an exit code or throws tool_error (which carries one).
int run_sort(const options& opt);

} // namespace tool

#endif
