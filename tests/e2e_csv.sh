#!/bin/sh
# End-to-end: every CSV wafertop writes is read as it is by Python's csv
# module (what pandas.read_csv does with its default arguments): the header
# it should have, every row with the header's number of fields, no comment
# line, no blank line, quoted text that comes back as it went in; what is
# said about the rows goes to stderr.
# usage: sh tests/e2e_csv.sh ./wafertop
. tests/lib_e2e.sh

command -v python3 >/dev/null || { fail "python3 is needed to read the CSV as tools do"; finish e2e_csv; }

# check.py FILE HEADER ROWS [ROW:COLUMN=VALUE ...]: HEADER the exact header
# line ("-": any, its names unique and not empty), ROWS the number of rows
# ("-": any); each ROW:COLUMN=VALUE is a parsed cell (rows from 1)
cat >"$tmp/check.py" <<'EOF'
import csv, sys
path, header, nrows = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, newline="").read()
bad = [l for l in text.splitlines() if l.startswith("#") or not l.strip()]
if bad:
    sys.exit("%s: comment or blank lines: %r" % (path, bad[:3]))
if not text.endswith("\n"):
    sys.exit("%s: the last line has no newline" % path)
rows = list(csv.reader(open(path, newline="")))
if not rows:
    sys.exit("%s: empty, not even a header" % path)
head, body = rows[0], rows[1:]
if header != "-" and head != header.split(","):
    sys.exit("%s: header %r, want %r" % (path, head, header))
if len(set(head)) != len(head) or "" in head:
    sys.exit("%s: header names not unique or empty: %r" % (path, head))
for i, r in enumerate(body, 1):
    if len(r) != len(head):
        sys.exit("%s: row %d has %d fields, the header %d: %r" % (path, i, len(r), len(head), r))
if nrows != "-" and len(body) != int(nrows):
    sys.exit("%s: %d rows, want %d" % (path, len(body), nrows))
byname = list(csv.DictReader(open(path, newline="")))
for want in sys.argv[4:]:
    where, value = want.split("=", 1)
    row, col = where.split(":", 1)
    got = byname[int(row) - 1][col]
    if got != value:
        sys.exit("%s: row %s %s is %r, want %r" % (path, row, col, got, value))
EOF

# csv_ok WHAT HEADER ROWS ARGS...: runs wafertop ARGS (exit 0 or, with
# want_rc, that) and checks its stdout as check.py does
csv_ok() {
    what=$1 header=$2 rows=$3
    shift 3
    "$bin" "$@" >"$tmp/out.csv" 2>"$tmp/err"
    rc=$?
    [ $rc -eq "${want_rc:-0}" ] || { fail "$what: exit $rc: $(cat "$tmp/err")"; return; }
    python3 "$tmp/check.py" "$tmp/out.csv" "$header" "$rows" >"$tmp/why" 2>&1 || fail "$what: $(cat "$tmp/why")"
}

# cells ROW:COLUMN=VALUE...: cells of the last CSV, as Python reads them
cells() {
    python3 "$tmp/check.py" "$tmp/out.csv" - - "$@" >"$tmp/why" 2>&1 || fail "$(cat "$tmp/why")"
}

small="--layout dojo-tile --model tests/fixtures/models/search-small.yaml"

# eval: a header and one row; a layout's name with a quote and a comma comes back whole
csv_ok eval - 1 eval --strategy DP8,TATP16 --format csv
[ "$(head -1 "$tmp/out.csv" | tr , '\n' | wc -l)" -eq 67 ] || fail "eval CSV has not 67 columns"
cells 1:strategy.text=DP8,TATP16 1:layout=default
printf 'name: '"'"'my "big", wafer'"'"'\nmesh: 4x4\nunit: {compute: 100 TFLOPS, sram: 2 GB}\nlink: {bandwidth: 1 TB/s, latency: 100 ns}\n' \
    >"$tmp/quoted.yaml"
csv_ok 'eval of a quoted name' - 1 eval --layout "$tmp/quoted.yaml" --strategy DP4 --format csv
cells '1:layout=my "big", wafer'
grep -q '^"my ""big"", wafer",' "$tmp/out.csv" || fail "the layout's name is not quoted as RFC 4180 says"

