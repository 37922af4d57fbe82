# Tests. In each directory: test_*.c run as one process, mpi_*.c run under mpirun -np 4.
# unit/ and contract/ link the static archive (they see internals); mpi/ links the shared
# library (what users get). gpu/ programs are built here and run only by tests/gpu/run.sh.

UNIT_SRCS = $(wildcard $(srcdir)/tests/unit/*.c)
UNIT_PROGS = $(patsubst $(srcdir)/tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRCS))
# Host programs built by nvcc from the kernels' headers (their arithmetic, run on the CPU).
UNIT_CU_SRCS = $(wildcard $(srcdir)/tests/unit/test_*.cu)
UNIT_CU_PROGS = $(patsubst $(srcdir)/tests/unit/%.cu,$(B)/tests/unit/%,$(UNIT_CU_SRCS))

MPI_SRCS = $(wildcard $(srcdir)/tests/mpi/*.c)
MPI_PROGS = $(patsubst $(srcdir)/tests/mpi/%.c,$(B)/tests/mpi/%,$(MPI_SRCS))

# The contract driver model lives in tests/contract/model/; the tests beside it use it.
CONTRACT_MODEL_SRCS = $(wildcard $(srcdir)/tests/contract/model/*.c)
CONTRACT_MODEL_OBJS = $(patsubst $(srcdir)/tests/contract/model/%.c,$(B)/tests/contract/model/%.o,$(CONTRACT_MODEL_SRCS))
CONTRACT_SRCS = $(wildcard $(srcdir)/tests/contract/*.c)
CONTRACT_PROGS = $(patsubst $(srcdir)/tests/contract/%.c,$(B)/tests/contract/%,$(CONTRACT_SRCS))

GPU_C_SRCS = $(wildcard $(srcdir)/tests/gpu/*.c)
GPU_PROGS = $(patsubst $(srcdir)/tests/gpu/%.c,$(B)/tests/gpu/%,$(GPU_C_SRCS))
GPU_COMMON = $(wildcard $(srcdir)/tests/gpu/common/*.c)
GUARD_LIB = $(B)/tests/gpu/libmcoll_guard.so

# fortran_f08.f90 needs the MPI's mpi_f08 module (configure checks).
FORTRAN_SRCS = $(wildcard $(srcdir)/tests/fortran/*.f90)
ifneq ($(HAVE_FORTRAN_F08),yes)
FORTRAN_SRCS := $(filter-out %/fortran_f08.f90,$(FORTRAN_SRCS))
endif
# fortran_persistent.f90 calls Open MPI 4's MPIX_*_INIT (configure: MCOLL_PCOLL=2).
ifeq ($(findstring -DMCOLL_PCOLL=2,$(MCOLL_CFLAGS)),)
FORTRAN_SRCS := $(filter-out %/fortran_persistent.f90,$(FORTRAN_SRCS))
endif
ifeq ($(HAVE_FORTRAN),yes)
FORTRAN_PROGS = $(patsubst $(srcdir)/tests/fortran/%.f90,$(B)/tests/fortran/%,$(FORTRAN_SRCS))
endif

# MPI programs that are not linked to mcoll (tests/mpi/test_preload.sh puts it in front of MPI
# with LD_PRELOAD).
PLAIN_SRCS = $(wildcard $(srcdir)/tests/mpi/plain/*.c)
PLAIN_PROGS = $(patsubst $(srcdir)/tests/mpi/plain/%.c,$(B)/tests/mpi/plain/%,$(PLAIN_SRCS))

# Two small PMPI tools that count calls (tests/mpi/test_pmpi_chain.sh loads them in front of
# mcoll and behind it).
TOOL_SRCS = $(wildcard $(srcdir)/tests/mpi/tools/count_*.c)
TOOL_LIBS = $(patsubst $(srcdir)/tests/mpi/tools/%.c,$(B)/tests/mpi/tools/%.so,$(TOOL_SRCS))

TEST_PROGRAMS = $(TOOL_LIBS) $(UNIT_PROGS) $(UNIT_CU_PROGS) $(MPI_PROGS) $(PLAIN_PROGS) $(CONTRACT_PROGS) $(GPU_PROGS) $(GUARD_LIB) $(FORTRAN_PROGS)
TEST_CFLAGS = $(filter-out -fvisibility=hidden,$(ALL_CFLAGS)) $(SRC_INCLUDES) -I$(srcdir)/tests

$(B)/tests/unit/%: $(srcdir)/tests/unit/%.c $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(STATIC_LINK)

$(B)/tests/unit/%: $(srcdir)/tests/unit/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -I$(srcdir)/tests -MMD -MP $< -o $@

# The GPU suites' inputs and reference, checked against a host model of the unicast kernels.
GPU_REF_SRCS = $(addprefix $(srcdir)/tests/gpu/common/,types.c gen.c reference.c half.c)

$(B)/tests/unit/pack_reduce.o: $(srcdir)/tests/unit/pack_reduce.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@

$(B)/tests/unit/test_gpu_reference: $(srcdir)/tests/unit/test_gpu_reference.c $(GPU_REF_SRCS) \
                                    $(B)/tests/unit/pack_reduce.o $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(GPU_REF_SRCS) $(B)/tests/unit/pack_reduce.o -o $@ $(STATIC_LINK)

# The suites' block and scan cases against host versions of the collectives.
GPU_CASE_SRCS = $(GPU_REF_SRCS) $(addprefix $(srcdir)/tests/gpu/common/,blocks.c prep.c devbuf.c report.c options.c \
                                  api_native.c)

$(B)/tests/unit/test_gpu_cases: $(srcdir)/tests/unit/test_gpu_cases.c $(GPU_CASE_SRCS) \
                                $(B)/tests/unit/pack_reduce.o $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(GPU_CASE_SRCS) $(B)/tests/unit/pack_reduce.o -o $@ $(STATIC_LINK)

# mcoll-bench's HBM byte counts, and its reading of MCOLL_ONESHOT_MAX against the library's.
BENCH_HBM_SRCS = $(srcdir)/benchmarks/mcoll-bench/hbm.c $(srcdir)/benchmarks/common/bench_cli.c

$(B)/tests/unit/test_bench_hbm: $(srcdir)/tests/unit/test_bench_hbm.c $(BENCH_HBM_SRCS) $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -D_POSIX_C_SOURCE=200809L -I$(srcdir)/benchmarks/common -I$(srcdir)/benchmarks/mcoll-bench \
	    $< $(BENCH_HBM_SRCS) -o $@ $(STATIC_LINK)

$(B)/tests/mpi/%: $(srcdir)/tests/mpi/%.c $(B)/lib/libmcoll.so
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(SHARED_LINK)

$(B)/tests/mpi/plain/%: $(srcdir)/tests/mpi/plain/%.c
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $< -o $@ $(LDFLAGS)

$(B)/tests/mpi/tools/%.so: $(srcdir)/tests/mpi/tools/%.c $(srcdir)/tests/mpi/tools/count_tool.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -fPIC -shared $< -o $@ $(LDFLAGS)

$(B)/tests/contract/model/%.o: $(srcdir)/tests/contract/model/%.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(B)/tests/contract/%: $(srcdir)/tests/contract/%.c $(CONTRACT_MODEL_OBJS) $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(CONTRACT_MODEL_OBJS) -o $@ $(STATIC_LINK)

# Stands in for the GPU tests' guard: the library looks its mcoll_guard_active up with dlsym.
$(B)/tests/contract/mpi_team_alias: STATIC_LINK += -Wl,--export-dynamic
# Launchers that record what would run instead of launching (no GPU here).
$(B)/tests/contract/mpi_async: STATIC_LINK += -Wl,--wrap=mcoll_launch_allreduce -Wl,--wrap=mcoll_launch_bcast \
    -Wl,--wrap=mcoll_launch_reduce_scatter -Wl,--wrap=mcoll_launch_allgather

# Zero-copy launchers that do on the host what the kernels do; staged ones that count.
$(B)/tests/contract/mpi_zero_copy: STATIC_LINK += -Wl,--wrap=mcoll_launch_allreduce_direct \
    -Wl,--wrap=mcoll_launch_reduce_scatter_direct -Wl,--wrap=mcoll_launch_reduce_direct \
    -Wl,--wrap=mcoll_launch_bcast_direct -Wl,--wrap=mcoll_launch_allgather_direct \
    -Wl,--wrap=mcoll_launch_allreduce -Wl,--wrap=mcoll_launch_reduce

# Launchers that launch nothing: the survivors must get a dead peer's failure, not results.
$(B)/tests/contract/dead_peer: STATIC_LINK += -Wl,--wrap=mcoll_launch_allreduce -Wl,--wrap=mcoll_launch_allreduce_direct

# The hierarchy's domain engines on launchers that compute nothing.
$(B)/tests/contract/mpi_hier_engine: STATIC_LINK += -Wl,--wrap=mcoll_launch_allreduce -Wl,--wrap=mcoll_launch_reduce \
    -Wl,--wrap=mcoll_launch_bcast -Wl,--wrap=mcoll_launch_reduce_scatter -Wl,--wrap=mcoll_launch_allgather \
    -Wl,--wrap=mcoll_launch_gather -Wl,--wrap=mcoll_launch_ll -Wl,--wrap=mcoll_launch_reduce_local

# The kernel's completion word written by a thread, late or never.
$(B)/tests/contract/mpi_word: STATIC_LINK += -Wl,--wrap=mcoll_launch_allreduce

# The resident kernel played by a thread, launched kernels recorded (no GPU here).
$(B)/tests/contract/mpi_ring: STATIC_LINK += -Wl,--wrap=mcoll_launch_resident -Wl,--wrap=mcoll_launch_ll \
    -Wl,--wrap=mcoll_launch_allreduce

$(B)/tests/gpu/%: $(srcdir)/tests/gpu/%.c $(GPU_COMMON) $(B)/lib/libmcoll.so
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(GPU_COMMON) -o $@ $(SHARED_LINK) -L$(CUDA_LIBDIR) -lcudart -Wl,-rpath,$(CUDA_LIBDIR) -lm

$(GUARD_LIB): $(srcdir)/tests/gpu/guard/guard.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -fvisibility=hidden,$(ALL_CFLAGS)) -shared $< -o $@ -ldl

$(B)/tests/fortran/%: $(srcdir)/tests/fortran/%.f90 $(B)/lib/libmcoll.so
	@mkdir -p $(@D)
	$(MPIFORT) -O1 -J $(@D) $< -o $@ $(SHARED_LINK)

# Keep the model objects between builds (they are only named in a pattern rule).
.SECONDARY: $(CONTRACT_MODEL_OBJS)
