#!/usr/bin/env bash
# tests/gpu/torch.sh: a real PyTorch training loop on the GPU recorded end to end
# (tests/gpu/torch_train.py: 2 DataLoader workers, pinned memory, a small conv net, NVTX steps),
# with CPU sampling at 1 kHz.  Checks the kernels and their launches, the NVTX steps, Python
# frames in the main thread's samples, the DataLoader workers labelled, and that info, stats and
# analyze run on the result; prints the loop's wall time with and without recording.
#
# Exit status: 0 all checks passed, 1 a check failed, 77 skipped (no GPU or no torch.cuda).
# Uses the binaries in ./build (tests/gpu/run.sh builds them; SL_GPU_PREBUILT as there).
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1
PY="${SL_GPU_PYTHON:-python3}"
STEPS="${SL_GPU_STEPS:-150}"

"$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null || {
  echo "SKIP: $PY has no torch with CUDA"
  exit 77
}
for f in build/sightline build/sightlined build/libsightline-inject.so; do
  [ -e "$f" ] || { echo "FAIL: $f missing (run tests/gpu/run.sh first)"; exit 1; }
done
WORK="$ROOT/build/gpu-torch"
rm -rf "$WORK"
mkdir -p "$WORK"
TRACE="$WORK/torch.sqlite"
"$PY" --version

echo "== the loop without recording"
"$PY" tests/gpu/torch_train.py "$STEPS" >"$WORK/plain.txt" 2>&1 || { cat "$WORK/plain.txt"; echo "FAIL: the loop itself"; exit 1; }
cat "$WORK/plain.txt"
echo "== recording (sampling at 1 kHz)"
start=$(date +%s)
timeout 300 build/sightline record -f -o "$TRACE" -s 1000 -- "$PY" tests/gpu/torch_train.py "$STEPS" \
  >"$WORK/recorded.txt" 2>&1
rc=$?
cat "$WORK/recorded.txt"
echo "record exit status $rc after $(($(date +%s) - start)) s"
[ -s "$TRACE" ] || { echo "FAIL: no trace written"; exit 1; }

q () {
  "$PY" - "$TRACE" "$1" <<'PYEOF'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
PYEOF
}
PASS=0
FAIL=0
check () {
  if [ -n "$3" ] && [ "$2" = "$3" ]; then
    echo "PASS  $1: $2"; PASS=$((PASS + 1))
  else
    echo "FAIL  $1: got '$2', want '$3'"; FAIL=$((FAIL + 1))
  fi
}
yes_if () { [ "$1" = 1 ] && echo yes || echo "no ($2)"; }
info () { echo "INFO  $1: $2"; }

check "record exits with the program's status" "$rc" 0
MAIN="(SELECT globalPid FROM PROCESSES WHERE pid = (SELECT MIN(pid) FROM PROCESSES WHERE name LIKE 'python%'))"
K=CUPTI_ACTIVITY_KIND_KERNEL
nk=$(q "SELECT COUNT(*) FROM $K")
info "kernels" "$nk"
check "at least 5 kernels per step" "$(yes_if "$(q "SELECT COUNT(*) >= 5 * $STEPS FROM $K")" "$nk")" yes
check "every kernel correlates to a launch in its process" \
  "$(q "SELECT COUNT(*) FROM $K x WHERE NOT EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r
        WHERE r.correlationId = x.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid)")" 0
