# Host library sources: every src/*.c is part of libmcoll.
SRC_OBJS = $(patsubst $(srcdir)/src/%.c,$(B)/src/%.o,$(wildcard $(srcdir)/src/*.c))
