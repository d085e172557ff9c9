/* The user operators of `pscan bench --gpu --user-op` (user_op_cases.c): each as the source
 * pscan_op_create compiles, the same function on the host, and data on which every association
 * order gives the same exact result, so that outputs can be compared bit for bit with a
 * sequential scan. */
#ifndef PSCAN_TOOL_USER_OP_CASES_H
#define PSCAN_TOOL_USER_OP_CASES_H

#include "pscan.h"
#include "peers/peers_cub_user_op.h"

#include <stddef.h>
#include <stdint.h>

typedef struct uop_case {
  const char *name;                          /* e.g. "affine_f32" */
  const char *source, *type_name, *fn;       /* for pscan_op_desc */
  size_t elem;                               /* bytes per element */
  peer_user_op peer;                         /* CUB's functor of the same operator */
  void (*fill)(void *p, uint64_t i);         /* element i of the input */
  pscan_combine_fn host;                     /* the operator as a host_fn (out may alias a, b) */
  void (*loop)(void *out, const void *in, size_t n); /* the sequential scan, operator inlined */
  size_t real;                               /* 4 / 8: of float / double members; 0: integers */
  const void *identity;                      /* the operator's identity (elem bytes) */
} uop_case;

enum { UOP_NCASES = PEER_UOP_COUNT };
/* In peer_user_op's order: uop_cases[k].peer == k; the i32 SUM last. */
extern const uop_case uop_cases[UOP_NCASES];

/* acc = acc (+) x with c's host function. */
void uop_combine(const uop_case *c, void *acc, const void *x);

/* c's pscan_op_desc (COMBINE), with its identity or without. */
pscan_op_desc uop_desc(const uop_case *c, int with_identity);

/* Whether two elements of c are equal: member by member as numbers where they are floating
   point (so that -0 equals 0: the sign of a zero depends on the order of association), else
   byte for byte. */
int uop_equal(const uop_case *c, const void *a, const void *b);

#endif /* PSCAN_TOOL_USER_OP_CASES_H */
