/* The counting tool loaded in front of mcoll (count_tool.h). */
#define COUNT_TOOL_NAME "count_before"
#include "count_tool.h"
