#!/bin/sh
# make bench: a sweep of searches (sweeps/6.7b-seq.yaml, 15 points) under
# mpirun with 1 and with 2 ranks, a core each; the target is 2 ranks in at
# most 0.6 of 1 rank's time.
# usage: sh tests/bench_mpi.sh ./wafertop
bin=${1:-./wafertop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in 1 2; do
    WAFERTOP_BENCH=1000 mpirun --oversubscribe -n $n "$bin" sweep sweeps/6.7b-seq.yaml --out "$tmp/$n.csv" --quiet \
        2>"$tmp/$n.err" >/dev/null || { cat "$tmp/$n.err"; exit 1; }
done
cmp -s "$tmp/1.csv" "$tmp/2.csv" && same=yes || same=no
t1=$(sed -n 's/^bench sweep_[0-9]*_search \([0-9.]*\) s.*/\1/p' "$tmp/1.err")
t2=$(sed -n 's/^bench sweep_[0-9]*_search \([0-9.]*\) s.*/\1/p' "$tmp/2.err")
awk -v a="$t1" -v b="$t2" -v same="$same" 'BEGIN {
    r = b / a
    printf "bench sweep_mpi_search_n2_over_n1 %.2f n1=%.2f s n2=%.2f s same_table=%s target<=0.6 %s\n", r, a, b, same,
        (r <= 0.6 && same == "yes") ? "pass" : "FAIL" }'
