/* `pscan scan`, `pscan reduce`, `pscan scan-by-key` and `pscan reduce-by-key` with your own
   operator, `pscan select` and `pscan partition` with your own predicate (--op-source;
   cmd_user_op.c). */
#ifndef PSCAN_TOOL_CMD_USER_OP_H
#define PSCAN_TOOL_CMD_USER_OP_H

#include "file_cmd.h"

/* The scan of IN's elements under the operator compiled from --op-source: OUT has IN's type and
   shape. Returns an exit status. */
int run_scan_user_op(file_job *job);
/* The reduction alone (pscan_reduce_op): one element, written as its values. */
int run_reduce_user_op(file_job *job);
/* select (partition false: OUT the kept elements) or partition (all of them, the kept first)
   with the predicate int FN(T x) compiled from --op-source; *k: the number kept. */
int run_select_user_op(file_job *job, bool partition, size_t *k);

/* The by-key commands with the operator on VALS' elements (pscan_scan_by_key_op,
   pscan_reduce_by_key_op): KEYS holds one key per element. */
int run_scan_by_key_user_op(file_job *job);
int run_reduce_by_key_user_op(file_job *job);

#endif /* PSCAN_TOOL_CMD_USER_OP_H */
