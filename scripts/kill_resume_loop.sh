#!/usr/bin/env bash
# SIGKILLs the same search at N random moments on a GPU machine, then lets it finish, and checks
# after every kill: the cache opens and passes SQLite's integrity check, no stored trial was lost,
# and at the end no config is stored twice (nothing finished was redone).
#   scripts/kill_resume_loop.sh GEMMTUNE DB_FILE [KILLS]
set -euo pipefail
G=$1
db=$2
kills=${3:-20}
rm -f "$db" "$db-wal" "$db-shm"
args=(search --shape 1024x1024x1024 --family blocktile_2d,vectorized,smem_tiled --retime 0)

rows() {
  python3 - "$db" <<'PY'
import os, sqlite3, sys
if not os.path.exists(sys.argv[1]) or os.path.getsize(sys.argv[1]) == 0:
    print("0 ok"); sys.exit()
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=10)
print(con.execute("select count(*) from trials").fetchone()[0],
      con.execute("pragma integrity_check").fetchone()[0])
PY
}

lost=0
for ((i = 1; i <= kills; i++)); do
  read -r before _ <<<"$(rows)"
  "$G" --db "$db" -q "${args[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c 'import random; print(round(random.uniform(1.5, 4.5), 2))')"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  read -r after check <<<"$(rows)"
  [[ $after -lt $before ]] && lost=$((lost + before - after))
  echo "kill $i: trials $before -> $after, integrity $check"
  [[ $check == ok ]] || { echo "FAIL: integrity check says $check"; exit 1; }
done
# --again: a run the kills missed may have finished the shape; the check wants it searched.
"$G" --db "$db" --json "${args[@]}" --again > /tmp/kill_loop_final.json
python3 - "$db" /tmp/kill_loop_final.json "$lost" <<'PY'
import json, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
# Our own kernels' rows: the candidates. The vendor's rows come from the baseline, one per call.
total, distinct = con.execute("select count(*), count(distinct kernel_id) from trials "
                              "where family not in ('cublas', 'cublaslt')").fetchone()
r = json.load(open(sys.argv[2]))["problems"][0]
lost = int(sys.argv[3])
print(f"final run: resumed {r['resumed']}, evaluated {r['evaluated']}; rows {total}, configs {distinct}, "
      f"candidates {r['candidates']}; trials lost {lost}")
ok = total == distinct == r["candidates"] and lost == 0
print("kill loop:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
