// Portable device intrinsics: the only headers of hipflashsort that branch on the platform.
#ifndef HIPFLASHSORT_INTRINSICS_INTRINSICS_HPP_
#define HIPFLASHSORT_INTRINSICS_INTRINSICS_HPP_

#include "ballot.hpp"
#include "barrier.hpp"
#include "bits.hpp"
#include "cache_hints.hpp"
#include "shuffle.hpp"
#include "wavefront.hpp"

#endif
