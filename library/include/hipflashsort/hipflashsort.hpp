// Umbrella header: everything public in hipflashsort.
#ifndef HIPFLASHSORT_HIPFLASHSORT_HPP_
#define HIPFLASHSORT_HIPFLASHSORT_HPP_

#include "config.hpp"
#include <hipflashsort/hipflashsort_version.hpp>
#include "intrinsics/intrinsics.hpp"
#include "thread/radix_key_codec.hpp"
#include "block/block_flash_sort.hpp"
#include "warp/wave_flash_sort.hpp"
#include "device/device_bitonic_sort.hpp"
#include "device/device_flash_sort.hpp"
#include "device/device_segmented_sort.hpp"

#endif
