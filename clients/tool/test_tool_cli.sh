#!/usr/bin/env bash
# Process-level tests of `hipflashsort sort`, registered with ctest by clients/CMakeLists.txt:
#   test_tool_cli.sh TOOL WORKDIR CASE
# Host cases: error paths that fail before the GPU is needed (exit code, one-line message, no
# output or temporary file left). GPU cases sort and check the result independently (od, sort,
# paste: bash and coreutils only); when the tool reports no GPU (exit 2) they print
# "no HIP device: ..." and exit 77, which ctest reports as skipped (SKIP_RETURN_CODE).
set -uo pipefail
tool=$1 case=$3 dir=$2/$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export LC_ALL=C

fail() { echo "FAIL ($case): $*"; exit 1; }

no_leftovers() {
  local left
  left=$(ls | grep -E '^out|\.tmp$')
  [ -z "$left" ] || fail "left behind: $left"
}

# expect_error CODE TEXT ARGS...: exit CODE, one line "hipflashsort: error: ...TEXT...", no output.
expect_error() {
  local code=$1 text=$2 rc
  shift 2
  "$tool" "$@" > stdout.txt 2> stderr.txt
  rc=$?
  echo "hipflashsort $* -> $rc: $(cat stderr.txt)"
  [ "$rc" = "$code" ] || fail "exit code $rc, expected $code"
  [ "$(wc -l < stderr.txt)" = 1 ] || fail "stderr is not one line"
  grep -qF -- "hipflashsort: error: " stderr.txt || fail "no 'hipflashsort: error: ' prefix"
  grep -qF -- "$text" stderr.txt || fail "message lacks '$text'"
  no_leftovers
}

# sort_ok ARGS...: the sort succeeds; no GPU → skip.
sort_ok() {
  "$tool" sort --quiet "$@" 2> stderr.txt
  local rc=$?
  if [ "$rc" = 2 ]; then echo "no HIP device: $(cat stderr.txt)"; exit 77; fi
  [ "$rc" = 0 ] || fail "hipflashsort sort $* -> $rc: $(cat stderr.txt)"
  [ ! -s stderr.txt ] || fail "unexpected stderr: $(cat stderr.txt)"
  ls | grep -q '\.tmp$' && fail "temporary files left: $(ls | grep '\.tmp$')"
}

# as_text FILE TYPE: one unsigned/signed decimal per line (TYPE: od's u4, d8, ...).
as_text() { od -An -v -t "$2" -w"${2:1}" "$1" | tr -d ' '; }

same() { cmp -s "$1" "$2" || fail "$1 and $2 differ: $(cmp "$1" "$2" 2>&1 | head -1)"; }