# links: one row per directed link of the 16x16 mesh (2 * 2 * 15 * 16 = 960),
# CSV by default; with --phase too
links=x,y,dir,bytes,busy_s,util,peak_util,hot_s
csv_ok links $links 960 links --strategy TATP16
cells 1:x=0 1:y=0 1:dir=E
csv_ok 'links --phase' $links 960 links --strategy DP256 --phase dp.allreduce --format csv

# links --net flit: the phase's window (the whole 16x16 mesh) at flit level,
# its buffers beside each link; what was run on stderr
flit=x,y,dir,bytes,busy_s,util,buffer_mean,buffer_peak
csv_ok 'links --net flit' $flit 960 links --net flit --phase fwd.attn.core
cells 1:x=0 1:y=0 1:dir=E
grep -q '^flit level: fwd.attn.core, one occurrence: .*, flow level .*; window 0,0 16x16, 512 flows' "$tmp/err" ||
    fail "links --net flit: the summary is not on stderr: $(cat "$tmp/err")"
python3 - "$tmp/out.csv" <<'PY' || fail "links --net flit: figures out of range"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(0 <= float(r["util"]) <= 1 and 0 <= int(r["buffer_peak"]) <= 128 for r in rows)
assert max(float(r["util"]) for r in rows) > 0.5 and max(int(r["buffer_peak"]) for r in rows) > 8
PY

# calibrate: a row per pattern it ran at flit level (on a copy of the
# layout: the factors go beside it)
cp layouts/wsc-6x9.yaml "$tmp/wsc.yaml"
csv_ok calibrate kind,pass,routing,class,weight_s,flow_s,flit_s,ratio,x0,y0,w,h,flows_out,skipped 4 calibrate --layout "$tmp/wsc.yaml"
cells 3:kind=pp 3:pass=shift 3:class=shift 1:w=6 1:h=9 1:flows_out=0

# search: the top 3 and the three baselines; the counts on stderr
search=kind,rank,strategy,placement,collective,checkpoint,mem,chunk,exec,tp_seqpar,microbatch,step_time_s
search=$search,tokens_per_s,mfu,max_link_util,memory_total,speedup
csv_ok search $search 6 search $small --quiet --top 3 --format csv
cells 1:kind=top 1:rank=1 4:kind=megatron-tp 5:kind=deepspeed-3d 6:kind=best-no-tatp
grep -q '^candidates=[0-9]*,pruned_memory=' "$tmp/err" || fail "search: the counts are not on stderr"
# nothing fits (exit 3): the header alone
want_rc=3 csv_ok 'search that finds nothing' $search 0 search --model 70b --quiet --format csv
grep -q '^search: nothing fits' "$tmp/err" || fail "search: why nothing fits is not on stderr"

# tune: one row per step; the summary on stderr; a policy's error with a
# quote and a comma comes back whole in the action column
tune=step,strategy,step_time_s,max_link_util,max_peak_util,hot_links,action
csv_ok tune $tune 3 tune --steps 3 --format csv
cells 1:step=1 3:step=3 1:strategy=DP8,TP2,SP4,TATP4x1
grep -q '^best  (step 1): ' "$tmp/err" || fail "tune: the summary is not on stderr: $(cat "$tmp/err")"
printf 'wt.policy("q", {on_step = function() error('"'"'bad "x", y'"'"', 0) end})\n' >"$tmp/q.lua"
csv_ok 'tune with a quote in an action' $tune 2 tune --steps 2 --policy "$tmp/q.lua" --format csv
cells '1:action=policy q stopped: bad "x", y' 2:action=-

# compare: a row per figure: the 67 step figures (eval's CSV columns), then
# 10 figures of each of the 14 phases of either side; its summary on stderr
csv_ok compare phase,figure,a,b,b_over_a,b_minus_a 207 compare DP8,TATP16 DP8,TP32 --format csv
cells 1:figure=layout 1:a=default 1:b=default
grep -q '^compare: B/A step time ' "$tmp/err" || fail "compare: the summary is not on stderr"

# cmd link_util --format csv: --format after the command's name is the
# command's; 1x1 tiles on 16x16, or 4x4 tiles of 4x4
tiles=tile_x,tile_y,mean_util,max_util
csv_ok 'cmd link_util' $tiles 256 cmd link_util --format csv
cells 1:tile_x=0 1:tile_y=0 2:tile_x=1
csv_ok 'cmd link_util --group 4x4' $tiles 16 cmd link_util --group 4x4 --format csv --strategy DP8,TP32 \
    --placement linear
cells 16:tile_x=3 16:tile_y=3

finish e2e_csv
