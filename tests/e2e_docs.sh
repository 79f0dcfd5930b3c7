#!/bin/sh
# The docs describe every stock script, and only those: each file in
# lua/commands, lua/policies and lua/strategies is named in code in README.md
# and docs/LUA.md (`NAME ...` or `lua:NAME`) and has an entry in the manual
# page's STOCK SCRIPTS section, whose entries all have a file. The files are
# read when the test runs: a new script without docs fails, and so does a
# removed one that the manual page still describes.
# usage: sh tests/e2e_docs.sh ./wafertop
. tests/lib_e2e.sh

# "KIND NAME" for each entry (a .TP, then .B or .BR NAME) of the manual
# page's STOCK SCRIPTS section, KIND from its .SS heading
awk '/^\.SH/ { in_section = ($0 ~ /^\.SH STOCK SCRIPTS/) }
     in_section && /^\.SS/ { kind = tolower($2) }
     in_section && after_tp && /^\.BR? / { name = $2; sub(/^lua:/, "", name); print kind, name }
     { after_tp = ($0 == ".TP") }' docs/wafertop.1 >"$tmp/man"

for kind in commands policies strategies; do
    [ -n "$(stock $kind)" ] || fail "no stock $kind in lua/$kind"
    for name in $(stock $kind); do
        for doc in README.md docs/LUA.md; do
            grep -qE "\`(lua:)?$name[\` ]" "$doc" || fail "$doc does not name the stock $kind '$name' in code"
        done
        grep -qx "$kind $name" "$tmp/man" || fail "docs/wafertop.1 has no STOCK SCRIPTS entry for the $kind '$name'"
    done
done

[ -s "$tmp/man" ] || fail "docs/wafertop.1 has no STOCK SCRIPTS entries"
while read -r kind name; do
    [ -e "lua/$kind/$name.lua" ] || fail "docs/wafertop.1 describes the $kind '$name' but lua/$kind/$name.lua is gone"
done <"$tmp/man"

# --- every command line of README.md runs, and either succeeds on a
# scenario that fits or ends as its comment says ("exit N"; "DOES NOT FIT"
# for an evaluation that shows it). The lines are those of its ```sh blocks
# that start with `wafertop` or `make`, or with `sh .ci/bootstrap && make`
# (a line of several is split at each `wafertop`); the files they name as
# the user's own are made here, and what they write (`--out FILE`) goes
# there too.
# `make test` is this run; `make bench` prints timings (its parts run in
# e2e_ui.sh); `make run` opens the screen on the Makefile's RUN_SCENARIO,
# checked here through eval.
mkdir -p "$tmp/my-scripts"
printf 'name: my-wafer\nmesh: 16x16\nunit: {compute: 100 TFLOPS, sram: 2 GB}\nlink: {bandwidth: 1 TB/s, latency: 100 ns}\n' \
    >"$tmp/my-wafer.yaml"
cp tests/fixtures/models/search-small.yaml "$tmp/my-model.yaml"
printf 'print("args: " .. table.concat(arg, " "))\n' >"$tmp/myscript.lua"
printf 'wt.policy("my_policy", {on_step = function(session, result) end})\n' >"$tmp/my_policy.lua"
saved="--strategy DP8,TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8"
printf 'layout: default\nmodel: gpt3-6.7b\nstrategy: "DP8,TP32"\nplacement: linear\ncheckpoint: full\nmem: zero,act_int8,grad_fp8\n' \
    >"$tmp/saved.yaml"

