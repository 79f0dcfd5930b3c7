# End-to-end tests of `wafertop snapshot`: the heatmap written as PNG and
# SVG (their pixels are checked against the model by tests/test_snapshot.c),
# and every bad input one line and status 2, with no file left.
# usage: sh tests/e2e_snapshot.sh ./wafertop
. "$(dirname "$0")/lib_e2e.sh"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# the README's lines, where they write heat.png and heat.svg
(cd "$tmp" && "$bin" snapshot --strategy DP8,TP32 --placement linear --out heat.png >out 2>err) ||
    fail "the README's snapshot: $(cat "$tmp/err")"
size=$(png_size "$tmp/heat.png")
[ -n "$size" ] || fail "snapshot --out heat.png wrote no PNG"
[ ! -s "$tmp/out" ] || fail "snapshot printed on stdout: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^wrote heat.png: links of gpt3-6.7b on default" "$tmp/err" ||
    fail "snapshot's summary on stderr: $(cat "$tmp/err")"
ls "$tmp" | grep -q 'heat\.png\.' && fail "snapshot left its temporary file: $(ls "$tmp")"

# the SVG: the title, the squares, the legend's text
(cd "$tmp" && "$bin" snapshot --view compute --theme viridis --out heat.svg 2>err) ||
    fail "the README's SVG snapshot: $(cat "$tmp/err")"
grep -q '^<svg xmlns="http://www.w3.org/2000/svg" width="[0-9]*" height="[0-9]*"' "$tmp/heat.svg" ||
    fail "snapshot --out heat.svg wrote no SVG: $(head -c 300 "$tmp/heat.svg")"
grep -q '>wafertop  default 16x16  gpt3-6.7b  [^ ]*  compute utilisation</text>' "$tmp/heat.svg" ||
    fail "the SVG has no title"
grep -q '>compute utilisation</text>' "$tmp/heat.svg" || fail "the SVG has no legend"
[ "$(grep -c '^<rect ' "$tmp/heat.svg")" -gt 256 ] || fail "the SVG has fewer squares than units"
grep -q '</svg>$' "$tmp/heat.svg" || fail "the SVG is not closed"

# the window where a phase first runs; a wafer in blocks
expect_ok snapshot --strategy DP8,TP32 --placement linear --phase dp.allreduce --out "$tmp/phase.png"
grep -q "^wrote $tmp/phase.png" "$tmp/err" || fail "snapshot --phase: $(cat "$tmp/err")"
expect_ok snapshot --layout wse2 --out "$tmp/wse2.png"
[ -n "$(png_size "$tmp/wse2.png")" ] || fail "snapshot of wse2 wrote no PNG"

# bad input: one line naming the flag, status 2, nothing written
bad() {
    expect_bad "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line on stderr from snapshot $*: $(cat "$tmp/err")"
}
bad "^--out: '$tmp/heat.jpg' does not end in .png or .svg" snapshot --out "$tmp/heat.jpg"
bad "^--out: cannot write beside /nonexistent-dir/heat.png: " snapshot --out /nonexistent-dir/heat.png
bad "^--out: where to write the picture is needed" snapshot
bad "^--view: 'heat' is not one of links, compute, memory" snapshot --view heat --out "$tmp/x.png"
bad "^--phase: no phase 'nosuch'" snapshot --phase nosuch --out "$tmp/x.png"
bad "^--theme: " snapshot --theme nosuch_theme --out "$tmp/x.png"
bad "^--strategy: " snapshot --strategy DP7,XX3 --out "$tmp/x.png"
[ ! -e "$tmp/heat.jpg" ] && [ ! -e "$tmp/x.png" ] || fail "a failed snapshot left a file: $(ls "$tmp")"

# --help names the picture's flags
expect_ok snapshot --help
grep -q -- "--out FILE.png|FILE.svg" "$tmp/out" || fail "snapshot --help lacks --out"

finish e2e_snapshot
