#!/bin/sh
# End-to-end Lua: tests/lua/*.lua through `wafertop run`, the stock commands
# through `wafertop cmd`, strategies through lua:NAME, and the sandbox.
# usage: sh tests/e2e_lua.sh ./wafertop
. tests/lib_e2e.sh

run_test() {
    "$bin" run --lua-path tests/lua "$@" >"$tmp/out" 2>"$tmp/err" || fail "$*: $(tail -n 40 "$tmp/out"; cat "$tmp/err")"
    grep -q ': ok$' "$tmp/out" || fail "$* printed no ok: $(cat "$tmp/out")"
}

csv=$("$bin" eval --layout default --model gpt3-6.7b --strategy DP8,TATP16 --format csv)
run_test tests/lua/eval_fields.lua default gpt3-6.7b DP8,TATP16 "$(echo "$csv" | head -1)" "$(echo "$csv" | tail -1)"
for s in DP8,TATP16 TP16 DP4,TP2,SP2,PP2,TATP4; do
    run_test tests/lua/eval_json.lua default gpt3-6.7b "$s" \
        "$("$bin" eval --layout default --model gpt3-6.7b --strategy "$s" --format json)"
done
run_test tests/lua/link_util.lua
run_test tests/lua/fmt.lua
run_test tests/lua/views.lua
run_test tests/lua/route.lua
run_test tests/lua/route_times.lua
run_test tests/lua/route_flit.lua
run_test tests/lua/net.lua
run_test tests/lua/module.lua "$(stock commands)" "$(stock policies)" "$(stock strategies)"
run_test tests/lua/session_patterns.lua
run_test --lua-mem 16MiB tests/lua/session_refusals.lua
# random actions on sessions of five layouts, 12,400 steps: refusals are fine,
# crashes and leaks are not. One call runs it all: the budget is set for it;
# some actions run with the memory full, which a small cap keeps quick. The
# budget is also run time (100 s at 1e9): the run takes 7 s here alone, and
# several times that under the sanitizers on a busy machine.
run_test --lua-budget 1e9 --lua-mem 16MiB tests/lua/session_fuzz.lua 1 3

script() { printf '%s\n' "$2" >"$tmp/$1.lua"; }

# sandbox, budget and memory cap
script os 'local x = 1
os.execute("true")'
expect_bad "$tmp/os.lua:2: attempt to index a nil value (global 'os')" run "$tmp/os.lua"
script io 'io.open("/etc/passwd")'
expect_bad "$tmp/io.lua:1: attempt to index a nil value (global 'io')" run "$tmp/io.lua"
script req 'require "os"'
expect_bad "module 'os' not found" run "$tmp/req.lua"
script bytecode 'local f, err = load(string.dump(function() return 1 end))
error(err)'
expect_bad "attempt to load a binary chunk" run "$tmp/bytecode.lua"
script loadlib 'package.loadlib("libc.so.6", "system")'
expect_bad "attempt to call a nil value (field 'loadlib')" run "$tmp/loadlib.lua"
script debug 'debug.getinfo(1)'
expect_bad "global 'debug'" run "$tmp/debug.lua"
script dofile 'dofile("/etc/passwd")'
expect_bad "global 'dofile'" run "$tmp/dofile.lua"
script spin 'while true do end'
expect_bad "instruction budget of 1000000 exceeded" run --lua-budget 1e6 "$tmp/spin.lua"
script swallow 'while true do pcall(function() while true do end end) end'
expect_bad "instruction budget" run --lua-budget 1e6 "$tmp/swallow.lua"
script hog 'local s = string.rep("x", 1 << 30)'
expect_bad "memory cap of 64 MiB exceeded" run --lua-mem 64MiB "$tmp/hog.lua"
script syntax 'local x =
= 2'
expect_bad "$tmp/syntax.lua:2: unexpected symbol" run "$tmp/syntax.lua"
script route_prio 'wt.route{flows = {{src = {0, 0}, dst = {1, 0}, bytes = 1, priority = 0.5}}}'
expect_bad "flow 1: priority must be a whole number" run "$tmp/route_prio.lua"
script session_prio 'local s = wt.session{strategy = "DP8,TATP16"}
s:set_priority("dp.allreduce", 1.5)'
expect_bad "session_prio.lua:2: set_priority: priority must be a whole number (higher goes first), not 1.5" \
    run "$tmp/session_prio.lua"
