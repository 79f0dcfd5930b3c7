#!/bin/sh
# End-to-end: wafertop search, its formats, its determinism and its refusals.
# usage: sh tests/e2e_search.sh ./wafertop
. tests/lib_e2e.sh

small="--layout dojo-tile --model tests/fixtures/models/search-small.yaml --quiet"

expect_ok search $small --top 3 --format json
for key in candidates pruned_memory pruned_bound evaluated elapsed_s best top baselines name strategy \
    step_time_s speedup mfu memory phases; do
    grep -q "\"$key\":" "$tmp/out" || fail "search JSON lacks \"$key\""
done
grep -q '"name":"megatron-tp"' "$tmp/out" || fail "no megatron-tp baseline"
grep -q '"name":"deepspeed-3d"' "$tmp/out" || fail "no deepspeed-3d baseline"
grep -q '"name":"best-no-tatp"' "$tmp/out" || fail "no best-no-tatp baseline"

expect_ok search $small --top 3
grep -q '^candidates [0-9]*: [0-9]* pruned by memory' "$tmp/out" || fail "search table counts"
grep -q '^1 ' "$tmp/out" || fail "search table has no rank 1"

# the same answer for any number of threads, and exhaustive agrees
"$bin" search $small --top 5 --format csv --jobs 1 >"$tmp/one" 2>"$tmp/err"
# pure CSV: a header and rows (the counts go to stderr)
head -1 "$tmp/one" | grep -q '^kind,rank,strategy,' || fail "search CSV does not start with its header"
! grep -q '^#' "$tmp/one" || fail "search CSV holds a comment line"
grep -q '^candidates=[0-9]*,pruned_memory=' "$tmp/err" || fail "search CSV's counts are not on stderr"
"$bin" search $small --top 5 --format csv --jobs 3 2>/dev/null >"$tmp/three"
"$bin" search $small --top 5 --format csv --exhaustive 2>/dev/null | grep '^top' >"$tmp/all"
cmp -s "$tmp/one" "$tmp/three" || fail "--jobs 1 and --jobs 3 differ"
grep '^top' "$tmp/one" | cmp -s - "$tmp/all" || fail "pruned and exhaustive top 5 differ"
[ "$(grep -c '^top' "$tmp/one")" -eq 5 ] || fail "top 5 rows"
[ "$("$bin" search $small --objective tokens_per_s --format csv --top 1 | grep '^top')" = "$(head -1 "$tmp/all")" ] \
    || fail "tokens_per_s and step_time disagree on the best"

# the top list shows distinct strategies: read as the same with zero off and
# 2d or hier as the ring, no two rows of the top 10 are alike, figures and
# all (DP1,TATP5x5 on tiles came with ring, bidir, 2d and hier, and again
# with zero, which does nothing at DP 1); and the ring's row is the one kept
"$bin" search $small --top 10 --format csv 2>/dev/null | grep '^top' >"$tmp/ten"
[ "$(wc -l <"$tmp/ten")" -eq 10 ] || fail "search --top 10 rows: $(cat "$tmp/ten")"
python3 -c '
import csv, sys
seen = set()
for row in csv.reader(open(sys.argv[1])):
    row[4] = "ring" if row[4] in ("2d", "hier") else row[4]
    row[6] = ",".join(m for m in row[6].split(",") if m != "zero") or "none"
    key = tuple(row[2:])
    if key in seen:
        print(",".join(row))
    seen.add(key)' "$tmp/ten" >"$tmp/repeats"
[ ! -s "$tmp/repeats" ] || fail "search's top 10 repeats a strategy: $(cat "$tmp/repeats")"
head -1 "$tmp/ten" | grep -q '^top,1,"DP1,TATP5x5",tiles,ring,none,act_int8,' ||
    fail "search's best is not the ring's row: $(head -1 "$tmp/ten")"

# narrowing
expect_ok search $small --allow-idle --fix tatp=1 --only placement=linear,collective=ring --format csv --top 1
grep '^top' "$tmp/out" | grep -q ',linear,ring,' || fail "--only placement=linear,collective=ring"
grep '^top' "$tmp/out" | grep -qv 'TATP' || fail "--fix tatp=1"

