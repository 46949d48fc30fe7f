#!/usr/bin/env bash
# Builds one benchmark binary from another source tree (a worktree of another commit, or a patched
# copy) with build/gpu's own compile and link commands, for A/Bs in one GPU call
# (scripts/ab-rounds.sh): the library headers and the benchmark source come from SRCROOT, the rest
# (flags, dependencies) from build/gpu. Writes build/variants/NAME.xz.
#   scripts/build-variant.sh NAME SRCROOT [benchmark_device_sort | benchmark_segmented_sort]
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1 src=$(cd "$2" && pwd) target=${3:-benchmark_device_sort}
here=$PWD out=$PWD/build/variants/$name
mkdir -p "$out"
mapfile -t cmds < <(ninja -C build/gpu -t commands "benchmark/$target" | tail -2)
obj="benchmark/CMakeFiles/$target.dir/$target.cpp.o"
compile=${cmds[0]//-I$here\/library\/include/-I$src/library/include}
compile=${compile//-c $here\/benchmark\//-c $src/benchmark/}
compile=${compile//-o $obj/-o $out/b.o}
compile=$(sed "s#-MF [^ ]*#-MF $out/b.d#" <<< "$compile")
link=${cmds[1]//$obj/$out/b.o}
link=${link//-o benchmark\/$target /-o $out/bin }
(cd build/gpu && eval "$compile" > "$out/ptxas.log" 2>&1) || { grep -m5 -A5 error "$out/ptxas.log"; exit 1; }
(cd build/gpu && eval "$link")
xz -T0 -c "$out/bin" > "build/variants/$name.xz"
ls -la "build/variants/$name.xz"