# quoted WORD: WORD in single quotes, for eval
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# fits WHAT ARGS...: the scenario flags of ARGS (a command's words) through
# eval: it fits, or, with want_unfit set, it shows DOES NOT FIT
fits() {
    what=$1
    shift
    keep=""
    while [ $# -gt 0 ]; do
        case $1 in
        --layout | --model | --seq | --batch | --microbatch | --strategy | --placement | --collective | --routing | \
            --checkpoint | --mem | --grad-compress | --chunk | --subgroup | --tp-seqpar | --exec | --fail | --net | \
            --lua-path)
            [ $# -ge 2 ] || break
            keep="$keep $1 $(quoted "$2")"
            shift ;;
        --scenario) keep="$keep $saved" && shift ;;
        esac
        # --net flit runs one phase of links; the scenario is timed as by default
        case $keep in *" --net 'flit'") keep=${keep% --net \'flit\'} ;; esac
        shift
    done
    eval "set -- $keep"
    "$bin" eval "$@" >"$tmp/fit" 2>&1 || { fail "README: '$what': eval$keep: $(cat "$tmp/fit")"; return; }
    if [ -n "$want_unfit" ]; then
        grep -q "DOES NOT FIT" "$tmp/fit" || fail "README: '$what' says it does not fit, but it does"
    elif grep -q "DOES NOT FIT" "$tmp/fit"; then
        fail "README: '$what' evaluates a scenario that does not fit: $(grep '^memory' "$tmp/fit")"
    fi
}

awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' README.md |
    sed 's/   *wafertop /\n&/g' | sed 's/^ *//; s|^sh \.ci/bootstrap && ||' | grep -E '^(wafertop|make|mpirun -n [0-9]+ wafertop)( |$)' >"$tmp/lines"
[ "$(wc -l <"$tmp/lines")" -ge 40 ] || fail "README: only $(wc -l <"$tmp/lines") command lines found"
while IFS= read -r line; do
    cmd=$(printf '%s' "$line" | sed 's/ *#.*//')
    note=$(printf '%s' "$line" | sed -n 's/^[^#]*#//p')
    want=$(printf '%s' "$note" | sed -n 's/.*exit \([0-9]\).*/\1/p')
    want_unfit=$(printf '%s' "$note" | grep -o "DOES NOT FIT")
    case $cmd in
    "make test" | "make bench") continue ;;
    "make run")
        fits "$line" $(sed -n '/^RUN_SCENARIO/,/[^\\]$/p' Makefile | sed 's/^RUN_SCENARIO = //; s/\\$//')
        continue ;;
    make*) fail "README: '$line' is a make target this test does not know" && continue ;;
    esac
    # pasted into a shell as is, a line is one command: an unquoted | ; & < >
    # ( ) or backquote would make it a pipe or a list (issue 13: --only
    # 'collective=ring|bidir' ran as a pipe)
    if printf '%s' "$cmd" | sed "s/'[^']*'//g; s/\"[^\"]*\"//g" | grep -q '[|;&<>()`]'; then
        fail "README: '$line' holds an unquoted shell operator"
        continue
    fi
    # an MPI job's line runs under mpirun (as root too: CI is root)
    ranks=$(printf '%s' "$cmd" | sed -n 's/^mpirun -n \([0-9]*\) wafertop .*/\1/p')
    cmd=$(printf '%s' "$cmd" | sed 's/^mpirun -n [0-9]* //')
    args=$(printf '%s' "$cmd" | sed "s/^wafertop *//; s|~/my-scripts|$tmp/my-scripts|g; \
        s|my-wafer.yaml|$tmp/my-wafer.yaml|; s|my-model.yaml|$tmp/my-model.yaml|; s|myscript.lua|$tmp/myscript.lua|; \
        s|my_policy.lua|$tmp/my_policy.lua|; s|saved.yaml|$tmp/saved.yaml|; s|--out |--out $tmp/|; \
        s| sweep.csv | $tmp/sweep.csv |")
    eval "set -- ${args:-ui}"
    sub=$1
    case $sub in --*) sub=flag ;; esac
    # the screen opens headless, for one frame
    if [ "$sub" = ui ]; then
        case " $args " in *" --bench-frames "* | *" --help "*) ;; *) set -- "$@" --bench-frames 1 ;; esac
    fi
    if [ -n "$ranks" ]; then
        (mpi_ready && mpi -n "$ranks" "$bin" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
    else
        "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    fi
    rc=$?
    if [ $rc -ne "${want:-0}" ]; then
        fail "README: '$line' exits $rc, not ${want:-0}: $(head -c 300 "$tmp/err")"
        continue
    fi
    case $sub in
    eval | links | cmd | tune | ui) [ $rc -eq 0 ] && fits "$line" "$@" ;;
    esac
done <"$tmp/lines"

finish e2e_docs
