# End-to-end tests of the screen: the real program in a tmux pane, driven
# with send-keys and read with capture-pane. Run by `make test` as
#   sh tests/e2e_ui.sh ./wafertop
. "$(dirname "$0")/lib_e2e.sh"
. "$(dirname "$0")/lib_tmux.sh"

# A user command with a Lua error in it.
mkdir -p "$tmp/lua/commands"
cat >"$tmp/lua/commands/broken.lua" <<'EOF'
wt.command("broken", function(words, ctx)
  local missing = nil
  return missing.field
end, "broken  always fails")
EOF

scenario="--strategy DP8,TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8"

# --- the first frame: mesh, legend, figures
start ui $scenario --net bottleneck --lua-path "$tmp/lua"
wait_for "figures" "first frame"
screen=$(cap)
echo "$screen" | grep -qF "▀" || fail "first frame: no half blocks of the mesh"
echo "$screen" | grep -qF "link util 0%" || fail "first frame: no legend"
echo "$screen" | grep -qE "link util 0% .* [0-9]+\.[0-9]% max" || fail "first frame: the legend has no max"
echo "$screen" | grep -qE "step +5\.56 s" || fail "first frame: no step time 5.56 s"
echo "$screen" | grep -qF "DP8,TP32" || fail "first frame: no strategy"
echo "$screen" | grep -qF "step timeline" || fail "first frame: no timeline"

