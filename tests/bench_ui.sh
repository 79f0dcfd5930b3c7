#!/bin/sh
# make bench: the screen's figures (ui --bench-frames) from five launches.
# A first frame is one measurement per launch, and a launch's fresh memory
# may cost the machine far more one time than the next (a virtual machine's
# host may back it anew), so the line of the launch with the median first
# frame is printed whole, its first frame with all five (launches=).
# usage: sh tests/bench_ui.sh ./wafertop FRAMES [scenario options]
. tests/lib_e2e.sh
frames=$2
shift 2
for i in 1 2 3 4 5; do
    "$bin" ui "$@" --bench-frames "$frames" >"$tmp/$i" || { cat "$tmp/$i"; exit 1; }
    sed -n "s/^bench ui_first_frame [^ ]* \([0-9.]*\) ms.*/\1 $i/p" "$tmp/$i" >>"$tmp/first"
done
[ "$(wc -l <"$tmp/first")" -eq 5 ] || { echo "bench_ui.sh: a launch printed no ui_first_frame line"; exit 1; }
median=$(sort -n "$tmp/first" | sed -n 3p | cut -d' ' -f2)
all=$(cut -d' ' -f1 "$tmp/first" | paste -sd/ -)
sed "s|^\(bench ui_first_frame .*\) \(target<\)|\1 launches=$all \2|" "$tmp/$median"