script traceback 'local function f() error("deep") end
f()'
expect_bad "stack traceback" run "$tmp/traceback.lua"
"$bin" run --unsafe-lua "$tmp/io.lua" >/dev/null 2>&1 || fail "--unsafe-lua still refuses io"
expect_bad "unknown option '--bogus'" run --bogus "$tmp/io.lua"

# arg as the lua program sets it
script args 'print(arg[0], arg[1], arg[2], select("#", ...))'
out=$("$bin" run "$tmp/args.lua" a b)
[ "$out" = "$(printf '%s\ta\tb\t2' "$tmp/args.lua")" ] || fail "arg: $out"

# commands through wafertop cmd
out=$("$bin" cmd link_util --group 4x4 --strategy TP16 --placement linear) || fail "cmd link_util"
echo "$out" | grep -q 'by 4x4 tile' || fail "link_util table: $out"
"$bin" cmd hot_links --threshold 0.05 --strategy TP16 --placement linear | grep -q 'links at or above 5.0%' \
    || fail "cmd hot_links"
"$bin" cmd units --sort memory --top 3 | grep -q 'top 3 by memory' || fail "cmd units"
# on the wafer (850,500 units, 3.4M link slots) the stock commands run
# within the default budget and memory cap (the views are computed in C)
expect_ok cmd link_util --group 12x12 --layout wse2
grep -q '^link utilisation (%) by 12x12 tile, mean/max, busiest window$' "$tmp/out" || fail "wse2 link_util: $(head -3 "$tmp/out")"
grep -qE '^y\\x +0 +1 .* 62$' "$tmp/out" || fail "wse2 link_util: 63 tiles across (750 / 12)"
grep -qE '^94 ' "$tmp/out" || fail "wse2 link_util: 95 rows of tiles (1134 / 12)"
[ "$(grep -A 20 '^hottest 10 links:$' "$tmp/out" | grep -cE '^[0-9]+,[0-9]+,[EWNS] [0-9.]+% ')" = 10 ] \
    || fail "wse2 link_util: the 10 hottest links: $(tail -n 12 "$tmp/out")"
expect_ok cmd units --layout wse2
grep -q '^850500 units: 850500 used, 0 idle, 0 dead; top 20 by util$' "$tmp/out" || fail "wse2 units: $(head -1 "$tmp/out")"
[ "$(grep -cE '^[0-9]+,[0-9]+ +[0-9]+ +0 +[0-9.]+%' "$tmp/out")" = 20 ] || fail "wse2 units: 20 rows: $(cat "$tmp/out")"
# (hot links: 0 under the layout's strategy, 80 under DP8,TATP16's rings)
for st in "" "--strategy DP8,TATP16"; do
# shellcheck disable=SC2086 # st is empty or two words
hot=$("$bin" eval --layout wse2 $st --format json | tr , '\n' | sed -n 's/^"hot_links"://p')
# shellcheck disable=SC2086
expect_ok cmd hot_links --layout wse2 $st
grep -q "^$hot links at or above 90.0% over a window$" "$tmp/out" || fail "wse2 hot_links: $(head -1 "$tmp/out") (eval: $hot)"
[ "$(grep -cE '^[0-9]+,[0-9]+,[EWNS] +[0-9.]+%' "$tmp/out")" = "$hot" ] || fail "wse2 hot_links: $hot rows"
done
"$bin" cmd memory | grep -q '^fullest unit' || fail "cmd memory"
# on wsc-6x9 the optimizer states live in DRAM whole (the last column)
"$bin" cmd memory --layout layouts/wsc-6x9.yaml --strategy DP2,PP3,TATP3x3 | grep -q '^optimizer .*41.2%  3.23 GB$' ||
    fail "cmd memory on wsc-6x9 does not say what lives in DRAM"
