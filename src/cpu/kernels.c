/* The built-in operators: kernel_body.h stamped once per (input, accumulation) pair of
 * PSCAN_SCAN_PAIRS (lists.h), each for every operator of its kind. */
#include "cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel_types.h"

#define PSCAN__CAT4_(a, b, c, d) a##_##b##c##d
#define PSCAN__CAT4(a, b, c, d) PSCAN__CAT4_(a, b, c, d)

#define PAIR_IN I8
#define PAIR_OUT I8
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I16
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I16
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I32
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I32
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I64
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U8
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U16
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U16
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U32
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U32
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U64
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN F32
#define PAIR_OUT F32
#include "kernel_body.h"
#define PAIR_IN F32
#define PAIR_OUT F64
#include "kernel_body.h"
#define PAIR_IN F64
#define PAIR_OUT F64
#include "kernel_body.h"

const pscan__cpu_op *pscan__cpu_scalar_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  if (!pscan__op_valid((int)op))
    return NULL;
#define X(IN, OUT)                                  \
  if (in == PSCAN_##IN && acc == PSCAN_##OUT)       \
    return PSCAN__CAT4(ops, IN, _, OUT)[op];
  PSCAN_SCAN_PAIRS(X)
#undef X
  return NULL;
}

/* ---- Choice of instruction set, once per process ----
   PSCAN_CPU_ISA=scalar forces the portable kernels (so tests reach them on any machine);
   otherwise AVX2 kernels serve what they cover when the CPU has AVX2. */
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static bool use_avx2;

static void choose_isa(void) {
  const char *force = getenv("PSCAN_CPU_ISA");
  bool scalar_only = force && strcmp(force, "scalar") == 0;
  use_avx2 = !scalar_only && pscan__cpu_has_avx2();
  if (use_avx2)
    pscan__cpu_avx2_init();
}

const char *pscan__cpu_isa(void) {
  pthread_once(&isa_once, choose_isa);
  return use_avx2 ? "avx2" : "scalar";
}

const pscan__cpu_op *pscan__cpu_builtin_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  pthread_once(&isa_once, choose_isa);
  const pscan__cpu_op *fast = use_avx2 ? pscan__cpu_avx2_op(in, acc, op) : NULL;
  return fast ? fast : pscan__cpu_scalar_op(in, acc, op);
}
