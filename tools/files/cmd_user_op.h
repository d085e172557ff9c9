/* `pscan scan` and `pscan reduce` with your own operator (--op-source; cmd_user_op.c). */
#ifndef PSCAN_TOOL_CMD_USER_OP_H
#define PSCAN_TOOL_CMD_USER_OP_H

#include "file_cmd.h"

/* The scan of IN's elements under the operator compiled from --op-source: OUT has IN's type and
   shape. Returns an exit status. */
int run_scan_user_op(file_job *job);
/* The reduction alone (pscan_reduce_op): one element, written as its values. */
int run_reduce_user_op(file_job *job);

#endif /* PSCAN_TOOL_CMD_USER_OP_H */
