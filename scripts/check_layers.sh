#!/usr/bin/env bash
# Fails when an include breaks DESIGN.md §2's layering, or when the shipped runtime library
# carries search, cache or worker code. The include rules:
#   - every quoted include names its owner from the repository root ("src/core/problem.hpp",
#     "tuner/search/budget.hpp", "db/schema.hpp", "kernel_templates/common/gemm_args.cuh"), and
#     the file exists; the one exception is the public header, included by its installed name
#     "gemmtune/runtime.hpp";
#   - nothing under src/ includes tuner/, db/ or cli/; tuner/ and db/ never include each other,
#     and neither includes cli/;
#   - src/core includes no CUDA, NVRTC, cuBLAS, SQLite or CLI11 header; src/kernels, src/nvrtc,
#     src/launch and src/runtime include nothing from src/gpu (worker-only);
#   - <sqlite3.h> only under db/; CLI11 only under cli/.
# Kernel templates include each other relative to kernel_templates/ (NVRTC's root), so they are
# not checked here.
#
# usage: scripts/check_layers.sh [ROOT [BUILD_DIR]]   (defaults: this checkout, ROOT/build)
# With a built runtime library in BUILD_DIR, its exported symbols are checked too.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
build_dir=${2:-$root/build}
cd "$root"

status=0
fail() {
  echo "check_layers: $*" >&2
  status=1
}

# file:line:include-target for every include of the host layers
includes() {
  local d
  for d in src tuner db cli; do
    [[ -d $d ]] || continue
    grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cu' \
      '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$d" || true
  done
}

while IFS= read -r line; do
  file=${line%%:*}
  rest=${line#*:}
  lineno=${rest%%:*}
  text=${rest#*:}
  where="$file:$lineno"
  if [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
    target=${BASH_REMATCH[1]}
    quoted=1
  elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
    target=${BASH_REMATCH[1]}
    quoted=0
  else
    continue
  fi
  layer=${file%%/*}
  if ((quoted)); then
    if [[ $target == gemmtune/runtime.hpp ]]; then
      :
    elif [[ ! $target =~ ^(src|tuner|db|cli|kernel_templates)/ ]]; then
      fail "$where: include \"$target\" does not name its owner from the repository root"
      continue
    elif [[ ! -f $target ]]; then
      fail "$where: include \"$target\" is not a file of the tree"
      continue
    fi
    owner=${target%%/*}
    case $layer in
      src)
        [[ $owner =~ ^(tuner|db|cli)$ ]] && fail "$where: src/ includes $owner/ (\"$target\")"
        ;;
      tuner)
        [[ $owner =~ ^(db|cli)$ ]] && fail "$where: tuner/ includes $owner/ (\"$target\")"
        ;;
      db)
        [[ $owner =~ ^(tuner|cli)$ ]] && fail "$where: db/ includes $owner/ (\"$target\")"
        ;;
    esac
    if [[ $file =~ ^src/(kernels|nvrtc|launch|runtime|core)/ && $target == src/gpu/* ]]; then
      fail "$where: ${file%/*}/ includes the worker-only src/gpu/ (\"$target\")"
    fi
  else
    if [[ $target == sqlite3.h && $layer != db ]]; then
      fail "$where: <sqlite3.h> outside db/"
    fi
    if [[ $target == CLI/* && $layer != cli ]]; then
      fail "$where: CLI11 outside cli/"
    fi
    if [[ $file == src/core/* && $target =~ ^(cuda|cublas|nvrtc|cudaTypedefs|sqlite3|CLI/) ]]; then
      fail "$where: src/core includes <$target> (core needs no CUDA, SQLite or CLI11)"
    fi
  fi
done < <(includes)

# The runtime library links no search, cache or worker code: none of their types may appear in
# its symbols.
lib=$(find "$build_dir" -name 'libgemmtune_runtime.so*' -type f 2>/dev/null | head -n 1 || true)
if [[ -n $lib ]]; then
  if leaked=$(nm -C "$lib" 2>/dev/null |
      grep -E 'gemmtune::(SearchSession|Supervisor|WorkerEvaluator|SqliteTrialStore|GpuSession|Strategy|CandidateRunner)\b' |
      head -n 3) && [[ -n $leaked ]]; then
    fail "$lib carries search, cache or worker code:"$'\n'"$leaked"
  fi
fi

if ((status == 0)); then
  echo "check_layers: ok"
fi
exit $status
