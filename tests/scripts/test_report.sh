#!/usr/bin/env bash
# `gemmtune report` in a real browser: a report of a cache made from committed tables (plus two
# searches of one shape written into it) is opened by headless Chromium, which takes a screenshot
# and dumps the page; the page must hold every section, the number of bars and points the data
# implies, its labels and units, and raise no console message. Then: an empty cache and a table
# give pages that say what is missing, --format md, and a cache of 10^5 trials renders in under
# 10 s into a file under 5 MB with its landscape sampled, said on the page.
#   tests/scripts/test_report.sh GEMMTUNE_BINARY
set -uo pipefail
G=$(realpath "${1:?usage: test_report.sh GEMMTUNE_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GEMMTUNE_CUBIN_CACHE=$work/cubins XDG_CACHE_HOME=$work/xdg HOME=$work
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
  fail "no Chromium on PATH (scripts/setup.sh installs the chromium package)"
shoot() {  # shoot PAGE PNG DOM: screenshot and DOM of a page, the browser's log in PNG.log
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0 \
    --window-size=1280,4000 --screenshot="$2" "file://$work/$1" > /dev/null 2> "$2.log" ||
    fail "Chromium could not render $1: $(tail -c 400 "$2.log")"
  "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/$1" > "$3" 2>> "$2.log" ||
    fail "Chromium could not dump $1"
  if grep -q "CONSOLE" "$2.log"; then fail "console messages on $1: $(grep CONSOLE "$2.log" | head -3)"; fi
}

# 1. A cache of two committed tables, and two searches of one shape with our kernels' trials;
#    the committed H200 ladder run beside it.
export GEMMTUNE_DB=$work/cache.db
for t in h200-fp16-core h200-fp32-core; do
  "$G" -q import "$root/tests/data/report/$t.table.json" > /dev/null || fail "import $t exited $?"
done
python3 - "$work/cache.db" <<'PY' || fail "could not add the searches"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(trials)")]
# The shape: fp16 1024x1024x1024, 20 configs per search, slower than every stored figure so the
# picks and own figures of the tables stay; every seventh a wrong result.
row = db.execute("SELECT * FROM trials WHERE m = 1024 AND n = 1024 AND k = 1024 AND "
                 "precision = 'fp16' ORDER BY id LIMIT 1").fetchone()
base = dict(zip(cols, row))
for s in (1, 2):
    sid = db.execute("INSERT INTO searches (arguments, started_at, finished_at) VALUES (?, ?, ?)",
                     (f"search --shape 1024x1024x1024 --precision fp16 --seed {s}", 1796000000 + s,
                      1796000100 + s)).lastrowid
    for i in range(20):
        r = dict(base)
        del r["id"]
        r.update(search_id=sid, kernel_id=f"mma:BM={64 * (1 + i % 2)},BN={32 * (1 + i % 4)},X={s}{i}",
                 family="mma", attempt=1, spread_rounds=0, spread_lo_ms=0, spread_hi_ms=0,
                 created_at=1796000000 + 3 * i)
        bad = i % 7 == 6
        r["disposition"] = "wrong_result" if bad else "ok"
        r["time_ms"] = None if bad else 1.0 + 0.05 * (20 - i) / s
        db.execute(f"INSERT INTO trials ({', '.join(r)}) VALUES ({', '.join('?' * len(r))})",
                   list(r.values()))
db.commit()
PY
"$G" -q report --ladder "$root/tests/data/report/h200-ladder.json" --out report.html ||
  fail "report of the cache exited $?"
shoot report.html shot.png dom.html
python3 - "$root" <<'PY' || exit 1
import json, struct, sys
from html.parser import HTMLParser

root = sys.argv[1]
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.svgs, self.texts, self.stack = [], [], [], []
        self.precision = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "")
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "div" and ("precision" in cls.split() or "range" in cls.split()):
            self.precision = a.get("data-precision")
        if tag == "svg":
            self.svgs.append({"section": self.sections[-1], "precision": self.precision,
                              "kind": a.get("data-kind"), "marks": int(a.get("data-marks", -1)),
                              "bars": 0, "points": 0, "curves": 0, "labels": []})
        if self.svgs and tag in ("rect", "circle", "polyline"):
            c = cls.split()
            s = self.svgs[-1]
            if tag == "rect" and "bar" in c: s["bars"] += 1
            if tag == "circle" and "point" in c: s["points"] += 1
            if tag == "polyline" and "curve" in c: s["curves"] += 1
        self.stack.append(cls)
    def handle_endtag(self, tag):
        if self.stack: self.stack.pop()
    def handle_data(self, data):
        self.texts.append(data)
        if self.svgs and self.stack and self.stack[-1] == "axis-label":
            self.svgs[-1]["labels"].append(data)

