/*
 * The MPI peers for scripts/bench-peers (built once with Open MPI's mpicc, once
 * with MPICH's): MPI_Allreduce of float32 sums,
 * timed as shmemcomm-perf times ours (buffers touched first, a round of warm-up, the
 * slowest rank's time per call, the median of the rounds).
 *   mpirun -np N mpi_allreduce MIN_BYTES MAX_BYTES FACTOR ITERS ROUNDS
 * prints "bytes seconds" lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t min_bytes, max_bytes;
	int factor, iters, rounds, rank;
	float *src, *dst;
	double *times;

	MPI_Init(&argc, &argv);
	if (argc != 6) {
		fprintf(stderr, "usage: mpi_allreduce MIN_BYTES MAX_BYTES FACTOR ITERS ROUNDS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	min_bytes = strtoull(argv[1], NULL, 10);
	max_bytes = strtoull(argv[2], NULL, 10);
	factor = atoi(argv[3]);
	iters = atoi(argv[4]);
	rounds = atoi(argv[5]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	src = malloc(max_bytes);
	dst = malloc(max_bytes);
	times = malloc(sizeof(double) * (size_t)rounds);
	if (!src || !dst || !times || factor < 2 || iters < 1 || rounds < 1)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (size_t i = 0; i < max_bytes / sizeof(float); i++)
		src[i] = (float)(i % 7);
	memset(dst, 0, max_bytes);
	for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= (size_t)factor) {
		int count = (int)(bytes / sizeof(float));

		for (int w = 0; w < iters; w++)	/* warm up as long as one round */
			MPI_Allreduce(src, dst, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		for (int r = 0; r < rounds; r++) {
			double t0, mine, slowest;

			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			for (int it = 0; it < iters; it++)
				MPI_Allreduce(src, dst, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
			mine = (MPI_Wtime() - t0) / iters;
			MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			times[r] = slowest;
		}
		qsort(times, (size_t)rounds, sizeof(double), by_value);
		if (rank == 0)
			printf("%zu %.9f\n", bytes, times[rounds / 2]);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
