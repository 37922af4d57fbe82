"""Floors of the hierarchical path's step between domains, 4 ranks in two simulated domains of 2
({0,1} and {2,3}): the host MPI calls that step makes (both pairs {0,2} and {1,3} at once, as in
the hierarchical call), a plain exchange of the same bytes, the whole 4-rank host allreduce that
staging makes, and the pinned staging copies (every rank at once, ranks sharing the GPU under
MPS). Median of the repetitions, the slowest rank's time, microseconds."""
import sys, time
import numpy as np
from mpi4py import MPI
import cupy as cp

world = MPI.COMM_WORLD
rank = world.Get_rank()
cross = world.Split(rank % 2, rank)
reps = 15

def timed(fn):
    ts = []
    for i in range(reps + 2):
        world.Barrier()
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
        if i >= 2:
            ts.append(t)
    worst = world.allreduce(float(np.median(ts)), op=MPI.MAX)
    return worst * 1e6

def row(name, nbytes, us):
    if rank == 0:
        print(f"{name:<28} {nbytes:>10} {us:>12.2f} us {nbytes / us / 1e3:>8.2f} GB/s", flush=True)

if rank == 0:
    print(f"# ranks {world.Get_size()}, MPI {MPI.Get_library_version().splitlines()[0]}")
for nbytes in [262144, 1 << 20, 4 << 20, 16 << 20, 32 << 20]:
    n = nbytes // 4
    a = np.ones(n, np.float32); b = np.empty(n, np.float32)
    row("cross allreduce (2 pairs)", nbytes, timed(lambda: cross.Allreduce(a, b, op=MPI.SUM)))
    row("cross inplace allreduce", nbytes, timed(lambda: cross.Allreduce(MPI.IN_PLACE, a, op=MPI.SUM)))
    peer = 1 - cross.Get_rank()
    row("cross sendrecv (2 pairs)", nbytes, timed(lambda: cross.Sendrecv(a, peer, 0, b, peer, 0)))
    a2 = np.ones(2 * n, np.float32); b2 = np.empty(2 * n, np.float32)
    row("world allreduce of 2x", 2 * nbytes, timed(lambda: world.Allreduce(a2, b2, op=MPI.SUM)))
    mem = cp.cuda.alloc_pinned_memory(nbytes)
    h = np.frombuffer(mem, np.float32, n)
    d = cp.ones(n, cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    def d2h():
        d.get(stream=s, out=h); s.synchronize()
    def h2d():
        d.set(h, stream=s); s.synchronize()
    row("pinned D2H (4 ranks at once)", nbytes, timed(d2h))
    row("pinned H2D (4 ranks at once)", nbytes, timed(h2d))
