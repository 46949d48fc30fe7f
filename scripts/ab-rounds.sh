#!/usr/bin/env bash
# A/B of benchmark binaries on the GPU machine: every binary runs the same filter once per round,
# in an order rotated each round, each run writing DIR/rROUND_NAME.json (Google Benchmark JSON).
# A binary may be a .xz file (unpacked afresh into a temporary folder, once per file however many
# names run it). NAME=VAR=value entries in $ENVS give the
# run named NAME an environment setting, and NAME=FILE in $ALIASES runs FILE under another name
# (one binary, several settings). scripts/ab-medians.py reads DIR.
#   [ENVS="b=KNOB=1"] [ALIASES="b=bin.xz"] scripts/ab-rounds.sh DIR ROUNDS FILTER a.xz b ...
set -uo pipefail
dir=$1 rounds=$2 filter=$3
shift 3
mkdir -p "$dir"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
declare -A binary_of=()
names=() files=() count=0
for arg in "$@"; do
  file=$arg
  for a in ${ALIASES:-}; do [ "${a%%=*}" = "$arg" ] && file=${a#*=}; done
  name=$(basename "${arg%.xz}")
  if [ -z "${binary_of[$file]:-}" ]; then
    bin=$file
    if [ "${file%.xz}" != "$file" ]; then
      count=$((count + 1)) bin=$unpacked/$count
      xz -dc "$file" > "$bin" && chmod +x "$bin"
    fi
    binary_of[$file]=$bin
  fi
  names+=("$name") files+=("${binary_of[$file]}")
done
k=${#names[@]}
for r in $(seq 1 "$rounds"); do
  for j in $(seq 0 $((k - 1))); do
    i=$(( (j + r) % k ))
    name=${names[$i]} settings=()
    for e in ${ENVS:-}; do [ "${e%%=*}" = "$name" ] && settings+=("${e#*=}"); done
    env "${settings[@]}" "${files[$i]}" --benchmark_filter="$filter" --benchmark_out="$dir/r${r}_$name.json" \
      --benchmark_out_format=json > "$dir/r${r}_$name.log" 2>&1 || echo "failed: $name, round $r"
  done
done
bad=$(grep -h -o "mismatches=[1-9][0-9]*" "$dir"/*.log | wc -l)
echo "$k binaries x $rounds rounds in $dir; benchmarks with mismatches: $bad"
