# shellcheck shell=bash
# A private CUDA MPS control daemon for ranks that share a GPU. Sourced by bash scripts
# (tests/gpu/run.sh, benchmarks/run-gpu.sh); not run on its own.
#
#   mps_start DIR   start nvidia-cuda-mps-control -d with its pipe directory in DIR/pipe and its
#                   log directory in DIR/log (control.log, server.log); when DIR/pipe is too long
#                   for a Unix socket path, a fresh directory under /tmp holds the pipe instead.
#                   Returns 0 once the daemon answers get_server_list: MPS_PIPE and MPS_LOG name
#                   the directories (pass them to the ranks: mpirun -x CUDA_MPS_PIPE_DIRECTORY=...).
#                   Returns 1 when it cannot start, with the reason in MPS_WHY (one line).
#   mps_stop        quit the daemon that mps_start started ("echo quit | nvidia-cuda-mps-control"
#                   on its own pipe); a daemon this shell did not start is never stopped. Returns
#                   1 (reason in MPS_WHY) when it still answers afterwards. Safe to call more
#                   than once; the callers run it from an EXIT trap.
#
# Nothing here is exported: ranks reach the daemon only when they are given MPS_PIPE, so a
# step can still run without MPS while the daemon is up. An MPS server starts when the first
# client connects and ends with the daemon.

# shellcheck disable=SC2034 # MPS_NOTE and MPS_WHY are read by the callers
MPS_PIPE='' MPS_LOG='' MPS_WHY='' MPS_OWNED=0 MPS_TMP='' MPS_NOTE=''

# The daemon answers on PIPE within a few seconds.
mps_answers() { # PIPE (the daemon's answer goes nowhere)
    [ -e "$1/control" ] || return 1
    echo get_server_list | CUDA_MPS_PIPE_DIRECTORY=$1 timeout 5 nvidia-cuda-mps-control >/dev/null 2>&1
}

mps_start() { # DIR
    local dir=$1 out
    MPS_PIPE=$dir/pipe MPS_LOG=$dir/log MPS_WHY='' MPS_OWNED=0 MPS_TMP='' MPS_NOTE=
    if ! command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
        MPS_WHY="nvidia-cuda-mps-control not found in PATH"
        return 1
    fi
    mkdir -p "$MPS_LOG" || { MPS_WHY="cannot create $MPS_LOG"; return 1; }
    # sun_path holds 108 bytes; the daemon's sockets live in the pipe directory.
    if [ ${#MPS_PIPE} -gt 80 ]; then
        MPS_TMP=$(mktemp -d /tmp/mcoll-mps.XXXXXX) || { MPS_WHY="cannot create a pipe directory under /tmp"; return 1; }
        MPS_NOTE="pipe in $MPS_TMP ($MPS_PIPE is too long for a socket path)"
        MPS_PIPE=$MPS_TMP
    fi
    mkdir -p "$MPS_PIPE" || { MPS_WHY="cannot create $MPS_PIPE"; return 1; }
    if mps_answers "$MPS_PIPE"; then
        # Left by an earlier run with the same output folder: used, but not ours to stop.
        # shellcheck disable=SC2034
        MPS_NOTE="a daemon already listening on $MPS_PIPE was used (not started here, left running)"
        return 0
    fi
    # To a file, not a pipe: the daemon keeps what it inherits, and a reader would wait for it.
    if ! CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE CUDA_MPS_LOG_DIRECTORY=$MPS_LOG \
            nvidia-cuda-mps-control -d < /dev/null > "$MPS_LOG/start.txt" 2>&1; then
        out=$(tr '\n' ' ' < "$MPS_LOG/start.txt" | sed 's/ *$//' | cut -c1-120)
        MPS_WHY="nvidia-cuda-mps-control -d failed${out:+: $out}"
        mps_cleanup_tmp
        return 1
    fi
    MPS_OWNED=1
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        mps_answers "$MPS_PIPE" && return 0
        sleep 1
    done
    MPS_WHY="the daemon did not answer on $MPS_PIPE within 10 s"
    if [ -s "$MPS_LOG/control.log" ]; then
        MPS_WHY="$MPS_WHY (control.log: $(tail -n 1 "$MPS_LOG/control.log" | cut -c1-100))"
    fi
    mps_stop
    return 1
}

mps_cleanup_tmp() {
    if [ -n "$MPS_TMP" ]; then
        rm -rf "$MPS_TMP"
        MPS_TMP=
    fi
}

mps_stop() {
    local pid
    if [ "$MPS_OWNED" != 1 ]; then
        mps_cleanup_tmp
        return 0
    fi
    MPS_OWNED=0
    # quit waits for the daemon's clients to go; the callers end their steps' processes first.
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        mps_answers "$MPS_PIPE" || break
        sleep 1
    done
    if mps_answers "$MPS_PIPE"; then
        # The daemon records its process id in its pipe directory; it is the one started here.
        pid=$(cat "$MPS_PIPE/nvidia-cuda-mps-control.pid" 2>/dev/null)
        case "$pid" in
            '' | *[!0-9]*) MPS_WHY="the MPS daemon on $MPS_PIPE did not quit" ;;
            *) kill "$pid" 2>/dev/null
               MPS_WHY="the MPS daemon on $MPS_PIPE did not quit; sent TERM to its process $pid" ;;
        esac
        echo "mps: $MPS_WHY" >&2
        mps_cleanup_tmp
        return 1
    fi
    mps_cleanup_tmp
    return 0
}