"$bin" cmd phases | grep -q 'dp.allreduce' || fail "cmd phases"
"$bin" cmd help >"$tmp/help" || fail "cmd help"
names_stock commands "$tmp/help" "cmd help"
"$bin" cmd link_util --help | grep -q -- '--group WxH' || fail "cmd NAME --help"
expect_bad "^unknown command 'nope' (commands: [a-z0-9_, ]*)$" cmd nope
names_stock commands "$tmp/err" "the unknown command's error"
# a flag mistake is one line naming the command and the flag, nothing on
# stdout, exit 2; a script's own bug keeps its traceback
mistake() {
    want=$1
    shift
    "$bin" cmd "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "$want" ] ||
        fail "cmd $*: exit $rc, stderr '$(cat "$tmp/err")', want '$want'"
}
mistake "link_util: unknown flag '--bogus' (flags: --format, --group, --over, --phase, --top)" link_util --bogus 1
mistake "link_util: --group: expected WxH (as 8x8), got 'x'" link_util --group x
mistake "link_util: --group: expected WxH (as 8x8), got '0x4'" link_util --group=0x4
mistake "link_util: --format: expected one of table, csv, got 'json'" link_util --format json
mistake "link_util: --over: expected one of peak, step, got 'mean'" link_util --over mean
mistake "link_util: --top: expected a number, got 'x'" link_util --top x
mistake "link_util: --top: expected a whole number >= 0, got '-3'" link_util --top -3
mistake "link_util: --top: needs a value" link_util --top
mistake "link_util: unexpected argument 'extra' (flags: --format, --group, --over, --phase, --top)" link_util extra
mistake "link_util: --phase: expected one of fwd.attn.qkv, fwd.attn.core, fwd.attn.proj, fwd.mlp.in, fwd.mlp.out, \
fwd.logits, bwd.logits, bwd.mlp.out, bwd.mlp.in, bwd.attn.proj, bwd.attn.core, bwd.attn.qkv, dp.allreduce, \
optimizer, got 'nope'" link_util --phase nope --strategy DP8,TATP16
mistake "units: --sort: expected one of util, memory, got 'speed'" units --sort speed
mistake "units: --top: expected a whole number >= 0, got '2.5'" units --top 2.5
mistake "hot_links: --threshold: expected a number, got 'hot'" hot_links --threshold hot
mistake "memory: unknown flag '--format' (flags: none)" memory --format json
mistake "phases: unexpected argument 'all' (flags: none)" phases all
mistake "help: no command 'nope' (commands: help, hot_links, link_util, memory, phases, units)" help nope
# the scenario's flags stay with wafertop cmd wherever they are: after the
# command's name too
expect_ok cmd link_util --group 4x4 --strategy TP16 --placement linear --format csv
[ "$(wc -l <"$tmp/out")" -eq 17 ] || fail "cmd link_util --group 4x4 --format csv: not 16 tiles: $(cat "$tmp/out")"

# strategies in Lua, usable as --strategy lua:NAME
"$bin" eval --strategy lua:megatron --format json | grep -q '"text":"DP8,TP32".*"placement":"linear"' \
    || fail "lua:megatron"
"$bin" eval --strategy lua:deepspeed3d --format json | grep -q '"text":"DP8,TP8,PP4"' || fail "lua:deepspeed3d"
"$bin" eval --layout dojo-tile --strategy lua:deepspeed3d --format json | grep -q '"text":"DP1,TP8,PP2"' \
    || fail "lua:deepspeed3d shrinks to fit 25 units"
# temp is the search's best on the model's micro-batch
temp=$("$bin" eval --strategy lua:temp --format json | grep -o '"strategy":{[^}]*}' | head -1)
best=$("$bin" search --quiet --fix microbatch=1 --top 1 --format json | grep -o '"strategy":{[^}]*}' | head -1)
[ -n "$temp" ] && [ "$temp" = "$best" ] || fail "lua:temp is not the search's best: $temp vs $best"
expect_bad "^--strategy: no strategy script 'nope' (strategies: [a-z0-9_, ]*)$" eval --strategy lua:nope
names_stock strategies "$tmp/err" "the unknown strategy's error"

# --help lists what the script directories hold
expect_ok cmd --help
names_stock commands "$tmp/out" "cmd --help"
names_stock strategies "$tmp/out" "cmd --help"
expect_ok eval --help
names_stock strategies "$tmp/out" "eval --help"
expect_ok tune --help
names_stock policies "$tmp/out" "tune --help"

# a user directory overrides a built-in script of the same name
mkdir -p "$tmp/user/commands" "$tmp/user/strategies"
printf 'wt.command("help", function() wt.print("my help") end, "mine")\n' >"$tmp/user/commands/help.lua"
printf 'return "TATP8"\n' >"$tmp/user/strategies/megatron.lua"
[ "$("$bin" cmd help --lua-path "$tmp/user")" = "my help" ] || fail "--lua-path command override"
"$bin" eval --lua-path "$tmp/user" --strategy lua:megatron --format json | grep -q '"tatp":8' \
    || fail "--lua-path strategy override"
