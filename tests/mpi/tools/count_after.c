/* The counting tool loaded behind mcoll (count_tool.h). */
#define COUNT_TOOL_NAME "count_after"
#include "count_tool.h"
