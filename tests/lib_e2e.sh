# Shared by the tests/e2e_*.sh scripts (sourced): the binary under test, a
# scratch directory, and the checks. Each script ends with `finish NAME`.
set -u
bin=${1:-./wafertop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_ok ARGS...: exit 0
expect_ok() {
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err" || fail "exit $? from: $* ($(cat "$tmp/err"))"
}

# expect_bad PATTERN ARGS...: exit 2 and PATTERN (a grep pattern) on stderr
expect_bad() {
    pattern=$1
    shift
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc (want 2) from: $*"
    grep -q -- "$pattern" "$tmp/err" || fail "stderr of '$*' lacks '$pattern': $(cat "$tmp/err")"
}

# expect_bad1 PATTERN ARGS...: expect_bad, the error one line and stdout empty
expect_bad1() {
    expect_bad "$@"
    shift
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "stderr is not one line for: $*: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "stdout not empty for: $*"
}

# expect_bad_soon PATTERN ARGS...: expect_bad within 10 s (a regression that
# hangs fails rather than stalls the suite; 124 is the timeout's exit)
expect_bad_soon() {
    pattern=$1
    shift
    timeout 10 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc (want 2; 124 is the timeout) from: $*"
    grep -q -- "$pattern" "$tmp/err" || fail "stderr of '$*' lacks '$pattern': $(cat "$tmp/err")"
}

# stock KIND: the names of the stock scripts of KIND (commands, policies,
# strategies), from the files in lua/KIND as they are now
stock() {
    for f in lua/"$1"/*.lua; do
        [ -e "$f" ] && printf '%s ' "$(basename "$f" .lua)"
    done
}

# names_stock KIND FILE WHAT: FILE names every stock script of KIND (and may
# name more: a user's own scripts do not matter)
names_stock() {
    [ -n "$(stock "$1")" ] || fail "$3: no stock $1 in lua/$1"
    for name in $(stock "$1"); do
        grep -qw -- "$name" "$2" || fail "$3 does not name the stock $1 '$name': $(cat "$2")"
    done
}

# png_size FILE: "W H" from a PNG's header; nothing (status 1) when FILE is no PNG
png_size() {
    [ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

# mpi_ready: mpirun is here, and may run as root (CI is root); OpenMPI's
# own allocations are not ours (tests/lsan-openmpi.supp, for make test's
# ASan pass, with its plugins kept loaded so that their frames have names).
# Then `mpi -n N ARGS...` runs an MPI job of N ranks on this machine.
mpi_ready() {
    command -v mpirun >/dev/null || fail "mpirun is needed (make deps installs openmpi-bin)"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mca_base_component_disable_dlclose=1
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan-openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
}
mpi() { mpirun --oversubscribe -x ASAN_OPTIONS -x LSAN_OPTIONS "$@"; }

finish() {
    if [ $failures -ne 0 ]; then
        echo "$1: $failures failure(s)"
        exit 1
    fi
    echo "$1: all passed"
}
