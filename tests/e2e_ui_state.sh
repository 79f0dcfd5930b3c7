# End-to-end tests of what the screen simulates against the flags it was
# opened with: the panel's "changed" line, :policy off undoing a policy's
# actions, :keep, :strategy, :reset, :save, and a fault that stops the steps.
# Every step time is checked against the headless program's for the same
# setup. Run by `make test` as
#   sh tests/e2e_ui_state.sh ./wafertop
. "$(dirname "$0")/lib_e2e.sh"
. "$(dirname "$0")/lib_tmux.sh"

# make run's scenario
flags="--layout default --model gpt3-6.7b --placement linear --checkpoint full --mem zero,act_int8,grad_fp8"
scenario="$flags --strategy DP8,TP32"

# six_places SECONDS: as the timeline shows a step of seconds
six_places() { awk -v t="$1" 'BEGIN { printf "%.6f", t }'; }
# headless ARGS: the step time wafertop eval gives for ARGS
headless() {
    six_places "$("$bin" eval "$@" --format json | grep -o '"step_time_s":[-0-9.e+]*' | head -n 1 | cut -d: -f2)"
}
# tuned STEP ARGS...: the time of step STEP of wafertop tune ARGS
tuned() {
    n=$1
    shift
    "$bin" tune "$@" --steps "$n" --format csv >"$tmp/tune.csv" 2>"$tmp/err" || fail "tune $*: $(cat "$tmp/err")"
    six_places "$(sed -n "$((n + 1))p" "$tmp/tune.csv" | sed 's/"[^"]*"/S/' | cut -d, -f3)"
}
# the step time the timeline shows ("▶ 1.234567 of 5.289048 s")
shown_step() { cap | sed -n 's/.* of \([0-9.]*\) s .*/\1/p'; }
# wait_step SECONDS WHAT: until the timeline shows a step of SECONDS
wait_step() {
    i=0
    while [ "$(shown_step)" != "$1" ] && [ $i -lt $((wait_s * 10)) ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ "$(shown_step)" = "$1" ] || fail "$2: the step is '$(shown_step)' s, not $1 s (headless)"
}
# the panel's line of changes, its rows joined, or "as opened" when the
# panel has none (the panel starts at column 78 of 120; every other
# character as one byte: awk may count bytes)
changed() {
    cap | LC_ALL=C.UTF-8 sed 's/[^ -~]/#/g' | awk '{ p = substr($0, 78); sub(/ +$/, "", p) }
        p ~ /^# figures #/ { panel = 1 } p ~ /^changed / { on = 1 } p ~ /^#/ { on = 0 }
        on { printf "%s%s", n++ ? " " : "", p } END { if (panel && !n) printf "as opened" }'
}
# wait_changed REGEX WHAT: until the panel's line matches REGEX
wait_changed() {
    i=0
    while ! changed | grep -qE -- "$1" && [ $i -lt $((wait_s * 10)) ]; do
        sleep 0.1
        i=$((i + 1))
    done
    changed | grep -qE -- "$1" && return 0
    fail "$2: the panel's line is '$(changed)', not /$1/"
    cap | sed 's/^/    | /'
    return 1
}
# policy NAME: a policy file that acts once, at its first step: a delay and
# a priority (a file registers its policy once per Lua state: one per start)
policy() {
    cat >"$tmp/$1.lua" <<EOF
local done
wt.policy("$1", {
  on_step = function(s, r)
    if done then return end
    done = true
    s:delay("fwd.attn.qkv", 2)
    s:set_priority("bwd.mlp.in", 1)
  end
})
EOF
}
policy delayer
policy delayer_y
delayed="delay fwd.attn.qkv 2 waves; priority bwd.mlp.in 1"

opened=$(headless $scenario)
start ui $scenario
wait_for "figures" "first frame"
wait_changed "^as opened$" "first frame"
wait_step "$opened" "first frame"

# --- the stock policy that delays phases, then :policy off: whatever it did
# is undone, asking nothing, and the step is the flags' again
keys ':' 'policy inject_delay' Enter
wait_for "waves" "inject_delay acts"
keys ':' 'policy off' Enter
wait_for "policy inject_delay stopped (off): " ":policy off"
wait_changed "^as opened$" ":policy off"
wait_step "$opened" ":policy off"

# --- a policy's delay and priority in the panel; :policy off undoes them
keys ':' "policy $tmp/delayer.lua" Enter
wait_changed "^changed 2: $delayed$" "the policy's delay"
# the step after it is tune's second step of the same flags and policy
policy_step=$(tuned 2 $scenario --policy "$tmp/delayer.lua")
[ "$policy_step" != "$opened" ] || fail "the step with the policy's delay is the flags' $opened s"
wait_step "$policy_step" "the policy's delay"
keys ':' 'policy off' Enter
wait_for "policy delayer stopped (off): undid $delayed" ":policy off"
wait_changed "^as opened$" ":policy off"
wait_step "$opened" ":policy off"

# --- y: the search's micro-batch is listed, and its step is eval's for
# the same strategy and micro-batch
search="search --fix tp=32,microbatch=2 --only placement=linear,collective=ring,checkpoint=full,mem=zero+act_int8+grad_fp8,chunk=0"
keys ':' "$search" Enter
wait_for "search done: DP4,TP32,SP2" ":search"
keys y
wait_for "applied the search's best: DP4,TP32,SP2, micro-batch 2" "y"
wait_changed "^changed 2: micro-batch 2; strategy DP4,TP32,SP2$" "y"
wait_step "$(headless $flags --strategy DP4,TP32,SP2 --microbatch 2)" "y"

# --- a policy's delay beside it; :keep, then :policy off: they stay
keys ':' "policy $tmp/delayer_y.lua" Enter
wait_changed "^changed 4: micro-batch 2; $delayed; strategy DP4,TP32,SP2$" "y and the policy"
keys ':' 'keep' Enter
wait_for "kept what policy delayer_y did: $delayed" ":keep"
keys ':' 'policy off' Enter
wait_for "policy delayer_y stopped (off): nothing to undo" ":policy off after :keep"
wait_changed "^changed 4: micro-batch 2; $delayed; strategy DP4,TP32,SP2$" ":policy off after :keep"

# --- :save captures all of it: the saved scenario runs headless to the
# step the screen shows
keys ':' "save $tmp/policy.yaml" Enter
wait_for "saved $tmp/policy.yaml" ":save"
grep -q "^microbatch: 2$" "$tmp/policy.yaml" || fail "the saved scenario lacks the micro-batch: $(cat "$tmp/policy.yaml")"
grep -qF '    - {phase: "fwd.attn.qkv", waves: 2}' "$tmp/policy.yaml" ||
    fail "the saved scenario lacks the delay: $(cat "$tmp/policy.yaml")"
saved=$(tuned 1 --scenario "$tmp/policy.yaml")
[ "$saved" != "$opened" ] || fail "the saved scenario's step is the flags' $opened s"
wait_step "$saved" "the saved scenario (tune --scenario)"

# --- :strategy: a new strategy drops the old one's delays and micro-batch
keys ':' "strategy DP8,TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8" Enter
wait_changed "^as opened$" ":strategy as the flags'"
wait_step "$opened" ":strategy as the flags'"

# --- :reset: a fault, y's strategy and micro-batch go
keys ':' 'fail 3,4,E' Enter
keys ':' "$search" Enter
wait_for "search done: DP4,TP32,SP2" ":search after a fault"
keys y
wait_changed "^changed 3: micro-batch 2; fault 3,4,E; strategy DP4,TP32,SP2$" "a fault and y"
keys ':' 'reset' Enter
wait_for "reset: the scenario as opened" ":reset"
wait_changed "^as opened$" ":reset"
wait_step "$opened" ":reset"

# --- a fault that stops the steps: the mesh stays, unit 5,5 in the dead
# colour (the legend's), a banner says why and what fits (the headless
# search's best)
esc=$(printf '\033')
dead=$(T capture-pane -p -e -t ui | grep -F "dead" | sed -n "s/.*$esc\[38;5;\([0-9]*\)m✕.*/\1/p" | head -n 1)
[ -n "$dead" ] || fail "the legend shows no dead colour"
# unit 5,5: 2x2 pixels from pixel 15, 15 (a unit and a link every 3); rows
# 10 and 11 of the pane hold its two pixel rows, below and above the half
unit_rows() { T capture-pane -p -e -t ui | sed -n 10,11p; }
unit_rows | grep -q "$esc\[38;5;${dead}m" && fail "the dead colour shows at unit 5,5 before the fault"
"$bin" search --layout default --model gpt3-6.7b --fail 5,5 --allow-idle --format csv >"$tmp/fit.csv" 2>"$tmp/err" ||
    fail "search: $(cat "$tmp/err")"
fit=$(sed -n 2p "$tmp/fit.csv" | cut -d'"' -f2)
wait_s=120 # the search over every product up to the live units, under the sanitizers too
keys ':' 'fail 5,5' Enter
wait_for "not running: strategy DP8,TP32 needs 256 units but the layout has" ":fail 5,5: the banner"
wait_for "fits: $fit, micro-batch" ":fail 5,5: what fits"
wait_s=30
unit_rows | sed -n 1p | grep -q "48;5;${dead}m" || fail "unit 5,5's upper pixels are not in the dead colour"
unit_rows | sed -n 2p | grep -q "38;5;${dead}m" || fail "unit 5,5's lower pixels are not in the dead colour"
cap | grep -qF "figures" || fail ":fail 5,5 blanked the panel"
keys ':' 'repair' Enter
wait_gone "not running" ":repair: the banner goes"
wait_step "$opened" ":repair"
keys q
wait_exit "q"

# --- the saved scenario (saved with no policy running) opens as saved:
# nothing changed, the step the screen showed
grep -q "^policy:" "$tmp/policy.yaml" && fail "the scenario saved after :policy off names a policy"
start ui --scenario "$tmp/policy.yaml"
wait_for "figures" "--scenario"
wait_changed "^as opened$" "--scenario"
wait_step "$saved" "--scenario"
keys q
wait_exit "q (--scenario)"

# --- opened on a fault that stops the first step: no mesh to keep, the
# banner says so and what fits
start ui $scenario --fail 5,5
wait_s=120
wait_for "255 live units (no step has run)" "--fail 5,5: the banner"
wait_for "fits: $fit, micro-batch" "--fail 5,5: what fits"
wait_s=30
keys q
wait_exit "q (--fail 5,5)"

finish e2e_ui_state