# --- a cursor you can see: a diamond on the mesh (no key pressed yet) that
# l l l j j moves 3 units right and 2 down: at this size a unit is 2 pixels
# and a link 1, so 9 columns and 6 pixels, 3 rows of half blocks; its
# coordinates reversed on the rulers
# where: the row and column of the diamond
# (the cells before it as one byte each: awk may count bytes)
where() { cap | sed 's/▀/./g; s/◆/@/' | awk '{ i = index($0, "@"); if (i) { print NR, i - 1; exit } }'; }
before=$(where)
[ -n "$before" ] || fail "the cursor does not show before a key"
keys l l l j j
# until all five keys are drawn: the screen may show the cursor part way
want="$((${before% *} + 3)) $((${before#* } + 9))"
i=0
while [ "$(where)" != "$want" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(where)" = "$want" ] || fail "l l l j j: the cursor is at '$(where)', not '$want' (from '$before')"
esc=$(printf '\033')
T capture-pane -p -e -t ui | sed -n 2p | grep -q "7m$esc\[38;5;[0-9]*m3" || fail "the x ruler does not mark the cursor's 3"
cap | sed -n 2p | grep -qE "^ +0 +2 +3 +4 +6 +8 +10 " || fail "the x ruler: $(cap | sed -n 2p)"

# --- the group around the cursor (3,2): with linear placement, TP group 1
# is rows 2 and 3 (ranks 32-63); ring marks on its members, dots on its
# links; Enter traces each link out to the phases and groups that load it
keys g
wait_last "tp group 1 around 3,2: 32 members, [0-9]* links loaded" "g: the TP group around the cursor"
# (a unit is 3 pixels, 1.5 rows: units of rows 2 and 3 on screen lines 6 and 7)
[ "$(cap | sed -n '6,7p' | grep -o '○' | wc -l)" = 31 ] || fail "g: the group's 32 members, one under the cursor, are not marked on rows 2-3"
[ "$(cap | sed -n '3,5p;8,30p' | grep -c '○')" = 0 ] || fail "g: members marked outside rows 2-3"
keys Enter
wait_for "E loaded by fwd.attn.qkv tp group 1 " "Enter: the east link's loads by phase and group"
keys ':' 'group dp' Enter
wait_last "dp group [0-9]* around 3,2: 8 members, [0-9]* links loaded" ":group dp"
keys ':' 'group nope' Enter
wait_last "group: 'nope' is not one of tatp.rows, tatp.cols, tp, sp, dp, pp, tatp, stage, subgroup, off" ":group nope"
keys ':' 'group subgroup' Enter
wait_last "subgroup group 0 around 3,2: 64 members, 0 links loaded" ":group subgroup: the 8x8 window"
keys ':' 'group off' Enter
sleep 0.3
[ "$(cap | grep -c '○')" = 0 ] || fail ":group off: the members are still marked"
keys h h h k k

# --- the cursor of time, against the step's figures headless
"$bin" eval $scenario --net bottleneck --format json >"$tmp/eval.json" || fail "eval for the cursor's checks"
# top NAME: a figure of the step; phase NAME FIELD: a figure of a phase
top() { grep -o "\"$1\":[-0-9.e+]*" "$tmp/eval.json" | head -n 1 | cut -d: -f2; }
phase() { grep -o "\"name\":\"$1\",[^}]*" "$tmp/eval.json" | grep -o "\"$2\":[-0-9.e+]*" | cut -d: -f2; }
# the cursor's time and the legend's top, as shown
cursor() { cap | sed -n 's/.* \([0-9][0-9.]*\) of [0-9.]* s .*/\1/p'; }
legend_max() { cap | sed -n 's/^ *link util 0% .* \([0-9.]*\)% max .*/\1/p'; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }

# it plays: the time shown moves
t1=$(cursor)
sleep 0.5
t2=$(cursor)
[ -n "$t1" ] && [ "$t1" != "$t2" ] || fail "the cursor of time does not move: '$t1' then '$t2'"
keys p
wait_last "time stopped: 500 ms/s" "p stops the cursor"
t1=$(cursor)
sleep 0.3
[ "$t1" = "$(cursor)" ] || fail "the stopped cursor moved from $t1 to $(cursor)"

# :at PHASE, then ] to the next phase start: one backward MLP-out later
keys ':' 'at bwd.mlp.out' Enter
wait_for "at bwd.mlp.out" ":at bwd.mlp.out"
t1=$(cursor)
keys ']'
wait_for "at bwd.mlp.in" "] to the next phase"
t2=$(cursor)
near "$(awk -v a="$t2" -v b="$t1" 'BEGIN { print a - b }')" "$(phase bwd.mlp.out time_s)" 1e-6 ||
    fail "] moved the cursor from $t1 to $t2, not by bwd.mlp.out's $(phase bwd.mlp.out time_s) s"
# a window inside bwd.mlp.in: the legend's top is its busiest link
want=$(awk -v u="$(phase bwd.mlp.in max_link_util)" 'BEGIN { printf "%.1f", 100 * u }')
[ "$(legend_max)" = "$want" ] || fail "the legend's max is $(legend_max)%, not bwd.mlp.in's $want%"
keys '['
wait_for "at bwd.mlp.out" "[ back"
[ "$(cursor)" = "$t1" ] || fail "[ went to $(cursor), not back to $t1"

# the hidden DP all-reduce: over the end of the last backward, its links full
keys ':' 'at dp.allreduce' Enter
wait_for "+ dp.allreduce" ":at dp.allreduce: two phases at the cursor"
from=$(awk -v s="$(top step_time_s)" -v o="$(top optimizer_s)" -v d="$(top dp_time_s)" -v x="$(top dp_exposed_s)" \
    'BEGIN { printf "%.9f", s - o - (d - x) }')
near "$(cursor)" "$from" 1e-6 || fail "the hidden all-reduce starts at $from s, the cursor shows $(cursor)"
[ "$(legend_max)" = "100.0" ] || fail "the hidden all-reduce's window: legend max $(legend_max)%, not 100.0%"
wait_for "hidden   97%" "the timeline lists the hidden all-reduce"
cap | grep -qE "[0-9]+,[0-9]+ +[NESW] +100\.0%" || fail "the hot links' busiest windows are not at 100.0%"

# the step average: its legend max is the figures' link max; c fixes 0-100 %
keys a
wait_for "links: step average" "a: the step average"
# (a capture may catch the terminal between two frames: read both again a few times)
i=0
while :; do
    avg=$(cap | sed -n 's/.*links max \([0-9.]*\)% .*/\1/p')
    [ -n "$avg" ] && [ "$(legend_max)" = "$avg" ] && break
    i=$((i + 1))
    [ $i -lt 20 ] || { fail "the step average's legend max $(legend_max)% is not the link max $avg%"; break; }
    sleep 0.1
done
# :export writes the heatmap as shown: the step average's picture is wafertop snapshot's, byte for byte
keys ':' "export $tmp/shown.png" Enter
wait_for "exported $tmp/shown.png" ":export"
[ -n "$(png_size "$tmp/shown.png")" ] || fail ":export wrote no PNG"
"$bin" snapshot $scenario --net bottleneck --out "$tmp/headless.png" 2>/dev/null || fail "snapshot for :export's check"
cmp -s "$tmp/shown.png" "$tmp/headless.png" || fail ":export of the step average is not wafertop snapshot's picture"
keys c
wait_last "link colours 0-100%" "c: a fixed scale"
cap | grep -qE "link util 0% .* 100%  " || fail "c: the legend does not end at 100%"
keys c a

# faster, slower, and playing again
keys '.'
wait_last "time plays 1 s of the step per second" ". faster"
keys ','
wait_last "time plays 500 ms of the step per second" ", slower"
keys p
wait_last "time plays: 500 ms/s" "p plays"
t1=$(cursor)
sleep 0.3
[ "$t1" != "$(cursor)" ] || fail "p: the cursor does not move"
keys ':' 'at 9s' Enter
wait_last "at: 9s is not within the step (5.56 s)" ":at past the step"

# --- a Lua command shows its table in the output pane
keys ':' 'link_util --group 4x4 --over step' Enter
wait_for "by 4x4 tile" ":link_util --group 4x4"
wait_for "y\\x     0    1    2    3" ":link_util table header"

# --- Tab completes command names and flags
keys ':' 'link_u' Tab '--gr' Tab
wait_last ":link_util --group *" "Tab completion"
keys Escape
wait_last "[^:].*" "Esc cancels the command line"
# on an empty line it lists every command: the stock ones and the user's
keys ':' Tab
wait_last ":  .* broken .*" "Tab lists the user's command"
# the list is longer than the status line: the output pane has all of it
wait_for "Tab: strategy layout model" "Tab: the whole list in the output pane"
shown | grep -A 4 "Tab: strategy layout model" >"$tmp/tab" # wrapped at the pane's width
names_stock commands "$tmp/tab" "Tab on an empty command line"
keys Escape

# --- help overlay, closed by any key
keys '?'
wait_for "key closes) " "? help"
wait_for "q F10" "help lists quit"
keys 'z'
wait_gone "key closes) " "help closes"

# --- resize: too small, then back
T resize-window -t ui -x 50 -y 15
wait_for "terminal too small" "resize to 50x15"
T resize-window -t ui -x 120 -y 40
wait_for "figures" "resize back to 120x40"

# --- a Lua error: the status line names file:line, the program keeps running
keys ':' 'broken' Enter
wait_for "broken.lua:3:" "Lua error in a command"
keys ':' 'hot_links --threshold 0.99' Enter
wait_for "12 links at or above 99.0% over a window" "a command after the Lua error"
cap | grep -qE '^ link +peak +util +hot +bytes +busy$' || fail "hot_links shows no table: $(cap | tail -n 12)"
[ -s "$tmp/rc" ] && fail "the program ended after a Lua error"

# --- a flag the command does not have: its error in the status line and the pane
keys ':' 'hot_links --top 3' Enter
wait_last "hot_links: unknown flag '--top' (flags: --threshold)" ":hot_links with an unknown flag"
wait_for "hot_links: unknown flag '--top'" "the unknown flag's error in the output pane"

# --- bad commands: one line in the status, the screen goes on
keys ':' 'fail 99,99' Enter
wait_for "fail: unit 99,99" ":fail off the mesh"
keys ':' 'fail 1,1,Q' Enter
wait_for "fail: 'Q' is not a direction" ":fail with a bad direction"
keys ':' 'save /nonexistent-dir/x.yaml' Enter
wait_for "save: cannot write beside /nonexistent-dir/x.yaml" ":save where it cannot write"
keys ':' 'export /nonexistent-dir/x.png' Enter
wait_for "export: cannot write beside /nonexistent-dir/x.png" ":export where it cannot write"
keys ':' 'export heat.gif' Enter
wait_for "export: 'heat.gif' does not end in .png or .svg" ":export with an unknown extension"
keys ':' 'strategy TP3' Enter
wait_for "TP 3 must divide" ":strategy that does not fit the model"
keys ':' 'policy nosuch_policy' Enter
wait_last "unknown policy 'nosuch_policy' (policies: .*; or a .lua file)" ":policy unknown"
keys ':' 'search --top 0' Enter
wait_for "--top: '0' is not a positive whole number" ":search with a bad flag"
[ -s "$tmp/rc" ] && fail "the program ended after a bad command"

# --- a broken policy stops with file:line and the screen goes on
cat >"$tmp/bad_policy.lua" <<'EOF'
wt.policy("bad_policy", {
  on_step = function(session, result)
    error("policy went wrong")
  end
})
EOF
# Paused first: a step that fired before the capture would print the policy's
# traceback and scroll the message away.
keys ' '
wait_for "paused" "space pauses"
keys ':' "policy $tmp/bad_policy.lua" Enter
wait_for "policy bad_policy acts between steps" ":policy FILE"
keys 'n'
wait_for "bad_policy.lua:3: policy went wrong" "policy error shown"
keys ':' 'units --top 2' Enter
wait_for "top 2 by util" "a command after the policy error"

# --- views, averages, zoom, themes, speed, mouse
keys v
wait_for "compute: the phase at the cursor" "v: the compute view follows the cursor of time"
wait_for "compute util 0%" "v: the compute legend"
keys v
wait_for "memory fill 0%" "v: the memory view"
keys v a
wait_for "links: step average" "a: the step average"
keys '-'
wait_for "pixel = 2x2 units (max)" "-: zoom out to blocks"
keys x
wait_for "pixel = 2x2 units (mean)" "x: blocks show the mean"
keys '=' x
wait_gone "pixel = 2x2" "=: fit the window again"
wait_for "unit = 2x2 pixels" "=: the legend says what a unit is"
keys t
wait_for "theme light" "t: next theme"
keys '>'
wait_for "1 steps per second" "> faster"
keys m
wait_for "mouse on" "m: mouse on"
# a click (xterm's report: ESC [ M, button, column + 33, row + 33) at cell
# (15, 6): pixel column 9 and pixel row 8 of a mesh at (6, 2) and scale 2 (a
# unit and a link every 3 pixels) is unit 3,2
keys -l "$(printf '\033[M 0\047')"
keys -l "$(printf '\033[M#0\047')"
wait_for "unit 3,2: rank" "a click selects a unit"
keys m a

# --- inspect and find
keys '/' '2,3' Enter
wait_for "unit 2,3: rank" "/ finds a unit"
keys Enter
wait_for "links out:" "Enter inspects"

# --- faults and repair; save writes the scenario, tune reads it back
keys ':' 'strategy TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8' Enter
keys ':' 'fail 3,4,E' Enter
keys 'n'
wait_for "fail link 3,4,E" "fail a link"
keys ':' "save $tmp/saved.yaml" Enter
wait_for "saved $tmp/saved.yaml" ":save"
grep -q '"3,4,E"' "$tmp/saved.yaml" || fail "the saved scenario lacks the failed link: $(cat "$tmp/saved.yaml")"
grep -q 'strategy: "TP32"' "$tmp/saved.yaml" || fail "the saved scenario lacks the strategy"
grep -q '^net: bottleneck$' "$tmp/saved.yaml" || fail "the saved scenario lacks the network model"
"$bin" tune --scenario "$tmp/saved.yaml" --steps 1 --format csv >"$tmp/tune.csv" 2>"$tmp/tune.err" ||
    fail "tune --scenario: $(cat "$tmp/tune.err")"
"$bin" tune $scenario --fail 3,4,E --strategy TP32 --net bottleneck --steps 1 --format csv >"$tmp/tune2.csv" 2>"$tmp/tune2.err"
cmp -s "$tmp/tune.csv" "$tmp/tune2.csv" || fail "the saved scenario does not run as the same flags"
keys ':' 'repair' Enter
keys 'n'
wait_for ": repair" ":repair (the step's note)"

# --- a policy that fails a link in on_step still gets its hot links: on a
# model whose DP all-reduce runs its links above 90 % of the step
cat >"$tmp/failer.lua" <<'EOF'
wt.policy("failer", {
  on_step = function(s, r) s:fail_link(2, 2, "E") end,
  on_hot_link = function(s, link) s:delay("fwd.attn.qkv", 2) end
})
EOF
sed 's/^seq: .*/seq: 8/' tests/fixtures/models/policy-wide.yaml >"$tmp/hot.yaml"
keys ':' "model $tmp/hot.yaml DP16" Enter
wait_for "new session: $tmp/hot.yaml on default" ":model with hot links"
keys ':' "policy $tmp/failer.lua" Enter
keys 'n'
wait_for "fail link 2,2,E; delay fwd.attn.qkv 2 waves" "on_hot_link after on_step's fault"
[ -s "$tmp/rc" ] && fail "the program ended after a policy's fault"
# the screen keeps the step's result while the fault waits for the next step
keys ':' 'hot_links --threshold 0.9' Enter
wait_for "links at or above 90.0%" "a command after a policy's fault and its hot links"
keys ':' 'policy off' Enter
keys ':' 'repair' Enter 'n'

# --- layout and model: a new session each, the other name kept; the cursor
# stays on the mesh
keys '/' '15,15' Enter
keys ':' 'model gpt3-13b TATP16' Enter
wait_for "new session: gpt3-13b on default" "model 13b"
keys ':' 'layout dojo-tile TATP25' Enter
wait_for "dojo-tile 5x5  gpt3-13b" ":layout keeps the model"
keys Enter
wait_for "unit 0,0:" "Enter after the mesh shrank"
keys ':' 'model gpt3-6.7b' Enter
wait_for "dojo-tile 5x5  gpt3-6.7b" ":model keeps the layout"
keys ':' 'layout default DP8,TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8' Enter
wait_for "default 16x16  gpt3-6.7b" "back to default"

# --- q quits with status 0 and the terminal restored
keys q
wait_exit "q" && {
    [ "$(cat "$tmp/rc")" = 0 ] || fail "q: exit status $(cat "$tmp/rc") ($(cat "$tmp/stderr"))"
    restored "q"
}

# --- a search runs without freezing the screen, then y applies the best
start ui $scenario
wait_for "figures" "first frame (search)"
keys ':' 'search --fix dp=1,pp=2 --only placement=tiles,collective=hier,checkpoint=full' Enter
wait_for "search done" ":search"
keys y
wait_for "applied the search's best" "y applies the search"
keys ':' 'search --fix dp=1,pp=2 --only placement=tiles,collective=hier,checkpoint=full' Enter
wait_for "search done" ":search again"
keys ':' 'fail 1,1,E' Enter
wait_for "search dropped" "a fault drops the search's offer"
keys y
wait_for "no search result to apply" "y after the offer was dropped"
keys ':' 'quit' Enter
wait_exit ":quit" && [ "$(cat "$tmp/rc")" = 0 ] || fail ":quit: exit status $(cat "$tmp/rc" 2>/dev/null)"

# --- Ctrl-C restores the terminal
start ui $scenario
wait_for "figures" "first frame (Ctrl-C)"
keys C-c
wait_exit "Ctrl-C" && {
    [ "$(cat "$tmp/rc")" = 130 ] || fail "Ctrl-C: exit status $(cat "$tmp/rc"), want 130"
    restored "Ctrl-C"
}

# --- a fatal signal restores the terminal too
start ui $scenario
wait_for "figures" "first frame (SIGSEGV)"
pid=$(pgrep -n -f "$bin ui $scenario")
[ -n "$pid" ] && kill -SEGV "$pid"
wait_exit "SIGSEGV" && {
    [ "$(cat "$tmp/rc")" = 139 ] || fail "SIGSEGV: exit status $(cat "$tmp/rc"), want 139"
    restored "SIGSEGV"
}

# --- bad input before the screen opens: one line, status 2
start ui --strategy DP7,TP3
wait_exit "bad strategy" && {
    [ "$(cat "$tmp/rc")" = 2 ] || fail "bad strategy: status $(cat "$tmp/rc"), want 2"
    grep -q -- "--strategy" "$tmp/stderr" || fail "bad strategy: stderr lacks --strategy: $(cat "$tmp/stderr")"
}

# --- a bad theme file: file:line:col on stderr, status 2, no screen
printf 'name: broken\ngradient: ["#000000", "#12345g"]\n' >"$tmp/broken.yaml"
start ui $scenario --theme "$tmp/broken.yaml"
wait_exit "bad theme file" && {
    [ "$(cat "$tmp/rc")" = 2 ] || fail "bad theme file: status $(cat "$tmp/rc"), want 2"
    grep -q "^$tmp/broken.yaml:2:" "$tmp/stderr" || fail "bad theme file: stderr: $(cat "$tmp/stderr")"
}

# --- NO_COLOR: glyph density instead of colour
T kill-server 2>/dev/null
sock="wafertop-e2e-$$-nocolour"
rm -f "$tmp/rc"
T new-session -d -s ui -x 120 -y 40 \
    "env NO_COLOR=1 LANG=C.UTF-8 TERM=tmux-256color '$bin' ui $scenario; echo \$? >'$tmp/rc'; sleep 600"
wait_for "figures" "first frame (NO_COLOR)"
wait_for "link util 0% ·" "NO_COLOR: the legend in glyph density"
cap | grep -F "link util 0%" | grep -qF "▒▒▓▓" || fail "NO_COLOR: the legend lacks the density steps"
cap | grep -qF "▀" && fail "NO_COLOR: half blocks drawn"
keys q
wait_exit "q (NO_COLOR)"

# --- --fail faults belong to the session: saved, and undone by :repair
start ui $scenario --fail 5,5,E --fail 7,7,S
wait_for "figures" "first frame (--fail)"
keys ':' "save $tmp/faults.yaml" Enter
wait_for "saved $tmp/faults.yaml" ":save with --fail"
grep -q 'faults: \["5,5,E", "7,7,S"\]' "$tmp/faults.yaml" || fail "--fail faults not saved: $(grep faults "$tmp/faults.yaml")"
keys ':' 'repair' Enter ':' "save $tmp/repaired.yaml" Enter
wait_for "saved $tmp/repaired.yaml" ":save after :repair"
grep -q 'faults: \[\]' "$tmp/repaired.yaml" || fail ":repair kept --fail faults: $(grep faults "$tmp/repaired.yaml")"
keys q
wait_exit "q (--fail)"

# --- the wafer: 850,500 units, the views in C over the loaded links
wait_s=180
start ui --layout wse2
wait_for "figures" "first frame (wse2)"
keys ':' 'units --top 3' Enter
wait_for "850500 units: 850500 used, 0 idle, 0 dead; top 3 by util" ":units on wse2"
keys ':' 'link_util --group 12x12 --top 2' Enter
wait_for "link utilisation (%) by 12x12 tile, mean/max, busiest window" ":link_util on wse2"
keys End
wait_for "hottest 2 links:" ":link_util's hottest links on wse2 (End: its last lines)"
keys q
wait_exit "q (wse2)"
wait_s=30

# --- :compare: B beside the session's A, each half titled with its step
# time as compare prints it headless; d shows B - A on the diverging
# scale; a strategy that cannot be placed is one line and the comparison
# stays; :compare off gives the one mesh back
"$bin" compare DP8,TP32 'DP4,TATP64;placement=tiles' --placement linear --checkpoint full --mem zero,act_int8,grad_fp8 \
    >"$tmp/cmp.txt" || fail "compare for :compare's checks"
step_a=$(sed -n 's/^step time  *\([0-9.]* [a-z]*s\)  .*/\1/p' "$tmp/cmp.txt")
step_b=$(sed -n 's/^step time  *[0-9.]* [a-z]*s  *\([0-9.]* [a-z]*s\) .*/\1/p' "$tmp/cmp.txt")
ratio=$(sed -n 's/^step time .* \([0-9.]*\)$/\1/p' "$tmp/cmp.txt")
start ui $scenario
wait_for "figures" "before :compare"
keys : "compare DP4,TATP64 --placement tiles" Enter
wait_for "A vs B" ":compare: both figure sets"
wait_for "A DP8,TP32  $step_a" ":compare: A's half titled with its step time"
wait_for "B DP4,TATP64  $step_b" ":compare: B's half titled with its step time"
cap | grep -qE "^.*step time +$step_a +$step_b +$ratio" || fail ":compare: the panel lacks 'step time $step_a $step_b $ratio'"
[ "$(cap | grep -c '▀')" -gt 10 ] || fail ":compare: no meshes"
keys d
wait_for "B - A link util -" "d: the difference's legend"
keys d
wait_gone "B - A link util" "d again: side by side"
keys : "compare DP9,TP32" Enter
wait_last "compare: strategy DP9,TP32 needs 288 units.*" ":compare a strategy that cannot be placed"
cap | grep -qF "A vs B" || fail ":compare DP9,TP32 ended the comparison"
keys : "compare off" Enter
wait_gone "A vs B" ":compare off"
wait_for "link util 0%" ":compare off: the one mesh"
keys q
wait_exit "q after :compare"

# --- f: the phase at the cursor of time at flit level, its links beside its
# buffers, with the time `links --net flit` gives headless; f again: off.
# On a larger mesh f again while it runs stops it.
"$bin" links $scenario --net flit --phase fwd.mlp.in >/dev/null 2>"$tmp/flit.txt" || fail "links --net flit for f"
flit_t=$(sed -n 's/^flit level: fwd.mlp.in, one occurrence: \([^,]*\),.*/\1/p' "$tmp/flit.txt")
[ -n "$flit_t" ] || fail "links --net flit: no time in $(cat "$tmp/flit.txt")"
start ui $scenario
wait_for "figures" "before f"
keys : "at fwd.mlp.in" Enter
wait_for "  at fwd.mlp.in" ":at fwd.mlp.in: the panel's cursor line (not the typed line's echo)"
keys f
wait_for "links: fwd.mlp.in, $flit_t" "f: the links' half, titled with the headless time"
wait_for "buffers: mean of 128 flits" "f: the buffers' half"
wait_for "flit level: fwd.mlp.in, one occurrence:" "f: the summary in the output pane"
wait_for "flit level: fwd.mlp.in, window 0,0 16x16; f: off" "f: the status line"
[ "$(cap | grep -c '▀')" -gt 10 ] || fail "f: no meshes"
keys f
wait_gone "buffers: mean of" "f again: off"
wait_for "flit level: off" "f again: the status line"
keys q
wait_exit "q after f"
start ui --layout multiwafer-4x4
wait_for "figures" "before f (multiwafer-4x4)"
keys : "at fwd.attn.qkv" Enter
wait_for "  at fwd.attn.qkv" ":at fwd.attn.qkv (multiwafer-4x4): the panel's cursor line"
keys f
wait_for "flit level: running fwd.attn.qkv...   (f stops it)" "f on a 64x64 mesh: running"
keys f
wait_for "flit level: stopped" "f while it runs: stopped"
keys q
wait_exit "q after f stopped"

# --- defaults that fit: wafertop alone, and each stock layout, open on the
# layout's recommended strategy, which fits (the memory figure says no "too big")
# opens_fitting WHAT STRATEGY ARGS...
opens_fitting() {
    what=$1 strategy=$2
    shift 2
    start "$@"
    wait_for "memory" "$what: the figures"
    wait_for "$strategy" "$what: the layout's strategy"
    cap | grep -q "too big" && fail "$what: the strategy it opened on does not fit: $(cap | grep 'too big')"
    cap | grep -qF "does not fit" && fail "$what: $(cap | tail -n 1)"
    keys q
    wait_exit "q ($what)"
}
opens_fitting "wafertop with no arguments" "default 16x16  gpt3-6.7b  DP8,TP2,SP4,TATP4x1"
opens_fitting "ui --layout dojo-tile" "dojo-tile 5x5  gpt3-6.7b  TATP5x5" ui --layout dojo-tile
opens_fitting "ui --layout wsc-6x9" "wsc-6x9 6x9  gpt3-6.7b  DP2,PP3,TATP3x3" ui --layout wsc-6x9
opens_fitting "ui --layout multiwafer-4x4" "multiwafer-4x4 64x64  gpt3-6.7b  DP256,TATP16x1" ui --layout multiwafer-4x4

# --- a model the layout's strategy does not fit: the screen opens on it at
# once and says so, a search in the background switches to its best
start ui --layout wsc-6x9 --model 70b
wait_for "switched to DP1,SP2,PP3,TATP3x3, the best that fits (step 88.41 s), found by a search" \
    "the background search's best"
# the search's list may have scrolled the reason out of the pane: page back to it
keys PPage PPage
wait_for "DP2,PP3,TATP3x3 does not fit llama2-70b (157 GB of 64.1 GB a unit): a search in the background" \
    "a strategy that does not fit, in the output pane"
keys End
wait_for "wsc-6x9 6x9  llama2-70b  DP1,SP2,PP3,TATP3x3" "the screen on the search's best"
wait_gone "too big" "the search's best fits"
# :layout and :model choose the same way, and the zoom fits the new mesh
keys ':' 'layout default' Enter
wait_for "nothing fits llama2-70b on default: no candidate fits the 0.44 GB" ":layout where nothing fits 70b"
keys ':' 'model gpt3-6.7b' Enter
wait_for "default 16x16  gpt3-6.7b  DP8,TP2,SP4,TATP4x1" ":model: the layout's strategy again"
keys -
wait_for "pixel = 2x2 units" "- zooms out into blocks"
keys ':' 'layout wsc-6x9' Enter
wait_for "wsc-6x9 6x9  gpt3-6.7b  DP2,PP3,TATP3x3" ":layout: the new layout's strategy"
wait_for "unit = " ":layout: the zoom fits the new mesh"
cap | grep -q "pixel = " && fail ":layout kept the zoom: $(cap | grep 'pixel = ')"
keys q
wait_exit "q (defaults that fit)"

# --- q while a long search for a fitting strategy runs (past its first
# progress): at once
start ui --layout multiwafer-4x4 --model 13b
wait_for "DP256,TATP16x1 does not fit gpt3-13b (524 MB of 440 MB a unit): searching for one that fits" \
    "the status line while the search runs"
wait_last ".*searching for one that fits [1-9][0-9]*% .*" "the background search's progress"
keys q
wait_s=5
wait_exit "q during the background search" && [ "$(cat "$tmp/rc")" = 0 ] ||
    fail "q during the background search: status $(cat "$tmp/rc" 2>/dev/null)"
wait_s=30

# --- bad flags of the screen: one line, status 2, before any terminal work
expect_bad "--bench-frames: '0'" ui --bench-frames 0
expect_bad "--bench-frames: at most 1000000" ui --bench-frames 2000000
expect_bad "$tmp/missing.yaml" ui --scenario "$tmp/missing.yaml"
expect_bad "--fail: unit 99,99" ui --fail 99,99 --bench-frames 1

# --- headless frames for make bench
expect_ok ui $scenario --bench-frames 20
grep -q "^bench ui_frame " "$tmp/out" || fail "--bench-frames prints no ui_frame line: $(cat "$tmp/out")"
grep -q "^bench ui_redraw " "$tmp/out" || fail "--bench-frames prints no ui_redraw line: $(cat "$tmp/out")"
grep -q "^bench ui_key_jump " "$tmp/out" || fail "--bench-frames prints no ui_key_jump line: $(cat "$tmp/out")"
grep -q "^bench ui_cmd_units " "$tmp/out" || fail "--bench-frames prints no ui_cmd_units line: $(cat "$tmp/out")"
grep -q "^bench ui_first_frame .* load=.* eval=.* draw=" "$tmp/out" ||
    fail "--bench-frames does not split the first frame: $(cat "$tmp/out")"
# --- a command's times for make bench
WAFERTOP_BENCH=1 "$bin" cmd units --top 1 >"$tmp/out" 2>"$tmp/err" || fail "cmd units under WAFERTOP_BENCH"
grep -q "^bench cmd_units default [0-9.]* ms lua eval=[0-9.]* total=[0-9.]* target<300 " "$tmp/err" ||
    fail "WAFERTOP_BENCH=1 prints no bench line: $(cat "$tmp/err")"
grep -q "top 1 by util" "$tmp/out" || fail "cmd units under WAFERTOP_BENCH printed: $(cat "$tmp/out")"

finish e2e_ui