page = Page()
page.feed(open("dom.html").read())
errors = []
for s in ("shapes", "roofline", "convergence", "landscape", "mcurves", "ladder"):
    if s not in page.sections: errors.append(f"no section {s}")
text = " ".join(page.texts)
if "Provenance" not in text: errors.append("no provenance footer")
# Bars per precision, from the tables: own, pick, cuBLAS and cuBLASLt where each has a figure.
for prec, stem in (("fp16", "h200-fp16-core"), ("fp32", "h200-fp32-core")):
    t = json.load(open(f"{root}/tests/data/report/{stem}.table.json"))
    want = 0
    for e in t["entries"]:
        vendor = e["kernel"].startswith("cublas")
        want += 1 + (1 if (not vendor or e.get("own")) else 0)
        want += (1 if e.get("cublas_ms") else 0) + (1 if e.get("cublaslt_ms") else 0)
    bars = [s for s in page.svgs if s["section"] == "shapes" and s["precision"] == prec]
    if len(bars) != 1: errors.append(f"{prec}: {len(bars)} bar charts"); continue
    if bars[0]["bars"] != want or bars[0]["marks"] != want:
        errors.append(f"{prec}: {bars[0]['bars']} bars drawn, {bars[0]['marks']} declared, {want} expected")
    roof = [s for s in page.svgs if s["section"] == "roofline" and s["precision"] == prec]
    entries = len(t["entries"])
    owns = sum(1 for e in t["entries"] if not e["kernel"].startswith("cublas") or e.get("own"))
    if len(roof) != 1 or roof[0]["points"] != entries + owns:
        errors.append(f"{prec}: roofline points {[r['points'] for r in roof]}, expected {entries + owns}")
    elif not any("intensity" in l for l in roof[0]["labels"]) or "TFLOP/s" not in roof[0]["labels"]:
        errors.append(f"{prec}: roofline axis labels {roof[0]['labels']}")
# M curves: each layer the tables hold at two or more M (4096x4096 at M 16, 128, 4096): the
# pick, our best where it differs, and cuBLAS at each M.
for prec, stem in (("fp16", "h200-fp16-core"), ("fp32", "h200-fp32-core")):
    t = json.load(open(f"{root}/tests/data/report/{stem}.table.json"))
    layers = {}
    for e in t["entries"]:
        layers.setdefault((e["n"], e["k"], e["layout"], e["align"]), []).append(e)
    want = []
    for es in layers.values():
        if len(es) < 2: continue
        n = 0
        for e in es:
            own = e["kernel"] if not e["kernel"].startswith("cublas") else (e.get("own") or {}).get("kernel")
            n += 1 + (1 if own and own != e["kernel"] else 0) + (1 if e.get("cublas_ms") else 0)
        want.append(n)
    curves = [s for s in page.svgs if s["section"] == "mcurves" and s["precision"] == prec]
    if not want: errors.append(f"{prec}: the test tables hold no layer at two M")
    if sorted(c["points"] for c in curves) != sorted(want):
        errors.append(f"{prec}: M curve points {[c['points'] for c in curves]}, expected {want}")
    elif not all("TFLOP/s" in c["labels"] for c in curves):
        errors.append(f"{prec}: M curve labels {[c['labels'] for c in curves]}")
conv = [s for s in page.svgs if s["section"] == "convergence"]
if [c["curves"] for c in conv] != [2, 2]:
    errors.append(f"convergence curves {[c['curves'] for c in conv]}, expected two per chart")
land = [s for s in page.svgs if s["section"] == "landscape"]
# The landscape is the shape with the most trials: the searched one, 40 configs of mma and
# the tables' stored mma trials of it; one small multiple per parameter (BM, BN, X).
if len(land) != 3 or any(s["points"] < 40 for s in land):
    errors.append(f"landscape: {[(s['labels'], s['points']) for s in land]}")