# a strategy function gets the command's network model
printf -- '-- bynet: TATP8 under bottleneck, TATP16 otherwise.\nreturn function(layout, model, opts)\n  return opts.net == "bottleneck" and "TATP8" or "TATP16"\nend\n' \
    >"$tmp/user/strategies/bynet.lua"
"$bin" eval --lua-path "$tmp/user" --strategy lua:bynet --net bottleneck --format json | grep -q '"tatp":8' \
    || fail "a strategy script does not see --net bottleneck"
"$bin" eval --lua-path "$tmp/user" --strategy lua:bynet --format json | grep -q '"tatp":16' \
    || fail "a strategy script does not see the default net"
rm "$tmp/user/strategies/bynet.lua"
# and a user's own command, policy and strategy join the stock ones
mkdir -p "$tmp/user/policies"
printf 'wt.command("mine", function() wt.print("mine ran") end, "mine\\n  my own command")\n' \
    >"$tmp/user/commands/mine.lua"
printf 'wt.policy("calm", {help = "does nothing"})\n' >"$tmp/user/policies/calm.lua"
printf -- '-- slow: everything on one unit.\nreturn "DP1"\n' >"$tmp/user/strategies/slow.lua"
[ "$("$bin" cmd mine --lua-path "$tmp/user")" = "mine ran" ] || fail "a user command"
expect_bad "^unknown command 'nope' (commands: .*mine" cmd nope --lua-path "$tmp/user"
names_stock commands "$tmp/err" "the unknown command's error with a user command"
expect_ok ui --help --lua-path "$tmp/user"
grep -q '^  mine  *my own command$' "$tmp/out" || fail "ui --help lacks the user's command: $(cat "$tmp/out")"
grep -q '^  calm  *does nothing$' "$tmp/out" || fail "ui --help lacks the user's policy"
grep -q '^  slow  *everything on one unit.$' "$tmp/out" || fail "ui --help lacks the user's strategy"
for kind in commands policies strategies; do names_stock $kind "$tmp/out" "ui --help with user scripts"; done

# a user command's bug (not a flag mistake) keeps its file:line and traceback
printf 'wt.command("buggy", function()\n  local x = nil\n  return x.field\nend, "buggy")\n' >"$tmp/user/commands/buggy.lua"
expect_bad "^$tmp/user/commands/buggy.lua:3: attempt to index a nil value" cmd buggy --lua-path "$tmp/user"
grep -q '^stack traceback:$' "$tmp/err" || fail "a command's bug lost its traceback: $(cat "$tmp/err")"
rm "$tmp/user/commands/buggy.lua"

printf 'wt.command("broken", function() end\n' >"$tmp/user/commands/broken.lua"
expect_bad "$tmp/user/commands/broken.lua:2: ')' expected" cmd help --lua-path "$tmp/user"

# --- the budget holds whatever the script does (each under a timeout, so
# that a regression fails rather than hangs)
script gc_loop 'setmetatable({}, {__gc = function() while true do end end})'
expect_bad_soon "$tmp/gc_loop.lua:1: setmetatable: __gc is not allowed in the sandbox" run "$tmp/gc_loop.lua"
script gc_later 'local mt = {}
setmetatable({}, mt)
mt.__gc = function() while true do end end
collectgarbage()'
expect_ok run "$tmp/gc_later.lua" # a __gc given later makes nothing finalizable
script handler_loop 'xpcall(function() while true do end end, function() while true do end end)'
expect_bad_soon "$tmp/handler_loop.lua:1: instruction budget of 100000000 exceeded" \
    run "$tmp/handler_loop.lua"
script pattern 'print(string.find(string.rep("a", 60), string.rep("a?", 60) .. string.rep("a", 60)))'
expect_bad_soon "^$tmp/pattern.lua:1: instruction budget of 100000000 exceeded (--lua-budget)$" run "$tmp/pattern.lua"
script pattern_gsub 'local s = string.rep("(", 2e4)
s:gsub("%b()", "")'
expect_bad_soon "pattern_gsub.lua:2: instruction budget of 100000000 exceeded" run "$tmp/pattern_gsub.lua"
script rep_empty 'local s = string.rep("", 1e12)'
expect_bad_soon "rep_empty.lua:1: instruction budget" run "$tmp/rep_empty.lua"
script eval_loop 'while true do wt.eval{} end'
expect_bad_soon "eval_loop.lua:1: instruction budget of 10000000 exceeded: its 1.0 s of run time are over" \
    run --lua-budget 1e7 "$tmp/eval_loop.lua"
