# Benchmarks: the OSU look-alikes (one benchmarks/osu_<name>.c each, built as
# $(B)/bin/mcoll_osu_<name>) and the comparison program $(B)/bin/mcoll-bench
# (benchmarks/mcoll-bench/), both on the shared code in benchmarks/common/. They link the shared
# library, so their MPI calls go through mcoll as a user's would, and the CUDA runtime for
# cudaMalloc and friends. NCCL is loaded at run time by mcoll-bench, never linked.
# benchmarks/plot.py is copied to $(B)/bin/mcoll-bench-plot (and installed with the programs):
# mcoll-bench runs it where gnuplot is missing.

BENCH_COMMON_SRCS = $(wildcard $(srcdir)/benchmarks/common/*.c)
BENCH_COMMON_OBJS = $(patsubst $(srcdir)/benchmarks/common/%.c,$(B)/benchmarks/common/%.o,$(BENCH_COMMON_SRCS))
BENCH_OSU_SRCS = $(wildcard $(srcdir)/benchmarks/osu_*.c)
BENCH_OSU_PROGS = $(patsubst $(srcdir)/benchmarks/osu_%.c,$(BIN)/mcoll_osu_%,$(BENCH_OSU_SRCS))
MCOLL_BENCH_SRCS = $(wildcard $(srcdir)/benchmarks/mcoll-bench/*.c)
MCOLL_BENCH_OBJS = $(patsubst $(srcdir)/benchmarks/mcoll-bench/%.c,$(B)/benchmarks/mcoll-bench/%.o,$(MCOLL_BENCH_SRCS))

# $(BIN) is build/bin, or where make install links the copies it installs.
BENCH_PROGRAMS = $(BENCH_OSU_PROGS) $(BIN)/mcoll-bench $(BIN)/mcoll-bench-plot

# The benchmark directories come first so their headers win over same-named ones elsewhere;
# POSIX names (gethostname, strcasecmp, posix_memalign, ...) are hidden by -std=c11 without
# _POSIX_C_SOURCE.
BENCH_CFLAGS = -I$(srcdir)/benchmarks/common $(ALL_CFLAGS) -D_POSIX_C_SOURCE=200809L
BENCH_LIBS = $(SHARED_LINK) -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -ldl -lm

$(B)/benchmarks/common/%.o: $(srcdir)/benchmarks/common/%.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

$(B)/benchmarks/mcoll-bench/%.o: $(srcdir)/benchmarks/mcoll-bench/%.c
	@mkdir -p $(@D)
	$(CC) -I$(srcdir)/benchmarks/mcoll-bench $(BENCH_CFLAGS) -DMB_PLOT_SCRIPT='"$(srcdir)/benchmarks/plot.py"' -MMD -MP -c $< -o $@

$(BIN)/mcoll_osu_%: $(srcdir)/benchmarks/osu_%.c $(BENCH_COMMON_OBJS) $(B)/lib/libmcoll.so
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< $(BENCH_COMMON_OBJS) -o $@ $(BENCH_LIBS)

$(BIN)/mcoll-bench: $(MCOLL_BENCH_OBJS) $(BENCH_COMMON_OBJS) $(B)/lib/libmcoll.so
	@mkdir -p $(@D)
	$(CC) $(MCOLL_BENCH_OBJS) $(BENCH_COMMON_OBJS) -o $@ $(BENCH_LIBS)

$(BIN)/mcoll-bench-plot: $(srcdir)/benchmarks/plot.py
	@mkdir -p $(@D)
	cp $< $@ && chmod +x $@

benchmarks: $(BENCH_PROGRAMS)

.PHONY: benchmarks

# mcoll-floors: the GPU's latency floors (empty launch, graph, launch + wait by sync, query or
# mapped flag, 8-byte copies), one CUDA program without MPI or libmcoll. A measuring tool of the
# build tree (tests/gpu/run.sh runs it), not installed.
$(BIN)/mcoll-floors: $(srcdir)/benchmarks/floors/mcoll-floors.cu $(srcdir)/benchmarks/floors/chained.cuh
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@ -lcuda

# mcoll-probe: the broadcast kernels on every GPU of one process, timed and traced per block
# barrier (benchmarks/probe/mcoll-probe.cu); a measuring tool of the build tree, not installed.
$(BIN)/mcoll-probe: $(srcdir)/benchmarks/probe/mcoll-probe.cu $(wildcard $(srcdir)/collectives/*.cuh) \
    $(srcdir)/collectives/push_run.cu $(srcdir)/collectives/bcast.cu $(srcdir)/collectives/direct_run.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@

programs benchmarks: $(BIN)/mcoll-floors $(BIN)/mcoll-probe
