#!/usr/bin/env bash
# Kills a running search with SIGKILL midway, re-runs the same command, and checks that nothing
# that had finished was redone: every stored trial is skipped (resumed) and each config has one
# row. Needs a GPU.   scripts/kill_resume_check.sh GEMMTUNE DB_FILE [KILL_AFTER_TRIALS]
set -euo pipefail
G=$1
db=$2
kill_after=${3:-25}
rm -f "$db" "$db-wal" "$db-shm"
args=(search --shape 1024x1024x1024 --family blocktile_2d,vectorized --retime 0)

count_trials() {
  # Rows of our own kernels in the cache, read directly (a reader never blocks the search's
  # writer in WAL mode). The vendor's trials are stored by the baseline, not the search's
  # candidates, so they are not among what a resumed run skips.
  python3 - "$db" <<'PY'
import os, sqlite3, sys
if not os.path.exists(sys.argv[1]):
    print(0)
else:
    try:
        con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=10)
        print(con.execute("select count(*) from trials where family not in ('cublas', 'cublaslt')")
              .fetchone()[0])
    except sqlite3.Error:
        print(0)
PY
}

"$G" --db "$db" -q "${args[@]}" >/dev/null 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [[ $(count_trials) -lt $kill_after ]]; do sleep 0.2; done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
before=$(count_trials)
echo "killed the search (pid $pid) with SIGKILL after $before stored trials"

# --again: the killed run may have finished the shape first; the check wants it searched.
"$G" --db "$db" --json "${args[@]}" --again > /tmp/resume.json
after=$(count_trials)
python3 - "$before" "$after" /tmp/resume.json <<'PY'
import json, sys
before, after = int(sys.argv[1]), int(sys.argv[2])
r = json.load(open(sys.argv[3]))["problems"][0]
print(f"re-run: resumed {r['resumed']}, evaluated {r['evaluated']}, trials {before} -> {after}")
ok = r["resumed"] == before and after == before + r["evaluated"]
print("kill -9 resume:", "PASS (nothing finished was redone)" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
dups=$("$G" --db "$db" --json list trials --limit 0 |
  python3 -c 'import json,sys,collections; c=collections.Counter(t["kernel"] for t in json.load(sys.stdin)); print(sum(1 for v in c.values() if v>1))')
echo "configs stored more than once: $dups"
[[ $dups -eq 0 ]]
