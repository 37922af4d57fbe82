#!/usr/bin/env python3
"""Draw mcoll-bench's plots from its results.csv with matplotlib, where gnuplot is missing.

    python3 benchmarks/plot.py DIR            # DIR holds results.csv; the PNGs go there too
    python3 benchmarks/plot.py FILE.csv [--out DIR]

For each collective: <collective>-latency.png (time per call against size, log-log) and
<collective>-busbw.png (bus bandwidth against size), one line per peer: the same files
mcoll-bench's gnuplot script makes. Rows out of place are drawn (the in-place ones where a run
measured only those). Older results.csv files without the in_place column are read too.
Needs only the standard library and matplotlib. Exit status: 0; 1 when matplotlib is missing or
the CSV has no rows; 2 on a usage error.
"""
import csv
import os
import sys

PEER_ORDER = ["mcoll", "mcoll-window", "mcoll-graph", "mcoll-mpi", "mcoll-persistent", "nccl", "nccl-graph", "staged"]
COLL_ORDER = ["allreduce", "bcast", "reduce", "reduce_scatter", "allgather"]


def size_label(n):
    """1024 -> '1 KiB', as mcoll-bench labels sizes."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while u < len(units) - 1 and n >= 1024 and n % 1024 == 0:
        n //= 1024
        u += 1
    return "%d %s" % (n, units[u])


def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    places = {r.get("in_place", "0") or "0" for r in rows}
    shown = "0" if "0" in places else "1"
    return [r for r in rows if (r.get("in_place", "0") or "0") == shown], shown == "1"


def series(rows, coll):
    """{peer: [(bytes, time_us, busbw), ...]} for one collective, sizes ascending."""
    out = {}
    for r in rows:
        if r["collective"] != coll:
            continue
        out.setdefault(r["peer"], []).append(
            (int(r["bytes"]), float(r["time_us_median"]), float(r["busbw_GBps"])))
    for points in out.values():
        points.sort()
    return out


def ordered(names, order):
    return [n for n in order if n in names] + sorted(n for n in names if n not in order)


def size_ticks(lo, hi):
    """About eight powers of two from lo to hi."""
    first = max(lo, 1).bit_length() - 1
    if (1 << first) < lo:
        first += 1
    last = max(hi, 1).bit_length() - 1
    step = (last - first) // 7 + 1
    return [1 << k for k in range(first, last + 1, step)]


def plot_one(plt, ticker, data, coll, what, title, outdir):
    fig, ax = plt.subplots(figsize=(11, 7), dpi=100)
    xs = []
    for peer in ordered(data.keys(), PEER_ORDER):
        points = data[peer]
        x = [p[0] for p in points]
        y = [p[1] if what == "latency" else p[2] for p in points]
        ax.plot(x, y, marker="o", markersize=3, label=peer)
        xs += x
    ax.set_xscale("log", base=2)
    if what == "latency":
        ax.set_yscale("log", base=10)
        ax.set_ylabel("time per call (us)")
    else:
        ax.set_ylabel("busbw (GB/s)")
    ticks = size_ticks(min(xs), max(xs))
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(t) for t in ticks])
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel("size")
    ax.set_title(title)
    ax.grid(True, which="major")
    ax.legend(loc="upper left")
    path = os.path.join(outdir, "%s-%s.png" % (coll, what))
    fig.savefig(path)
    plt.close(fig)
    return path


def main(argv):
    args = argv[1:]
    outdir = None
    if "--out" in args:
        i = args.index("--out")
        if i + 1 >= len(args):
            print("plot.py: --out needs a directory", file=sys.stderr)
            return 2
        outdir = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(args) != 1 else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    path = args[0]
    if os.path.isdir(path):
        path = os.path.join(path, "results.csv")
    if outdir is None:
        outdir = os.path.dirname(path) or "."
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError:
        print("plot.py: matplotlib is not installed (python3 -m pip install matplotlib)", file=sys.stderr)
        return 1
    try:
        rows, in_place = read_rows(path)
    except (OSError, KeyError, ValueError) as e:
        print("plot.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 2
    if not rows:
        print("plot.py: %s has no rows to draw" % path, file=sys.stderr)
        return 1
    ranks = rows[0].get("ranks", "?")
    dtype = rows[0].get("type") or ""
    detail = "%s ranks%s%s" % (ranks, ", " + dtype if dtype else "", ", in place" if in_place else "")
    made = []
    for coll in ordered({r["collective"] for r in rows}, COLL_ORDER):
        data = series(rows, coll)
        made.append(plot_one(plt, ticker, data, coll, "latency",
                             "%s: time per call, %s (lower is better)" % (coll, detail), outdir))
        made.append(plot_one(plt, ticker, data, coll, "busbw",
                             "%s: bus bandwidth, %s (higher is better)" % (coll, detail), outdir))
    print("plot.py: wrote %s" % " ".join(made))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
