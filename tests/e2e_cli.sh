#!/bin/sh
# End-to-end: the real binary, its outputs, exit codes and one-line errors.
# usage: sh tests/e2e_cli.sh ./wafertop
. tests/lib_e2e.sh

expect_ok --version
grep -q '^wafertop [0-9]' "$tmp/out" || fail "--version prints no version"
expect_ok --help
grep -q 'eval' "$tmp/out" || fail "--help does not list eval"
expect_ok eval --help
grep -q -- '--placement' "$tmp/out" || fail "eval --help lacks --placement"
expect_ok links --help

# eval: every JSON key the issue lists
expect_ok eval --layout default --model gpt3-6.7b --strategy DP8,TATP16 --format json
for key in layout model strategy dp tp sp pp tatp tatp_grid placement collective routing units_total \
    units_used units_idle params flops_per_step model_flops_per_step step_time_s tokens_per_s mfu hfu \
    idle_fraction max_link_util mean_link_util hot_links bottleneck_phase memory grads optimizer \
    activations activations_per_layer buffers total capacity fits phases name count compute_s comm_s \
    time_s; do
    grep -q "\"$key\":" "$tmp/out" || fail "eval JSON lacks \"$key\""
done
grep -q '"name":"dp.allreduce"' "$tmp/out" || fail "eval JSON lacks the dp.allreduce phase"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "eval JSON is not one line"

expect_ok eval --strategy 'dp8 tatp16' --format csv
[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "eval CSV is not a header and a row"
head -1 "$tmp/out" | grep -q 'step_time_s' || fail "eval CSV header lacks step_time_s"
expect_ok eval --strategy '(8,1,1,1,16)'
grep -q '^step ' "$tmp/out" || fail "eval table lacks the step line"
expect_ok eval --layout layouts/multiwafer-4x4.yaml --strategy DP64,TATP64 --format json

# --net: the default model is fluid, so naming it changes nothing; every
# output names the model that timed it
expect_ok eval --format json
mv "$tmp/out" "$tmp/default.json"
grep -q '"net":"fluid",' "$tmp/default.json" || fail "eval JSON lacks \"net\":\"fluid\""
expect_ok eval --net fluid --format json
cmp -s "$tmp/out" "$tmp/default.json" || fail "--net fluid changes the JSON"
expect_ok eval --net=BOTTLENECK --format csv
head -1 "$tmp/out" | tr , '\n' | grep -qx net || fail "eval CSV header lacks net"
expect_ok eval --net bottleneck
grep -q '^net       bottleneck: ' "$tmp/out" || fail "eval table lacks the net line"
expect_ok eval --help
grep -q -- '--net fluid' "$tmp/out" || fail "eval --help lacks --net"

# links: one row per directed link of the 16x16 mesh (2 * 2 * 15 * 16 = 960)
expect_ok links --strategy TATP16
[ "$(wc -l <"$tmp/out")" -eq 961 ] || fail "links prints $(wc -l <"$tmp/out") lines, want 961"
head -1 "$tmp/out" | grep -q '^x,y,dir,bytes,busy_s,util,peak_util,hot_s$' || fail "links header"
expect_ok links --strategy TATP16 --phase dp.allreduce --format json
expect_ok links --strategy DP256 --phase dp.allreduce
awk -F, 'NR > 1 && $4 > 0 { n++ } END { exit n > 0 ? 0 : 1 }' "$tmp/out" || fail "links --phase shows no bytes"
# a prefetched ZeRO gather's links are busy over its own run beside the layer
# before, not over the part it exposes: the busiest is eval's phase figure
expect_ok eval --mem zero --strategy DP16,TATP16 --format json
want=$(grep -o '"name":"fwd.zero.gather"[^}]*' "$tmp/out" | sed -n 's/.*"max_link_util":\([^,]*\),.*/\1/p')
expect_ok links --mem zero --strategy DP16,TATP16 --phase fwd.zero.gather
got=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m }' "$tmp/out")
awk -v a="$got" -v b="$want" 'BEGIN { exit (b > 0.5 && a - b < 1e-9 && b - a < 1e-9) ? 0 : 1 }' ||
    fail "links --phase fwd.zero.gather peaks at $got, eval says $want"

