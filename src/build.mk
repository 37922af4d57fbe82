# Host library sources: every .c under src/ (tools/ aside) is part of libmcoll.
#
# The layers and what each may include (its own headers and those of the layers below it):
#   core/   driver table, settings, log, errors, datatype table, locality
#   team/   teams: agreement, VMM pieces, symmetric memory, handle exchange, multicast
#   mem/    memory the user allocates, registers or imports: windows, registration cache
#   api/    the native API (include/mcoll.h)
#   hier/   hierarchical collectives over NVLink domains (the domains' engines, the user's MPI)
#   pmpi/   the PMPI plug-in
# Each object is compiled with its layer's include path, so a header of a higher layer cannot
# creep into a lower one. Tests and tools see every header.
SRC_OBJS = $(patsubst $(srcdir)/src/%.c,$(B)/src/%.o,$(wildcard $(srcdir)/src/core/*.c $(srcdir)/src/team/*.c \
               $(srcdir)/src/mem/*.c $(srcdir)/src/api/*.c $(srcdir)/src/hier/*.c $(srcdir)/src/pmpi/*.c))

CORE_INC = -I$(srcdir)/src/core
TEAM_INC = $(CORE_INC) -I$(srcdir)/src/team
MEM_INC  = $(TEAM_INC) -I$(srcdir)/src/mem
API_INC  = $(MEM_INC) -I$(srcdir)/src/api
HIER_INC = $(API_INC) -I$(srcdir)/src/hier
PMPI_INC = $(HIER_INC) -I$(srcdir)/src/pmpi
SRC_INCLUDES = $(PMPI_INC)

$(B)/src/core/%.o: LAYER_INC = $(CORE_INC)
$(B)/src/team/%.o: LAYER_INC = $(TEAM_INC)
$(B)/src/mem/%.o: LAYER_INC = $(MEM_INC)
$(B)/src/api/%.o: LAYER_INC = $(API_INC)
$(B)/src/hier/%.o: LAYER_INC = $(HIER_INC)
$(B)/src/pmpi/%.o: LAYER_INC = $(PMPI_INC)

# Tools installed to bin/ ($(BIN): see make install). mcoll_info links the shared library like an
# application, to report the one that is loaded.
INSTALL_TOOLS = $(BIN)/mcoll_info

$(BIN)/mcoll_info: $(srcdir)/src/tools/mcoll_info.c $(B)/lib/libmcoll.so Makefile
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DMCOLL_PACKAGE_VERSION='"$(VERSION)"' $< -o $@ $(SHARED_LINK) -ldl

# The PMPI_* names mcoll answers for tools loaded in front of it (src/pmpi/chain_calls.h, read
# here from its X( lines). In the shared library every reference mcoll itself makes to one of
# them is linked to __wrap_PMPI_<Name> (chain.c: the MPI's), so no internal call can reach
# mcoll's answer; the static archive leaves chain_pmpi.o out, so its references stay the MPI's.
CHAIN_NAMES = $(shell sed -n 's/^ *X.\([A-Za-z_]*\),.*/\1/p' $(srcdir)/src/pmpi/chain_calls.h)
CHAIN_WRAP = $(patsubst %,-Wl$(comma)--wrap=PMPI_%,$(CHAIN_NAMES))
CHAIN_PMPI_OBJ = $(B)/src/pmpi/chain_pmpi.o
