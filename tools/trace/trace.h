/* `pscan trace` (tools/trace/trace.c): the textbook scan algorithms simulated step by step on a few
 * integers, for teaching. The command itself is declared in commands.h. */
#ifndef PSCAN_TOOL_TRACE_H
#define PSCAN_TOOL_TRACE_H

enum { TRACE_MAX_VALUES = 64 }; /* the most values a trace takes */

#endif /* PSCAN_TOOL_TRACE_H */