# The ladder: cuBLAS, cuBLASLt and one bar per stage of the committed H200 run.
lad = json.load(open(f"{root}/tests/data/report/h200-ladder.json"))
want = 2 + sum(1 for st in lad["stages"] if st["disposition"] == "ok")
ladder = [s for s in page.svgs if s["section"] == "ladder"]
if len(ladder) != 1 or ladder[0]["bars"] != want or ladder[0]["marks"] != want:
    errors.append(f"ladder: {[(s['bars'], s['marks']) for s in ladder]}, expected {want} bars")
elif "TFLOP/s" not in ladder[0]["labels"]:
    errors.append(f"ladder axis labels {ladder[0]['labels']}")
if "% of cuBLAS" not in text: errors.append("the ladder's table has no % of cuBLAS")
if "µs" not in text or "TFLOP/s" not in text: errors.append("units missing")
png = open("shot.png", "rb").read()
if png[:8] != b"\x89PNG\r\n\x1a\n": errors.append("the screenshot is not a PNG")
else:
    w, h = struct.unpack(">II", png[16:24])
    if (w, h) != (1280, 4000) or len(png) < 50000:
        errors.append(f"screenshot {w}x{h}, {len(png)} bytes: blank or cut")
for e in errors: print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
echo "ok: the cache's report renders with every section, bar and point"

# 2. No cache, an empty cache and a table: pages that say what is missing; Markdown.
GEMMTUNE_DB=$work/none.db "$G" -q report --out none.html
rc=$?
[[ $rc -eq 3 ]] || fail "the report without a cache exited $rc, expected 3"
grep -q "holds no trials yet" none.html || fail "the report without a cache does not say so"
printf '{"format":"gemmtune-table","version":1,"generated_at":"2026-12-03T00:00:00Z","gemmtune_version":"0.2.0","gpus":[],"entries":[],"defaults":[]}' > empty.json
GEMMTUNE_DB=$work/empty.db "$G" -q import empty.json > /dev/null 2> import.txt ||
  fail "importing an empty table (to make an empty cache) exited $?: $(head -c 300 import.txt)"
[[ -s empty.db ]] || fail "importing an empty table left no cache file"
GEMMTUNE_DB=$work/empty.db "$G" -q report --out empty.html
rc=$?
[[ $rc -eq 3 ]] || fail "an empty cache's report exited $rc, expected 3"
grep -q "holds no trials yet" empty.html || fail "the empty report does not say the cache is empty"
shoot empty.html empty.png empty-dom.html
"$G" -q report --table "$root/tests/data/report/h200-fp16-core.table.json" --out table.html ||
  fail "report of a table exited $?"
grep -q "a table holds each shape" table.html || fail "the table report does not say what it lacks"
"$G" -q report --format md --precision fp32 --out report.md || fail "--format md exited $?"
grep -q "^## fp32" report.md && ! grep -q "^## fp16" report.md || fail "the Markdown report: $(head -c 300 report.md)"
echo "ok: empty cache, table and Markdown"

# 3. A cache of 10^5 trials: under 10 s, under 5 MB, the landscape sampled and said so.
cp cache.db big.db
python3 - "$work/big.db" <<'PY' || fail "could not grow the cache"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(trials)")]
row = dict(zip(cols, db.execute("SELECT * FROM trials WHERE family = 'mma' ORDER BY id LIMIT 1").fetchone()))
del row["id"]
sid = db.execute("INSERT INTO searches (arguments, started_at) VALUES ('search --strategy exhaustive', 1796000000)").lastrowid
rows = []
for i in range(100000):
    r = dict(row)
    r.update(search_id=sid, kernel_id=f"mma:BM={16 << (i % 4)},BN={16 << (i // 4 % 5)},Z={i}",
             disposition="ok", time_ms=1.0 + (i % 997) * 0.001, created_at=1796000000 + i // 100,
             spread_rounds=0)
    rows.append(list(r.values()))
db.executemany(f"INSERT INTO trials ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", rows)
db.commit()
PY
start=$(date +%s%N)
GEMMTUNE_DB=$work/big.db "$G" -q report --out big.html || fail "report of the large cache exited $?"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
size=$(stat -c %s big.html)
[[ $ms -lt 10000 ]] || fail "the report of 10^5 trials took $ms ms"
[[ $size -lt 5000000 ]] || fail "the report of 10^5 trials is $size bytes"
grep -q "A sample of" big.html || fail "the large landscape does not say it is sampled"
echo "ok: 10^5 trials in $ms ms, $size bytes"
