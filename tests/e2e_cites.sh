#!/bin/sh
# Every file the repository's text cites is in it: relative links in
# Markdown, paths from the top directories (docs/..., engine/..., tests/...,
# with * as a wildcard that must match something), and bare names of
# Markdown files (MODEL.md, which must be some file's name): a document
# kept outside the repository is not cited either.
# Skipped: fuzz corpora and fixtures (inputs, some of them broken on
# purpose) and paths with a placeholder in them (NAME, X, <module>).
# usage: sh tests/e2e_cites.sh [./wafertop]   (the binary is not used)
. tests/lib_e2e.sh

# the files of the repository: git's list (tracked and new), else the tree
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard
else
    find . -path ./build -prune -o -type f -print | sed 's|^\./||'
fi | sort -u >"$tmp/files"
grep -vE '^tests/(fuzz/corpus|fixtures)/|\.(png|svg)$|^wafertop$' "$tmp/files" >"$tmp/scan"
[ "$(wc -l <"$tmp/scan")" -ge 100 ] || fail "only $(wc -l <"$tmp/scan") files to scan"
sed 's|.*/||' "$tmp/files" | sort -u >"$tmp/names"

# FILE:LINE:TOKEN for each cited path (a character before it that could
# continue a path would make it part of another path, as in $(PREFIX)/lua)
tops='\.ci|docs|engine|layouts|lua|tests|themes|tui'
# (trailing punctuation dropped; placeholders and printf's or make's
# patterns skipped or made wildcards)
xargs grep -onE "(^|[^A-Za-z0-9_./~\$)-])($tops)/[A-Za-z0-9_.*%/<>-]*" <"$tmp/scan" |
    sed -E 's/^([^:]*:[0-9]+:)[^.a-z]?/\1/; s/[.,;:]+$//; s/%[a-z]?/*/g' |
    grep -vE '[<>]|[/_.-](NAME|FILE|DIR|KIND|MODULE|X|N)([/_.-]|$)' >"$tmp/paths"
xargs grep -onE '(^|[^A-Za-z0-9_./-])[A-Za-z0-9_-]+\.md([^A-Za-z0-9_]|$)' <"$tmp/scan" |
    sed -E 's/^([^:]*:[0-9]+:)[^A-Za-z0-9_-]?([A-Za-z0-9_-]+\.md).*/\1\2/' >"$tmp/names_cited"
grep '\.md$' "$tmp/scan" | xargs grep -onE '\]\([^)#]+' | sed 's/\](//' >"$tmp/links"

while IFS=: read -r file line path; do
    case $path in
    *'*'*) # a wildcard matches some file (unquoted: it is meant to expand)
        # shellcheck disable=SC2086
        set -- $path
        [ -e "$1" ] || fail "$file:$line: cites $path, which matches no file" ;;
    *) [ -e "$path" ] || fail "$file:$line: cites $path, which is not in the repository" ;;
    esac
done <"$tmp/paths"

while IFS=: read -r file line name; do
    grep -qxF "$name" "$tmp/names" || fail "$file:$line: cites $name, which is not in the repository"
done <"$tmp/names_cited"

while IFS=: read -r file line target; do
    case $target in
    http:* | https:* | mailto:*) continue ;;
    esac
    [ -e "$(dirname "$file")/$target" ] || fail "$file:$line: links to $target, which is not in the repository"
done <"$tmp/links"

finish e2e_cites
