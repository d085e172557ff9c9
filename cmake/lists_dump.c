/* Never compiled: cmake/pscan_variants.cmake runs only the C preprocessor over this file at
 * configure time, so that CMake reads the X-macro lists of src/lists.h exactly as the C code
 * does. Each PSCAN_GEN_<LIST>= line becomes a CMake list of its entries' fields. */
#include "lists.h"

#define T(E, name, ctype, kind) E name kind
PSCAN_GEN_TYPES= PSCAN_TYPES(T)
#undef T

#define O(E, name, int_only) E name int_only
PSCAN_GEN_OPS= PSCAN_OPS(O)
#undef O

#define P(IN, OUT) IN OUT
PSCAN_GEN_PAIRS= PSCAN_SCAN_PAIRS(P)
#undef P
