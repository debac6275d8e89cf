#!/bin/bash
# Faults, signals and the result file, through the real command.
#
#   faults.sh predict HOOKS [--no-ulimit]     runs everywhere (predict mode, no GPU needed)
#   faults.sh measure SMEMBENCH FAULTY        the GPU half (exits 77 where there is no GPU)
#
# HOOKS and FAULTY are the driver built with SMEM_TEST_HOOKS: SMEM_TEST_POINT_DELAY_MS and
# SMEM_TEST_WRITE_DELAY_MS slow the sweep and the write down so that a signal can be sent inside
# either, and "smembench-test: sweep|write" on stderr says when each has begun.
#
# Predict mode:
#  1. eight runs started at once with the default name: eight complete files (_2 ... _8), none hidden;
#  2. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ during the sweep: exit 128+N, the finished
#     points written, the run marked interrupted; SIGHUP, SIGINT, SIGQUIT that the parent ignores
#     (nohup, a background job): ignored, the whole file; during the write (with and without O_TMPFILE): exit
#     128+N and the whole file; a second SIGINT during the write: killed, nothing left;
#  3. a file-size limit (ulimit -f) and a closed pipe on -o -: exit 1, one line, nothing left;
#  4. out of memory (ulimit -v, from the smallest limit the program loads under up to one it runs
#     under): each run that reaches main() (the test build says so) exits 0 with a whole file or 1
#     with one line and nothing left;
#  5. -o /dev/null discards and stays a device.
# Measure mode (GPU):
#  1. a sticky error (illegal address) at point 1 of 3: exit 1, point 0 kept, point 1 recorded as
#     failed with the CUDA error, the run marked incomplete, point 2 never run;
#  2. a recoverable error (64 KiB of dynamic shared memory without the opt-in) fails only its point;
#  3. every signal above during a measured sweep and during the write of a measured file: exit
#     128+N, the finished points (or all of them) in the file, no temporary file.
# Nothing may be left in the directory but the files named: no hidden temporary file, ever.
set -u
mode=$1
shift
# absolute paths: some runs start in another directory
args=()
for a in "$@"; do
  [[ $a == -* || $a == /* ]] && args+=("$a") || args+=("$PWD/$a")
done
set -- "${args[@]}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
signals="INT TERM HUP QUIT PIPE XFSZ"
declare -A signum=([HUP]=1 [INT]=2 [QUIT]=3 [PIPE]=13 [TERM]=15 [XFSZ]=25)

# dfl CMD...: CMD with SIGINT and SIGQUIT at their default action (exec'd in place, so $! is CMD): a
# non-interactive shell starts a background job with both ignored, and the driver keeps an ignore
dfl() {
  exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# no_hidden DIR: fails when anything but the expected files is there (temporaries are hidden)
no_hidden() {
  local left
  left=$(ls -A "$1" | grep '^\.' || true)
  [ -z "$left" ] || fail "$2: left behind: $left"
}

# wait_for FILE TEXT: until the run announces a phase (at most 30 s)
wait_for() {
  for _ in $(seq 600); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "the run never printed \"$2\": $(cat "$1")"
}

# check FILE POINTS INTERRUPTED MODE: a whole result file with that many points (or "some": 1..N-1)
check() {
  python3 - "$@" <<'PY' || exit 1
import json, sys
path, want, interrupted, mode = sys.argv[1], sys.argv[2], sys.argv[3] == "true", sys.argv[4]
d = json.load(open(path))
n = len(d["results"])
assert d["run"]["mode"] == mode, d["run"]["mode"]
assert d["run"]["interrupted"] is interrupted, (path, d["run"]["interrupted"])
if want.startswith("some"):
    total = int(want[5:])
    assert 0 < n < total, f"{path}: {n} of {total} points"
else:
    assert n == int(want), f"{path}: {n} points, expected {want}"
bad = [p["status"] for p in d["results"] if p["status"] not in ("ok", "predicted", "skipped")]
assert not bad, f"a half-finished point was written: {bad}"
PY
}

# points EXE ARGS...: how many points that predict-mode run writes (the plans change; the test does not)
points() {
  local exe=$1
  shift
  "$exe" "$@" -q -o "$d/ref.json" 2>/dev/null || fail "$*: the reference run failed"
  python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['results']))" "$d/ref.json"
  rm -f "$d/ref.json"
}

predict_mode() {
  local exe=$1 ulimit_ok=${2:-}
  local run=(--predict h100 --sweep carveout -q)
  local total pid rc want out three oom
  total=$(points "$exe" "${run[@]}") || fail "the reference run of ${run[*]} failed"
  three=$(points "$exe" --predict h100 --sweep carveout,dynamic,tile) || fail "the reference run of three sweeps failed"

  # 1. eight at once, default name
  mkdir "$d/eight"
  for i in 1 2 3 4 5 6 7 8; do
    (cd "$d/eight" && exec "$exe" --predict h100 --sweep carveout,dynamic,tile -q 2>"../eight$i.err") &
  done
  wait
  [ "$(ls "$d/eight" | wc -l)" -eq 8 ] || fail "eight runs at once: $(ls -A "$d/eight"; cat "$d"/eight*.err)"
  no_hidden "$d/eight" "eight runs at once"
  for f in "$d"/eight/*.json; do
    check "$f" "$three" false predict
  done
  echo "eight runs at once: $(ls "$d/eight" | sed 's/.*tile//' | tr '\n' ' ')- eight whole files, none hidden"

  # 2. signals during the sweep
  for sig in $signals; do
    out="$d/sweep$sig.json"
    rm -f "$d/err"   # wait_for must not find the last run's words
    SMEM_TEST_POINT_DELAY_MS=60 dfl "$exe" "${run[@]}" -o "$out" 2>"$d/err" &
    pid=$!
    wait_for "$d/err" "smembench-test: sweep"
    sleep 0.2
    kill -$sig $pid
    wait $pid
    rc=$?
    want=$((128 + ${signum[$sig]}))
    [ $rc -eq $want ] || fail "SIG$sig during the sweep: exit $rc, expected $want: $(cat "$d/err")"
    grep -q "interrupted by SIG$sig after" "$d/err" || fail "SIG$sig: $(cat "$d/err")"
    check "$out" "some $total" true predict
    no_hidden "$d" "SIG$sig during the sweep"
    echo "SIG$sig during the sweep: exit $rc, $(grep -o 'after [0-9]* of [0-9]* points' "$d/err") written"
  done

  # a signal the parent ignores (nohup's SIGHUP, a background job's SIGINT and SIGQUIT) stays
  # ignored: the run carries on to the whole file; SIGTERM, not ignored, still stops it
  for sig in HUP INT QUIT; do
    out="$d/ignored$sig.json"
    rm -f "$d/err"
    (trap '' $sig; SMEM_TEST_POINT_DELAY_MS=20 exec "$exe" "${run[@]}" -o "$out" 2>"$d/err") &
    pid=$!
    wait_for "$d/err" "smembench-test: sweep"
    sleep 0.2
    kill -$sig $pid
    wait $pid
    rc=$?
    [ $rc -eq 0 ] || fail "SIG$sig ignored by the parent: exit $rc, expected 0: $(cat "$d/err")"
    grep -q "interrupted" "$d/err" && fail "SIG$sig ignored by the parent interrupted the run: $(cat "$d/err")"
    check "$out" $total false predict
    no_hidden "$d" "SIG$sig ignored"
  done
  out="$d/nohup.json"
  rm -f "$d/err"
  (trap '' HUP; SMEM_TEST_POINT_DELAY_MS=60 exec "$exe" "${run[@]}" -o "$out" 2>"$d/err") &
  pid=$!
  wait_for "$d/err" "smembench-test: sweep"
  sleep 0.2
  kill -HUP $pid
  sleep 0.1
  kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc -eq 143 ] || fail "SIGHUP ignored, then SIGTERM: exit $rc, expected 143: $(cat "$d/err")"
  check "$out" "some $total" true predict
  no_hidden "$d" "SIGHUP ignored, then SIGTERM"
  echo "SIGHUP, SIGINT, SIGQUIT that the parent ignores (nohup, &): ignored, the whole file; SIGTERM still stops it"

  # signals during the write, with an unnamed temporary file and with a named one
  for named in "" 1; do
    for sig in $signals; do
      out="$d/write$sig$named.json"
      rm -f "$d/err"   # wait_for must not find the last run's words
      SMEM_TEST_NAMED_TEMP=$named SMEM_TEST_WRITE_DELAY_MS=200 dfl "$exe" "${run[@]}" -o "$out" 2>"$d/err" &
      pid=$!
      wait_for "$d/err" "smembench-test: write"
      sleep 0.1
      kill -$sig $pid
      wait $pid
      rc=$?
      want=$((128 + ${signum[$sig]}))
      [ $rc -eq $want ] || fail "SIG$sig during the write: exit $rc, expected $want: $(cat "$d/err")"
      grep -q "SIG$sig came while the results were written; the file is complete" "$d/err" || fail "SIG$sig: $(cat "$d/err")"
      check "$out" $total false predict
      no_hidden "$d" "SIG$sig during the write"
    done
    echo "each signal during the write ($([ -n "$named" ] && echo "a named" || echo "an unnamed") temporary file): exit 128+N, the whole file"
  done

  # a second SIGINT during the write: the default action, nothing left behind
  out="$d/twice.json"
  rm -f "$d/err"   # wait_for must not find the last run's words
  SMEM_TEST_WRITE_DELAY_MS=300 dfl "$exe" "${run[@]}" -o "$out" 2>"$d/err" &
  pid=$!
  wait_for "$d/err" "smembench-test: write"
  kill -INT $pid
  sleep 0.2
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 130 ] || fail "two SIGINTs during the write: exit $rc"
  grep -q "wrote" "$d/err" && fail "two SIGINTs: the write went on: $(cat "$d/err")"
  [ -e "$out" ] && fail "two SIGINTs during the write left $out"
  no_hidden "$d" "two SIGINTs during the write"
  echo "a second SIGINT during the write: killed, nothing left"

  # 3. a file-size limit, a closed pipe
  for named in "" 1; do
    out="$d/big.json"
    (ulimit -f 8; SMEM_TEST_NAMED_TEMP=$named exec "$exe" "${run[@]}" -o "$out" 2>"$d/err")
    rc=$?
    [ $rc -eq 1 ] || fail "ulimit -f 8: exit $rc: $(cat "$d/err")"
    grep -q 'cannot write ".*big.json": File too large' "$d/err" || fail "ulimit -f: $(cat "$d/err")"
    [ -e "$out" ] && fail "ulimit -f left a partial $out"
    no_hidden "$d" "ulimit -f"
  done
  echo "a file-size limit (ulimit -f 8): exit 1, $(grep -o 'File too large.*' "$d/err"), nothing left"
  "$exe" --predict h100 --sweep carveout,dynamic,tile -q -o - 2>"$d/err" | head -c 100 >/dev/null
  rc=${PIPESTATUS[0]}
  [ $rc -eq 1 ] || fail "-o - into a closed pipe: exit $rc"
  [ "$(grep -v '^smembench-test' "$d/err")" = "smembench: cannot write the results to stdout: Broken pipe" ] ||
    fail "-o - into a closed pipe: $(cat "$d/err")"
  echo "-o - into a pipe closed early: exit 1, one line"

  # 4. out of memory: from the smallest limit the program loads under, every run says what it did
  if [ -n "$ulimit_ok" ]; then
    local kb=40000 fails=0 loads=0
    oom=$(points "$exe" --predict h100 --bench dynamic --axis dyn_smem_bytes=0:227K:128 --axis mib=1:8) ||
      fail "the reference run of the out-of-memory case failed"
    while [ $kb -lt 8000000 ]; do
      out="$d/oom.json"
      (ulimit -v $kb; SMEM_TEST_ANNOUNCE_MAIN=1 exec "$exe" --predict h100 --bench dynamic \
        --axis dyn_smem_bytes=0:227K:128 --axis mib=1:8 -q -o "$out" 2>"$d/err")
      rc=$?
      msgs=$(grep -cv '^smembench-test' "$d/err")
      if [ $rc -eq 0 ]; then
        check "$out" "$oom" false predict
        break
      elif [ $rc -eq 1 ]; then
        [ "$msgs" -eq 1 ] || fail "ulimit -v $kb: exit 1 with $msgs lines: $(cat "$d/err")"
        grep -q "out of memory" "$d/err" || fail "ulimit -v $kb: $(cat "$d/err")"
        [ -e "$out" ] && fail "ulimit -v $kb: exit 1 but $out was written"
        fails=$((fails + 1))
      elif grep -q "error while loading shared libraries\|failed to map segment\|cannot allocate memory in static TLS" "$d/err" ||
           ! grep -q "^smembench-test: main" "$d/err"; then
        # below what the dynamic loader, or a shared library's constructor (libcublasLt's crashes when
        # its allocation fails), needs: main() never began, so not smembench yet
        [ -e "$out" ] && fail "ulimit -v $kb: killed before main (exit $rc) but $out was written"
        loads=$((loads + 1))
      else
        fail "ulimit -v $kb: exit $rc: $(cat "$d/err")"
      fi
      no_hidden "$d" "ulimit -v $kb"
      kb=$((kb + 40000))
    done
    [ $rc -eq 0 ] || fail "no run succeeded under ulimit -v up to $kb KiB"
    [ $fails -gt 0 ] || fail "no limit made a run run out of memory: nothing was tested"
    echo "out of memory: $fails limits ran out (exit 1, one line, no file), whole file from $kb KiB ($loads below the loader's need)"
  else
    echo "out of memory: not tested here (a sanitizer build reserves its shadow memory up front)"
  fi

  # a valid 4090-byte path: directories of 200-byte names, then the file
  out=$d
  while [ $(( ${#out} + 202 + 20 )) -lt 4090 ]; do
    out=$out/$(printf 'd%.0s' $(seq 200))
  done
  mkdir -p "$out"
  out=$out/$(printf 'f%.0s' $(seq $((4090 - ${#out} - 1 - 5)))).json
  [ ${#out} -eq 4090 ] || fail "the long path is ${#out} bytes"
  "$exe" "${run[@]}" -o "$out" 2>"$d/err" || fail "a 4090-byte path: $(cat "$d/err")"
  check "$out" $total false predict
  rm -rf "$d/$(printf 'd%.0s' $(seq 200))"
  echo "a 4090-byte path: written"

  # 5. /dev/null: written to, still the device
  # without -q: -q is silent on success, and the line is what says where the points went
  "$exe" --predict h100 --sweep carveout -o /dev/null --force 2>"$d/err" >/dev/null ||
    fail "-o /dev/null --force: $(cat "$d/err")"
  [ -c /dev/null ] || fail "/dev/null is no longer a character device"
  grep -q "wrote $total of $total points to /dev/null" "$d/err" || fail "-o /dev/null: $(cat "$d/err")"
  echo "-o /dev/null --force: discarded, /dev/null still a device"
  rm -f "$d"/*.json "$d"/err
  no_hidden "$d" "the end"
}

measure_mode() {
  local exe=$1 faulty=$2 pid rc want out
  if [ -n "${SMEM_SANITIZER:-}" ]; then
    echo "skipped under $SMEM_SANITIZER: nothing here runs under the sanitizer"
    exit 77
  fi
  "$faulty" --bench fault --require-gpu -q -o "$d/fault.json" 2>"$d/fault.err"
  rc=$?
  [ $rc -eq 3 ] && { echo "skipped: no GPU"; exit 77; }
  [ $rc -eq 1 ] || fail "the faulting sweep exited $rc, expected 1"
  grep -q "cudaErrorIllegalAddress" "$d/fault.err" || fail "stderr does not name the error: $(cat "$d/fault.err")"
  python3 - "$d/fault.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert [p["params"]["point"] for p in r] == [0, 1], f"points written: {[p['params'] for p in r]}"
assert r[0]["status"] == "ok" and r[0]["verified"], r[0]
assert r[1]["status"] == "failed" and "cudaErrorIllegalAddress" in r[1]["reason"], r[1]["reason"]
assert "cudaErrorIllegalAddress" in (d["run"]["incomplete_reason"] or ""), d["run"]
print("sticky fault: point 0 kept, point 1 failed with", r[1]["reason"][:60])
PY

  "$exe" --bench dynamic --axis dyn_smem_bytes=16K,64K,32K --no-optin -q -o "$d/optin.json" 2>/dev/null
  rc=$?
  [ $rc -eq 1 ] || fail "the sweep with a refused launch exited $rc, expected 1"
  python3 - "$d/optin.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [p["status"] for p in r] == ["ok", "failed", "ok"], [p["status"] for p in r]
assert "cudaError" in r[1]["reason"], r[1]["reason"]
print("recoverable error: only its point failed:", r[1]["reason"][:70])
PY
  rm -f "$d"/*.json "$d"/*.err

  for sig in $signals; do
    out="$d/sig$sig.json"
    rm -f "$d/err"   # wait_for must not find the last run's words
    dfl "$faulty" --sweep bank --min-samples 300 --max-samples 300 -q -o "$out" 2>"$d/err" &
    pid=$!
    wait_for "$d/err" "smembench-test: sweep"   # the first point is done
    sleep 2
    kill -$sig $pid
    wait $pid
    rc=$?
    want=$((128 + ${signum[$sig]}))
    [ $rc -eq $want ] || fail "SIG$sig during a measured sweep: exit $rc, expected $want: $(cat "$d/err")"
    no_hidden "$d" "SIG$sig during a measured sweep"
    grep -q "interrupted by SIG$sig after [0-9]* of [0-9]* points" "$d/err" || fail "SIG$sig: $(cat "$d/err")"
    check "$out" "some $(grep -o 'after [0-9]* of [0-9]*' "$d/err" | awk '{print $4}')" true measure
    echo "SIG$sig during a measured sweep: exit $rc, $(grep -o 'after [0-9]* of [0-9]* points' "$d/err") written"
  done
  for sig in $signals; do
    out="$d/write$sig.json"
    rm -f "$d/err"   # wait_for must not find the last run's words
    SMEM_TEST_WRITE_DELAY_MS=500 dfl "$faulty" --sweep bandwidth --quick -q -o "$out" 2>"$d/err" &
    pid=$!
    wait_for "$d/err" "smembench-test: write"
    sleep 0.1
    kill -$sig $pid
    wait $pid
    rc=$?
    want=$((128 + ${signum[$sig]}))
    [ $rc -eq $want ] || fail "SIG$sig during the write of a measured file: exit $rc, expected $want: $(cat "$d/err")"
    grep -q "the file is complete" "$d/err" || fail "SIG$sig during the write: $(cat "$d/err")"
    no_hidden "$d" "SIG$sig during the write of a measured file"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['run']['mode']=='measure' and d['results'] and all(p['status']=='ok' for p in d['results']), d['run']" "$out" ||
      fail "SIG$sig during the write: not a whole measured file"
    echo "SIG$sig during the write of a measured file: exit $rc, the whole file"
  done
}

case $mode in
predict) predict_mode "$1" "$([ "${2:-}" = --no-ulimit ] || echo yes)" ;;
measure) measure_mode "$1" "$2" ;;
*) fail "usage: faults.sh predict HOOKS [--no-ulimit] | measure SMEMBENCH FAULTY" ;;
esac
echo "faults ($mode): all checks passed"
