/*
 * The liblsl anchor of the benchmarks: what the Lab Streaming Layer's own library costs on this
 * machine for the frames headsetd's figures are about. One binary, liblsl loaded with dlopen (any
 * version), two roles in two processes:
 *
 *   lsl-anchor LIB outlet NAME CHANNELS RATE ROWS SECONDS
 *       a float32 outlet; once an inlet is connected, every ROWS/RATE s (an absolute-deadline
 *       clock_nanosleep: one wake-up per chunk) pushes a chunk of ROWS samples whose last sample is
 *       stamped with the moment it is pushed, for SECONDS. Prints `cpu S` (the process's CPU
 *       seconds over those SECONDS, every liblsl thread included) and `chunks N`.
 *   lsl-anchor LIB idle RATE ROWS SECONDS
 *       the same pacing with no liblsl at all: what the wake-ups alone cost (`cpu S`).
 *   lsl-anchor LIB inlet NAME ROWS SECONDS WARMUP
 *       resolves NAME, opens it, and for each chunk measures the time its last sample is pulled
 *       (liblsl's clock; the pull blocks until a sample is there) minus that sample's time stamp,
 *       after WARMUP seconds. Prints `latencies` and each one, in ms, on one line. The outlet writes each row's
 *       index in its chunk on channel 0, which is how the last sample is known.
 *
 * Both processes read lsl_local_clock(), the same monotonic clock of this machine, so no time
 * correction enters the latency.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *handle;
static void *lib;
static void *sym(const char *name) {
	void *f = dlsym(lib, name);
	if (!f) {
		printf("ERROR missing %s\n", name);
		exit(2);
	}
	return f;
}
#define FN(ret, name, args) ret(*name) args = (ret(*) args)sym(#name)

static double cpu_seconds(void) {
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void advance(struct timespec *t, long ns) {
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

/* Paces `chunks` deadlines every `period_ns`, calling `push` at each; answers the CPU seconds spent. */
static double paced(long chunks, long period_ns, void (*push)(long)) {
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	double before = cpu_seconds();
	for (long i = 0; i < chunks; i++) {
		advance(&next, period_ns);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0) {
		}
		if (push) push(i);
	}
	return cpu_seconds() - before;
}

static handle the_outlet;
static float *chunk;
static int chunk_elements;
static int32_t (*push_chunk)(handle, const float *, unsigned long, double, int32_t);
static double (*local_clock)(void);

static int chunk_channels;

/* Channel 0 of each row holds the row's index in its chunk: the inlet knows a chunk's last sample. */
static void push_one(long i) {
	for (int k = 0; k < chunk_elements; k++)
		chunk[k] = k % chunk_channels == 0 ? (float)(k / chunk_channels) : (float)(i % 1000) + 0.25f;
	push_chunk(the_outlet, chunk, (unsigned long)chunk_elements, local_clock(), 1);
}

static int outlet(int argc, char **argv) {
	if (argc < 8) return 2;
	FN(handle, lsl_create_streaminfo, (const char *, const char *, int32_t, double, int32_t, const char *));
	FN(handle, lsl_create_outlet, (handle, int32_t, int32_t));
	FN(int32_t, lsl_wait_for_consumers, (handle, double));
	FN(void, lsl_destroy_outlet, (handle));
	push_chunk = (int32_t(*)(handle, const float *, unsigned long, double, int32_t))sym("lsl_push_chunk_ftp");
	local_clock = (double (*)(void))sym("lsl_local_clock");
	const char *name = argv[3];
	int channels = atoi(argv[4]);
	double rate = atof(argv[5]);
	int rows = atoi(argv[6]);
	double seconds = atof(argv[7]);
	handle info = lsl_create_streaminfo(name, "EEG", channels, rate, 1 /* float32 */, name);
	the_outlet = lsl_create_outlet(info, 0, 360);
	chunk_channels = channels;
	chunk_elements = channels * rows;
	chunk = calloc((size_t)chunk_elements, sizeof(float));
	printf("ready\n");
	fflush(stdout);
	if (!lsl_wait_for_consumers(the_outlet, 30.0)) {
		printf("ERROR no inlet\n");
		return 1;
	}
	long period_ns = (long)(rows / rate * 1e9);
	long chunks = (long)(seconds * 1e9 / period_ns);
	double cpu = paced(chunks, period_ns, push_one);
	printf("cpu %.6f\nchunks %ld\n", cpu, chunks);
	fflush(stdout);
	lsl_destroy_outlet(the_outlet);
	return 0;
}

static int idle(int argc, char **argv) {
	if (argc < 6) return 2;
	double rate = atof(argv[3]);
	int rows = atoi(argv[4]);
	double seconds = atof(argv[5]);
	long period_ns = (long)(rows / rate * 1e9);
	long chunks = (long)(seconds * 1e9 / period_ns);
	printf("ready\n");
	fflush(stdout);
	double cpu = paced(chunks, period_ns, NULL);
	printf("cpu %.6f\nchunks %ld\n", cpu, chunks);
	return 0;
}

static int inlet(int argc, char **argv) {
	if (argc < 7) return 2;
	FN(int, lsl_resolve_byprop, (handle *, unsigned, const char *, const char *, int, double));
	FN(handle, lsl_create_inlet, (handle, int32_t, int32_t, int32_t));
	FN(handle, lsl_get_fullinfo, (handle, double, int32_t *));
	FN(int32_t, lsl_get_channel_count, (handle));
	FN(void, lsl_open_stream, (handle, double, int32_t *));
	FN(double, lsl_pull_sample_f, (handle, float *, int32_t, double, int32_t *));
	FN(double, lsl_local_clock, (void));
	const char *name = argv[3];
	int rows = atoi(argv[4]);
	double seconds = atof(argv[5]);
	double warmup = atof(argv[6]);
	handle found[1];
	if (lsl_resolve_byprop(found, 1, "name", name, 1, 30.0) < 1) {
		printf("ERROR not found\n");
		return 1;
	}
	handle in = lsl_create_inlet(found[0], 360, 0, 1);
	int32_t ec = 0;
	handle info = lsl_get_fullinfo(in, 10.0, &ec);
	int channels = lsl_get_channel_count(info);
	lsl_open_stream(in, 10.0, &ec);
	float *sample = calloc((size_t)channels, sizeof(float));
	size_t capacity = (size_t)(seconds * 2000) + 16, count = 0;
	double *latencies = calloc(capacity, sizeof(double));
	double started = lsl_local_clock();
	for (;;) {
		double now = lsl_local_clock();
		if (now - started > seconds + warmup) break;
		double stamp = lsl_pull_sample_f(in, sample, channels, 1.0, &ec);
		if (stamp == 0.0) continue;
		double received = lsl_local_clock();
		if ((int)sample[0] != rows - 1) continue;
		if (received - started >= warmup && count < capacity) latencies[count++] = (received - stamp) * 1000.0;
	}
	if (count == 0) {
		printf("ERROR no chunk\n");
		return 1;
	}
	printf("latencies");
	for (size_t i = 0; i < count; i++) printf(" %.4f", latencies[i]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: lsl-anchor LIB outlet|idle|inlet ...\n");
		return 2;
	}
	if (strcmp(argv[2], "idle") == 0) return idle(argc, argv);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		printf("ERROR %s\n", dlerror());
		return 2;
	}
	if (strcmp(argv[2], "outlet") == 0) return outlet(argc, argv);
	if (strcmp(argv[2], "inlet") == 0) return inlet(argc, argv);
	return 2;
}
