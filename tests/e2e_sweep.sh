#!/bin/sh
# End-to-end: wafertop sweep. Every point's row equals what eval gives for
# its flags; the table is pure CSV or one JSON document; --resume keeps the
# rows the file holds (a row altered by hand stays altered: not redone) and
# runs the rest; SIGINT keeps what is done; bad files are one line, exit 2.
# usage: sh tests/e2e_sweep.sh ./wafertop
. tests/lib_e2e.sh

sw=tests/fixtures/sweeps
expect_ok sweep $sw/eval-64.yaml --out "$tmp/t.csv"
[ "$(wc -l <"$tmp/t.csv")" -eq 65 ] || fail "sweep: $(wc -l <"$tmp/t.csv") lines, want a header and 64 rows"
head -1 "$tmp/t.csv" | grep -qx 'point,link.bandwidth,unit.sram,seq,run_strategy,fits,step_time_s,tokens_per_s,mfu,mem_bytes,max_link_util,error' ||
    fail "sweep: header $(head -1 "$tmp/t.csv")"
grep -q '^sweep: 64 of 64 points done (0 kept from .*t.csv), 0 of this run.s with an error' "$tmp/err" ||
    fail "sweep: the summary: $(cat "$tmp/err")"
ls "$tmp" | grep -q '^\.\?t\.csv\.' && fail "sweep left a temporary file"
# a few points against eval with the same flags (the last axis varies fastest)
python3 - "$tmp/t.csv" "$bin" <<'PY' || fail "sweep: a row differs from eval's"
import csv, json, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [int(r["point"]) for r in rows] == list(range(64)), "points"
bws, srams, seqs = ["1TB/s", "2TB/s", "4TB/s", "8TB/s"], ["110MB", "220MB", "440MB", "880MB"], ["1024", "2048", "4096", "8192"]
for i in (0, 21, 37, 63):
    r = rows[i]
    want = (bws[i // 16], srams[i // 4 % 4], seqs[i % 4])
    assert (r["link.bandwidth"], r["unit.sram"], r["seq"]) == want, (i, r)
    out = subprocess.run([sys.argv[2], "eval", "--layout", "default", "--model", "gpt3-6.7b", "--set",
                          "link.bandwidth=" + want[0], "--set", "unit.sram=" + want[1], "--seq", want[2],
                          "--format", "json"], capture_output=True, check=True).stdout
    e = json.loads(out)
    assert abs(float(r["step_time_s"]) / e["step_time_s"] - 1) < 1e-8, (i, r["step_time_s"], e["step_time_s"])
    assert r["fits"] == ("true" if e["memory"]["fits"] else "false"), (i, r["fits"])
    assert r["run_strategy"] == e["strategy"]["text"] and r["error"] == "", (i, r)
PY

# JSON: one document, the same rows
expect_ok sweep $sw/eval-64.yaml --out "$tmp/t.json" --jobs 1
python3 - "$tmp/t.json" "$tmp/t.csv" <<'PY' || fail "sweep --out .json"
import csv, json, sys
rows = json.load(open(sys.argv[1]))
want = list(csv.DictReader(open(sys.argv[2], newline="")))
assert len(rows) == 64 and [r["point"] for r in rows] == list(range(64))
for a, b in zip(rows, want):
    assert a["seq"] == b["seq"] and a["error"] is None and abs(a["step_time_s"] / float(b["step_time_s"]) - 1) < 1e-8
PY

# --resume: 10 rows kept (one altered by hand), the other 54 run
head -11 "$tmp/t.csv" | sed 's/^5,\([^,]*\),\([^,]*\),\([^,]*\),\("[^"]*"\),\([a-z]*\),[^,]*,/5,\1,\2,\3,\4,\5,999,/' \
    >"$tmp/r.csv"
grep -q '^5,.*,999,' "$tmp/r.csv" || fail "the test's altered row"
expect_ok sweep $sw/eval-64.yaml --out "$tmp/r.csv" --resume
grep -q '^sweep: 64 of 64 points done (10 kept from' "$tmp/err" || fail "--resume: $(cat "$tmp/err")"
grep -q '^5,.*,999,' "$tmp/r.csv" || fail "--resume ran a point the file held"
grep -v '^5,' "$tmp/r.csv" >"$tmp/r-others"
grep -v '^5,' "$tmp/t.csv" >"$tmp/t-others"
cmp -s "$tmp/r-others" "$tmp/t-others" || fail "--resume: the other rows differ from a whole run's"
head -3 "$tmp/t.json" >"$tmp/r.json" # a killed JSON run: "[", two rows
expect_ok sweep $sw/eval-64.yaml --out "$tmp/r.json" --resume
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r) == 64' "$tmp/r.json" ||
    fail "--resume of a JSON table"

# under mpirun (OpenMPI; make deps installs it): the same table whatever the
# number of ranks, rank 0 handing points out as ranks ask; --resume too.
mpi_ready
for n in 1 2 4; do
    mpi -n $n "$bin" sweep $sw/eval-64.yaml --out "$tmp/m$n.csv" >"$tmp/out" 2>"$tmp/err" ||
        fail "mpirun -n $n sweep: exit $?: $(tail -5 "$tmp/err")"
    cmp -s "$tmp/m$n.csv" "$tmp/t.csv" || fail "mpirun -n $n sweep: another table than one process's"
    [ "$(grep -c '^sweep: 64 of 64 points done' "$tmp/err")" -eq 1 ] || fail "mpirun -n $n: rank 0 alone reports: $(cat "$tmp/err")"
done
expect_ok sweep $sw/search-4.yaml --out "$tmp/s1.csv"
mpi -n 3 "$bin" sweep $sw/search-4.yaml --out "$tmp/s3.csv" >"$tmp/out" 2>"$tmp/err" || fail "mpirun -n 3 searches: $(tail -5 "$tmp/err")"
cmp -s "$tmp/s1.csv" "$tmp/s3.csv" || fail "mpirun -n 3 sweep of searches: another table"
head -21 "$tmp/t.csv" >"$tmp/mr.csv"
mpi -n 2 "$bin" sweep $sw/eval-64.yaml --out "$tmp/mr.csv" --resume >"$tmp/out" 2>"$tmp/err" || fail "mpirun --resume"
grep -q '^sweep: 64 of 64 points done (20 kept from' "$tmp/err" && cmp -s "$tmp/mr.csv" "$tmp/t.csv" ||
    fail "mpirun -n 2 --resume: $(cat "$tmp/err")"
# errors: rank 0 alone says it, every rank ends (a table of another sweep: the others are released)
mpi -n 2 "$bin" sweep "$tmp/nope.yaml" >"$tmp/out" 2>"$tmp/err" && fail "mpirun with a missing file: exit 0"
[ "$(grep -c "nope.yaml: cannot open" "$tmp/err")" -eq 1 ] || fail "mpirun with a missing file: $(cat "$tmp/err")"
printf 'point,a\n' >"$tmp/other-mpi.csv"
mpi -n 3 "$bin" sweep $sw/eval-64.yaml --out "$tmp/other-mpi.csv" --resume >"$tmp/out" 2>"$tmp/err" &&
    fail "mpirun --resume of another table: exit 0"
[ "$(grep -c "holds another sweep's table" "$tmp/err")" -eq 1 ] || fail "mpirun --resume of another table: $(cat "$tmp/err")"

# searches, an invalid point recorded with its reason; SIGINT keeps what is done
expect_ok sweep $sw/search-4.yaml --out "$tmp/s.csv"
python3 - "$tmp/s.csv" <<'PY' || fail "sweep of searches: $(cat "$tmp/s.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 4
small = [r for r in rows if r["unit.sram"] == "2MB"]
big = [r for r in rows if r["unit.sram"] == "40GB"]
assert all(r["error"].startswith("nothing fits") for r in small), small
assert all(r["error"] == "" and r["fits"] == "true" and float(r["step_time_s"]) > 0 for r in big), big
PY
printf 'scenario: {strategy: DP3}\naxes:\n  seq: [1024, 2048]\n' >"$tmp/bad-point.yaml"
expect_ok sweep "$tmp/bad-point.yaml" --out "$tmp/b.csv"
grep -q '^0,1024,,,,,,,,--strategy: strategy DP3: batch 1024 is not a multiple of DP 3' "$tmp/b.csv" || fail "an invalid point's row: $(cat "$tmp/b.csv")"
grep -q ', 2 of this run.s with an error' "$tmp/err" || fail "invalid points: $(cat "$tmp/err")"

cat >"$tmp/slow.yaml" <<'Y'
run: search
scenario: {layout: default}
axes:
  seq: {from: 64, to: 65536, times: 2}
  batch: [512, 1024, 2048, 4096]
Y
"$bin" sweep "$tmp/slow.yaml" --out "$tmp/slow.csv" --jobs 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0 # until the table holds a point (written at most once a second), then Ctrl-C
while [ $i -lt 600 ] && [ "$(cat "$tmp/slow.csv" 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "sweep after SIGINT: exit $rc (want 130): $(cat "$tmp/err")"
grep -q '^sweep: interrupted: .*slow.csv keeps the [0-9]* points done; --resume runs the rest$' "$tmp/err" ||
    fail "SIGINT: $(cat "$tmp/err")"
head -1 "$tmp/slow.csv" | grep -q '^point,seq,batch,run_strategy' || fail "SIGINT: no table kept"
kept=$(($(wc -l <"$tmp/slow.csv") - 1))
[ $kept -ge 1 ] && [ $kept -lt 44 ] || fail "SIGINT: $kept of 44 points kept"

# plot: the table as text, SVG and PNG; a line per --by value, rows --where keeps
expect_ok plot "$tmp/t.csv" --x seq --y tokens_per_s --by link.bandwidth --where unit.sram=440MB
grep -q '^tokens_per_s by seq$' "$tmp/out" || fail "plot as text: $(head -3 "$tmp/out")"
[ "$(grep -c '^ *[*o+x] link.bandwidth = [1248]TB/s$' "$tmp/out")" -eq 4 ] || fail "plot: the legend: $(cat "$tmp/out")"
grep -q '^ *1024 *8192$' "$tmp/out" || fail "plot: the x range: $(tail -7 "$tmp/out")"
expect_ok plot "$tmp/t.csv" --x seq --y tokens_per_s --by link.bandwidth --where unit.sram=440MB --out "$tmp/p.svg"
python3 - "$tmp/p.svg" "$tmp/t.csv" <<'PY' || fail "plot --out .svg"
import csv, re, sys
svg = open(sys.argv[1]).read()
texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
assert "tokens_per_s by seq, a line per link.bandwidth" in texts, texts[:5]
assert all(b in texts for b in ("1TB/s", "2TB/s", "4TB/s", "8TB/s")), texts
# every point a 5x5 square: 4 lines of 4 points
marks = re.findall(r'<rect x="\d+" y="\d+" width="5" height="5"', svg)
assert len(marks) == 16, len(marks)
PY
expect_ok plot "$tmp/t.csv" --x link.bandwidth --y mfu --out "$tmp/p.png"
python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24); assert d[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", d[16:24]) == (800, 500)' \
    "$tmp/p.png" || fail "plot --out .png"
# spans narrower than the doubles' spacing end (a tick loop once never did)
printf 'x,y,g\n1e20,1,a\n1.00000000000000016e20,2,a\n' >"$tmp/ulp.csv"
timeout 20 "$bin" plot "$tmp/ulp.csv" --x x --y y --out "$tmp/ulp.svg" 2>"$tmp/err" || fail "plot of a tiny span: $(cat "$tmp/err")"
awk 'BEGIN { print "x,y,g"; for (i = 0; i < 300; i++) printf "c%d,%d,a\n", i, i }' >"$tmp/cats.csv"
expect_bad1 "^--x: more than 256 values that are not numbers$" plot "$tmp/cats.csv" --x x --y y
printf 'x,y\n0,1\n1,2\n' >"$tmp/zero.csv"
expect_bad1 "^--logx: '0' in row 1 is not above 0$" plot "$tmp/zero.csv" --x x --y y --logx
expect_bad1 "^--y: no column 'tokens' (the table's: point, link.bandwidth," plot "$tmp/t.csv" --x seq --y tokens
expect_bad1 "^--x: the column to plot is needed$" plot "$tmp/t.csv" --y mfu
expect_bad1 "^--out: " plot "$tmp/t.csv" --x seq --y mfu --out p.txt
expect_bad1 "t.json:2: not a row of the table's 1 columns" plot "$tmp/t.json" --x seq --y mfu
expect_bad1 "^plot: no row --where keeps has a number for --y$" plot "$tmp/t.csv" --x seq --y mfu --where seq=3

# bad input: one line with file:line:col or the flag, exit 2
printf 'axes:\n  link.bandwith: [1TB/s]\n' >"$tmp/bad1.yaml"
expect_bad1 "^$tmp/bad1.yaml:2:3: axes: no scenario flag or layout field 'link.bandwith'" sweep "$tmp/bad1.yaml"
printf 'axes:\n  seq: []\n' >"$tmp/bad2.yaml"
expect_bad1 "^$tmp/bad2.yaml:2:8: axes: seq: no values$" sweep "$tmp/bad2.yaml"
printf 'axes:\n  seq: {from: 1024, to: 512, times: 2}\n' >"$tmp/bad3.yaml"
expect_bad1 "^$tmp/bad3.yaml:2:8: axes: seq: a range from 1024 up to 512 by times 2 never ends or is empty$" \
    sweep "$tmp/bad3.yaml"
printf 'run: evaluate\naxes: {seq: [1]}\n' >"$tmp/bad4.yaml"
expect_bad1 "^$tmp/bad4.yaml:1:6: run: 'evaluate' is neither eval nor search$" sweep "$tmp/bad4.yaml"
mkdir "$tmp/dir.csv"
expect_bad1 "^--out: .*dir.csv" sweep $sw/eval-64.yaml --out "$tmp/dir.csv"
expect_bad1 "^--out: 'x.txt': FILE.csv or FILE.json$" sweep $sw/eval-64.yaml --out x.txt
expect_bad1 "^--resume: only with --out FILE" sweep $sw/eval-64.yaml --resume
expect_bad1 "^--jobs: '0' is not a count from 1 to 1024$" sweep $sw/eval-64.yaml --jobs 0
expect_bad1 "^unknown option '--nope' (sweep --help)$" sweep $sw/eval-64.yaml --nope
expect_bad1 "^--where: COLUMN=VALUE is needed$" plot "$tmp/t.csv" --x seq --y mfu --where seq
expect_bad1 "^sweep: which file" sweep
expect_bad1 "nope.yaml: cannot open" sweep nope.yaml
printf 'point,a\n' >"$tmp/other.csv"
expect_bad1 "^--resume: .*other.csv holds another sweep's table" sweep $sw/eval-64.yaml --out "$tmp/other.csv" --resume
expect_ok sweep $sw/search-4.yaml --out "$tmp/s4.json"
expect_bad1 "^--resume: .*s4.json:2: point 0's axes are not this sweep's" sweep $sw/eval-64.yaml --out "$tmp/s4.json" --resume
printf 'axes:\n  seq: [1024, 2048, 1024]\n' >"$tmp/bad5.yaml"
expect_bad1 "^$tmp/bad5.yaml:2:21: axes: seq: '1024' twice$" sweep "$tmp/bad5.yaml"
printf 'axes:\n  link.bandwidth: [1TB/s, "2TB/s\\nx"]\n' >"$tmp/bad6.yaml"
expect_bad1 "^$tmp/bad6.yaml:2:27: axes: link.bandwidth: a value must not hold a control character$" sweep "$tmp/bad6.yaml"
printf 'scenario: {seq: 2048, set: [unit.sram=1GB]}\naxes:\n  unit.sram: [2GB]\n' >"$tmp/bad7.yaml"
expect_bad1 "^$tmp/bad7.yaml:3:3: axes: unit.sram: the scenario sets it too; give it in one place$" sweep "$tmp/bad7.yaml"
# ranges: exact values, to included (negative too)
printf 'axes:\n  seq: {from: 1000, to: 1010, step: 2.5}\n  link.latency: {from: -3ns, to: -1ns, step: 1ns}\n' >"$tmp/r.yaml"
expect_ok sweep "$tmp/r.yaml" --out "$tmp/r.csv"
[ "$(cut -d, -f2 "$tmp/r.csv" | sort -u | tr '\n' ' ')" = "1000 1002.5 1005 1007.5 1010 seq " ] || fail "range by step: $(cut -d, -f2 "$tmp/r.csv" | sort -u)"
[ "$(cut -d, -f3 "$tmp/r.csv" | sort -u | tr '\n' ' ')" = "-1ns -2ns -3ns link.latency " ] || fail "a negative range"

finish e2e_sweep
