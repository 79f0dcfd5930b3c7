#!/bin/sh
# End-to-end: wafertop tune with each stock policy on the scenario its file
# documents, determinism, and policies that fail.
# usage: sh tests/e2e_tune.sh ./wafertop
. tests/lib_e2e.sh

models=tests/fixtures/models

# documented POLICY STEPS COLUMN BEFORE AFTER ARGS...: with --net fluid, the
# column (3 step_time_s, 5 max_peak_util, 6 hot_links) of step 1 and of the
# last step is what docs/EXPERIMENTS.md ("Policies on contention") and the
# policy's file say, to 1e-5
documented() {
    policy=$1 steps=$2 col=$3 before=$4 after=$5
    shift 5
    "$bin" tune --net fluid --steps "$steps" --policy "$policy" --format csv "$@" >"$tmp/out" 2>"$tmp/err" \
        || fail "tune --policy $policy $*: $(cat "$tmp/err")"
    # the quoted strategy and action hold commas: blank them out first
    sed 's/"[^"]*"/q/g' "$tmp/out" | awk -F, -v c="$col" -v n="$steps" -v b="$before" -v a="$after" '
        function near(x, y) { return x == y || (x - y) ^ 2 <= 1e-10 * y ^ 2 }
        $1 == 1 { first = $c } $1 == n { last = $c }
        END { exit near(first, b) && near(last, a) ? 0 : 1 }' \
        || fail "tune --policy $policy $*: column $col is not $before then $after: $(cat "$tmp/out")"
}

documented priority 2 3 0.000691041 0.000686322 --strategy DP16,TATP16 --model $models/policy-wide.yaml
grep -q 'priority bwd.attn.core 1' "$tmp/out" || fail "priority's action is not in the action column"
# where it cannot help: DP and the backward on other links
documented priority 2 3 0.000507087 0.000507087 --layout tests/fixtures/layouts/column.yaml \
    --model $models/policy-wide.yaml --strategy DP16,TATP4x1
documented inject_delay 2 6 80 0 --strategy DP8,TATP16 --model $models/policy-wide.yaml --seq 256
grep -q '^1,.*delay dp.allreduce 2 waves' "$tmp/out" || fail "inject_delay did not split the DP all-reduce"
documented inject_delay 2 5 0.944851 0.491427 --strategy DP8,TATP16 --model $models/policy-wide.yaml --seq 256
documented inject_delay 2 3 0.00159356 0.00167174 --strategy DP8,TATP16 --model $models/policy-wide.yaml --seq 256
documented reroute 10 5 0.573613 0.476599 --layout dojo-tile --strategy DP4,TATP4 --placement linear \
    --model $models/search-small.yaml
documented reroute 10 3 0.00789300 0.00787637 --layout dojo-tile --strategy DP4,TATP4 --placement linear \
    --model $models/search-small.yaml
# where it cannot help: straight rings
documented reroute 6 5 0.84619 0.84619 --strategy DP16,TATP16 --model $models/policy-wide.yaml
documented shrink_groups 2 3 0.00550454 0.00131296 --strategy DP256 --placement linear --model $models/policy-small.yaml

# the same seed gives the same run; another seed does not
run="--steps 6 --jitter 0.2 --straggler 0.01 --policy inject_delay --strategy DP64,TATP4 --model $models/policy-small.yaml --format csv"
"$bin" tune --seed 7 $run >"$tmp/a" 2>/dev/null
"$bin" tune --seed 7 $run >"$tmp/b" 2>/dev/null
"$bin" tune --seed 8 $run >"$tmp/c" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || fail "two runs with --seed 7 differ"
cmp -s "$tmp/a" "$tmp/c" && fail "--seed 7 and --seed 8 give the same run"
[ "$(grep -c '^[0-9]' "$tmp/a")" -eq 6 ] || fail "tune prints one row per step"
# pure CSV: the header and one row per step (the summary goes to stderr)
[ "$(wc -l <"$tmp/a")" -eq 7 ] || fail "tune CSV has lines besides its header and rows: $(cat "$tmp/a")"
expect_ok tune --steps 2 --format csv
grep -q '^first (step 1): ' "$tmp/err" || fail "tune CSV's summary is not on stderr"

