#!/usr/bin/env bash
# On a GPU machine, in a copy of the checkout to which tools/gpu-lab/stage_gpu.sh's .gpu/ was
# carried: puts the staged binaries where the build put them (build/ of the checkout), then
# runs the requested steps. Output goes to $OUT (default ./gpu-out of
# the checkout). Relative paths in the steps are relative to the checkout.
#   tools/gpu-lab/gpu_check.sh devices tests ladder search
# Steps: devices, tests (or tests=session,cli,runtime,faults), faults, ladder, profile=KERNEL[@PREC],
# details=TAG:KERNEL[@PREC] (SHAPE=..., LAYOUT=..., FILTER=...), feed=TAG,TAG,... (after details),
# stalls=KERNEL[@PREC] (SHAPE=..., LAYOUT=...),
# memory=KERNEL[@PREC] (SHAPE=..., LAYOUT=...), kernels=KERNEL[@PREC] (SHAPE=..., LAYOUT=...,
# LAUNCHES=...),
# sass=KERNEL[@PREC],
# library-kernels=SHAPE@PRECISION (with KERNEL=...), bench-list=FILE, ab-list=FILE (against .gpu-old, see tools/gpu-lab/stage_old.sh), loo=CACHE.db,
# runtime-timing=TABLE_OR_CACHE, python (the package's wheel, see stage_gpu.sh), pack (last: one
# archive of $OUT), or any gemmtune command line.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
# The test binaries find the gemmtune binary and the checkout's files relative to themselves,
# so the staged binaries go back where the build put them, under build/ of this checkout.
build_root=$root
mkdir -p build/cli build/tests/gpu build/tests/cli
cp .gpu/gemmtune build/cli/gemmtune
cp .gpu/test_gpu_session build/tests/gpu/
cp .gpu/test_cli_gpu build/tests/cli/
if [[ -f .gpu/test_reliability_faults_gpu ]]; then
  mkdir -p build/tests/reliability
  cp .gpu/test_reliability_faults_gpu build/tests/reliability/
fi
if [[ -f .gpu/test_runtime_gpu ]]; then
  mkdir -p build/tests/runtime build/src/runtime
  cp .gpu/test_runtime_gpu build/tests/runtime/
  cp .gpu/libgemmtune_runtime.so.0 build/src/runtime/
fi
G="$build_root/build/cli/gemmtune"
tmp=${TMPDIR:-/tmp}
export GEMMTUNE_DB=${GEMMTUNE_DB:-$out/cache.db}
export GEMMTUNE_CUBIN_CACHE=${GEMMTUNE_CUBIN_CACHE:-$tmp/gemmtune-cubins}