case $case in
  missing_file)
    expect_error 1 "cannot read nothere.bin" sort --type u32 --input nothere.bin --output out.bin
    printf '1\n' > k.txt
    expect_error 1 "cannot read nothere.txt" sort --type u8 --input k.txt --output out.txt --values nothere.txt \
      --values-out out.v --value-type u8 --format text
    expect_error 1 "cannot create" sort --type u8 --input k.txt --output no/such/dir/out.txt --format text ;;
  bad_text_number)
    printf '1\n2\n3\nx7\n5\n' > keys.txt
    printf 'old\n' > keep.txt
    expect_error 1 "keys.txt:4: 'x7' is not a u32 number" sort --type u32 --input keys.txt --output keep.txt --format text
    [ "$(cat keep.txt)" = old ] || fail "existing output changed"
    printf '10\n-300\n' > small.txt
    expect_error 1 "small.txt:2: '-300' is out of range for i8" sort --type i8 --input small.txt --output out.txt --format text
    printf 'nan\n-0\n1e40\n' > f.txt
    expect_error 1 "f.txt:3: '1e40' is out of range for f32" sort --type f32 --input f.txt --output out.txt --format text ;;
  odd_length)
    head -c 7 /dev/zero > k7.bin
    expect_error 1 "k7.bin: length 7 bytes is not a multiple of the u32 size (4 bytes)" \
      sort --type u32 --input k7.bin --output out.bin
    head -c 8 /dev/zero > k8.bin
    head -c 3 /dev/zero > v3.bin
    expect_error 1 "v3.bin: length 3 bytes is not a multiple of the u16 size (2 bytes)" \
      sort --type u64 --input k8.bin --output out.bin --values v3.bin --values-out out.v --value-type u16 ;;
  count_mismatch)
    head -c 8 /dev/zero > k.bin
    head -c 3 /dev/zero > v.bin
    expect_error 1 "k.bin has 2 keys but v.bin has 3 values" \
      sort --type u32 --input k.bin --output out.bin --values v.bin --values-out out.v --value-type u8 ;;
  usage)
    head -c 8 /dev/zero > k.bin
    expect_error 4 "unknown option '--frobnicate' for sort" sort --type u32 --input k.bin --output out.bin --frobnicate
    expect_error 4 "sort needs --output" sort --type u32 --input k.bin
    expect_error 4 "unknown type 'u128'" sort --type u128 --input k.bin --output out.bin
    expect_error 4 "bad byte count '12Q'" sort --type u32 --input k.bin --output out.bin --max-device-memory 12Q ;;
  valid_input)
    # Valid input: sorted with a GPU; without one, exit 2 and nothing written (checked in CI).
    printf '3\n1\n2\n' > k.txt
    "$tool" sort --type u16 --input k.txt --output out.txt --format text 2> stderr.txt
    rc=$?
    echo "exit $rc: $(cat stderr.txt)"
    if [ "$rc" = 2 ]; then
      grep -q "^hipflashsort: no GPU" stderr.txt || fail "no-GPU message"
      no_leftovers
    else
      [ "$rc" = 0 ] && [ "$(cat out.txt)" = "$(printf '1\n2\n3')" ] || fail "sort of 3 keys"
    fi ;;
  interrupted)
    # SIGTERM while the text input is parsed: the temporary copy is removed, nothing is written.
    seq 1 5000000 > big.txt
    "$tool" sort --type u32 --input big.txt --output out.bin --format text 2> stderr.txt &
    pid=$!
    for _ in $(seq 500); do ls | grep -q '\.tmp$' && break; sleep 0.01; done
    kill -TERM $pid
    wait $pid
    rc=$?
    echo "exit $rc: $(cat stderr.txt)"
    [ "$rc" = 143 ] || fail "expected death by SIGTERM (143)"
    no_leftovers ;;
  u32_binary)
    head -c $((4 << 20)) /dev/urandom > in.bin
    sort_ok --type u32 --input in.bin --output out.bin
    as_text in.bin u4 | sort -n > expect.txt
    as_text out.bin u4 > got.txt
    same expect.txt got.txt ;;
  f32_text)
    printf '%s\n' 3.5 0 -0 nan inf -inf -nan 1e-45 -2.5 0x1p-3 0.1 -3.4028235e38 > in.txt
    sort_ok --type f32 --input in.txt --output out.txt --format text
    printf '%s\n' -nan -inf -3.4028235e+38 -2.5 0 -0 1.4013e-45 0.1 0.125 3.5 inf nan > expect.txt
    same expect.txt out.txt ;;
  i64_pairs_desc)
    # Few distinct keys (od's d1 of random bytes) so that stability shows; extremes of i64.
    { head -c $((1 << 18)) /dev/urandom | od -An -v -t d1 -w1 | tr -d ' '
      printf '%s\n' -9223372036854775808 9223372036854775807 0 -0; } > keys.txt
    seq 0 $(($(wc -l < keys.txt) - 1)) > values.txt
    sort_ok --type i64 --input keys.txt --output out.txt --values values.txt --values-out out.v --value-type u32 \
      --desc --format text
    paste keys.txt values.txt | sed 's/^-0\t/0\t/' | sort -s -t$'\t' -k1,1nr > expect.txt
    paste out.txt out.v > got.txt
    same expect.txt got.txt ;;
  out_of_core_u64)
    # 2^22 u64 keys (32 MiB) through an 8 MiB device budget: at least 4 chunks (9 with the
    # library's temporary storage), merged from run files.
    head -c $((8 << 22)) /dev/urandom > in.bin
    sort_ok --type u64 --input in.bin --output out.bin --max-device-memory 8M
    as_text in.bin u8 | sort -n > expect.txt
    as_text out.bin u8 > got.txt
    same expect.txt got.txt ;;
  out_of_core_pairs_stable)
    # 2^21 u16 keys with their line numbers as u32 values, text, descending, 2 MiB budget: about
    # a dozen runs, merged in windows of chunk / runs elements. Random bytes: 100-255 stay (some
    # 650 of each per run, so windows end inside groups of equal keys), below 100 fold into 0 and 5
    # (some 30000 of each per run: whole windows of one key, held back while an earlier run still
    # has it). The merge must keep equal keys in input order.
    head -c $((1 << 21)) /dev/urandom | od -An -v -t u1 -w1 | tr -d ' ' |
      sed -E 's/^[0-9]?[0-4]$/0/; s/^[0-9]?[5-9]$/5/' > keys.txt
    seq 0 $(((1 << 21) - 1)) > values.txt
    sort_ok --type u16 --input keys.txt --output out.txt --values values.txt --values-out out.v --value-type u32 \
      --format text --desc --max-device-memory 2MiB
    paste keys.txt values.txt | sort -s -t$'\t' -k1,1nr > expect.txt
    paste out.txt out.v > got.txt
    same expect.txt got.txt ;;
  tiny_budget)
    head -c 4096 /dev/urandom > in.bin
    "$tool" sort --type u64 --input in.bin --output out.bin --max-device-memory 1K 2> stderr.txt
    rc=$?
    if [ "$rc" = 2 ]; then echo "no HIP device: $(cat stderr.txt)"; exit 77; fi
    echo "exit $rc: $(cat stderr.txt)"
    [ "$rc" = 3 ] && grep -q "budget of 1024 bytes" stderr.txt || fail "expected exit 3 with the budget"
    no_leftovers ;;
  *) fail "unknown case" ;;
esac
echo "PASS ($case)"