# windows: the make-run scenario's DP all-reduce (376 us at 96.8 %) is hot over
# 100 us; cmd hot_links lists its links, hot for those 376 us, and 22 us more
# under fluid where the ZeRO gathers it prefetches beside the layers before
# them meet other traffic; a window longer than the step is the step, with a
# note
run="--strategy DP8,TP32 --placement linear --checkpoint full --mem zero,act_int8,grad_fp8"
expect_ok eval $run --format json
hot=$(tr , '\n' <"$tmp/out" | sed -n 's/^"hot_links"://p')
[ "${hot:-0}" -gt 0 ] || fail "eval: hot_links $hot on the make-run scenario"
expect_ok cmd hot_links $run
grep -q "^$hot links at or above 90.0%" "$tmp/out" || fail "cmd hot_links: $(head -1 "$tmp/out")"
grep -qE '^[0-9]+,[0-9]+,[NSEW] +100.0% +11\.4% +398 us' "$tmp/out" || fail "cmd hot_links lacks the DP links"
expect_ok cmd hot_links $run --net bottleneck
grep -qE '^[0-9]+,[0-9]+,[NSEW] +100.0% +10\.8% +376 us' "$tmp/out" || fail "cmd hot_links lacks the DP links (bottleneck)"
expect_ok links $run
awk -F, 'NR > 1 && $7 < $6 { bad++ } NR > 1 && $8 > 0 { hot++ } END { exit !(bad == 0 && hot > 0) }' "$tmp/out" \
    || fail "links: peak_util below util, or no hot_s"
expect_ok eval $run --window 10s --format json
grep -q '^note: --window 10 s is longer than the step' "$tmp/err" || fail "no note for a long window"
tr , '\n' <"$tmp/out" | grep -qx '"hot_links":0' || fail "a step-long window still finds hot links"
expect_ok eval $run --window 1ms
grep -q 'hot (1 ms peak >= 90 %)' "$tmp/out" || fail "eval table: no window"

# bad input: one line naming the flag or file:line:col, exit 2
expect_bad1 '^--net flit: the flit level runs one phase.s traffic: wafertop links --net flit --phase NAME$' eval --net flit
expect_bad1 '^--net flit: name the phase to run with --phase NAME$' links --net flit
expect_bad1 "^--phase: no phase 'fwd.nope' in this step" links --net flit --phase fwd.nope
expect_bad1 '^--net flit: optimizer moves no bytes between units of the window 0,0 16x16$' links --net flit --phase optimizer
expect_bad1 '^--net flit: unit 3,4 of the window 0,0 16x16 has failed; the flit level routes whole meshes$' \
    links --net flit --phase fwd.attn.core --fail 3,4 --strategy DP8,TATP16
expect_bad1 'router.num_vcs: expected a whole number from 1 to 32$' eval --layout tests/fixtures/layouts/bad-router-vcs.yaml
expect_bad1 '^--flit-window 1,0: a 16x16 window from there leaves the 16x16 mesh$' \
    links --net flit --phase fwd.attn.core --flit-window 1,0
expect_bad1 '^--flit-window: only with --net flit$' links --phase fwd.attn.core --flit-window 0,0
expect_bad1 "^--flit-window: '0,0,E' is not x,y" links --net flit --phase fwd.attn.core --flit-window 0,0,E
expect_bad1 "^unknown option '--flit-window'" eval --flit-window 0,0
printf 'name: one-vc\nmesh: 8x8\nunit: {compute: 100 TFLOPS, sram: 40 GB}\nlink: {bandwidth: 1 TB/s, latency: 1 ns}\nrouter: {num_vcs: 1}\n' \
    >"$tmp/one-vc.yaml"
expect_bad1 '^--net flit: packets route both XY and YX: num_vcs must be 2 at least, a class each$' \
    links --layout "$tmp/one-vc.yaml" --strategy DP4,TATP16 --routing balanced --net flit --phase fwd.attn.core
