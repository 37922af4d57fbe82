# Host library sources: every src/*.c is part of libmcoll.
SRC_OBJS = $(patsubst $(srcdir)/src/%.c,$(B)/src/%.o,$(wildcard $(srcdir)/src/*.c))

# Tools installed to bin/.
INSTALL_TOOLS = $(B)/bin/mcoll_info

$(B)/bin/mcoll_info: $(srcdir)/src/tools/mcoll_info.c $(B)/lib/libmcoll.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $< -o $@ $(STATIC_LINK)
