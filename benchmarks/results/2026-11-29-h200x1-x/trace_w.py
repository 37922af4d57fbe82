"""Medians of the TRACE timings of nonblocking starts and waits (session W runs)."""
import re, sys, statistics
pats = [
    (r" i\w+: ([0-9.]+) us to decide", ["decide"]),
    (r" i\w+: ([0-9.]+) us to launch, post or queue, ([0-9.]+) us for the generalized request", ["launch/post/queue", "greq"]),
    (r" i\w+: ([0-9.]+) us in the queue, ([0-9.]+) us to launch in the launcher thread", ["thread: in queue", "thread: launch"]),
]
wait = re.compile(r"wait: ([0-9.]+) us until mcoll's operations were done \((\d+) polls\), ([0-9.]+) us in the MPI's wait")
vals = {}
for line in open(sys.argv[1], errors="replace"):
    for p, names in pats:
        m = re.search(p, line)
        if m:
            for i, k in enumerate(names):
                vals.setdefault(k, []).append(float(m[i + 1]))
    m = wait.search(line)
    if m:
        g = "wait(no polls)" if m[2] == "0" else "wait(polled)"
        vals.setdefault(g + ": to done", []).append(float(m[1]))
        vals.setdefault(g + ": MPI wait", []).append(float(m[3]))
        vals.setdefault(g + ": polls", []).append(float(m[2]))
for k in sorted(vals):
    print("  %-30s n=%-6d median %8.2f  p10 %8.2f  p90 %8.2f" % (k, len(vals[k]), statistics.median(vals[k]),
          statistics.quantiles(vals[k], n=10)[0] if len(vals[k]) > 1 else vals[k][0],
          statistics.quantiles(vals[k], n=10)[-1] if len(vals[k]) > 1 else vals[k][0]))
