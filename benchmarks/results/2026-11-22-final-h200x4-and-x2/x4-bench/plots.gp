# mcoll-bench plots. Run again with: cd <this directory> && gnuplot plots.gp
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1100,700 noenhanced
} else {
    set terminal png size 1100,700 noenhanced
}
set grid
set key top left
set xlabel "size"
set logscale x 2
set xtics ("8 B" 8, "128 B" 128, "2 KiB" 2048, "32 KiB" 32768, "512 KiB" 524288, "8 MiB" 8388608, "128 MiB" 134217728)

set output "allreduce-latency.png"
set title "allreduce: time per call, 4 ranks, float (lower is better)"
set ylabel "time per call (us)"
set logscale y 10
plot "data/allreduce-mcoll.dat" using 1:2 with linespoints title "mcoll", \
     "data/allreduce-mcoll-graph.dat" using 1:2 with linespoints title "mcoll-graph", \
     "data/allreduce-mcoll-mpi.dat" using 1:2 with linespoints title "mcoll-mpi", \
     "data/allreduce-nccl.dat" using 1:2 with linespoints title "nccl", \
     "data/allreduce-nccl-graph.dat" using 1:2 with linespoints title "nccl-graph", \
     "data/allreduce-staged.dat" using 1:2 with linespoints title "staged"

set output "allreduce-busbw.png"
set title "allreduce: bus bandwidth, 4 ranks, float (higher is better)"
set ylabel "busbw (GB/s)"
unset logscale y
plot "data/allreduce-mcoll.dat" using 1:3 with linespoints title "mcoll", \
     "data/allreduce-mcoll-graph.dat" using 1:3 with linespoints title "mcoll-graph", \
     "data/allreduce-mcoll-mpi.dat" using 1:3 with linespoints title "mcoll-mpi", \
     "data/allreduce-nccl.dat" using 1:3 with linespoints title "nccl", \
     "data/allreduce-nccl-graph.dat" using 1:3 with linespoints title "nccl-graph", \
     "data/allreduce-staged.dat" using 1:3 with linespoints title "staged"

set output "bcast-latency.png"
set title "bcast: time per call, 4 ranks, float (lower is better)"
set ylabel "time per call (us)"
set logscale y 10
plot "data/bcast-mcoll.dat" using 1:2 with linespoints title "mcoll", \
     "data/bcast-mcoll-graph.dat" using 1:2 with linespoints title "mcoll-graph", \
     "data/bcast-mcoll-mpi.dat" using 1:2 with linespoints title "mcoll-mpi", \
     "data/bcast-nccl.dat" using 1:2 with linespoints title "nccl", \
     "data/bcast-nccl-graph.dat" using 1:2 with linespoints title "nccl-graph", \
     "data/bcast-staged.dat" using 1:2 with linespoints title "staged"

set output "bcast-busbw.png"
set title "bcast: bus bandwidth, 4 ranks, float (higher is better)"
set ylabel "busbw (GB/s)"
unset logscale y
plot "data/bcast-mcoll.dat" using 1:3 with linespoints title "mcoll", \
     "data/bcast-mcoll-graph.dat" using 1:3 with linespoints title "mcoll-graph", \
     "data/bcast-mcoll-mpi.dat" using 1:3 with linespoints title "mcoll-mpi", \
     "data/bcast-nccl.dat" using 1:3 with linespoints title "nccl", \
     "data/bcast-nccl-graph.dat" using 1:3 with linespoints title "nccl-graph", \
     "data/bcast-staged.dat" using 1:3 with linespoints title "staged"

set output "reduce-latency.png"
set title "reduce: time per call, 4 ranks, float (lower is better)"
set ylabel "time per call (us)"
set logscale y 10
plot "data/reduce-mcoll.dat" using 1:2 with linespoints title "mcoll", \
     "data/reduce-mcoll-graph.dat" using 1:2 with linespoints title "mcoll-graph", \
     "data/reduce-mcoll-mpi.dat" using 1:2 with linespoints title "mcoll-mpi", \
     "data/reduce-nccl.dat" using 1:2 with linespoints title "nccl", \
     "data/reduce-nccl-graph.dat" using 1:2 with linespoints title "nccl-graph", \
     "data/reduce-staged.dat" using 1:2 with linespoints title "staged"

set output "reduce-busbw.png"
set title "reduce: bus bandwidth, 4 ranks, float (higher is better)"
set ylabel "busbw (GB/s)"
unset logscale y
plot "data/reduce-mcoll.dat" using 1:3 with linespoints title "mcoll", \
     "data/reduce-mcoll-graph.dat" using 1:3 with linespoints title "mcoll-graph", \
     "data/reduce-mcoll-mpi.dat" using 1:3 with linespoints title "mcoll-mpi", \
     "data/reduce-nccl.dat" using 1:3 with linespoints title "nccl", \
     "data/reduce-nccl-graph.dat" using 1:3 with linespoints title "nccl-graph", \
     "data/reduce-staged.dat" using 1:3 with linespoints title "staged"