script search_big 'wt.search{layout = "wse2"}'
expect_bad_soon "search_big.lua:1: instruction budget of 10000000 exceeded: its 1.0 s of run time are over" \
    run --lua-budget 1e7 "$tmp/search_big.lua"

# --- the memory cap counts the C memory of results and layouts
script keep_results 'local keep = {}
for i = 1, 1e5 do keep[i] = wt.eval{} end'
expect_bad_soon "^$tmp/keep_results.lua:2: memory cap of 16 MiB exceeded (--lua-mem)" \
    run --lua-mem 16MiB "$tmp/keep_results.lua"
script wafer_result 'wt.eval{layout = "wse2"}'
expect_bad_soon "wafer_result.lua:1: memory cap of 16 MiB exceeded (--lua-mem)" run --lua-mem 16MiB "$tmp/wafer_result.lua"

# --- a script reads regular files only, and no error shows their contents
mkfifo "$tmp/fifo"
for fn in layout model; do
    for kind in "/dev/zero:a character device" "$tmp/fifo:a FIFO" "$tmp:a directory"; do
        path=${kind%%:*}
        script read_odd "wt.$fn(\"$path\")"
        expect_bad_soon "^$tmp/read_odd.lua:1: $path: not a regular file (${kind#*:}); give a YAML file$" \
            run "$tmp/read_odd.lua"
    done
    printf 'secret_key_abc: 1\n' >"$tmp/secret.yaml"
    script leak "wt.$fn(\"$tmp/secret.yaml\")"
    expect_bad_soon "^$tmp/leak.lua:1: $tmp/secret.yaml:1:1: unknown key '...' (allowed: name, " run "$tmp/leak.lua"
    grep -q secret_key_abc "$tmp/err" && fail "wt.$fn: the error shows the file's contents: $(cat "$tmp/err")"
    printf 'name: [topsecretvalue\n' >"$tmp/secret.yaml"
    expect_bad_soon "^$tmp/leak.lua:1: $tmp/secret.yaml:2:1: not valid YAML" run "$tmp/leak.lua"
    grep -q topsecretvalue "$tmp/err" && fail "wt.$fn: the error shows the file's contents: $(cat "$tmp/err")"
done

# --- on the screen, Ctrl-C and SIGTERM give the terminal back within 1 s
# while a policy runs: in Lua (the hook sees the signal), in a search (its
# watchdog stops it), in a C call that reads no flag (4e6 numbers sorted:
# seconds in C; the alarm gives the terminal back). The budget is too large
# to stop any of them first.
. "$(dirname "$0")/lib_tmux.sh"
script spin_policy 'wt.policy("spin_policy", {on_step = function() while true do end end})'
script search_policy 'wt.policy("search_policy", {on_step = function() wt.search{layout = "wse2"} end})'
script sort_policy 'wt.policy("sort_policy", {on_step = function()
  local t = {}
  for i = 1, 4e6 do t[i] = (i * 7919) % 4000037 end
  table.sort(t)
end})'
# ms: milliseconds since the epoch
ms() { echo $(($(date +%s%N) / 1000000)); }
for case in "spin_policy INT 130" "search_policy TERM 143" "sort_policy INT 130"; do
    set -- $case
    start ui --lua-budget 1e15 --lua-mem 1GiB
    wait_for "figures" "$1: the first frame"
    # Paused, so that the policy first runs on the n below, after its message.
    keys ' '
    wait_for "paused" "$1: space pauses"
    keys ':' "policy $tmp/$1.lua" Enter
    wait_for "policy $1 acts between steps" "$1: :policy"
    keys n
    sleep 1
    [ -s "$tmp/rc" ] && fail "$1: the screen ended before the signal"
    pid=$(pgrep -n -f "$bin ui --lua-budget")
    t0=$(ms)
    [ -n "$pid" ] && kill -"$2" "$pid"
    wait_exit "$1 SIG$2" && {
        took=$(($(ms) - t0))
        [ "$took" -le 1500 ] || fail "$1 SIG$2: the screen took $took ms to end"
        [ "$(cat "$tmp/rc")" = "$3" ] || fail "$1 SIG$2: exit status $(cat "$tmp/rc"), want $3"
        restored "$1 SIG$2"
    }
done

finish e2e_lua
