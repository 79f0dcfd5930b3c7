#!/bin/sh
# End-to-end: `wafertop compare A B` against `wafertop eval` of each side, in
# every format, and its bad input (one line, exit 2).
# usage: sh tests/e2e_compare.sh ./wafertop
. tests/lib_e2e.sh

opts="--checkpoint full --mem zero,act_int8,grad_fp8"
a=DP4,TATP64
b="DP8,TP32;placement=linear"

# CSV: one header, then a row per figure; each side's value is eval's
expect_ok compare "$a" "$b" $opts --format csv
mv "$tmp/out" "$tmp/cmp.csv"
head -1 "$tmp/cmp.csv" | grep -qx 'phase,figure,a,b,b_over_a,b_minus_a' || fail "compare CSV header: $(head -1 "$tmp/cmp.csv")"
grep -q '^#' "$tmp/cmp.csv" && fail "compare CSV has comments"
grep -q 'B/A step time' "$tmp/err" || fail "compare CSV: no summary on stderr"
expect_ok eval --strategy "$a" $opts --format csv
mv "$tmp/out" "$tmp/a.csv"
expect_ok eval --strategy DP8,TP32 --placement linear $opts --format csv
mv "$tmp/out" "$tmp/b.csv"
# a CSV with the commas inside quotes as ';' (a list), so that awk -F, splits it
unquote() {
    awk '{ out = ""; q = 0
           for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c == "\"") q = !q; else if (c == "," && q) c = ";"; out = out c }
           print out }' "$1"
}
# column of figure NAME in an eval CSV
eval_col() { unquote "$1" | awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }'; }
# field F (3 = a, 4 = b, 5 = b/a, 6 = b-a) of figure NAME of phase P ("" = the step's)
cmp_col() { unquote "$tmp/cmp.csv" | awk -F, -v p="$1" -v k="$2" -v f="$3" '$1 == p && $2 == k { print $f }'; }
for k in step_time_s tokens_per_s mfu max_link_util mean_link_util hot_links bottleneck_phase memory.total memory.fits strategy.text; do
    [ "$(cmp_col "" $k 3)" = "$(eval_col "$tmp/a.csv" $k)" ] || fail "compare CSV $k of A: $(cmp_col "" $k 3), eval says $(eval_col "$tmp/a.csv" $k)"
    [ "$(cmp_col "" $k 4)" = "$(eval_col "$tmp/b.csv" $k)" ] || fail "compare CSV $k of B: $(cmp_col "" $k 4), eval says $(eval_col "$tmp/b.csv" $k)"
done
[ "$(cmp_col "" strategy.placement 4)" = linear ] || fail "B's own placement=linear not applied"
[ "$(cmp_col "" strategy.placement 3)" = tiles ] || fail "A's placement is not the default tiles"
awk -F, '$1 == "" && $2 == "step_time_s" { r = $4 / $3; exit (r / $5 > 1 - 1e-9 && r / $5 < 1 + 1e-9) ? 0 : 1 }' "$tmp/cmp.csv" ||
    fail "compare CSV: step_time_s b_over_a is not b / a"
# a phase row: time_s of dp.allreduce, A's and B's and their difference
expect_ok eval --strategy "$a" $opts --format json
mv "$tmp/out" "$tmp/a.json"
expect_ok eval --strategy DP8,TP32 --placement linear $opts --format json
mv "$tmp/out" "$tmp/b.json"
phase_of() { grep -o '"name":"dp.allreduce"[^}]*' "$1" | sed -n 's/.*"time_s":\([^,]*\),.*/\1/p'; }
awk -v a="$(cmp_col dp.allreduce time_s 3)" -v b="$(cmp_col dp.allreduce time_s 4)" -v d="$(cmp_col dp.allreduce time_s 6)" \
    -v wa="$(phase_of "$tmp/a.json")" -v wb="$(phase_of "$tmp/b.json")" \
    'BEGIN { ok = wa > 0 && a / wa - 1 < 1e-9 && wa / a - 1 < 1e-9 && b / wb - 1 < 1e-9 && wb / b - 1 < 1e-9;
             ok = ok && (d - (b - a)) ^ 2 <= 1e-18 * (b ^ 2 + a ^ 2); exit ok ? 0 : 1 }' ||
    fail "compare CSV dp.allreduce time_s: $(cmp_col dp.allreduce time_s 3) $(cmp_col dp.allreduce time_s 4), eval says $(phase_of "$tmp/a.json") $(phase_of "$tmp/b.json")"
# every phase of either side, each with its 10 figures
rows=$(awk -F, 'NR > 1 && $1 != "" { n++ } END { print n + 0 }' "$tmp/cmp.csv")
[ "$rows" -ge 100 ] || fail "compare CSV has $rows phase rows"

# JSON: one document; a and b are eval's, the ratios and differences follow
expect_ok compare "$a" "$b" $opts --format json
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "compare JSON is not one line"
"$bin" run --lua-path tests/lua tests/lua/compare_json.lua "$(cat "$tmp/out")" "$(cat "$tmp/a.json")" "$(cat "$tmp/b.json")" \
    >"$tmp/lua" 2>&1 || fail "compare JSON: $(cat "$tmp/lua")"
grep -q 'compare_json: ok' "$tmp/lua" || fail "compare JSON check printed no ok: $(cat "$tmp/lua")"

# table: both sides, the ratio, a row per phase
expect_ok compare "$a" "$b" $opts
grep -q '^step time .*DP\|^strategy  *DP4,TATP64  *DP8,TP32' "$tmp/out" || fail "compare table lacks the strategies: $(cat "$tmp/out")"
grep -q '^mem fits  *fits  *fits' "$tmp/out" || fail "compare table: both fit: $(cat "$tmp/out")"
grep -q '^dp.allreduce ' "$tmp/out" || fail "compare table lacks the dp.allreduce row"
expect_ok compare DP8,TATP16 DP8,TP32
grep -q '^mem fits  *DOES NOT FIT' "$tmp/out" || fail "compare table: a side that does not fit in memory is shown as eval shows it"

# the README's second line: both sides DOES NOT FIT, compared all the same
expect_ok compare DP8,TATP16 DP8,TP32 --format csv
grep -qx ',memory.fits,false,false,,' "$tmp/out" || fail "compare CSV of two that do not fit: $(grep fits "$tmp/out")"

# bad input: one line, exit 2, nothing on stdout
expect_bad1 '^B (DP9,TP32): strategy DP9,TP32 needs 288 units' compare DP8,TATP16 DP9,TP32
expect_bad1 "^A (DP8,TP32;placement=bogus): placement 'bogus' is not one of" compare 'DP8,TP32;placement=bogus' DP8
expect_bad1 "^B (DP8;layout=wse2): unknown strategy option 'layout'" compare DP8 'DP8;layout=wse2'
expect_bad1 '^compare needs two strategies' compare DP8,TATP16
expect_bad1 '^compare needs two strategies' compare DP8 DP4 DP2
expect_bad1 "^unknown option '--bogus'" compare DP8 DP4 --bogus=1
expect_bad1 '^--strategy: compare takes the strategies as A and B' compare DP8 DP4 --strategy DP2
expect_bad1 "^--format: 'xml'" compare DP8 DP4 --format xml
expect_ok compare --help
grep -q 'placement=linear' "$tmp/out" || fail "compare --help lacks the per-side options"

finish e2e_compare
