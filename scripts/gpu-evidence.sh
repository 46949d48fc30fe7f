#!/usr/bin/env bash
# GPU machine: runs every GPU test binary in DIR (test_gpu_*, plain or .xz) at once on the one GPU,
# test_gpu_device_sort in three gtest shards (the longest binary), and prints each log's summary
# and the binaries' md5 sums. Logs go to $OUT/tests (or build/gpu-logs/tests).
#   scripts/gpu-evidence.sh build/gpu/test
set -uo pipefail
src=${1:-build/gpu/test}
logs=${OUT:-build/gpu-logs}/tests
bins=/tmp/gpu-evidence-bin # kept after the run, for compute-sanitizer on the same binaries
rm -rf "$bins"
mkdir -p "$logs" "$bins"
for f in "$src"/test_gpu_*; do
  name=$(basename "${f%.xz}")
  if [ "${f%.xz}" != "$f" ]; then xz -dc "$f" > "$bins/$name"; else cp "$f" "$bins/$name"; fi
  chmod +x "$bins/$name"
done
md5sum "$bins"/* | tee "$logs/md5.txt"
pids=()
for name in $(ls "$bins"); do
  if [ "$name" = test_gpu_device_sort ]; then
    for i in 0 1 2; do
      GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i "$bins/$name" > "$logs/${name}_$i.log" 2>&1 &
      pids+=($!)
    done
  else
    "$bins/$name" > "$logs/$name.log" 2>&1 &
    pids+=($!)
  fi
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
for f in "$logs"/*.log; do
  echo "$(basename "$f"): $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\] [0-9]+' "$f" | tr '\n' ' ')"
done
echo "all passed: $([ $status = 0 ] && echo yes || echo no)"
exit $status