# refusals
expect_bad "^--fix: dp=0 is not a positive whole number" search $small --fix dp=0
expect_bad "^--only: placement=diagonal is not a choice" search $small --only placement=diagonal
expect_bad "^--objective: 'fast'" search $small --objective fast
expect_bad "^--top: '0' is not a positive whole number" search $small --top 0
expect_bad "^search chooses the strategy" search $small --strategy TP4
expect_bad "the search space is empty" search $small --fix tp=3

# no large structure on the stack: the whole search (the default layout, its
# baselines) runs under the issue's 4 MB stack limit and under 512 KB; it
# needed 3.8 MB when the result lived on the stack twice
for kb in 4096 512; do
    (ulimit -s $kb && exec "$bin" search --quiet --top 1 --format csv) >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "search under ulimit -s $kb: exit $rc: $(cat "$tmp/err")"
    [ "$(grep -c '^top,1,' "$tmp/out")" -eq 1 ] && grep -q '^megatron-tp,0,' "$tmp/out" ||
        fail "search under ulimit -s $kb printed: $(cat "$tmp/out")"
done

# nothing fits: an answer in every format, one line on stderr, exit 3
nofit() {
    "$bin" search --layout dojo-tile --model gopher-280b --quiet "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 3 ] || fail "exit $rc (want 3) when nothing fits: search $*"
    [ "$(grep -c '^search: nothing fits' "$tmp/err")" -eq 1 ] &&
        tail -n 1 "$tmp/err" | grep -q '^search: nothing fits gopher-280b on dojo-tile: no candidate fits .* the units' ||
        fail "stderr of search $* when nothing fits: $(cat "$tmp/err")"
}
nofit --format json
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "the JSON when nothing fits is not one line: $(cat "$tmp/out")"
grep -q '^{"candidates":[1-9][0-9]*,.*"fits":false,"why":"no candidate fits the 0.44 GB of a unit: .*","best":null,"top":\[\],"baselines":\[\]}$' \
    "$tmp/out" || fail "the JSON when nothing fits: $(cat "$tmp/out")"
nofit --format csv
[ "$(cat "$tmp/out")" = "kind,rank,strategy,placement,collective,checkpoint,mem,chunk,exec,tp_seqpar,microbatch,step_time_s,tokens_per_s,mfu,max_link_util,memory_total,speedup" ] ||
    fail "the CSV when nothing fits is not its header alone: $(cat "$tmp/out")"
nofit
grep -q '^nothing fits: no candidate fits the 0.44 GB of a unit' "$tmp/out" || fail "the table when nothing fits: $(cat "$tmp/out")"
# the README's example: 70B fits nowhere on the default layout's 256 dies
"$bin" search --model 70b --format json --quiet >"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] && grep -q '"fits":false' "$tmp/out" || fail "search --model 70b --format json: $(cat "$tmp/out" "$tmp/err")"
expect_ok search $small --format json --top 1
grep -q '"fits":true,"best":{' "$tmp/out" || fail "the JSON of a search that found one lacks fits: true"

# under mpirun: each rank a shard of the candidates, rank 0 the merge. The
# same answer as one process's, whatever the number of ranks: the top equals
# --exhaustive's (dojo-tile's small space), pruned or exhaustive shards
# alike; on the default
# layout's 15 M candidates, the top, baselines and counts (but the
# evaluations, which each shard prunes by what it knows) equal the plain
# run's; one report, rank 0's
mpi_ready
counts() { sed 's/,evaluated=.*//; s/,pruned_bound=[0-9]*//' "$1"; }
"$bin" search $small --top 5 --format csv 2>"$tmp/plain.err" >"$tmp/plain"
for n in 1 2 4; do
    for how in "" --exhaustive; do
        mpi -n $n "$bin" search $small --top 5 --format csv $how >"$tmp/m" 2>"$tmp/err" ||
            fail "mpirun -n $n search $how: exit $?: $(tail -3 "$tmp/err")"
        grep '^top' "$tmp/m" | cmp -s - "$tmp/all" || fail "mpirun -n $n search $how: another top than --exhaustive's"
        cmp -s "$tmp/m" "$tmp/plain" || fail "mpirun -n $n search $how: other baselines than one process's"
        [ "$(counts "$tmp/err")" = "$(counts "$tmp/plain.err")" ] ||
            fail "mpirun -n $n search $how: counts $(cat "$tmp/err") against $(cat "$tmp/plain.err")"
    done
