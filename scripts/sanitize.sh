#!/usr/bin/env bash
# Runs GPU tests under compute-sanitizer (NVIDIA GPU machine): memcheck with leak check, racecheck
# and synccheck. Bounded filters keep each tool within a few minutes; logs go to $OUT (or
# build/gpu-logs). Expects the tests built in build/gpu (scripts/gpu-run.sh).
#   scripts/sanitize.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-logs}
mkdir -p "$out"
t=build/gpu/test
status=0
run() { # tool log binary filter
  local tool=$1 log=$2 bin=$3 filter=$4 extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  timeout 150 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$t/$bin" --gtest_filter="$filter" \
    > "$out/$log" 2>&1
  local rc=$?
  printf '%-10s %-32s %-60s rc=%s  %s\n' "$tool" "$bin" "$filter" "$rc" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$out/$log" | tr '\n' ' ')"
  [ $rc -eq 0 ] || status=1
}
small='DeviceSortKeys/2.*:DeviceSortKeys/8.*:SegmentedSort.ClassBoundaries*:SortArguments*'
run memcheck  memcheck_device.log   test_gpu_device_sort "$small"
run racecheck racecheck_device.log  test_gpu_device_sort 'SegmentedSort.ClassBoundaries*:DeviceSortKeys/2.*'
run synccheck synccheck_device.log  test_gpu_device_sort 'SegmentedSort.ClassBoundaries*'
run memcheck  memcheck_blocks.log   test_gpu_block_bitonic_sort 'BlockBitonicSortKeyTypes/*'
run racecheck racecheck_blocks.log  test_gpu_block_bitonic_sort 'BlockBitonicSortKeyTypes/*'
run synccheck synccheck_blocks.log  test_gpu_block_bitonic_sort 'BlockBitonicSortKeyTypes/*'
run memcheck  memcheck_warp.log     test_gpu_warp_sort 'WarpSortKeyTypes/*'
run racecheck racecheck_warp.log    test_gpu_warp_sort 'WarpSortKeyTypes/*'
run synccheck synccheck_warp.log    test_gpu_warp_sort 'WarpSortKeyTypes/*'
run memcheck  memcheck_bitonic.log  test_gpu_device_bitonic_sort 'DeviceBitonicSort/2.*:DeviceBitonicSortArguments.*'
run racecheck racecheck_bitonic.log test_gpu_device_bitonic_sort 'DeviceBitonicSort/2.MatchesReferenceOrder'
run memcheck  memcheck_wave.log     test_gpu_wave_flash_sort 'WaveFlashSortKeyTypes/*'
run racecheck racecheck_wave.log    test_gpu_wave_flash_sort 'WaveFlashSortKeyTypes/*'
run synccheck synccheck_wave.log    test_gpu_wave_flash_sort 'WaveFlashSortKeyTypes/*'
exit $status
