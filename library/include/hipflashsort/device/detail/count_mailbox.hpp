// Host-visible words for the counts the host reads between a round's kernels.
//
// The segmented sort reads its class counts back once or twice per round. A copy to pageable
// memory and a stream synchronization left the GPU idle about 19 us each time on an H100 (a
// probe: one kernel, the copy and the next kernel, against two kernels back to back; 16.6 us
// into pinned memory, whose copy still runs on the stream; 8.9 us for the synchronization alone;
// 7.0 us where a kernel stores into mapped memory and the host polls it). With a kernel that
// stores the counts into pinned, mapped memory and sets a flag the host polls (H100, 2^26 keys,
// medians of ten rotated rounds): segments of 256 / 1000 / 16384 / 65536 u32+u32 pairs +2.3 /
// +1.7 / +1.3 / +1.0%, u32 keys +2.1 to +3.3%; device sorts of 2^16-2^20 keys and pairs +7 to
// +22%, of 2^24 +1.8 to +3.0%.
#ifndef HIPFLASHSORT_DEVICE_DETAIL_COUNT_MAILBOX_HPP_
#define HIPFLASHSORT_DEVICE_DETAIL_COUNT_MAILBOX_HPP_

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "../../config.hpp"

namespace hipflashsort {
namespace detail {

/// One call's words in pinned, mapped host memory: `words - 1` counts, then the flag that says
/// they are there. Null where none could be had (the caller copies instead).
struct count_mailbox
{
    static constexpr unsigned int words = 64;
    static constexpr unsigned int flag = words - 1;
    unsigned int* host = nullptr;
    unsigned int* device = nullptr; // the same words as kernels address them

    explicit operator bool() const { return host != nullptr; }
};

/// Mailboxes of 256 bytes carved from pinned pages, each lent to one sort call at a time. The
/// pages are taken on first use (hipHostMalloc, portable and mapped: any device, any thread;
/// coherent, so that on AMD the host sees the kernel's stores while it runs, where ROCm's default
/// may be non-coherent; NVIDIA's mapped memory always is) and kept for the life of the process: a
/// pinned page freed during static destruction may outlive the runtime that would free it.
class count_mailbox_pool
{
public:
    static count_mailbox_pool& instance()
    {
        static count_mailbox_pool* pool = new count_mailbox_pool(); // never destroyed: see above
        return *pool;
    }

    count_mailbox take()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if(free_.empty()) grow();
        if(free_.empty()) return {};
        const count_mailbox box = free_.back();
        free_.pop_back();
        return box;
    }

    void give_back(count_mailbox box)
    {
        if(!box) return;
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(box);
    }

private:
    static constexpr std::size_t page_bytes = 4096;

    void grow()
    {
        if(failed_) return;
        void* host = nullptr;
        void* device = nullptr;
        if(hipHostMalloc(&host, page_bytes, hipHostMallocMapped | hipHostMallocPortable | hipHostMallocCoherent) != hipSuccess)
        {
            (void)hipGetLastError();
            failed_ = true; // e.g. no pinned memory allowed: every call copies from now on
            return;
        }
        if(hipHostGetDevicePointer(&device, host, 0) != hipSuccess)
        {
            (void)hipGetLastError();
            (void)hipHostFree(host);
            failed_ = true;
            return;
        }
        constexpr std::size_t per_page = page_bytes / (count_mailbox::words * sizeof(unsigned int));
        for(std::size_t i = 0; i < per_page; i++)
        {
            count_mailbox box;
            box.host = static_cast<unsigned int*>(host) + i * count_mailbox::words;
            box.device = static_cast<unsigned int*>(device) + i * count_mailbox::words;
            free_.push_back(box);
        }
    }

    std::mutex mutex_;
    std::vector<count_mailbox> free_;
    bool failed_ = false;
};

/// A mailbox for the length of one call.
class lent_count_mailbox
{
public:
    lent_count_mailbox() : box_(count_mailbox_pool::instance().take()) {}
    ~lent_count_mailbox() { count_mailbox_pool::instance().give_back(box_); }
    lent_count_mailbox(const lent_count_mailbox&) = delete;
    lent_count_mailbox& operator=(const lent_count_mailbox&) = delete;
    const count_mailbox& get() const { return box_; }

private:
    count_mailbox box_;
};

/// Copies counts[0, n) into the mailbox (n < count_mailbox::words), then sets its flag; the
/// system-scope fence makes the counts visible to the host before the flag. The counts are read
/// through volatile loads: other blocks' atomics may have written them during this kernel. All
/// threads of the block call it together. (A template, so that every translation unit may hold
/// it.)
template <class Word>
HIPFLASHSORT_DEVICE void publish_counts(const Word* counts, unsigned int n, Word* box)
{
    for(unsigned int i = threadIdx.x; i < n; i += blockDim.x) box[i] = static_cast<const volatile Word*>(counts)[i];
    __threadfence_system();
    __syncthreads();
    if(threadIdx.x == 0) *static_cast<volatile Word*>(box + count_mailbox::flag) = 1u;
}

template <class Word>
__global__ void publish_counts_kernel(const Word* counts, unsigned int n, Word* box)
{
    publish_counts(counts, n, box);
}

/// Readies the mailbox for a kernel's publish_counts (host side, before its launch).
inline void clear_flag(const count_mailbox& box)
{
    if(box) static_cast<volatile unsigned int*>(box.host)[count_mailbox::flag] = 0u;
}

/// The host's side of counts that a kernel on `stream` publishes (publish_counts) into `box`,
/// whose flag the host cleared before launching it (clear_flag): the flag is polled, the stream
/// queried in between so that a failed launch returns its error instead of waiting. Where there
/// is no mailbox, or the stream ended without the flag, the counts are copied from `counts`
/// (device memory) after a stream synchronization.
inline hipError_t await_counts(const count_mailbox& box, const unsigned int* counts, unsigned int n,
                               unsigned int* out, hipStream_t stream)
{
    if(box && n < count_mailbox::words)
    {
        volatile unsigned int* words = box.host;
        bool there = false;
        while(!(there = words[count_mailbox::flag] != 0u))
        {
            const hipError_t state = hipStreamQuery(stream);
            if(state == hipErrorNotReady) continue;
            if(state != hipSuccess) return state;
            there = words[count_mailbox::flag] != 0u; // the stream is done: so is the kernel
            break;
        }
        if(there)
        {
            std::atomic_thread_fence(std::memory_order_acquire);
            for(unsigned int i = 0; i < n; i++) out[i] = words[i];
            return hipSuccess;
        }
    }
    HIPFLASHSORT_RETURN_IF_ERROR(hipMemcpyAsync(out, counts, n * sizeof(unsigned int), hipMemcpyDeviceToHost, stream));
    return hipStreamSynchronize(stream);
}

/// The host's side: n counts from `counts` (device memory) into `out`, through the mailbox
/// where there is one (publish_counts_kernel, then await_counts), else by a copy and a stream
/// synchronization.
inline hipError_t read_counts(const count_mailbox& box, const unsigned int* counts, unsigned int n,
                              unsigned int* out, hipStream_t stream)
{
    if(box && n < count_mailbox::words)
    {
        clear_flag(box);
        publish_counts_kernel<unsigned int><<<1, 64, 0, stream>>>(counts, n, box.device);
        HIPFLASHSORT_RETURN_IF_ERROR(hipGetLastError());
    }
    return await_counts(box, counts, n, out, stream);
}

} // namespace detail
} // namespace hipflashsort

#endif
