/*
 * shmemcomm-perf: the training collectives' times and bandwidths, in the
 * manner of nccl-tests. Run under shmemrun (or any launcher); PE 0 prints.
 *
 *   shmemrun -n 2 shmemcomm-perf -b 8 -e 64M -f 2 -d fp32 -o sum -c 1
 *
 * time is per call, the slowest PE's, the median of -r rounds of -n calls;
 * algbw = size / time; busbw = algbw * the collective's bus factor
 * (allreduce 2(n-1)/n; reduce_scatter, allgather, alltoall (n-1)/n;
 * broadcast 1), as nccl-tests define them. size is the buffer a PE holds
 * (for reduce_scatter, allgather and alltoall: n blocks).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <shmem.h>
#include <shmemx.h>

enum { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BROADCAST, ALLTOALL, KINDS };
static const char *const kind_names[KINDS] = {
	"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall",
};
static const char *const dtype_names[] = {
	"fp32", "fp64", "fp16", "bf16", "int8", "int16", "int32", "int64",
	"uint8", "uint16", "uint32", "uint64",
};
static const char *const op_names[] = { "sum", "prod", "min", "max", "avg", "band", "bor", "bxor" };
/* nccl-tests' names for the same dtypes (its -d), which its users type first */
static const struct {
	const char *nccl, *ours;
} nccl_dtype_names[] = {
	{ "float", "fp32" }, { "double", "fp64" }, { "half", "fp16" }, { "bfloat16", "bf16" },
};

struct options {
	size_t min_bytes, max_bytes;
	double factor;
	size_t step;
	int kind, dtype, op, iters, warmup, rounds, check, in_place, staged, root;
	size_t misalign;
};

static void usage(const char *why)
{
	if (why)
		fprintf(stderr, "shmemcomm-perf: %s\n", why);
	fprintf(stderr,
		"usage: shmemcomm-perf [-t allreduce|reduce_scatter|allgather|broadcast|alltoall]\n"
		"  [-b min bytes] [-e max bytes] [-f factor | -i step bytes] [-d dtype] [-o op]\n"
		"  [-n iterations] [-w warm-up iterations] [-r rounds (median)] [-c 0|1 check]\n"
		"  [-p 0|1 in place] [-s 0|1|2|3 buffers off the heap: 1 the same ones each call,\n"
		"   2 mapped anew before each call (each call a first use), 3 from the buffer pool\n"
		"   (shmemx_buffer_malloc)] [-R root]\n"
		"  [-a bytes: buffers that many bytes past a 64-byte boundary]\n"
		"sizes take k, m, g suffixes; dtypes: fp32 fp64 fp16 bf16 int8..int64 uint8..uint64,\n"
		"  or nccl-tests' names float double half bfloat16;\n"
		"ops: sum prod min max avg band bor bxor\n");
	exit(2);
}

static size_t parse_size(const char *text, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		goto bad;
	return (size_t)v;
bad:
	fprintf(stderr, "shmemcomm-perf: %s %s is not a size (e.g. 64, 4k, 64M)\n", what, text);
	exit(2);
}

static int lookup(const char *const *names, int n, const char *text, const char *what)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], text))
			return i;
	fprintf(stderr, "shmemcomm-perf: %s %s is unknown\n", what, text);
	usage(NULL);
	return -1;
}

static const char *nccl_dtype(const char *text)
{
	for (size_t i = 0; i < sizeof(nccl_dtype_names) / sizeof(nccl_dtype_names[0]); i++)
		if (!strcmp(text, nccl_dtype_names[i].nccl))
			return nccl_dtype_names[i].ours;
	return text;
}

