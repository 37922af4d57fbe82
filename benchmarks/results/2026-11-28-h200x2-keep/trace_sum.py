"""Medians of the TRACE timings of calls through MPI (gpu_t1.sh)."""
import re, sys, statistics
pats = [
    (r" (allreduce|reduce): ([0-9.]+) us to decide, ([0-9.]+) us in the engine", lambda m: [(m[1] + " decide", m[2]), (m[1] + " engine", m[3])]),
    (r"zero-copy: exchange ([0-9.]+) us, mapping and agreement ([0-9.]+)", lambda m: [("map: exchange", m[1]), ("map: mapping+agreement", m[2])]),
    (r"windows again; exchange ([0-9.]+) us", lambda m: [("kept: exchange", m[1])]),
    (r"resident call \d+, \d+ B: ([0-9.]+) us to post, ([0-9.]+) us to done", lambda m: [("ring: to post", m[1]), ("ring: to done", m[2])]),
]
vals = {}
for line in open(sys.argv[1], errors="replace"):
    for p, f in pats:
        m = re.search(p, line)
        if m:
            for k, v in f(m):
                vals.setdefault(k, []).append(float(v))
for k in sorted(vals):
    print("  %-26s n=%-5d median %8.2f us" % (k, len(vals[k]), statistics.median(vals[k])))