# calibrate: the factors beside the layout, read by every later command
mkdir -p "$tmp/cal"
cp layouts/default.yaml "$tmp/cal/default.yaml"
expect_ok calibrate --layout "$tmp/cal/default.yaml"
grep -q '^calibration of default: neighbour 1\.00[0-9]* lines 1\.0[0-9]* turns 1\.3[0-9]* edges 1\.0000 (kept) shift 1\.0000 (kept) store 1\.0000 (kept); written to .*/cal/default\.calib\.yaml$' \
    "$tmp/err" || fail "calibrate: the factors are not on stderr: $(cat "$tmp/err")"
grep -q '^layout: "default"$' "$tmp/cal/default.calib.yaml" || fail "calibrate: no layout in the file"
ls "$tmp/cal" | grep -v '^default\.\(calib\.\)\?yaml$' && fail "calibrate left a temporary file"
expect_ok eval --layout "$tmp/cal/default.yaml"
grep -q "^calib     $tmp/cal/default.calib.yaml: bandwidth time x neighbour 1.00. lines 1.0.. turns 1.3.. edges 1.000 shift 1.000 store 1.000$" \
    "$tmp/out" || fail "eval does not show the calibration: $(head -7 "$tmp/out")"
grep -q 'dp.allreduce .* 1.5[0-9] ms' "$tmp/out" || fail "calibrated eval: the DP all-reduce is not the flit level's 1.57 ms"
expect_ok eval --layout "$tmp/cal/default.yaml" --format json
python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["calibration"]; assert c["turns"] > 1.3 and c["store"] == 1, c' \
    "$tmp/out" || fail "eval --format json: no calibration"
expect_ok links --layout "$tmp/cal/default.yaml" --net flit --phase dp.allreduce
grep -q 'flow level 1.35 ms (+16.[0-9] %), calibrated 1.57 ms ([+-]0.[0-9] %)' "$tmp/err" ||
    fail "links --net flit: no calibrated time: $(cat "$tmp/err")"
printf 'layout: default\nfactors:\n  turns: 0.5\n' >"$tmp/cal/default.calib.yaml"
expect_bad1 "^$tmp/cal/default.calib.yaml:3:10: factors: turns: expected a number from 1 to 100, found '0.5'$" \
    eval --layout "$tmp/cal/default.yaml"
# calibrate replaces a broken or stale file (it does not read it to measure)
printf 'layout: other\nfactors:\n  turns: 2\n' >"$tmp/cal/default.calib.yaml"
expect_bad1 "layout: the calibration of layout 'other', not of 'default': run wafertop calibrate again$" \
    eval --layout "$tmp/cal/default.yaml"
expect_ok calibrate --layout "$tmp/cal/default.yaml"
grep -q "^calibrate: the old file is replaced, its classes not kept: .*'other'" "$tmp/err" ||
    fail "calibrate over a stale file: $(cat "$tmp/err")"
expect_ok eval --layout "$tmp/cal/default.yaml"
printf 'layout: default\nfactors:\n  turns: 0.5\n' >"$tmp/cal/default.calib.yaml"
rm "$tmp/cal/default.calib.yaml" && mkdir "$tmp/cal/default.calib.yaml"
expect_bad1 "^$tmp/cal/default.calib.yaml: not a regular file (a directory)" eval --layout "$tmp/cal/default.yaml"
rmdir "$tmp/cal/default.calib.yaml" && ln -s "$tmp/nodir/x.yaml" "$tmp/cal/default.calib.yaml"
expect_bad1 "^calibrate: .*nodir" calibrate --layout "$tmp/cal/default.yaml"
expect_bad1 "^--set: at most 16 layout fields$" eval $(i=0; while [ $i -lt 17 ]; do printf -- '--set unit.sram=1GB '; i=$((i + 1)); done)
expect_bad1 "^--layout: no layout 'nope'" calibrate --layout nope
# a dead unit in every pattern's window (the whole 16x16 mesh): nothing measured, nothing written
mkdir "$tmp/cal-dead"
printf 'faults:\n  units: ["3,3"]\n' | cat layouts/default.yaml - >"$tmp/cal-dead/default.yaml"
expect_bad1 "^calibrate: no pattern of the step runs at flit level (the first: --net flit: unit 3,3 of the window 0,0 16x16 has failed; the flit level routes whole meshes)$" \
    calibrate --layout "$tmp/cal-dead/default.yaml" --strategy DP4,TATP16