static long whole(const char *text, const char *what, long min, long max)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (end == text || *end || v < min || v > max) {
		fprintf(stderr, "shmemcomm-perf: %s %s is not a number in %ld..%ld\n", what, text,
			min, max);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Element values: small integers, exact in every dtype and in any sum here. */
static double input_value(int op, int pe, size_t i)
{
	if (op == SHMEMX_PROD)
		return (pe + i) % 5 == 0 ? 2 : 1;
	return (double)((pe * 3 + i) % 7);
}

static uint16_t to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static void put_value(int dtype, void *base, size_t i, double v)
{
	char *p = (char *)base + i * shmemx_dtype_size(dtype);

	switch (dtype) {
	case SHMEMX_FP32: { float f = (float)v; memcpy(p, &f, 4); break; }
	case SHMEMX_FP64: memcpy(p, &v, 8); break;
	case SHMEMX_FP16: { _Float16 h = (_Float16)(float)v; memcpy(p, &h, 2); break; }
	case SHMEMX_BF16: { uint16_t b = to_bf16((float)v); memcpy(p, &b, 2); break; }
	case SHMEMX_INT8: case SHMEMX_UINT8: { int8_t x = (int8_t)(int64_t)v; memcpy(p, &x, 1); break; }
	case SHMEMX_INT16: case SHMEMX_UINT16: { int16_t x = (int16_t)(int64_t)v; memcpy(p, &x, 2); break; }
	case SHMEMX_INT32: case SHMEMX_UINT32: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); break; }
	default: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
	}
}

/* The expected reduction of element @i over @n PEs, as stored in @dtype. */
static double expected(int dtype, int op, int n, size_t i)
{
	double acc = input_value(op, 0, i);
	int integer = dtype >= SHMEMX_INT8;

	for (int pe = 1; pe < n; pe++) {
		double v = input_value(op, pe, i);

		switch (op) {
		case SHMEMX_PROD: acc *= v; break;
		case SHMEMX_MIN: acc = v < acc ? v : acc; break;
		case SHMEMX_MAX: acc = v > acc ? v : acc; break;
		case SHMEMX_BAND: acc = (double)((int64_t)acc & (int64_t)v); break;
		case SHMEMX_BOR: acc = (double)((int64_t)acc | (int64_t)v); break;
		case SHMEMX_BXOR: acc = (double)((int64_t)acc ^ (int64_t)v); break;
		default: acc += v; break;
		}
	}
	if (op == SHMEMX_AVG)
		acc = integer ? trunc(acc / n) : dtype == SHMEMX_FP64 ? acc / n :
			(double)((float)acc / (float)n);
	return acc;
}

static size_t wrong_elements(const struct options *o, const void *dest, size_t count, int n,
			     int me)
{
	size_t elem = shmemx_dtype_size(o->dtype), wrong = 0;
	char want[8];

	for (size_t i = 0; i < count; i++) {
		double v;

		switch (o->kind) {
		case ALLREDUCE: v = expected(o->dtype, o->op, n, i); break;
		case REDUCE_SCATTER: v = expected(o->dtype, o->op, n, (size_t)me * count + i); break;
		case ALLGATHER: v = input_value(o->op, (int)(i / (count / n)), i % (count / n)); break;
		case BROADCAST: v = input_value(o->op, o->root, i); break;
		default: {
			size_t block = count / n;	/* from PE i / block, its block me */

			v = input_value(o->op, (int)(i / block), (size_t)me * block + i % block);
		}
		}
		put_value(o->dtype, want, 0, v);
		wrong += memcmp(want, (const char *)dest + i * elem, elem) != 0;
	}
	return wrong;
}

static int issue(const struct options *o, void *dest, const void *source, size_t count)
{
	switch (o->kind) {
	case ALLREDUCE:
		return shmemx_allreduce(SHMEM_TEAM_WORLD, dest, source, count, o->dtype, o->op);
	case REDUCE_SCATTER:
		return shmemx_reduce_scatter(SHMEM_TEAM_WORLD, dest, source, count, o->dtype, o->op);
	case ALLGATHER:
		return shmemx_allgather(SHMEM_TEAM_WORLD, dest, source, count, o->dtype);
	case BROADCAST:
		return shmemx_broadcast(SHMEM_TEAM_WORLD, dest, source, count, o->dtype, o->root);
	default:
		return shmemx_alltoall(SHMEM_TEAM_WORLD, dest, source, count, o->dtype);
	}
}