expect_ok tune --steps 3 --format json
for key in steps step strategy step_time_s max_link_util max_peak_util hot_links action first best; do
    grep -q "\"$key\":" "$tmp/out" || fail "tune JSON lacks \"$key\""
done

# the summary is two steps' rows: the first's and the fastest's, each from
# that one step. With reroute, seed 7, jitter 0.05 and stragglers 0.01, the
# fastest of 10 steps is step 5 (3.27961 s, its busiest link 12.8 %), while
# the least busy link is step 8's (11.3 %): a summary of minima would pair
# step 5's time with step 8's link
jittery="--policy reroute --seed 7 --jitter 0.05 --straggler 0.01 --steps 10"
expect_ok tune $jittery
grep -q '^   5  .* 3.27961 *12.8% *97.3% ' "$tmp/out" || fail "tune: step 5 moved"
grep -q '^   8  .* 3.41603 *11.3% *97.2% ' "$tmp/out" || fail "tune: step 8 moved"
tail -2 "$tmp/out" >"$tmp/summary"
printf '%s\n' 'first (step 1): 3.39675 s, max link util 14.4%, peak 97.2%' \
    'best  (step 5): 3.27961 s, max link util 12.8%, peak 97.3%' | cmp -s - "$tmp/summary" ||
    fail "tune's summary: $(cat "$tmp/summary")"
expect_ok tune $jittery --format csv
cmp -s "$tmp/err" "$tmp/summary" || fail "tune CSV's summary on stderr: $(cat "$tmp/err")"
expect_ok tune $jittery --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
fastest = min(d["steps"], key=lambda r: r["step_time_s"])
assert fastest["step"] == 5 and d["best"] == fastest, d["best"]
assert d["first"] == d["steps"][0], d["first"]
assert min(r["max_link_util"] for r in d["steps"]) < d["best"]["max_link_util"]
' "$tmp/out" || fail "tune JSON: first and best are not the rows of steps 1 and 5"

# a policy that errors, or loops forever, is stopped with file:line; the steps go on
printf 'wt.policy("broken", {on_step = function(s, r)\n  local x = nil\n  return x.field\nend})\n' >"$tmp/broken.lua"
expect_ok tune --steps 3 --policy "$tmp/broken.lua" --format csv
grep -q "policy broken stopped: $tmp/broken.lua:3: attempt to index a nil value" "$tmp/out" \
    || fail "broken policy: $(cat "$tmp/out")"
[ "$(grep -c '^[0-9]' "$tmp/out")" -eq 3 ] || fail "the session did not go on without the policy"
printf 'wt.policy("spin", {on_step = function() while true do end end})\n' >"$tmp/spin.lua"
expect_ok tune --steps 2 --policy "$tmp/spin.lua" --lua-budget 1e6 --format csv
grep -q "policy spin stopped: $tmp/spin.lua:1: instruction budget" "$tmp/out" || fail "spin: $(cat "$tmp/out")"
# on_hot_link: called with each link at or above 90 %, hottest first
printf 'wt.policy("hot", {on_hot_link = function(s, l)\n  assert(l.peak_util >= 0.9 and l.dir)\n  s:set_routing("yx")\nend})\n' >"$tmp/hot.lua"
expect_ok tune --steps 2 --policy "$tmp/hot.lua" --strategy DP16 --model $models/policy-wide.yaml --seq 8 --format csv
grep -q '^1,.*,16,routing all yx' "$tmp/out" || fail "on_hot_link was not called: $(cat "$tmp/out")"