[ "$(ls "$tmp/cal-dead")" = default.yaml ] || fail "calibrate with nothing measured wrote: $(ls "$tmp/cal-dead")"
expect_ok calibrate --help
grep -q '^usage: wafertop calibrate' "$tmp/out" || fail "calibrate --help"
expect_bad1 "^--window: '0'" eval --window 0
expect_bad1 "^--window: '-1us' must be a positive time" links --window -1us
expect_bad1 "^--window: 'abc': not a number" cmd hot_links --window abc
expect_bad1 "^--window: 'inf'" ui --window inf
expect_bad1 "unknown command 'nope'" nope
expect_bad1 "^unknown option '--bogus'" eval --bogus 1
expect_bad1 "^--seq: 'abc' is not a positive whole number" eval --seq abc
expect_bad1 "^--strategy: .*unknown dimension 'FOO'" eval --strategy DP8,FOO2
expect_bad1 "^--strategy: .*TP 3 must divide" eval --strategy TP3
expect_bad1 "^--strategy: .*SP 3 must divide the sequence length 2048" eval --strategy SP3
expect_bad1 "^--strategy: .*PP 64 is more stages" eval --strategy PP64
expect_bad1 "^--strategy: .*batch 1024 is not a multiple of DP 3" eval --strategy DP3
# --exec stream on wse2 (a store on its west and east edges, mesh 750x1134):
# it fits, no all-reduce, and both stream phases' busiest link leaves a unit
# on a port edge (x 0 or 749), where the shards of every unit behind it pass
expect_ok eval --layout wse2 --model 13b --exec stream --strategy DP4,TP5,TATP42525 --placement snake \
    --tp-seqpar off --checkpoint full --chunk 4KB --format json
grep -q '"fits":true' "$tmp/out" || fail "13b streamed on wse2 does not fit"
grep -q '"dp_time_s":0,' "$tmp/out" || fail "13b streamed on wse2 has an all-reduce"
grep -q '"stream_bound":"store"' "$tmp/out" || fail "13b streamed on wse2 is not bound by the store"
grep -q '"exec":"stream"' "$tmp/out" || fail "eval JSON lacks \"exec\":\"stream\""
for ph in fwd.stream bwd.stream; do
    link=$(grep -o "\"name\":\"$ph\"[^}]*" "$tmp/out" | sed -n 's/.*"busiest_link":"\([^"]*\)".*/\1/p')
    case "$link" in
    0,*|749,*) ;;
    *) fail "$ph's busiest link '$link' is not next to a port" ;;
    esac
done
expect_ok eval --layout wse2 --model 13b --exec stream --strategy DP4,TP5,TATP42525 --placement snake \
    --tp-seqpar off --checkpoint full --chunk 4KB
grep -q '^stream    store alone: in .* per step; bound by the store$' "$tmp/out" || fail "eval table lacks the stream line"

# a layout's recommended strategy (its strategy: field) is the default; the
# command line's options go on top of it, --strategy replaces it
fix=tests/fixtures/layouts/strategy-stream.yaml
expect_ok eval --layout $fix
grep -q '^strategy  DP2,TATP4 ' "$tmp/out" || fail "the layout's strategy is not the default"
grep -q '^model .*, micro-batch 2 ' "$tmp/out" || fail "the layout's strategy's micro-batch is not the default"
grep -q '^options .*checkpoint full.*chunk 4 KB.*exec stream$' "$tmp/out" || fail "the layout's options are lost"
expect_ok eval --layout $fix --checkpoint none
grep -q '^options .*checkpoint none.*exec stream$' "$tmp/out" || fail "--checkpoint does not go on top"
expect_ok eval --layout $fix --strategy DP8
grep -q '^options .*checkpoint none.*exec resident$' "$tmp/out" || fail "--strategy keeps the layout's options"
grep -q '^model .*, micro-batch 1 ' "$tmp/out" || fail "--strategy keeps the layout's micro-batch"
expect_ok eval --layout $fix --microbatch 4
grep -q '^model .*, micro-batch 4 ' "$tmp/out" || fail "--microbatch does not go on top"
expect_bad1 "^layout strategy-stream's recommended strategy DP2,TATP4: batch 1023 is not a multiple of DP 2 .*(give --strategy)$" \
    eval --layout $fix --batch 1023 --microbatch 1
