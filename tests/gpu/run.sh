#!/usr/bin/env bash
# tests/gpu/run.sh: the collector end to end on a machine with a GPU.  Builds tests/gpu/sample.cu
# with nvcc, records it with `build/sightline record`, and checks the trace with SQL: kernels
# (count, names as nsys spells them, launch configuration, registers, streams, correlation to
# their launches, one clock for CPU and GPU), copies (bytes, kinds, memory kinds), the memset,
# synchronization, TARGET_INFO_GPU, streams and contexts, NVTX ranges, dropped records; then the
# sample again with --cudabacktrace sync:0 (a backtrace for every synchronizing call, main in
# it).  Then tests/gpu/graphs.cu (a graph captured from a stream and launched 5 times, events across two
# streams) is recorded with --cuda-graph-trace graph (the default) and node, and the graph,
# CUDA event and synchronization tables are checked.  Then tests/gpu/memory.cu (cudaMalloc /
# cudaFree, managed memory touched by the host and a kernel, prefetched) is recorded with
# --cuda-memory-usage --cuda-um-cpu-page-faults --cuda-um-gpu-page-faults: allocations and frees
# (kinds, addresses, sizes, the calls that made them), migrations (copyKind 11/12, cause, address)
# and page faults; where CUPTI refuses the unified-memory counters, that it said so.  Then
# tests/gpu/metrics.cu (a kernel keeping every SM busy for ~300 ms on each GPU) is recorded with
# --gpu-metrics: GPU_METRICS rows for every GPU, named in TARGET_INFO_GPU_METRICS by nsys's names,
# SMs Active above 0 while the kernel runs, ~10 kHz; where the driver refuses PM sampling
# (counters for admin users only: NVreg_RestrictProfilingToAdminUsers), that it said so, once,
# and those checks are skipped.
#
# Exit status: 0 all checks passed, 1 a check failed, 77 skipped (no GPU, driver or nvcc here).
# Run from anywhere; uses ./build of the repository (configured and built here if needed;
# SL_GPU_PREBUILT=1 uses the binaries already in build/ as they are).
# Takes ~1 minute after the build (the build itself: a few minutes on 16 cores).
#
# SL_GPU_TRACE=FILE [SL_GPU_PLAIN=FILE] runs only the checks, on a recording made before (FILE's
# directory holds plain.txt, the sample's own output, unless SL_GPU_PLAIN says where).
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1

skip () {
  echo "SKIP: $*"
  exit 77
}

if [ -n "${SL_GPU_TRACE:-}" ]; then
  TRACE="$SL_GPU_TRACE"
  PLAIN="${SL_GPU_PLAIN:-$(dirname "$TRACE")/plain.txt}"
  rc=0
  [ -s "$TRACE" ] || { echo "FAIL: $TRACE: no such trace"; exit 1; }
