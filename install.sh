#!/usr/bin/env bash
# hipflashsort build helper, in the style of ROCm libraries' install.sh.
# Run ./install.sh -h for the options.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: ./install.sh [options]
  -h, --help               show this help
  -d, --dependencies       install build dependencies with apt-get (cmake, ninja, HIP, rocPRIM,
                           rocm-cmake, GoogleTest, Google Benchmark, as the platform needs)
  -c, --clients            build the clients: tests, benchmarks, the hipflashsort tool, samples
  -t, --tests              build the tests and run them (GPU tests skip without a device)
  -i, --install            install the library (headers, CMake package) into --prefix
  -g, --debug              debug build (build/debug instead of build/release)
  -a, --architecture LIST  GPU targets: AMD "gfx906;gfx90a", NVIDIA "90" or "80;90"
      --platform P         amd | nvidia (default: detected, see below)
      --prefix DIR         install prefix (default /usr/local)
      --build-dir DIR      build directory (default build/release or build/debug)
      --cmake-arg ARG      extra CMake argument (repeatable)
  -j, --jobs N             parallel build jobs (default: number of cores)

Platform detection without --platform: an NVIDIA GPU (nvidia-smi) → nvidia; an AMD GPU (/dev/kfd)
or hipcc on PATH → amd; otherwise nvcc → nvidia; otherwise amd (installing hipcc with -d).
EOF
}

die() { echo "install.sh: $*" >&2; exit 1; }

opt_deps=false opt_clients=false opt_tests=false opt_install=false opt_debug=false
arch="" platform="" prefix="/usr/local" build_dir="" jobs="$(nproc 2>/dev/null || echo 2)"
cmake_args=()

parsed=$(getopt -o hdctiga:j: \
  --long help,dependencies,clients,tests,install,debug,architecture:,platform:,prefix:,build-dir:,cmake-arg:,jobs: \
  -n install.sh -- "$@") || { usage >&2; exit 2; }
eval set -- "$parsed"
while true; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -d|--dependencies) opt_deps=true; shift ;;
    -c|--clients) opt_clients=true; shift ;;
    -t|--tests) opt_tests=true; shift ;;
    -i|--install) opt_install=true; shift ;;
    -g|--debug) opt_debug=true; shift ;;
    -a|--architecture) arch="$2"; shift 2 ;;
    --platform) platform="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --cmake-arg) cmake_args+=("$2"); shift 2 ;;
    -j|--jobs) jobs="$2"; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option: $1" ;;
  esac
done
[ $# -eq 0 ] || die "unexpected argument: $1 (see ./install.sh -h)"

cd "$(dirname "$0")"
src_dir=$(pwd)

detect_platform() {
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then echo nvidia
  elif [ -e /dev/kfd ] || command -v hipcc >/dev/null 2>&1; then echo amd
  elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then echo nvidia
  else echo amd
  fi
}
[ -n "$platform" ] || platform=$(detect_platform)
case "$platform" in amd|nvidia) ;; *) die "unknown platform '$platform' (amd or nvidia)" ;; esac

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root (or sudo) for: $*"
  fi
}

install_dependencies() {
  command -v apt-get >/dev/null 2>&1 || die "-d needs apt-get (Debian/Ubuntu); install the dependencies listed in README.md by hand"
  local pkgs=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev)
  if [ "$platform" = amd ]; then
    pkgs+=(hipcc libamdhip64-dev librocprim-dev rocm-cmake)
  else
    pkgs+=(libamdhip64-dev)  # the HIP headers; nvcc comes from the CUDA toolkit
  fi
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "install.sh: dependencies already installed"
    return
  fi
  echo "install.sh: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

check_toolchain() {
  command -v cmake >/dev/null 2>&1 || die "cmake not found (run with -d, or install cmake >= 3.21)"
  if [ "$platform" = amd ]; then
    command -v hipcc >/dev/null 2>&1 || [ -x /opt/rocm/bin/hipcc ] || die "hipcc not found (run with -d, or install ROCm/DTK)"
  else
    if ! command -v nvcc >/dev/null 2>&1; then
      [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found (install the CUDA toolkit)"
      export PATH="/usr/local/cuda/bin:$PATH"
    fi
  fi
}

$opt_deps && install_dependencies
check_toolchain

build_type=Release
[ -n "$build_dir" ] || build_dir=build/release
if $opt_debug; then
  build_type=Debug
  [ "$build_dir" != build/release ] || build_dir=build/debug
fi

# A build tree configured for the other platform has other compilers: start it afresh.
cache="$build_dir/CMakeCache.txt"
if [ -f "$cache" ] && ! grep -q "^HIPFLASHSORT_PLATFORM:STRING=$platform\$" "$cache"; then
  echo "install.sh: $build_dir was configured for another platform; reconfiguring"
  rm -rf "$build_dir/CMakeCache.txt" "$build_dir/CMakeFiles"
fi

args=(-S "$src_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=$build_type -DHIPFLASHSORT_PLATFORM=$platform
      -DCMAKE_INSTALL_PREFIX="$prefix")
command -v ninja >/dev/null 2>&1 && [ ! -f "$cache" ] && args+=(-G Ninja)
if [ -n "$arch" ]; then
  if [ "$platform" = amd ]; then args+=("-DGPU_TARGETS=$arch"); else args+=("-DCMAKE_CUDA_ARCHITECTURES=$arch"); fi
fi
if $opt_tests || $opt_clients; then args+=(-DBUILD_TEST=ON); else args+=(-DBUILD_TEST=OFF); fi
if $opt_clients; then args+=(-DBUILD_BENCHMARK=ON -DBUILD_CLIENTS=ON); else args+=(-DBUILD_BENCHMARK=OFF -DBUILD_CLIENTS=OFF); fi
args+=("${cmake_args[@]}")

echo "install.sh: platform $platform, $build_type build in $build_dir"
cmake "${args[@]}"
cmake --build "$build_dir" --parallel "$jobs"

if $opt_tests; then
  (cd "$build_dir" && ctest --output-on-failure --parallel "$jobs")
fi
if $opt_install; then
  if [ -w "$(dirname "$prefix")" ] || [ -w "$prefix" ]; then
    cmake --install "$build_dir"
  else
    as_root cmake --install "$build_dir"
  fi
fi
