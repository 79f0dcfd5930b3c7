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

finish e2e_docs