elif [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  skip "no NVIDIA GPU here (/dev/nvidia0 or nvidia-smi -L)"
fi

# ---- build, compile, record (not when re-checking a trace) -----------------------------------
if [ -z "${SL_GPU_TRACE:-}" ]; then
nvidia-smi -L

NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[ -x "$NVCC" ] || skip "nvcc not found (set NVCC or install the CUDA toolkit)"

if [ -n "${SL_GPU_PREBUILT:-}" ]; then
  # binaries built on another machine and copied into build/ (a GPU machine without GTK's
  # development files); the libraries they need come through LD_LIBRARY_PATH
  echo "== using the Sightline binaries already in build/ (SL_GPU_PREBUILT)"
else
echo "== building Sightline (build/)"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
cmake --build build -j"$(nproc)" --target sightline sightlined sightline-inject >build/gpu-build.log 2>&1 || {
  tail -40 build/gpu-build.log
  echo "FAIL: build"
  exit 1
}
fi
for f in build/sightline build/sightlined build/libsightline-inject.so; do
  [ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
if ! grep -aq InitializeInjection build/libsightline-inject.so; then
  echo "FAIL: libsightline-inject.so has no InitializeInjection: CMake did not find CUDA/CUPTI"
  exit 1
fi

WORK="$ROOT/build/gpu-test"
rm -rf "$WORK"
mkdir -p "$WORK"
TRACE="$WORK/sample.sqlite"
PLAIN="$WORK/plain.txt"

echo "== compiling tests/gpu/sample.cu with $NVCC"
if ! "$NVCC" -O2 -lineinfo -arch=native -Xptxas -v -o "$WORK/sample" tests/gpu/sample.cu -ldl \
     >"$WORK/nvcc.log" 2>&1; then
  # nvcc older than 11.5 has no -arch=native
  "$NVCC" -O2 -lineinfo -Xptxas -v -o "$WORK/sample" tests/gpu/sample.cu -ldl >"$WORK/nvcc.log" 2>&1 || {
    cat "$WORK/nvcc.log"
    echo "FAIL: nvcc"
    exit 1
  }
fi
grep -E "Compiling entry|Used [0-9]+ registers" "$WORK/nvcc.log" | sed 's/^/  ptxas: /'

echo "== running the sample without recording"
"$WORK/sample" >"$PLAIN" 2>&1 || { cat "$PLAIN"; echo "FAIL: the sample itself"; exit 1; }
cat "$PLAIN"

echo "== recording"
start=$(date +%s)
timeout 300 build/sightline record -f -o "$TRACE" -s none -- "$WORK/sample" >"$WORK/recorded.txt" 2>&1
rc=$?
cat "$WORK/recorded.txt"
echo "record exit status $rc after $(($(date +%s) - start)) s"
[ -s "$TRACE" ] || { echo "FAIL: no trace written"; exit 1; }
fi

# "SAMPLE key value..." lines of the unrecorded run
val () {
  awk -v k="$1" '$1 == "SAMPLE" && $2 == k { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$PLAIN"
}

# ---- checks ----------------------------------------------------------------------------------
if command -v sqlite3 >/dev/null 2>&1; then
  q () { sqlite3 -batch -noheader "$TRACE" "$1"; }
else
  q () {
    python3 - "$TRACE" "$1" <<'EOF'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
EOF
  }
fi

PASS=0
FAIL=0
check () {
  # check NAME GOT WANT; an empty WANT (the sample did not say) is a failure too
  if [ -n "$3" ] && [ "$2" = "$3" ]; then
    echo "PASS  $1: $2"
    PASS=$((PASS + 1))
  else
    echo "FAIL  $1: got '$2', want '$3'"
    FAIL=$((FAIL + 1))
  fi
}
info () {
  echo "INFO  $1: $2"
}

check "record exits with the program's status" "$rc" 0

K="CUPTI_ACTIVITY_KIND_KERNEL"
R="CUPTI_ACTIVITY_KIND_RUNTIME"
M="CUPTI_ACTIVITY_KIND_MEMCPY"
SCALE="(SELECT id FROM StringIds WHERE value = 'scale_kernel')"
SUM="(SELECT id FROM StringIds WHERE value = 'shared_sum_kernel')"
# the runtime call (eventClass 0) of GPU work x, in x's process
SAME_PROCESS="(r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid AND r.eventClass = 0"

echo "-- kernels"
check "kernels in the trace" "$(q "SELECT COUNT(*) FROM $K")" 20
check "scale_kernel launches" "$(q "SELECT COUNT(*) FROM $K WHERE shortName = $SCALE")" 10
check "shared_sum_kernel launches" "$(q "SELECT COUNT(*) FROM $K WHERE shortName = $SUM")" 10
check "scale_kernel mangledName" \
  "$(q "SELECT DISTINCT s.value FROM $K k JOIN StringIds s ON s.id = k.mangledName WHERE k.shortName = $SCALE")" \
  "_Z12scale_kernelPffi"
check "scale_kernel demangledName (nsys's spelling)" \
  "$(q "SELECT DISTINCT s.value FROM $K k JOIN StringIds s ON s.id = k.demangledName WHERE k.shortName = $SCALE")" \
  "scale_kernel(float *, float, int)"
check "shared_sum_kernel mangledName" \
  "$(q "SELECT DISTINCT s.value FROM $K k JOIN StringIds s ON s.id = k.mangledName WHERE k.shortName = $SUM")" \
  "_Z17shared_sum_kernelILi4EEvPKfPfi"
check "shared_sum_kernel demangledName (nsys's spelling)" \
  "$(q "SELECT DISTINCT s.value FROM $K k JOIN StringIds s ON s.id = k.demangledName WHERE k.shortName = $SUM")" \
  "void shared_sum_kernel<(int)4>(const float *, float *, int)"
check "scale_kernel grid|block|dynamic shared" \
  "$(q "SELECT DISTINCT gridX||','||gridY||','||gridZ||'|'||blockX||','||blockY||','||blockZ||'|'||dynamicSharedMemory FROM $K WHERE shortName = $SCALE")" \
  "64,1,1|256,1,1|0"
check "shared_sum_kernel grid|block|dynamic shared" \
  "$(q "SELECT DISTINCT gridX||','||gridY||','||gridZ||'|'||blockX||','||blockY||','||blockZ||'|'||dynamicSharedMemory FROM $K WHERE shortName = $SUM")" \
  "13,1,1|96,1,1|4096"
# CUPTI gives the registers the driver allocates per thread: the compiler's count
# (cudaFuncGetAttributes) raised to the driver's minimum (16 on an H200: scale_kernel's 8 ran
# with 16), what nsys shows too and what occupancy is computed from
regs_want () {
  local n="$1"
  [ -n "$n" ] || return
  [ "$n" -lt 16 ] && n=16
  echo "$n"
}
check "scale_kernel registersPerThread (cudaFuncGetAttributes, at least 16)" \
  "$(q "SELECT DISTINCT registersPerThread FROM $K WHERE shortName = $SCALE")" "$(regs_want "$(val scale_regs)")"
check "shared_sum_kernel registersPerThread (cudaFuncGetAttributes, at least 16)" \
  "$(q "SELECT DISTINCT registersPerThread FROM $K WHERE shortName = $SUM")" "$(regs_want "$(val sum_regs)")"
check "scale_kernel staticSharedMemory" \
  "$(q "SELECT DISTINCT staticSharedMemory FROM $K WHERE shortName = $SCALE")" "$(val scale_static)"
check "shared_sum_kernel staticSharedMemory" \
  "$(q "SELECT DISTINCT staticSharedMemory FROM $K WHERE shortName = $SUM")" "$(val sum_static)"
check "launchType Regular, cacheConfig in 1..4" \
  "$(q "SELECT COUNT(*) FROM $K WHERE launchType = 1 AND cacheConfig BETWEEN 1 AND 4")" 20
check "kernels end after they start" "$(q "SELECT COUNT(*) FROM $K WHERE start > 0 AND end >= start")" 20
check "each kernel on one stream, the two on two streams" \
  "$(q "SELECT COUNT(DISTINCT streamId) FROM $K WHERE shortName = $SCALE")|$(q "SELECT COUNT(DISTINCT streamId) FROM $K WHERE shortName = $SUM")|$(q "SELECT COUNT(DISTINCT streamId) FROM $K")" \
  "1|1|2"
check "kernels not on the null stream" \
  "$(q "SELECT COUNT(*) FROM $K k JOIN TARGET_INFO_CUDA_CONTEXT_INFO c ON c.contextId = k.contextId WHERE k.streamId = c.nullStreamId")" 0
check "each kernel correlates to one cudaLaunchKernel_v7000 of its process" \
  "$(q "SELECT COUNT(*) FROM $K x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS JOIN StringIds n ON n.id = r.nameId WHERE n.value = 'cudaLaunchKernel_v7000' AND r.eventClass = 0")" 20
check "one clock: every launch starts before its kernel, and less than 10 s before" \
  "$(q "SELECT COUNT(*) FROM $K x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS WHERE r.start <= x.start AND x.start - r.start < 10000000000")" 20
info "launch-to-kernel latency, median-ish (ns)" \
  "$(q "SELECT x.start - r.start FROM $K x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS ORDER BY 1 LIMIT 1 OFFSET 10")"

echo "-- copies and set"
copies () {
  # copyKind srcKind dstKind -> "count|bytes"
  q "SELECT COUNT(*)||'|'||IFNULL(SUM(bytes), 0) FROM $M WHERE copyKind = $1 AND srcKind = $2 AND dstKind = $3"
}
check "HtoD pageable (1 MiB)" "$(copies 1 0 2)" "1|1048576"
check "HtoD pinned (2 MiB)" "$(copies 1 1 2)" "1|2097152"
check "DtoH pageable (1 MiB)" "$(copies 2 2 0)" "1|1048576"
check "DtoH pinned (2 MiB)" "$(copies 2 2 1)" "1|2097152"
check "no other copies" "$(q "SELECT COUNT(*) FROM $M")" 4
check "copies correlate to cudaMemcpy_v3020 / cudaMemcpyAsync_v3020" \
  "$(q "SELECT GROUP_CONCAT(v, ',') FROM (SELECT n.value || ':' || x.copyKind || ':' || x.srcKind AS v FROM $M x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS JOIN StringIds n ON n.id = r.nameId ORDER BY x.start)")" \
  "cudaMemcpy_v3020:1:0,cudaMemcpyAsync_v3020:1:1,cudaMemcpy_v3020:2:2,cudaMemcpyAsync_v3020:2:2"
check "copies on the GPU of device 0, ordered in time" \
  "$(q "SELECT COUNT(*) FROM $M WHERE deviceId = 0 AND srcDeviceId = 0 AND dstDeviceId = 0 AND end >= start AND start > 0")" 4
check "memset (64 KiB of 0 on the device)" \
  "$(q "SELECT COUNT(*)||'|'||bytes||'|'||value||'|'||memKind FROM CUPTI_ACTIVITY_KIND_MEMSET")" "1|65536|0|2"
check "memset correlates to cudaMemsetAsync_v3020" \
  "$(q "SELECT n.value FROM CUPTI_ACTIVITY_KIND_MEMSET x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS JOIN StringIds n ON n.id = r.nameId")" \
  "cudaMemsetAsync_v3020"

echo "-- synchronization"
S="CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
check "stream syncs (type 3) correlate to cudaStreamSynchronize_v3020" \
  "$(q "SELECT COUNT(*) FROM $S x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS JOIN StringIds n ON n.id = r.nameId WHERE x.syncType = 3 AND n.value = 'cudaStreamSynchronize_v3020' AND x.streamId <> 4294967295")" 3
check "context syncs (type 4) from cudaDeviceSynchronize_v3020, no stream, no event" \
  "$(q "SELECT COUNT(*) FROM $S x JOIN $R r ON r.correlationId = x.correlationId AND $SAME_PROCESS JOIN StringIds n ON n.id = r.nameId WHERE x.syncType = 4 AND n.value = 'cudaDeviceSynchronize_v3020' AND x.streamId = 4294967295 AND x.eventId = 4294967295")" 1

echo "-- API calls"
check "runtime calls on one thread, the main one (tid = pid)" \
  "$(q "SELECT COUNT(DISTINCT globalTid) || '|' || (SUM(((globalTid >> 24) & 16777215) = (globalTid & 16777215)) = COUNT(*)) FROM $R WHERE eventClass = 0")" "1|1"
check "runtime API names carry nsys's _vNNNN suffix" \
  "$(q "SELECT COUNT(*) FROM $R r JOIN StringIds n ON n.id = r.nameId WHERE r.eventClass = 0 AND n.value NOT GLOB '*_v[0-9]*'")" 0
info "driver API rows (eventClass 1)" "$(q "SELECT COUNT(*) FROM $R WHERE eventClass = 1")"
info "driver rows sharing a correlationId with a runtime call (nested in it)" \
  "$(q "SELECT COUNT(*) FROM $R d JOIN $R r ON r.correlationId = d.correlationId AND r.globalTid = d.globalTid WHERE d.eventClass = 1 AND r.eventClass = 0")"
info "runtime API calls by name" "$(q "SELECT GROUP_CONCAT(v, ' ') FROM (SELECT n.value || '×' || COUNT(*) AS v FROM $R r JOIN StringIds n ON n.id = r.nameId WHERE r.eventClass = 0 GROUP BY n.value)")"

echo "-- GPU, context, streams"
G="TARGET_INFO_GPU"
check "TARGET_INFO_GPU has the device" "$(q "SELECT COUNT(*) FROM $G WHERE id = 0")" 1
check "smCount (cudaDeviceProp)" "$(q "SELECT smCount FROM $G WHERE id = 0")" "$(val sm_count)"
check "compute capability" "$(q "SELECT computeMajor || '.' || computeMinor FROM $G WHERE id = 0")" "$(val cc)"
check "name" "$(q "SELECT name FROM $G WHERE id = 0")" "$(val name)"
check "maxShmemPerSm" "$(q "SELECT maxShmemPerSm FROM $G WHERE id = 0")" "$(val shmem_per_sm)"
check "maxShmemPerBlockOptin (derived from CUPTI's record)" \
  "$(q "SELECT maxShmemPerBlockOptin FROM $G WHERE id = 0")" "$(val optin)"
check "busLocation (from /proc/driver/nvidia/gpus)" "$(q "SELECT busLocation FROM $G WHERE id = 0")" "$(val bus)"
check "clockRate, memoryBandwidth, totalMemory, l2CacheSize > 0" \
  "$(q "SELECT clockRate > 0 AND memoryBandwidth > 0 AND totalMemory > 0 AND l2CacheSize > 0 AND smCount > 0 FROM $G WHERE id = 0")" 1
info "GPU" "$(q "SELECT name || ', ' || smCount || ' SMs, ' || clockRate || ' Hz, ' || memoryBandwidth || ' B/s, ' || uuid FROM $G WHERE id = 0")"
check "the kernels' context is on device 0" \
  "$(q "SELECT COUNT(*) FROM TARGET_INFO_CUDA_CONTEXT_INFO c WHERE c.deviceId = 0 AND c.contextId IN (SELECT contextId FROM $K)")" 1
check "stream types: scale_kernel's non-blocking (2), shared_sum_kernel's default (1)" \
  "$(q "SELECT (SELECT flag FROM TARGET_INFO_CUDA_STREAM WHERE streamId = (SELECT streamId FROM $K WHERE shortName = $SCALE LIMIT 1)) || '|' || (SELECT flag FROM TARGET_INFO_CUDA_STREAM WHERE streamId = (SELECT streamId FROM $K WHERE shortName = $SUM LIMIT 1))")" \
  "2|1"

echo "-- NVTX"
N="NVTX_EVENTS"
TEXT="COALESCE((SELECT value FROM StringIds WHERE id = e.textId), e.text)"
check "push/pop ranges: setup, iteration x10, download" \
  "$(q "SELECT GROUP_CONCAT(t || 'x' || c, ' ') FROM (SELECT $TEXT AS t, COUNT(*) AS c FROM $N e WHERE eventType = 59 GROUP BY 1 ORDER BY MIN(start))")" \
  "setupx1 iterationx10 downloadx1"
check "NVTX ranges closed, on the main thread" \
  "$(q "SELECT COUNT(*) FROM $N e WHERE eventType = 59 AND end >= start AND globalTid = (SELECT DISTINCT globalTid FROM $R WHERE eventClass = 0)")" 12
check "every iteration range holds its two launches" \
  "$(q "SELECT COUNT(*) FROM $N e JOIN $R r ON r.globalTid = e.globalTid AND r.start >= e.start AND r.end <= e.end JOIN StringIds n ON n.id = r.nameId WHERE e.eventType = 59 AND $TEXT = 'iteration' AND n.value = 'cudaLaunchKernel_v7000'")" 20

echo "-- losses"
check "no records dropped" \
  "$(q "SELECT IFNULL(SUM(count), 0) FROM SIGHTLINE_DROPPED_RECORDS")" 0

# ---- CUDA backtraces (not when re-checking a trace) -------------------------------------------
if [ -z "${SL_GPU_TRACE:-}" ]; then
echo "-- CUDA backtraces (--cudabacktrace sync:0: every synchronizing call)"
BTRACE="$WORK/sample-bt.sqlite"
timeout 300 build/sightline record -f -o "$BTRACE" -s none --cudabacktrace sync:0 -- \
  "$WORK/sample" >"$WORK/recorded-bt.txt" 2>&1
check "record --cudabacktrace sync:0 exits 0" "$?" 0
bq () { TRACE="$BTRACE" q "$1"; }
SYNC_CALLS="SELECT COUNT(*) FROM $R r JOIN StringIds n ON n.id = r.nameId WHERE n.value GLOB 'cuda*Synchronize*'"
check "CUDA_CALLCHAINS written" \
  "$(bq "SELECT COUNT(*) > 0 FROM sqlite_master WHERE name = 'CUDA_CALLCHAINS'")" 1
check "every cuda*Synchronize call has a backtrace" \
  "$(bq "$SYNC_CALLS AND r.callchainId IS NOT NULL")" "$(bq "$SYNC_CALLS")"
check "every callchainId names a chain" \
  "$(bq "SELECT COUNT(*) FROM $R r WHERE r.callchainId IS NOT NULL AND NOT EXISTS (SELECT 1 FROM CUDA_CALLCHAINS c WHERE c.id = r.callchainId)")" 0
check "the sample's main is in the backtraces" \
  "$(bq "SELECT COUNT(DISTINCT c.id) > 0 FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol WHERE s.value = 'main'")" 1
info "samples --source cuda-api" \
  "$(build/sightline samples "$BTRACE" --source cuda-api --format top 2>&1 | head -6 | tr '\n' ' ')"
fi

# ---- graphs and CUDA events (not when re-checking a trace) -----------------------------------
if [ -z "${SL_GPU_TRACE:-}" ]; then
echo "-- graphs and CUDA events (tests/gpu/graphs.cu)"
GRAPHS_OK=1
if ! "$NVCC" -O2 -arch=native -o "$WORK/graphs" tests/gpu/graphs.cu >"$WORK/nvcc-graphs.log" 2>&1 \
   && ! "$NVCC" -O2 -o "$WORK/graphs" tests/gpu/graphs.cu >"$WORK/nvcc-graphs.log" 2>&1; then
  cat "$WORK/nvcc-graphs.log"
  check "nvcc tests/gpu/graphs.cu" "failed" "built"
  GRAPHS_OK=0
fi
GPLAIN="$WORK/graphs-plain.txt"
if [ "$GRAPHS_OK" = 1 ] && ! "$WORK/graphs" >"$GPLAIN" 2>&1; then
  cat "$GPLAIN"
  check "graphs.cu runs by itself" "failed" "0"
  GRAPHS_OK=0
fi
gval () {
  awk -v k="$1" '$1 == "GRAPHS" && $2 == k { print $3; exit }' "$GPLAIN"
}
if [ "$GRAPHS_OK" = 1 ]; then
  cat "$GPLAIN"
  LAUNCHES="$(gval launches)"
  NODES="$(gval nodes)"
  NODE_KERNELS=$((LAUNCHES * NODES))
  GT="CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
  CE="CUPTI_ACTIVITY_KIND_CUDA_EVENT"
  S="CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
  # a launch's call: the runtime's cudaGraphLaunch or the driver's cuGraphLaunch (CUPTI gives a
  # graph the driver call's correlation id)
  LAUNCH_CALL="JOIN $R r ON r.correlationId = x.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid JOIN StringIds n ON n.id = r.nameId WHERE (n.value GLOB 'cudaGraphLaunch*' OR n.value GLOB 'cuGraphLaunch*')"
  for mode in graph node; do
    GTRACE="$WORK/graphs-$mode.sqlite"
    timeout 300 build/sightline record -f -o "$GTRACE" -s none --cuda-graph-trace "$mode" -- \
      "$WORK/graphs" >"$WORK/graphs-$mode.txt" 2>&1
    grc=$?
    cat "$WORK/graphs-$mode.txt"
    check "record graphs.cu (--cuda-graph-trace $mode) exits 0" "$grc" 0
    gq () { TRACE="$GTRACE" q "$1"; }
    check "[$mode] META_DATA_CAPTURE names the mode as nsys" \
      "$(gq "SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE'")" \
      "$([ "$mode" = graph ] && echo Graph || echo Node)"
    if [ "$mode" = graph ]; then
      check "[graph] one GRAPH_TRACE row a launch" "$(gq "SELECT COUNT(*) FROM $GT")" "$LAUNCHES"
      check "[graph] every row has its times, one graph, one exec (graphExecId from the callback)" \
        "$(gq "SELECT COUNT(*) || '|' || COUNT(DISTINCT graphId) || '|' || COUNT(DISTINCT graphExecId) || '|' || MIN(graphExecId > 0) FROM $GT WHERE start > 0 AND end >= start")" \
        "$LAUNCHES|1|1|1"
      check "[graph] each graph row correlates to its launch call" \
        "$(gq "SELECT COUNT(DISTINCT x.rowid) FROM $GT x $LAUNCH_CALL")" "$LAUNCHES"
      check "[graph] no kernel row of a graph node (the launch is one row)" \
        "$(gq "SELECT COUNT(*) FROM $K WHERE graphId IS NOT NULL OR graphNodeId IS NOT NULL")" 0
      check "[graph] only consume_kernel as a kernel row" \
        "$(gq "SELECT GROUP_CONCAT(DISTINCT s.value) FROM $K k JOIN StringIds s ON s.id = k.shortName")" \
        "consume_kernel"
      check "[graph] the launches run one after another on one stream" \
        "$(gq "SELECT COUNT(DISTINCT streamId) || '|' || (SELECT COUNT(*) FROM $GT a JOIN $GT b ON a.rowid < b.rowid AND a.start < b.end AND b.start < a.end) FROM $GT")" \
        "1|0"
    else
      check "[node] no GRAPH_TRACE rows" \
        "$(gq "SELECT COUNT(*) FROM sqlite_master WHERE name = '$GT'")" 0
      check "[node] a kernel row for each node of each launch, with the graph's and node's ids" \
        "$(gq "SELECT COUNT(*) || '|' || COUNT(DISTINCT graphId) || '|' || COUNT(DISTINCT graphNodeId) FROM $K WHERE graphId IS NOT NULL AND graphNodeId IS NOT NULL")" \
        "$NODE_KERNELS|1|$NODES"
      check "[node] each node's kernel correlates to its graph's launch call" \
        "$(gq "SELECT COUNT(DISTINCT x.rowid) FROM $K x $LAUNCH_CALL")" "$NODE_KERNELS"
      check "[node] step_kernel twice and reduce_kernel once per launch" \
        "$(gq "SELECT GROUP_CONCAT(v, ' ') FROM (SELECT s.value || 'x' || COUNT(*) AS v FROM $K k JOIN StringIds s ON s.id = k.shortName WHERE k.graphId IS NOT NULL GROUP BY s.value ORDER BY s.value)")" \
        "reduce_kernelx$LAUNCHES step_kernelx$((2 * LAUNCHES))"
    fi
    # CUDA events and the synchronizations that name them, in both modes
    check "[$mode] a CUDA_EVENT row a cudaEventRecord, tied to the call" \
      "$(gq "SELECT COUNT(*) FROM $CE x JOIN $R r ON r.correlationId = x.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid JOIN StringIds n ON n.id = r.nameId WHERE n.value GLOB 'cudaEventRecord*'")" \
      "$(gval event_records)"
    check "[$mode] CUDA_EVENT columns as nsys 2025.5 writes them" \
      "$(gq "SELECT GROUP_CONCAT(name, ',') FROM (SELECT name FROM pragma_table_info('$CE') ORDER BY cid)")" \
      "timestamp,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,eventId,eventSyncId"
    check "[$mode] the event records are on two streams, two events" \
      "$(gq "SELECT COUNT(DISTINCT streamId) || '|' || COUNT(DISTINCT eventId) FROM $CE")" "2|2"
    check "[$mode] cudaEventSynchronize (type 1) waits for the second event's record" \
      "$(gq "SELECT COUNT(*) FROM $S s JOIN $CE e ON e.eventId = s.eventId AND e.eventSyncId = s.eventSyncId WHERE s.syncType = 1 AND s.streamId = 4294967295")" 1
    check "[$mode] cudaStreamWaitEvent (type 2): s2 waits for the first event's record on s1" \
      "$(gq "SELECT COUNT(*) FROM $S s JOIN $CE e ON e.eventId = s.eventId AND e.eventSyncId = s.eventSyncId WHERE s.syncType = 2 AND s.streamId <> e.streamId")" 1
    if [ "$mode" = graph ]; then GRAPH_WORK="SELECT end FROM $GT"; else GRAPH_WORK="SELECT end FROM $K WHERE graphId IS NOT NULL"; fi
    check "[$mode] consume_kernel starts after the graphs it waited for end" \
      "$(gq "SELECT (SELECT MIN(start) FROM $K k JOIN StringIds s ON s.id = k.shortName WHERE s.value = 'consume_kernel') >= (SELECT MAX(end) FROM ($GRAPH_WORK))")" 1
    check "[$mode] Sightline reads it (sightline info)" \
      "$(build/sightline info "$GTRACE" >/dev/null 2>&1; echo $?)" 0
  done
fi
fi

# ---- GPU memory and unified memory (not when re-checking a trace) ----------------------------
if [ -z "${SL_GPU_TRACE:-}" ]; then
echo "-- GPU memory and unified memory (tests/gpu/memory.cu, --cuda-memory-usage, --cuda-um-*)"
check "without --cuda-memory-usage / --cuda-um-*: none of their tables" \
  "$(q "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('CUDA_GPU_MEMORY_USAGE_EVENTS', 'CUDA_UM_CPU_PAGE_FAULT_EVENTS', 'CUDA_UM_GPU_PAGE_FAULT_EVENTS')")|$(q "SELECT COUNT(*) FROM $M WHERE copyKind IN (11, 12)")" \
  "0|0"
MEM_OK=1
if ! "$NVCC" -O2 -arch=native -o "$WORK/memory" tests/gpu/memory.cu >"$WORK/nvcc-memory.log" 2>&1 \
   && ! "$NVCC" -O2 -o "$WORK/memory" tests/gpu/memory.cu >"$WORK/nvcc-memory.log" 2>&1; then
  cat "$WORK/nvcc-memory.log"
  check "nvcc tests/gpu/memory.cu" "failed" "built"
  MEM_OK=0
fi
MPLAIN="$WORK/memory-plain.txt"
if [ "$MEM_OK" = 1 ] && ! "$WORK/memory" >"$MPLAIN" 2>&1; then
  cat "$MPLAIN"
  check "memory.cu runs by itself" "failed" "0"
  MEM_OK=0
fi
if [ "$MEM_OK" = 1 ]; then
  MTRACE="$WORK/memory.sqlite"
  timeout 300 build/sightline record -f -o "$MTRACE" -s none --cuda-memory-usage \
    --cuda-um-cpu-page-faults=true --cuda-um-gpu-page-faults true -- "$WORK/memory" \
    >"$WORK/memory-recorded.txt" 2>&1
  mrc=$?
  cat "$WORK/memory-recorded.txt"
  check "record memory.cu with the memory options exits 0" "$mrc" 0
  mq () { TRACE="$MTRACE" q "$1"; }
  # the recorded run's own addresses (they differ from run to run)
  mval () {
    awk -v k="$1" '$1 == "MEMORY" && $2 == k { print $3; exit }' "$WORK/memory-recorded.txt"
  }
  U="CUDA_GPU_MEMORY_USAGE_EVENTS"
  A="$(mval a)" B="$(mval b)" MM="$(mval m)" MBYTES="$(mval m_bytes)"
  # a row's call: same correlationId, same process, and the row inside the call
  MEM_CALL="JOIN $R r ON r.correlationId = x.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = x.globalPid AND x.start BETWEEN r.start AND r.end JOIN StringIds n ON n.id = r.nameId"
  check "allocations of a, b (Device) and m (Managed): address|bytes|memKind" \
    "$(mq "SELECT GROUP_CONCAT(address || '|' || bytes || '|' || memKind, ',') FROM (SELECT * FROM $U WHERE memoryOperationType = 0 AND address IN ($A, $B, $MM) ORDER BY start)")" \
    "$A|$(mval a_bytes)|2,$B|$(mval b_bytes)|2,$MM|$MBYTES|4"
  check "one free each of a, m, b, in that order" \
    "$(mq "SELECT GROUP_CONCAT(address, ',') FROM (SELECT * FROM $U WHERE memoryOperationType = 1 AND address IN ($A, $B, $MM) ORDER BY start)")" \
    "$A,$MM,$B"
  check "every free after an allocation at its address, of its size" \
    "$(mq "SELECT COUNT(*) FROM $U f WHERE f.memoryOperationType = 1 AND NOT EXISTS (SELECT 1 FROM $U a WHERE a.memoryOperationType = 0 AND a.address = f.address AND a.bytes = f.bytes AND a.start <= f.start)")" 0
  check "a, b, m: each row inside the cudaMalloc / cudaMallocManaged / cudaFree call it names" \
    "$(mq "SELECT COUNT(*) FROM $U x $MEM_CALL WHERE x.address IN ($A, $B, $MM) AND ((x.memoryOperationType = 0 AND x.memKind = 2 AND n.value GLOB 'cudaMalloc_v*') OR (x.memoryOperationType = 0 AND x.memKind = 4 AND n.value GLOB 'cudaMallocManaged*') OR (x.memoryOperationType = 1 AND n.value GLOB 'cudaFree_v*'))")" 6
  check "ENUM_CUDA_DEV_MEM_EVENT_OPER as nsys" \
    "$(mq "SELECT GROUP_CONCAT(id || ':' || name || ':' || label, ',') FROM ENUM_CUDA_DEV_MEM_EVENT_OPER")" \
    "0:CUDA_DEV_MEM_EVENT_OPR_ALLOCATION:Allocation,1:CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION:Deallocation"
  info "memory rows by kind|operation" \
    "$(mq "SELECT GROUP_CONCAT(memKind || '|' || memoryOperationType || 'x' || c, ' ') FROM (SELECT memKind, memoryOperationType, COUNT(*) AS c FROM $U GROUP BY 1, 2)")"
  check "sightline memory reads it" "$(build/sightline memory "$MTRACE" >/dev/null 2>&1; echo $?)" 0
  refused="$(mq "SELECT COUNT(*) FROM sqlite_master WHERE name = 'DIAGNOSTIC_EVENT'")"
  [ "$refused" = 1 ] && refused="$(mq "SELECT COUNT(*) FROM DIAGNOSTIC_EVENT WHERE text LIKE '%cuda-um-%could not be enabled%'")"
  if [ "$refused" != 0 ]; then
    info "CUPTI refused unified memory counters here" \
      "$(mq "SELECT text FROM DIAGNOSTIC_EVENT WHERE text LIKE '%cuda-um-%'")"
    check "the refusal said on stderr too" \
      "$(grep -c 'sightline: --cuda-um-cpu-page-faults and --cuda-um-gpu-page-faults could not be enabled' "$WORK/memory-recorded.txt")" 1
  else
    IN_M="BETWEEN $MM AND $MM + $MBYTES - 1"
    check "HtoD migrations (copyKind 11) of m's pages, as nsys writes them" \
      "$(mq "SELECT COUNT(*) > 0 FROM $M WHERE copyKind = 11 AND virtualAddress $IN_M AND migrationCause IS NOT NULL AND srcKind = 7 AND dstKind = 7 AND correlationId = 0 AND end >= start")" 1
    check "DtoH migrations (copyKind 12) of m's pages, on the host's reads" \
      "$(mq "SELECT COUNT(*) > 0 FROM $M WHERE copyKind = 12 AND virtualAddress $IN_M AND migrationCause IS NOT NULL")" 1
    check "migration causes within ENUM_CUDA_UNIF_MEM_MIGRATION" \
      "$(mq "SELECT COUNT(*) FROM $M WHERE copyKind IN (11, 12) AND migrationCause NOT IN (SELECT id FROM ENUM_CUDA_UNIF_MEM_MIGRATION)")" 0
    if [ "$(mval prefetched)" = 1 ]; then
      check "the prefetch's migrations: cause 1 (User prefetch)" \
        "$(mq "SELECT COUNT(*) > 0 FROM $M WHERE copyKind = 11 AND migrationCause = 1 AND virtualAddress $IN_M")" 1
    fi
    check "CPU page faults in m, the faulting instruction named" \
      "$(mq "SELECT COUNT(*) > 0 AND MIN(CpuInstruction IS NOT NULL) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS WHERE address $IN_M")" 1
    check "GPU page fault groups in m: counts and access types" \
      "$(mq "SELECT COUNT(*) > 0 AND MIN(numberOfPageFaults) > 0 AND MAX(faultAccessType) <= 4 AND MIN(end >= start) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS WHERE address $IN_M")" 1
    info "um_total_sum (HtoD bytes|DtoH bytes|CPU faults|GPU faults)" \
      "$(mq "SELECT (SELECT SUM(bytes) FROM $M WHERE copyKind = 11) || '|' || (SELECT SUM(bytes) FROM $M WHERE copyKind = 12) || '|' || (SELECT COUNT(*) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS) || '|' || (SELECT SUM(numberOfPageFaults) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS)")"
    info "faulting CPU instructions (um_cpu_page_faults_sum)" \
      "$(mq "SELECT GROUP_CONCAT(v, ', ') FROM (SELECT s.value || 'x' || COUNT(*) AS v FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS c JOIN StringIds s ON s.id = c.CpuInstruction GROUP BY s.value ORDER BY COUNT(*) DESC LIMIT 5)")"
  fi
fi
fi

# ---- GPU metrics (not when re-checking a trace) ----------------------------------------------
if [ -z "${SL_GPU_TRACE:-}" ]; then
echo "-- GPU metrics (tests/gpu/metrics.cu, --gpu-metrics)"
check "without --gpu-metrics: no GPU_METRICS, no TARGET_INFO_GPU_METRICS" \
  "$(q "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('GPU_METRICS', 'TARGET_INFO_GPU_METRICS')")" 0
MET_OK=1
if ! "$NVCC" -O2 -arch=native -o "$WORK/metrics" tests/gpu/metrics.cu >"$WORK/nvcc-metrics.log" 2>&1 \
   && ! "$NVCC" -O2 -o "$WORK/metrics" tests/gpu/metrics.cu >"$WORK/nvcc-metrics.log" 2>&1; then
  cat "$WORK/nvcc-metrics.log"
  check "nvcc tests/gpu/metrics.cu" "failed" "built"
  MET_OK=0
fi
if [ "$MET_OK" = 1 ]; then
  GTRACE="$WORK/metrics.sqlite"
  timeout 300 build/sightline record -f -o "$GTRACE" -s none --gpu-metrics -- "$WORK/metrics" \
    >"$WORK/metrics-recorded.txt" 2>&1
  grc=$?
  cat "$WORK/metrics-recorded.txt"
  check "record metrics.cu with --gpu-metrics exits 0" "$grc" 0
  gq () { TRACE="$GTRACE" q "$1"; }
  NDEV="$(awk '$1 == "METRICS" && $2 == "devices" { print $3; exit }' "$WORK/metrics-recorded.txt")"
  check "the kernels were recorded, one per GPU, whatever PM sampling did" \
    "$(gq "SELECT COUNT(*) FROM $K")" "$NDEV"
  refused="$(grep -c -e 'sightline: --gpu-metrics: GPU [0-9]*: .* failed (' \
    -e 'sightline: --gpu-metrics: this CUPTI' "$WORK/metrics-recorded.txt")"
  if [ "$refused" != 0 ]; then
    echo "SKIP  GPU metrics: the driver or CUPTI refused PM sampling here (see the line above)"
    check "the refusal said once on stderr, and in DIAGNOSTIC_EVENT" \
      "$refused|$(gq "SELECT COUNT(*) FROM DIAGNOSTIC_EVENT WHERE text LIKE '--gpu-metrics: % failed (%' OR text LIKE '--gpu-metrics: this CUPTI%'")" "1|1"
    info "GPUs with GPU_METRICS rows all the same (those before the one refused)" \
      "$(gq "SELECT COUNT(DISTINCT typeId & 255) FROM GPU_METRICS" 2>/dev/null || echo 0)"
  else
    SMS="(SELECT m.* FROM GPU_METRICS m JOIN TARGET_INFO_GPU_METRICS i ON i.typeId = m.typeId AND i.metricId = m.metricId WHERE i.metricName = 'SMs Active [Throughput %]')"
    check "GPU_METRICS rows for every GPU (typeId's low byte)" \
      "$(gq "SELECT COUNT(DISTINCT typeId & 255) FROM GPU_METRICS")" "$NDEV"
    check "every GPU_METRICS row named in TARGET_INFO_GPU_METRICS" \
      "$(gq "SELECT COUNT(*) FROM GPU_METRICS m WHERE NOT EXISTS (SELECT 1 FROM TARGET_INFO_GPU_METRICS i WHERE i.typeId = m.typeId AND i.metricId = m.metricId)")" 0
    check "SMs Active sampled on every GPU" \
      "$(gq "SELECT COUNT(DISTINCT typeId & 255) FROM $SMS")" "$NDEV"
    check "SMs Active above 0 while each GPU's long kernel runs" \
      "$(gq "SELECT COUNT(*) FROM $K k WHERE (SELECT MAX(s.value) FROM $SMS s WHERE (s.typeId & 255) = k.deviceId AND s.timestamp BETWEEN k.start AND k.end) > 0")" "$NDEV"
    check "SMs Active above 50 % on average during the kernels" \
      "$(gq "SELECT AVG(s.value) > 50 FROM $SMS s JOIN $K k ON (s.typeId & 255) = k.deviceId AND s.timestamp BETWEEN k.start + 1000000 AND k.end - 1000000")" 1
    check "~10 kHz: at least 5 samples a ms of kernel" \
      "$(gq "SELECT MIN(n * 1000000 / (e - b) >= 5) FROM (SELECT k.deviceId, k.start AS b, k.end AS e, (SELECT COUNT(*) FROM $SMS s WHERE (s.typeId & 255) = k.deviceId AND s.timestamp BETWEEN k.start AND k.end) AS n FROM $K k)")" 1
    check "samples inside the recording (the trace's clock, not the GPU's)" \
      "$(gq "SELECT COUNT(*) FROM GPU_METRICS WHERE timestamp < (SELECT systemClockNs FROM TARGET_INFO_SESSION_START_TIME) OR timestamp > (SELECT MAX(end) FROM $R) + 1000000000")" 0
    info "metrics on GPU 0" \
      "$(gq "SELECT GROUP_CONCAT(metricName, ', ') FROM TARGET_INFO_GPU_METRICS WHERE (typeId & 255) = 0")"
    check "sightline stats --report gpu_metrics_sum reads it" \
      "$(build/sightline stats --report gpu_metrics_sum "$GTRACE" >"$WORK/metrics-stats.txt" 2>&1; echo $?)" 0
    cat "$WORK/metrics-stats.txt"
  fi
fi
fi

echo
echo "$PASS passed, $FAIL failed ($TRACE)"
[ "$FAIL" -eq 0 ]