done
"$bin" search --quiet --format csv >"$tmp/plain" 2>"$tmp/plain.err"
for n in 2 4; do
    mpi -n $n "$bin" search --quiet --format csv >"$tmp/m" 2>"$tmp/err" || fail "mpirun -n $n search: exit $?"
    cmp -s "$tmp/m" "$tmp/plain" || fail "mpirun -n $n search on default: another answer than one process's"
    [ "$(counts "$tmp/err")" = "$(counts "$tmp/plain.err")" ] ||
        fail "mpirun -n $n search on default: counts $(cat "$tmp/err") against $(cat "$tmp/plain.err")"
done
mpi -n 2 "$bin" search --format json --quiet --top 2 >"$tmp/out" 2>"$tmp/err"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r["top"]) == 2' "$tmp/out" ||
    fail "mpirun -n 2 search --format json: not one document: $(head -c 300 "$tmp/out")"
# nothing fits, and a bad flag: what one process says, once
mpi -n 2 "$bin" search --layout dojo-tile --model gopher-280b --quiet >"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(grep -c '^search: nothing fits gopher-280b on dojo-tile: no candidate fits' "$tmp/err")" -eq 1 ] ||
    fail "mpirun -n 2 search when nothing fits: $(cat "$tmp/err")"
mpi -n 2 "$bin" search --top 0 >"$tmp/out" 2>"$tmp/err"
[ $? -ne 0 ] && [ "$(grep -c "^--top: '0' is not a positive whole number" "$tmp/err")" -eq 1 ] ||
    fail "mpirun -n 2 search --top 0: $(cat "$tmp/err")"
# a rank whose file is missing (a node without it) stops every rank, and
# says so itself: no hang (rank 0 waited for it forever)
timeout 60 mpirun --oversubscribe -x ASAN_OPTIONS -x LSAN_OPTIONS -n 1 "$bin" search $small : \
    -n 1 "$bin" search --layout dojo-tile --model "$tmp/nope.yaml" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^search: rank 1: .*nope.yaml: cannot open" "$tmp/err" &&
    grep -q "^search: another rank failed before the search" "$tmp/err" ||
    fail "mpirun with a file one rank lacks: exit $rc (124: a hang): $(cat "$tmp/err")"
# three ranks on a layout with a parameter store (every fitting candidate
# streams) and a top longer than a batch of level 2: --exhaustive's
store="--layout tests/fixtures/layouts/store-4x4.yaml --model tests/fixtures/models/minimal.yaml --quiet"
"$bin" search $store --exhaustive --top 40 --format csv 2>/dev/null | grep '^top' >"$tmp/store.all"
[ -s "$tmp/store.all" ] || fail "search on store-4x4 found nothing"
mpi -n 3 "$bin" search $store --top 40 --format csv 2>"$tmp/err" | grep '^top' | cmp -s - "$tmp/store.all" ||
    fail "mpirun -n 3 search on store-4x4: another top than --exhaustive's: $(tail -3 "$tmp/err")"

# a long search says how far it is where stderr is no terminal (a 2048x2048
# mesh's ran for minutes without a word): a line every 10 s, none with --quiet
printf 'name: big\nmesh: 1024x1024\nunit: {compute: 100 TFLOPS, sram: 2 GB}\nlink: {bandwidth: 1 TB/s, latency: 100 ns}\n' >"$tmp/big.yaml"
timeout 25 "$bin" search --layout "$tmp/big.yaml" >/dev/null 2>"$tmp/err"
grep -q '^search: [0-9]*% after [12][0-9] s' "$tmp/err" || fail "a long search printed no progress: $(cat "$tmp/err")"
timeout 12 "$bin" search --layout "$tmp/big.yaml" --quiet >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] || fail "search --quiet printed: $(cat "$tmp/err")"

finish e2e_search