/* A refused call is a failed run, not a fast one. */
static void call(const struct options *o, void *dest, const void *source, size_t count)
{
	if (issue(o, dest, source, count)) {
		fprintf(stderr, "shmemcomm-perf: PE %d: the collective of %zu elements failed (see the message above)\n",
			shmem_my_pe(), count);
		exit(1);
	}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void fill_source(const struct options *o, void *source, size_t src_count, size_t count,
			int me)
{
	for (size_t i = 0; i < src_count; i++)
		put_value(o->dtype, source, i,
			  input_value(o->op, me, o->kind == ALLTOALL || o->kind == REDUCE_SCATTER ?
					  i : i % (count ? count : 1)));
}

/*
 * Private anonymous memory of @len bytes: new, or (@at) mapped over the
 * old at the same address, as free() and malloc() of a large block do.
 */
static char *map_anew(char *at, size_t len)
{
	char *p = mmap(at, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	struct options o = {
		.min_bytes = 8, .max_bytes = 64u << 20, .factor = 2, .kind = ALLREDUCE,
		.iters = 20, .warmup = 5, .rounds = 1,
	};
	int c, me, n;
	double *times, *slowest;
	long long *wrong_counts;
	char *src_buf, *dst_buf;
	size_t elem, max_total, any_wrong = 0;

	while ((c = getopt(argc, argv, "t:b:e:f:i:d:o:n:w:r:c:p:s:R:a:h")) != -1) {
		switch (c) {
		case 't': o.kind = lookup(kind_names, KINDS, optarg, "-t"); break;
		case 'b': o.min_bytes = parse_size(optarg, "-b"); break;
		case 'e': o.max_bytes = parse_size(optarg, "-e"); break;
		case 'f': o.factor = atof(optarg); if (o.factor <= 1) usage("-f must be above 1"); break;
		case 'i': o.step = parse_size(optarg, "-i"); break;
		case 'd': o.dtype = lookup(dtype_names, 12, nccl_dtype(optarg), "-d"); break;
		case 'o': o.op = lookup(op_names, 8, optarg, "-o"); break;
		case 'n': o.iters = (int)whole(optarg, "-n", 1, 1000000); break;
		case 'w': o.warmup = (int)whole(optarg, "-w", 0, 1000000); break;
		case 'r': o.rounds = (int)whole(optarg, "-r", 1, 1000); break;
		case 'c': o.check = (int)whole(optarg, "-c", 0, 1); break;
		case 'p': o.in_place = (int)whole(optarg, "-p", 0, 1); break;
		case 's': o.staged = (int)whole(optarg, "-s", 0, 3); break;
		case 'R': o.root = (int)whole(optarg, "-R", 0, 1 << 20); break;
		case 'a': o.misalign = (size_t)whole(optarg, "-a", 0, 63); break;
		default: usage(NULL);
		}
	}
	if (o.min_bytes > o.max_bytes)
		usage("-b is above -e");
	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	elem = shmemx_dtype_size(o.dtype);
	if (o.root >= n) {
		fprintf(stderr, "shmemcomm-perf: -R %d: there are %d PEs\n", o.root, n);
		shmem_global_exit(2);
	}
	max_total = o.max_bytes + (size_t)n * elem + 64;
	max_total = (max_total + 4095) / 4096 * 4096;
	if (o.staged == 3) {
		src_buf = shmemx_buffer_malloc(max_total);
		dst_buf = shmemx_buffer_malloc(max_total);
	} else if (o.staged) {
		src_buf = map_anew(NULL, max_total);
		dst_buf = map_anew(NULL, max_total);
	} else {
		src_buf = shmem_malloc(max_total);
		dst_buf = shmem_malloc(max_total);
	}
	times = shmem_malloc(sizeof(double) * (size_t)o.rounds);
	slowest = shmem_malloc(sizeof(double) * (size_t)o.rounds);
	wrong_counts = shmem_malloc(sizeof(long long) * 2);	/* this PE's, the sum */
	if (!src_buf || !dst_buf || !times || !slowest || !wrong_counts) {
		fprintf(stderr, "shmemcomm-perf: PE %d: no room for 2 x %zu bytes %s (SHMEM_SYMMETRIC_SIZE is %zu)\n",
			me, max_total, o.staged ? "in memory" : "on the symmetric heap",
			shmemx_heap_size());
		shmem_global_exit(1);
	}
	/* touch every page once: first-touch faults are not the collective's cost */
	memset(src_buf, 0, max_total);
	memset(dst_buf, 0, max_total);
	if (me == 0) {
		printf("# shmemcomm-perf: %s on %d PEs, %s, %s buffers, %s, simd %s\n",
		       kind_names[o.kind], n, shmemx_transport_name(),
		       o.staged == 3 ? "buffer-pool" :
		       o.staged == 2 ? "private, mapped anew each call," :
		       o.staged ? "private" : "symmetric-heap",
		       o.in_place ? "in place" : "out of place", shmemx_simd_name());
		printf("# %10s %12s %6s %6s %10s %9s %9s %7s %8s\n", "size", "count", "type",
		       "redop", "time(us)", "algbw", "busbw", "#wrong", "algo");
		printf("# %10s %12s %6s %6s %10s %9s %9s %7s %8s\n", "(B)", "(elements)", "", "",
		       "", "(GB/s)", "(GB/s)", "", "");
	}
	for (size_t bytes = o.min_bytes; bytes <= o.max_bytes;
	     bytes = o.step ? bytes + o.step : (size_t)((double)bytes * o.factor) > bytes ?
					      (size_t)((double)bytes * o.factor) : bytes + 1) {
		int blocks = o.kind == ALLREDUCE || o.kind == BROADCAST ? 1 : n;
		size_t count = bytes / elem / (size_t)blocks, src_count, dst_count;
		size_t total = count * elem * (size_t)blocks, wrong = 0;
		char *source = src_buf + o.misalign, *dest = dst_buf + o.misalign;
		double bus = o.kind == ALLREDUCE ? 2.0 * (n - 1) / n :
			     o.kind == BROADCAST ? 1.0 : (double)(n - 1) / n;

		if (!count)
			continue;
		src_count = o.kind == ALLGATHER || o.kind == ALLREDUCE || o.kind == BROADCAST ?
			    count : count * (size_t)n;
		dst_count = o.kind == ALLGATHER || o.kind == ALLTOALL ? count * (size_t)n : count;
		/* in place as MPI has it: allgather's source is this PE's block of dest,
		 * reduce_scatter's dest is this PE's block of the source */
		if (o.in_place && o.kind == ALLGATHER)
			source = dest + (size_t)me * count * elem;
		else if (o.in_place && o.kind == REDUCE_SCATTER)
			dest = source + (size_t)me * count * elem;
		else if (o.in_place)
			source = dest;
		fill_source(&o, source, src_count, count, me);
		for (int w = 0; w < o.warmup; w++)
			call(&o, dest, source, count);
		for (int r = 0; r < o.rounds; r++) {
			double spent = 0;

			shmem_barrier_all();
			if (!o.check && o.staged != 2) {
				double t0 = now();

				for (int it = 0; it < o.iters; it++)
					call(&o, dest, source, count);
				spent = now() - t0;
			} else {
				for (int it = 0; it < o.iters; it++) {
					double t0;

					if (o.staged == 2) {
						/* the old pages go; the first touch is the program's */
						map_anew(src_buf, max_total);
						map_anew(dst_buf, max_total);
						memset(dst_buf, 0, max_total);
					}
					fill_source(&o, source, src_count, count, me);
					/* poison dest (in place it holds the source) */
					if (!o.in_place)
						memset(dest, 0xa5, dst_count * elem);
					shmem_barrier_all();
					t0 = now();
					call(&o, dest, source, count);
					spent += now() - t0;
					wrong += wrong_elements(&o, dest, dst_count, n, me);
				}
			}
			times[r] = spent / o.iters;
		}
		shmem_barrier_all();
		shmem_double_max_reduce(SHMEM_TEAM_WORLD, slowest, times, (size_t)o.rounds);
		wrong_counts[0] = (long long)wrong;
		shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, wrong_counts + 1, wrong_counts, 1);
		wrong = (size_t)wrong_counts[1];
		any_wrong += wrong;
		qsort(slowest, (size_t)o.rounds, sizeof(double), compare_doubles);
		if (me == 0) {
			double t = slowest[o.rounds / 2], algbw = (double)total / t / 1e9;
			char wrong_text[24] = "N/A";

			if (o.check)
				snprintf(wrong_text, sizeof(wrong_text), "%zu", wrong);
			printf("  %10zu %12zu %6s %6s %10.2f %9.2f %9.2f %7s %8s\n", total, count,
			       dtype_names[o.dtype],
			       o.kind == ALLREDUCE || o.kind == REDUCE_SCATTER ? op_names[o.op] : "none",
			       t * 1e6, algbw, algbw * bus, wrong_text,
			       shmemx_collective_algorithm(SHMEM_TEAM_WORLD, kind_names[o.kind],
							   total));
			fflush(stdout);
		}
	}
	shmem_finalize();
	/* a wrong result is a failure, for scripts */
	return any_wrong ? 1 : 0;
}