# DRAM on wsc-6x9 (128 MB SRAM, 64 GB DRAM at 2 TB/s per die): the memory
# report says where things live; the 128 MB of SRAM hold the buffers and
# part of the params, everything after them lives in DRAM, and the
# optimizer streams it (2 x 3.91 GB at 2 TB/s = 3.91 ms, over its FLOPs)
wsc="--layout layouts/wsc-6x9.yaml --strategy DP2,PP3,TATP3x3 --mem act_int8,grad_fp8 --chunk 1MB --microbatch 2"
expect_ok eval $wsc
grep -q '^          in SRAM 128 MB; in DRAM 7.97 GB: params 412 MB, grads 269 MB, activations 4.06 GB, optimizer 3.23 GB, buffers 0 B$' \
    "$tmp/out" || fail "wsc-6x9's memory report does not say what lives in DRAM"
grep -q '^dram      traffic 525 ms per step at 2 TB/s, 3.9 ms of it beyond compute$' "$tmp/out" ||
    fail "wsc-6x9's eval lacks the dram line"
grep -q '+ optimizer 3.91 ms$' "$tmp/out" || fail "wsc-6x9's optimizer does not stream its DRAM"
expect_ok eval $wsc --format json
grep -q '"sram":128000000,"dram":7968461951\.99' "$tmp/out" || fail "eval JSON lacks sram and dram bytes"
grep -q '"dram_buffers":0,"dram_params":411916757' "$tmp/out" || fail "eval JSON lacks the DRAM split"
expect_ok eval
! grep -q 'in DRAM' "$tmp/out" || fail "a layout without DRAM reports DRAM"

expect_bad1 "^--strategy: .*needs 1024 units but the layout has 256" eval --strategy DP64,TATP16
expect_bad1 "^--strategy: .*grid 32x1 does not fit" eval --strategy TATP32x1
expect_bad1 "^--placement: placement 'diagonal'" eval --placement diagonal
expect_bad1 "^--collective: " eval --collective star
expect_bad1 "^--routing: " eval --routing zigzag
expect_bad1 "^--checkpoint: " eval --checkpoint some
expect_bad1 "^--mem: memory switch 'fast'" eval --mem zero,fast
expect_bad1 "^--grad-compress: " eval --grad-compress 2bit
expect_bad1 "^--chunk: chunk '12': missing unit" eval --chunk 12
expect_bad1 "^--subgroup: " eval --subgroup 8
expect_bad1 "^--tp-seqpar: " eval --tp-seqpar maybe
expect_bad1 "^--exec stream: the layout default has no parameter store" eval --exec stream
expect_bad1 "^--exec stream: every unit on the store's port edges of store-west is dead$" \
    eval --layout tests/fixtures/layouts/store-west.yaml --exec stream --strategy DP3,TATP3 --batch 1023 \
    --fail 0,0 --fail 0,1 --fail 0,2 --fail 4,0 --fail 4,1 --fail 4,2
expect_bad1 "^--format: 'xml'" eval --format xml
for cmd in eval links search tune ui "cmd phases"; do
    # shellcheck disable=SC2086 # cmd NAME is two words
    expect_bad1 "^--net: net 'nosuch' is not one of .*bottleneck" $cmd --net nosuch