check "every launch starts before its kernel" \
  "$(q "SELECT COUNT(*) FROM $K x JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = x.correlationId
        AND (r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid WHERE r.start > x.start")" 0
info "kernels by name (top 5)" "$(q "SELECT s.value || ' ×' || COUNT(*) FROM $K x JOIN StringIds s ON s.id = x.shortName
        GROUP BY s.value ORDER BY COUNT(*) DESC LIMIT 5" | tr '\n' ';')"
info "copies by kind" "$(q "SELECT copyKind || ':' || srcKind || '->' || dstKind || ' ×' || COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY
        GROUP BY copyKind, srcKind, dstKind" | tr '\n' ' ')"
NVTX_TEXT="COALESCE(n.text, (SELECT value FROM StringIds WHERE id = n.textId))"
check "NVTX step ranges, one per step" \
  "$(q "SELECT COUNT(*) FROM NVTX_EVENTS n WHERE $NVTX_TEXT LIKE 'step %' AND n.end > n.start")" "$STEPS"
check "DataLoader workers labelled" \
  "$(q "SELECT COUNT(*) FROM PROCESSES WHERE name LIKE '%DataLoader worker%'")" 2
info "processes" "$(q "SELECT pid || ' ' || name FROM PROCESSES" | tr '\n' ';')"
# the main thread's samples during the steps (from the first step's start to the last one's end)
# with a frame of torch_train.py (before them: imports and CUDA's start; after: the interpreter's
# exit, where Python frames are rightly few)
share=$(q "WITH t AS (SELECT globalTid, COUNT(*) n FROM COMPOSITE_EVENTS WHERE globalTid / 16777216 = $MAIN / 16777216
                     GROUP BY globalTid ORDER BY n DESC LIMIT 1),
             steps AS (SELECT MIN(start) a, MAX(end) b FROM NVTX_EVENTS n WHERE $NVTX_TEXT LIKE 'step %'),
             hit AS (SELECT DISTINCT c.id FROM SAMPLING_CALLCHAINS c JOIN StringIds m ON m.id = c.module
                     WHERE m.value LIKE '%torch_train.py:%')
           SELECT COUNT(*), SUM(e.id IN hit) FROM COMPOSITE_EVENTS e, steps
           WHERE e.globalTid = (SELECT globalTid FROM t) AND e.start BETWEEN steps.a AND steps.b")
info "main thread samples in the steps | with a torch_train.py frame" "$share"
check "nine in ten of the main thread's samples in the steps name torch_train.py" \
  "$(n=${share%|*}; k=${share#*|}; [ "${n:-0}" -gt 0 ] && [ $((10 * ${k:-0})) -ge $((9 * n)) ] && echo 1 || echo 0)" 1
# the lines of train_step's body (after its def)
def=$(grep -n "^def train_step" tests/gpu/torch_train.py | cut -d: -f1)
check "train_step named with its file and a line of its body" \
  "$(q "SELECT COUNT(*) > 0 FROM SAMPLING_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module
        WHERE s.value = 'train_step' AND m.value LIKE '%/tests/gpu/torch_train.py:%'
        AND CAST(substr(m.value, instr(m.value, '.py:') + 4) AS INTEGER) BETWEEN $((def + 1)) AND $((def + 5))")" 1
info "dropped or unreadable" "$(q "SELECT source || ' ' || SUM(count) FROM SIGHTLINE_DROPPED_RECORDS GROUP BY source" | tr '\n' ';')"

echo "== where the main thread's samples fall (tests/gpu/torch-diag.sql)"
"$PY" - "$TRACE" tests/gpu/torch-diag.sql <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stmt = ""
for line in open(sys.argv[2]):
    if line.startswith("--"):
        continue
    stmt += line
    if sqlite3.complete_statement(stmt):
        for row in db.execute(stmt):
            print("  " + "|".join("" if v is None else str(v) for v in row))
        stmt = ""
PYEOF

for cmd in "info" "stats --report cuda_gpu_kern_sum" "analyze"; do
  timeout 120 build/sightline $cmd "$TRACE" >"$WORK/${cmd%% *}.txt" 2>&1
  check "sightline $cmd" "$?" 0
  head -25 "$WORK/${cmd%% *}.txt"
done
awk '$1 == "SAMPLE" && $2 == "loop" { print "INFO  loop wall time (s): " FILENAME ": " $3 }' \
  "$WORK/plain.txt" "$WORK/recorded.txt"

echo
echo "$PASS passed, $FAIL failed ($TRACE)"
[ "$FAIL" -eq 0 ]
