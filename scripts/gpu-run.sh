#!/usr/bin/env bash
# Build and test on the GPU machine (no package registry there): uses the dependencies that
# ../shared/device/prepare-deps.sh unpacked into .devdeps. Logs go to $OUT (or build/gpu-logs).
#   [TARGETS="a b"] [BUILD_BENCHMARK=ON] [BUILD_CLIENTS=ON] [NO_TEST=1] scripts/gpu-run.sh [ctest-regex]
# Timing on the 16-core H100 machine (02210ae): a cold build of the tests, benchmarks and tool
# takes about 8 minutes and the whole ctest about 4, more than one 10-minute device call; build
# first (NO_TEST=1), then test in a second call while the machine is still warm (the build tree is
# kept only then).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-logs}
mkdir -p "$out"
regex=${1:-.}
bdir=build/gpu
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  git rev-parse HEAD 2>/dev/null || true
} | tee "$out/machine.txt"
cmake -S . -B $bdir -G Ninja -DHIPFLASHSORT_PLATFORM=nvidia -DCMAKE_PREFIX_PATH="$PWD/.devdeps/usr" \
  -DBUILD_TEST=ON -DBUILD_BENCHMARK=${BUILD_BENCHMARK:-OFF} -DBUILD_CLIENTS=${BUILD_CLIENTS:-OFF} \
  > "$out/configure.log" 2>&1 || { tail -50 "$out/configure.log"; exit 1; }
grep -A14 "hipflashsort .* configuration" "$out/configure.log"
targets=()
for t in ${TARGETS:-all}; do targets+=(--target "$t"); done
cmake --build $bdir --parallel 16 "${targets[@]}" > "$out/build.log" 2>&1 || { grep -B2 -A10 -m5 "error" "$out/build.log"; exit 1; }
[ "${NO_TEST:-0}" = 1 ] && { echo "built; ctest skipped (NO_TEST=1)"; exit 0; }
(cd $bdir && ctest --output-on-failure -R "$regex" --timeout 600) > "$out/ctest.log" 2>&1
rc=$?
grep -E "tests passed|Failed|\*\*\*|Skipped" "$out/ctest.log" | tail -30
exit $rc
