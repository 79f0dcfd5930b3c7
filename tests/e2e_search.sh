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
expect_bad "no candidate fits .* the units" search --layout dojo-tile --model gopher-280b --quiet

finish e2e_search