step() { echo; echo "=== $* ($(date +%T))"; }
# What a launch asks of an SM: whether two blocks (or the next launch's) can share one.
launch_metrics=launch__registers_per_thread,launch__shared_mem_per_block_dynamic
launch_metrics+=,launch__grid_size,launch__block_size,launch__shared_mem_config_size
launch_metrics+=,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
# KERNEL or KERNEL@PRECISION (default fp32) -> $kernel, $precision, $family, and $main_kernel:
# ncu's -k filter for the family's main kernel (simt, mma_gemm, wgmma_gemm(_cluster)), not a
# reduce or copy kernel.
kernel_spec() {
  kernel=${1%@*}
  precision=fp32
  [[ "$1" == *@* ]] && precision=${1##*@}
  family=${kernel%%:*}
  main_kernel="regex:^(${family}|${family}_gemm|${family}_gemm_cluster)\$"
}
# One ncu --set full pass of the first launch matching FILTER in a bench of $kernel/$precision
# (kernel_spec) at $shape, saved as the report REP.ncu-rep: full_pass REP FILTER.
# NVTX_RANGE=candidate (or baseline) narrows it to the launches inside the worker's NVTX range of
# that name (src/gpu/profile_range.hpp): a vendor candidate's kernel, not the same-named ones its
# baseline's autotuning launches first.
full_pass() {
  short_bench
  local nvtx=()
  [[ -n "${NVTX_RANGE:-}" ]] && nvtx=(--nvtx --nvtx-include "gemmtune@${NVTX_RANGE}/")
  ncu --clock-control none --target-processes all --set full --import-source no "${nvtx[@]}" \
    -k "$2" -c 1 -o "$1" "${bench_cmd[@]}" > /dev/null 2>&1
}
# bench_cmd: one short bench of $kernel/$precision at $shape and $LAYOUT, the launches
# full_pass profiles (an array: ncu runs it as a program, not as a shell function).
short_bench() {
  bench_cmd=("$G" -q bench --shape "$shape" --precision "$precision" --layout "${LAYOUT:-NN}"
    --kernel "$kernel" --repeats 1 --target-ms 1)
}
for what in "$@"; do
  case "$what" in
    devices)
      step devices
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
      "$G" devices ;;
    tests|tests=*)
      # Whole logs to $OUT/tests.txt; the console gets each binary's verdict lines.
      # tests=NAME,... runs only those binaries (session, cli, runtime, faults), so a run's time
      # limit can split them; GTEST_FILTER narrows them further. TESTS_TIMEOUT=SECONDS stops a
      # binary that runs longer (its log keeps the tests it finished) so that the steps after
      # this one, pack among them, still run.
      step gpu tests
      wanted=,${what#tests=},
      for t in tests/gpu/test_gpu_session tests/cli/test_cli_gpu tests/runtime/test_runtime_gpu \
          tests/reliability/test_reliability_faults_gpu; do
        if [[ $what == tests=* ]]; then
          name=${t##*/test_}; name=${name%_gpu}; name=${name#reliability_}; name=${name#gpu_}
          [[ $wanted == *,$name,* ]] || continue
        fi
        [[ -x "$build_root/build/$t" ]] || continue
        echo "--- $t" >> "$out/tests.txt"
        # The runtime library beside the staged test: a build elsewhere baked its own path in.
        started=$(date +%s)
        LD_LIBRARY_PATH="$build_root/build/src/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
          timeout "${TESTS_TIMEOUT:-0}" "$build_root/build/$t" >> "$out/tests.txt" 2>&1
        rc=$?
        took=$(($(date +%s) - started))
        if [[ $rc -eq 124 ]]; then
          echo "$t: stopped after ${took} s (TESTS_TIMEOUT); the tests it finished are in tests.txt"
        else
          echo "$t: exit $rc (${took} s)"
        fi
      done
      grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]' "$out/tests.txt"
      # The slowest tests, so a later run's time limit can be planned around them.
      echo "slowest:"
      sed -nE 's/^\[ +(OK|FAILED) +\] ([^ ]+) \(([0-9]+) ms\)$/\3 \2/p' "$out/tests.txt" |
        sort -rn | head -8 ;;
    faults)
      step "fault injection"
      "$build_root/build/tests/reliability/test_reliability_faults_gpu" 2>&1 | tail -70 ;;
    profile=*)
      # ncu on the first launch of a kernel run by `bench` (the worker is a child process).
      # profile=KERNEL or profile=KERNEL@PRECISION (default fp32), at 4096³.
      kernel_spec "${what#profile=}"
      step "ncu $kernel ($precision)"
      ncu --clock-control none --target-processes all --set full \
        -k "$main_kernel" -c 1 \
        "$G" -q bench --shape 4096x4096x4096 --precision "$precision" --kernel "$kernel" \
        --repeats 1 --target-ms 1 > "$out/ncu-$family-$precision.txt" 2>&1
      cp "$out/ncu-$family-$precision.txt" "$out/ncu.txt"
      grep -E "Duration|Throughput|Registers|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots|Executed Ipc|Bank Conflicts|L1/TEX Hit|Stall|est. speedup|OPT" "$out/ncu.txt" | head -60 ;;
    stalls=*)
      # Where the warps of one kernel wait: stalls=KERNEL[@PRECISION] at $SHAPE (default 4096³).
      # ncu's warp-state sampling per SASS instruction to $OUT/stalls-FAMILY-PRECISION.csv and the
      # kernel-wide stall breakdown (cycles per issued instruction, by reason) on the console.
      kernel_spec "${what#stalls=}"
      shape=${SHAPE:-4096x4096x4096}
      step "stalls of $kernel ($precision) at $shape"
      rep=$(mktemp -d)/stalls
      full_pass "$rep" "$main_kernel"
      ncu -i "$rep.ncu-rep" --page source --csv --print-source sass \
        > "$out/stalls-$family-$precision.csv" 2>&1
      ncu -i "$rep.ncu-rep" --page raw --csv 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