done
expect_bad1 "^--layout: no layout 'nope'" eval --layout nope
expect_bad1 "^--model: unknown model 'nope'" eval --model nope
expect_bad1 "^--layout needs a value" eval --layout
expect_bad1 "^--phase: no phase 'nope'" links --phase nope
expect_bad1 "^unexpected argument 'stray'" eval stray
# the contract gaps of issue 13: a bad --theme, a --lua-path that is not a
# directory, run without a script, cmd without a name, --format where
# nothing is printed in a format: one line, exit 2, before anything runs
expect_bad1 "^--theme: no theme 'nosuch' (no such file, and no .*/themes/nosuch.yaml)$" ui --theme nosuch
expect_bad1 "^--theme: no theme 'nosuch' " snapshot --theme nosuch --out "$tmp/x.png"
printf 'name: broken\ngradient: ["#000000"]\nsparkle: true\n' >"$tmp/theme.yaml"
expect_bad1 "^$tmp/theme.yaml:[0-9]*:[0-9]*: " ui --theme "$tmp/theme.yaml"
expect_bad1 "^--lua-path: '$tmp/none': No such file or directory$" cmd memory --lua-path "$tmp/none"
expect_bad1 "^--lua-path: '$tmp/theme.yaml' is not a directory$" eval --lua-path "$tmp/theme.yaml"
expect_bad1 "^run: no script given (usage: wafertop run \[lua options\] SCRIPT.lua \[args...\])$" run
expect_bad1 "^run: no script given " run --lua-budget 1e6
expect_bad1 "^cmd: a command name is needed first: wafertop cmd NAME \[flags\] (commands: help, hot_links, " cmd
expect_bad1 "^cmd: a command name is needed first: " cmd --layout default memory
expect_bad1 "^unknown option '--format'$" ui --format json
expect_bad1 "^unknown option '--format'$" snapshot --format csv --out "$tmp/x.png"

# layout files: file:line:col
printf 'name: t\nmesh: 4x4\nunit: {compute: 1 TFLOPS, sram: 1 MB, speed: 3}\nlink: {bandwidth: 1 GB/s, latency: 1 ns}\n' >"$tmp/bad.yaml"
expect_bad1 "^$tmp/bad.yaml:3:[0-9]*: .*unknown key 'speed'" eval --layout "$tmp/bad.yaml"
printf 'name: t\nmesh: 4x4\nunit: {compute: 1 TFLOPS, sram: 0 MB}\nlink: {bandwidth: 1 GB/s, latency: 1 ns}\n' >"$tmp/zero.yaml"
expect_bad1 "^$tmp/zero.yaml:3:[0-9]*: " eval --layout "$tmp/zero.yaml"
printf 'name: t\nmesh: 4x4\nunit:\n\tcompute: 1 TFLOPS\n' >"$tmp/tab.yaml"
expect_bad1 "^$tmp/tab.yaml:[0-9]*:[0-9]*: " eval --layout "$tmp/tab.yaml"
printf 'name: t\nmesh: 4x4\nunit: {compute: 1 TFLOPS, sram: 1 MB}\nlink: {bandwidth: 1 GB/s, latency: 1 ns}\nfaults: {units: ["9,9"]}\n' >"$tmp/fault.yaml"
expect_bad1 "^$tmp/fault.yaml:5:[0-9]*: .*outside the 4x4 mesh" eval --layout "$tmp/fault.yaml"
printf '\001\002binary' >"$tmp/bin.yaml"
expect_bad1 "^$tmp/bin.yaml:" eval --layout "$tmp/bin.yaml"
expect_bad1 "^$tmp/missing.yaml: cannot open" eval --layout "$tmp/missing.yaml" --model 6b
printf 'layers: 2\nhidden: 64\nheads: 3\nvocab: 10\nseq: 8\nbatch: 2\n' >"$tmp/model.yaml"
expect_bad1 "^$tmp/model.yaml:1:1: .*heads 3 do not divide hidden 64" eval --model "$tmp/model.yaml"

