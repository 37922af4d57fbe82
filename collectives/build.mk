# Collective kernels: every collectives/*.cu is part of libmcoll.
CU_OBJS = $(patsubst $(srcdir)/collectives/%.cu,$(B)/collectives/%.o,$(wildcard $(srcdir)/collectives/*.cu))