for name, unit, value in zip(rows[0], rows[1], rows[2]):
    if "issue_stalled" in name and "per_issue_active" in name:
        try:
            v = float(value.replace(",", ""))
        except ValueError:
            continue
        if v >= 0.01:
            print(f"{v:8.3f}  {name}")' | sort -nr | head -20 ;;
    details=*)
      # One ncu --set full pass kept as text: details=TAG:KERNEL[@PRECISION] at $SHAPE (default
      # 4096³) and $LAYOUT writes $OUT/prof/TAG-details.txt (every section), TAG-sass.csv (warp
      # samples per SASS instruction) and TAG-raw.csv (every metric), then prints the stall
      # summary (tools/gpu-lab/stall_top.py). FILTER=regex:^nvjet profiles the first vendor
      # kernel the same bench launches instead of ours; with a vendor id as KERNEL, add
      # NVTX_RANGE=candidate so that kernel is the candidate's, not a baseline's.
      spec=${what#details=}
      tag=${spec%%:*}
      kernel_spec "${spec#*:}"
      shape=${SHAPE:-4096x4096x4096}
      step "details of $kernel ($precision) at $shape as $tag"
      mkdir -p "$out/prof"
      rep=$(mktemp -d)/$tag
      full_pass "$rep" "${FILTER:-$main_kernel}"
      if [[ ! -f "$rep.ncu-rep" ]]; then
        # Nothing matched the filter: say why (a kernel the bench rejects never launches).
        echo "no profile of $tag; the bench says:"
        "${bench_cmd[@]}" 2>&1 | grep -E "^gemmtune:|rejected|failed" | head -3
        continue
      fi
      ncu -i "$rep.ncu-rep" --page details > "$out/prof/$tag-details.txt" 2>&1
      ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$out/prof/$tag-sass.csv" 2>&1
      ncu -i "$rep.ncu-rep" --page raw --csv > "$out/prof/$tag-raw.csv" 2>&1
      grep -E "^  [a-zA-Z_].*\(|Duration|Max Active Clusters|Warp Cycles Per Issued" \
        "$out/prof/$tag-details.txt" | head -6
      python3 "$root/tools/gpu-lab/stall_top.py" "$out/prof/$tag-sass.csv" 10 ;;
    feed=*)
      # How the kernels of earlier details= steps were fed, side by side: feed=TAG,TAG,... prints
      # tools/gpu-lab/feed_metrics.py over $OUT/prof/TAG-raw.csv of each and writes the same as
      # $OUT/feed-TAG-TAG-....json (no commas: the transfer back skips such names).
      step "feed of ${what#feed=}"
      feed_args=()
      IFS=, read -ra feed_tags <<< "${what#feed=}"
      for t in "${feed_tags[@]}"; do feed_args+=("$t=$out/prof/$t-raw.csv"); done
      python3 "$root/tools/gpu-lab/feed_metrics.py" "${feed_args[@]}"
      feed_name=${what#feed=}
      python3 "$root/tools/gpu-lab/feed_metrics.py" --json "${feed_args[@]}" \
        > "$out/feed-${feed_name//,/-}.json" ;;
    memory=*)
      # One ncu pass of a kernel's memory and tensor figures: memory=KERNEL[@PRECISION] at $SHAPE
      # (default 4096³): duration, L2 hit rate, DRAM bytes read, tensor-pipe activity.
      kernel_spec "${what#memory=}"
      shape=${SHAPE:-4096x4096x4096}
      step "memory of $kernel ($precision) at $shape"
      ncu --clock-control none --target-processes all -c 1 \
        -k "$main_kernel" \
        --metrics gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,$launch_metrics \
        "$G" -q bench --shape "$shape" --precision "$precision" --layout "${LAYOUT:-NN}" \
        --kernel "$kernel" --repeats 1 --target-ms 1 2>&1 |
        grep -E "gpu__time|lts__|dram__|tensor_op|cycles_active|launch__" ;;
    kernels=*)
      # Every launch of the tuner's own kernels (main, reduce, copy) in the first bench launches of
      # kernels=KERNEL[@PRECISION] at $SHAPE (default 4096³): duration, DRAM bytes and throughput.
      kernel_spec "${what#kernels=}"
      shape=${SHAPE:-4096x4096x4096}
      step "kernels of $kernel ($precision) at $shape"
      ncu --clock-control none --target-processes all -c "${LAUNCHES:-4}" \
        -k "regex:^(${family}|${family}_[a-z_]+)\$" \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
        "$G" -q bench --shape "$shape" --precision "$precision" --layout "${LAYOUT:-NN}" \
        --kernel "$kernel" --repeats 1 --target-ms 1 2>&1 | grep -E "^  [a-z_:]+[<(]|gpu__time|dram__" | cut -c1-140 ;;
    sass=*)
      # SASS of one kernel (sass=KERNEL or KERNEL@PRECISION), compiled as `show` compiles it
      # for 4096³, to $OUT/sass-FAMILY-PRECISION.txt, with an opcode count per kernel.
      kernel_spec "${what#sass=}"
      arch=sm_90
      [[ "$family" == wgmma ]] && arch=sm_90a
      step "sass $kernel ($precision)"
      scratch=$(mktemp -d)
      "$G" -q --cache-dir "$scratch" show "$kernel" --precision "$precision" --arch "$arch" |
        grep -E "registers|launch"
      for c in "$scratch"/*.cubin; do cuobjdump -sass "$c"; done > "$out/sass-$family-$precision.txt"
      awk '/Function :/ { f = $3 } /\/\*[0-9a-f]+\*\// {
          line = $0; sub(/.*\*\/ +/, "", line); n = split(line, w, " "); op = w[1]
          if (op ~ /^@/) op = w[2]; sub(/\..*/, "", op); sub(/;$/, "", op); c[f " " op]++ }
        END { for (k in c) print c[k], k }' "$out/sass-$family-$precision.txt" | sort -k2,2 -k1,1nr
      rm -rf "$scratch" ;;
    library-kernels=*)
      # Which kernels cuBLAS and cuBLASLt launch for one problem, and how long each ran under
      # ncu (clocks not locked): library-kernels=SHAPE@PRECISION in layout $LAYOUT (default NN),
      # benched with KERNEL from $KERNEL.
      spec=${what#library-kernels=}
      shape=${spec%@*}
      precision=${spec##*@}
      step "library kernels at $shape ($precision)"
      ncu --clock-control none --target-processes all --metrics "gpu__time_duration.sum,$launch_metrics" \
        -k "regex:^(?!(simt|simt_reduce|mma_gemm|mma_reduce|wgmma_gemm|wgmma_gemm_cluster|wgmma_reduce|wgmma_kmajor_copy)$)" \
        -c 40 "$G" -q bench --shape "$shape" --precision "$precision" --layout "${LAYOUT:-NN}" \
        --kernel "$KERNEL" --repeats 1 --target-ms 1 > "$out/library-kernels-$shape-$precision.txt" 2>&1
      grep -E "Context [0-9]|gpu__time_duration|launch__" "$out/library-kernels-$shape-$precision.txt" |
        sed -E 's/^ +//; s/gpu__time_duration.sum +/    /' | cut -c1-160 | head -200 ;;
    bench-list=*)
      # Lines: SHAPE KERNEL [more bench options, e.g. --precision bf16 --layout NT].
      list=${what#bench-list=}
      step "bench each config of $list"
      grep -v '^#' "$list" | while read -r shape kernel rest; do
        [[ -n "$shape" ]] || continue
        # shellcheck disable=SC2086  # the rest of the line is options, split on purpose
        res=$("$G" -q bench --shape "$shape" --kernel "$kernel" $rest 2>&1)
        # A failed line (a kernel id the family refuses) prints its error, not just nothing.
        if [[ $? -ne 0 ]]; then echo "$shape $kernel: $res"; else sed -n '2,$p' <<< "$res"; fi
      done | tee "$out/bench-$(basename "$list" .txt).txt"
      # The same rows as JSON and a Markdown table (graph protocol) for the write-up.
      stem=$out/bench-$(basename "$list" .txt)
      python3 "$root/bench/list_results.py" "$stem.txt" --json "$stem.json" \
        --markdown "$stem.md" || true ;;
    ab-list=*)
      # A/B of two builds: each line of FILE (as bench-list) benched by .gpu-old/gemmtune (staged
      # by tools/gpu-lab/stage_old.sh) and by this build, the order swapped every line so drift falls
      # on both; each with its own cubin cache, so neither reuses the other's kernels.
      list=${what#ab-list=}
      old=${OLD:-$root/.gpu-old}  # OLD=DIR: another staged build as the old side
      [[ -x "$old/gemmtune" ]] || { echo "ab-list: no $old/gemmtune (tools/gpu-lab/stage_old.sh)"; continue; }
      step "A/B each config of $list: old $(cat "$old/REVISION" 2>/dev/null) against new"
      n=0
      grep -v '^#' "$list" | while read -r shape kernel rest; do
        [[ -n "$shape" ]] || continue
        n=$((n + 1))
        order="old new"
        (( n % 2 == 0 )) && order="new old"
        for side in $order; do
          bin=$G
          [[ $side == old ]] && bin=$old/gemmtune
          # shellcheck disable=SC2086  # the rest of the line is options, split on purpose
          echo "$side $(GEMMTUNE_CUBIN_CACHE=$tmp/gemmtune-cubins-$side "$bin" -q bench \
            --shape "$shape" --kernel "$kernel" $rest 2>&1 | sed -n 3p)"
        done
      done | tee "$out/ab-$(basename "$list" .txt)-$(basename "$old").txt"
      stem=$out/ab-$(basename "$list" .txt)
      python3 "$root/bench/list_results.py" --ab "$stem-$(basename "$old").txt" \
        --json "$stem.json" --markdown "$stem.md" || true ;;
    ladder)
      step ladder 4096
      "$G" ladder --shape 4096x4096x4096 --markdown "$out/ladder.md" --json-out "$out/ladder.json" ;;
    loo=*)
      # Leave-one-out of the query chain over a cache: loo=CACHE.db (benched on this GPU).
      cache=${what#loo=}
      step "leave-one-out over $cache"
      scratch=$(mktemp -d)
      cp "$cache" "$scratch/cache.db"
      python3 "$root/bench/leave_one_out.py" "$G" "$scratch/cache.db" \
        "$out/$(basename "$cache" .db)-leave-one-out" | tail -14
      rm -rf "$scratch" ;;
    runtime-timing=*)
      # Runtime gemm() against the tuner's timing: runtime-timing=TABLE.json or CACHE.db.
      src=${what#runtime-timing=}
      step "runtime timing of $src"
      RESULTS="$out/runtime-timing-$(basename "$src" | sed 's/\.[a-z]*$//')" \
        "$root/bench/runtime_timing.sh" "$root/.gpu/gemmtune_runtime_timing" "$src" | tail -3 ;;
    python)
      # The Python package from the wheel stage_gpu.sh built (GPU_PYTHON), installed into a
      # folder on PYTHONPATH of the machine's python3: that python3 is itself a virtual
      # environment holding torch, and a venv made from it would see the base interpreter's
      # packages, not torch.
      step "python package"
      site="$tmp/gemmtune-site"
      rm -rf "$site"
      python3 -m pip install -q --no-index --find-links .gpu/wheels --target "$site" gemmtune
      py() { PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" python3 "$@"; }
      python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
      (cd "$tmp" && GEMMTUNE_BIN="$G" py -m pytest -q -rs -p no:cacheprovider "$root/python/tests" \
        > "$out/python-tests.txt" 2>&1; echo "pytest: exit $?")
      tail -3 "$out/python-tests.txt"
      py "$root/examples/tuned_linear.py" \
        --table "$root/bench/results/2026-12-03-h200-bf16-h-a.table.json" 2>&1 | tail -8
      py "$root/bench/python_overhead.py" --out "$out/python-overhead" \
        | tail -9 ;;
    pack)
      # One archive of everything under $OUT: a transfer back may keep only a few files.
      step "pack $out"
      tar czf "$tmp/gpu-out.tgz" -C "$out" . && rm -rf "${out:?}"/* && mv "$tmp/gpu-out.tgz" "$out/" ;;
    *)
      step "gemmtune $what"
      eval "\"$G\" $what" ;;
  esac
done
