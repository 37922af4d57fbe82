#!/bin/bash
# Tuning runs: mcoll-bench once per setting, on one machine in one go, and one table of the
# large-message rows of every setting side by side. Run from the repository root on a GPU
# machine, one rank per GPU (the NCCL rows are the common reference of every setting):
#
#   bash benchmarks/sweep.sh [--np 4] [--min 32M] [--max 512M] [--factor 4]
#        [--collectives LIST] [--peers mcoll,mcoll-window,mcoll-mpi,nccl] [--time S] [--datatype float]
#        SETTING...
#
# A SETTING is a label followed by the environment it runs with, e.g. `default`
# `blocks64:MCOLL_MAX_BLOCKS=64` or `big:MCOLL_MAX_BLOCKS=64,MCOLL_BUFFER_SIZE=64M`.
# Writes $OUT/sweep-<label>.log (mcoll-bench's table) and prints, per collective, size and peer,
# the time (us) and bus bandwidth (GB/s) under each setting. NCCL_NVLS_ENABLE must be 0, as in
# run-gpu.sh, and every program runs under the multicast guard.
set -u
OUT=${OUT:-./sweep-out}
NP=4 MIN=32M MAX=512M FACTOR=4 COLLS=allreduce,bcast,reduce,reduce_scatter,allgather
PEERS=mcoll,mcoll-window,mcoll-mpi,nccl LIMIT=120 DTYPE=float
SETTINGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --np | --min | --max | --factor | --collectives | --peers | --time | --datatype)
            [ $# -ge 2 ] || { echo "sweep.sh: $1 needs a value" >&2; exit 2; }
            case "$1" in
                --np) NP=$2 ;; --min) MIN=$2 ;; --max) MAX=$2 ;; --factor) FACTOR=$2 ;;
                --collectives) COLLS=$2 ;; --peers) PEERS=$2 ;; --time) LIMIT=$2 ;; --datatype) DTYPE=$2 ;;
            esac
            shift 2 ;;
        -*) echo "sweep.sh: unknown option $1" >&2; exit 2 ;;
        *) SETTINGS+=("$1"); shift ;;
    esac
done
[ ${#SETTINGS[@]} -gt 0 ] || SETTINGS=(default)
if [ "${NCCL_NVLS_ENABLE-unset}" != 0 ]; then
    echo "sweep.sh: refusing to run: NCCL_NVLS_ENABLE must be exactly 0 here" >&2
    exit 2
fi
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
[ -x build/bin/mcoll-bench ] && [ -f "$GUARD" ] || { echo "sweep.sh: build first (./configure && make)" >&2; exit 2; }
mkdir -p "$OUT"
status=0
for setting in "${SETTINGS[@]}"; do
    label=${setting%%:*}
    envs=()
    if [ "$label" != "$setting" ]; then
        IFS=, read -r -a pairs <<< "${setting#*:}"
        for kv in "${pairs[@]}"; do
            case "$kv" in
                MCOLL_NVLS=* | MCOLL_ENGINE=* | NCCL_NVLS_ENABLE=*)
                    echo "sweep.sh: $kv is not a tuning setting (multicast stays off here)" >&2; exit 2 ;;
                MCOLL_*=*) envs+=(-x "$kv") ;;
                *) echo "sweep.sh: $kv: only MCOLL_* settings" >&2; exit 2 ;;
            esac
        done
    fi
    echo "== $label ${envs[*]:-}"
    timeout "$LIMIT" mpirun --allow-run-as-root -np "$NP" --bind-to none -x LD_PRELOAD="$GUARD" \
        -x NCCL_NVLS_ENABLE ${envs[@]+"${envs[@]}"} build/bin/mcoll-bench --collectives "$COLLS" \
        --peers "$PEERS" --place out -b "$MIN" -e "$MAX" -f "$FACTOR" -d "$DTYPE" -w 3 --no-plot \
        --output "$OUT/sweep-$label" > "$OUT/sweep-$label.log" 2> "$OUT/sweep-$label.err" ||
        { status=1; echo "   exit $? (see $OUT/sweep-$label.err)"; }
    rm -rf "$OUT/sweep-$label"
done
# The table: collective, size, peer, then time and busbw under each setting.
for setting in "${SETTINGS[@]}"; do
    label=${setting%%:*}
    awk -v s="$label" '/^# [a-z_]+: /{c=$2; sub(":", "", c)} !/^#/ && NF > 15 {print c, $1, $(NF-5), s, $6, $8}' \
        "$OUT/sweep-$label.log"
done | awk '
    { key = $1 " " $2 " " $3; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
      if (!($4 in lab)) { lab[$4] = 1; labs[++nl] = $4 }
      t[key, $4] = $5; b[key, $4] = $6 }
    END {
        printf "%-15s %11s %-13s", "collective", "bytes", "peer"
        for (j = 1; j <= nl; j++) printf " | %21s", labs[j] " us, GB/s"
        printf "\n"
        for (i = 1; i <= nk; i++) {
            split(keys[i], k, " "); printf "%-15s %11s %-13s", k[1], k[2], k[3]
            for (j = 1; j <= nl; j++) printf " | %10s %10s", t[keys[i], labs[j]], b[keys[i], labs[j]]
            printf "\n"
        }
    }' | tee "$OUT/sweep-table.txt"
exit $status