# faults at run time from a policy: the step says why it cannot run
printf 'wt.policy("kill", {on_step = function(s) s:fail_unit(0, 0) end})\n' >"$tmp/kill.lua"
expect_ok tune --steps 2 --policy "$tmp/kill.lua" --strategy DP16,TATP16 --format csv
grep -q 'step failed: .*needs 256 units but the layout has 255 live units' "$tmp/out" \
    || fail "a fault under a strategy that needs every unit: $(cat "$tmp/out")"

# a policy taking random actions, each checked (tests/fixtures/policies/fuzz.lua),
# as a policy may on the screen: the run ends normally with a row per step and
# the policy is never stopped; its seed is in its file's name
fuzz() {
    seed=$1
    steps=$2
    shift 2
    ln -sf "$PWD/tests/fixtures/policies/fuzz.lua" "$tmp/fuzz-$seed.lua"
    "$bin" tune --lua-path tests/lua --lua-budget 1e8 --policy "$tmp/fuzz-$seed.lua" --seed "$seed" --steps "$steps" \
        --format csv "$@" >"$tmp/out" 2>"$tmp/err" || fail "fuzz policy $seed $*: exit $? ($(cat "$tmp/err"))"
    if grep -q 'policy fuzz stopped' "$tmp/out"; then
        fail "fuzz policy $seed $*: $(grep -v '^[0-9]' "$tmp/out" | tail -n 40; grep -o 'policy fuzz stopped.*' "$tmp/out")"
    fi
    [ "$(grep -c '^[0-9]' "$tmp/out")" -eq "$steps" ] || fail "fuzz policy $seed $*: not $steps rows"
}
for seed in 1 2; do
    fuzz $seed 300 --layout dojo-tile --model $models/search-small.yaml --strategy DP4,TATP4 --jitter 0.1 \
        --straggler 0.05
    fuzz $seed 300 --layout tests/fixtures/layouts/column.yaml --model $models/policy-wide.yaml --strategy DP16,TATP4x1
    fuzz $seed 300 --layout tests/fixtures/layouts/multiwafer-small.yaml --model $models/policy-small.yaml \
        --strategy DP8,TATP4 --placement snake
    # hot links, so that on_hot_link acts too
    fuzz $seed 100 --strategy DP16 --model $models/policy-wide.yaml --seq 8
done
cp "$tmp/out" "$tmp/fuzz-a"
fuzz 2 100 --strategy DP16 --model $models/policy-wide.yaml --seq 8
cmp -s "$tmp/out" "$tmp/fuzz-a" || fail "two runs of the fuzz policy with seed 2 differ"

# refusals
expect_bad "^unknown policy 'nope' (policies: [a-z0-9_, ]*; or a .lua file)$" tune --policy nope
names_stock policies "$tmp/err" "the unknown policy's error"
expect_bad "^--steps: '0' is not a positive whole number" tune --steps 0
expect_bad "^--jitter: '2' is not a number from 0 to 0.99" tune --jitter 2
expect_bad "^--straggler: " tune --straggler -1

# a scenario file names its network model as --net does, and fails as it does
printf 'layout: default\nmodel: gpt3-6.7b\nstrategy: "DP8,TATP16"\nnet: bottleneck\n' >"$tmp/net.yaml"
expect_ok tune --scenario "$tmp/net.yaml" --steps 1 --format csv
cp "$tmp/out" "$tmp/net.csv"
expect_ok tune --net bottleneck --strategy DP8,TATP16 --steps 1 --format csv
cmp -s "$tmp/out" "$tmp/net.csv" || fail "net: in a scenario is not --net"
printf 'layout: default\nmodel: gpt3-6.7b\nstrategy: "DP8,TATP16"\nnet: nosuch\n' >"$tmp/net.yaml"
expect_bad "^$tmp/net.yaml:4:6: --net: net 'nosuch' is not one of .*bottleneck" tune --scenario "$tmp/net.yaml"

finish e2e_tune