# input files: regular files of at most 1 MiB, nested at most 64 levels deep,
# refused at once (a FIFO blocked forever, /dev/zero read until memory ran out)
expect_now() {
    expect_bad_soon "$@"
    shift
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "stderr is not one line for: $*: $(cat "$tmp/err")"
}
mkfifo "$tmp/fifo.yaml"
expect_now "^$tmp/fifo.yaml: not a regular file (a FIFO); give a YAML file$" eval --layout "$tmp/fifo.yaml"
expect_now "^$tmp/fifo.yaml: not a regular file (a FIFO)" eval --model "$tmp/fifo.yaml"
expect_now "^$tmp/fifo.yaml: not a regular file (a FIFO)" tune --scenario "$tmp/fifo.yaml"
expect_now "^$tmp/fifo.yaml: not a regular file (a FIFO)" snapshot --theme "$tmp/fifo.yaml" --out "$tmp/x.png"
expect_now "^/dev/zero: not a regular file (a character device); give a YAML file$" eval --layout /dev/zero
expect_now "^/dev/zero: not a regular file (a character device)" eval --model /dev/zero
expect_now "^$tmp: not a regular file (a directory)" eval --layout "$tmp"
head -c 1048577 /dev/zero | tr '\0' '#' >"$tmp/big.yaml"
expect_now "^$tmp/big.yaml: larger than 1 MiB (1048577 bytes)" eval --layout "$tmp/big.yaml"
awk 'BEGIN { printf "name: "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' >"$tmp/deep.yaml"
expect_now "^$tmp/deep.yaml:1:70: lists and mappings nested deeper than 64 levels$" eval --layout "$tmp/deep.yaml"
expect_now "^$tmp/deep.yaml:1:70: lists and mappings nested deeper than 64 levels$" eval --model "$tmp/deep.yaml"
expect_now "^$tmp/deep.yaml:1:70: lists and mappings nested deeper than 64 levels$" ui --scenario "$tmp/deep.yaml"

# a flag's value or an argument with a control character (a newline made a
# two-line error of --fail's quote, the fuzzer found): one line naming it
nl='
'
expect_now "^--fail: a control character (byte 4 of the value, code 10) where text is expected$" eval --fail "1,1${nl}x"
expect_now "^--strategy: a control character (byte 4 of the value, code 9) where text is expected$" \
    eval --strategy "$(printf 'DP8\tTP2')"
expect_now "^an argument: a control character (byte 6 of the value, code 10) where text is expected$" eval "--bad${nl}x"

# a layout's numbers lie in their physical ranges (an absurd bandwidth gave
# an MFU of 5,665,805 % with exit 0)
fix=tests/fixtures/layouts
expect_bad1 "^$fix/bad-absurd-bw.yaml:10:14: link.bandwidth: must be from 1 MB/s to 1000 TB/s$" \
    eval --layout $fix/bad-absurd-bw.yaml
expect_bad1 "^$fix/bad-huge-compute.yaml:4:12: unit.compute: must be from 1 GFLOPS to 1000 PFLOPS$" \
    eval --layout $fix/bad-huge-compute.yaml

# memory: a run that cannot have what it needs is refused up front, exit 2,
# with both figures (it exited 1, out of memory, part way). tune keeps a row
# of 424 bytes per step: 1e9 steps need 424 GB, more than this machine has.
expect_bad1 "^--steps 1000000000 needs 424 GB of memory; this process can have [0-9.]* [KMGT]*B (physical memory)$" \
    tune --steps 1000000000
# An 8192x8192 mesh needs 13.6 GB (48 B per link slot, 10 per unit) and
# ulimit -v leaves 2 GB. A sanitizer build cannot start under ulimit -v (its
# shadow memory is address space): test_sysmem checks the same in a child.
if [ "$( (ulimit -v 2000000 && "$bin" --version >/dev/null 2>&1; echo $?) 2>/dev/null)" = 0 ]; then
    (ulimit -v 2000000 && "$bin" eval --layout $fix/mesh-8192.yaml >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
    [ "$(cat "$tmp/rc")" -eq 2 ] || fail "exit $(cat "$tmp/rc") (want 2) from an 8192x8192 mesh under ulimit -v"
    grep -q "^--layout: an evaluation of the 8192x8192 mesh needs 13.6 GB of memory; this process can have [0-9.]* [KMG]*B (address-space limit, ulimit -v)$" \
        "$tmp/err" || fail "8192x8192 under ulimit -v: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "8192x8192 under ulimit -v: not one line: $(cat "$tmp/err")"
fi

finish e2e_cli
