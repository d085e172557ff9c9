/* A consumer of the installed pscan_mpi: a distributed i32 -> i64 sum of {1, 2, 3} per rank.
   Prints "ok" on rank 0 when every rank got its part right. */
#include <pscan_mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pscan_ctx *ctx = NULL;
  int good = pscan_create(&ctx, PSCAN_BACKEND_CPU) == PSCAN_OK;
  int32_t in[3] = {1, 2, 3};
  int64_t out[3] = {0};
  pscan_scan_args a = {.in = in, .in_type = PSCAN_I32, .out = out, .out_type = PSCAN_I64, .n = 3,
                       .op = PSCAN_SUM};
  good = good && pscan_mpi_scan(ctx, MPI_COMM_WORLD, &a) == PSCAN_OK;
  good = good && out[0] == 6 * rank + 1 && out[2] == 6 * rank + 6;
  int all = 0;
  MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s\n", all ? "ok" : "wrong");
  pscan_destroy(ctx);
  MPI_Finalize();
  return all ? 0 : 1;
}
