/*
 * A small program on liblsl's C API, loaded with dlopen so that one binary drives any liblsl
 * (the tests give it 1.16 and 1.12). It prints what liblsl saw, one fact per line:
 *
 *   lsltool LIB inlet PROP VALUE COUNT TIMEOUT [FLAGS]
 *                                                 resolve by PROP=VALUE, read the full info, pull COUNT samples;
 *                                                 FLAGS (default 0): liblsl's post-processing flags
 *                                                 (lsl_set_postprocessing; 15 = proc_ALL), each
 *                                                 stamp then printed as liblsl returns it; without
 *                                                 them each stamp plus liblsl's clock correction,
 *                                                 read again every 500 samples (CORRECTION lines)
 *   lsltool LIB outlet NAME CHANNELS RATE COUNT   publish COUNT samples (value i*CHANNELS+c) once an inlet is there
 *   lsltool LIB rounds NAME TYPE CHANNELS RATE COUNT ROUNDS
 *                                                 ROUNDS times: open an outlet (the same source id each time),
 *                                                 publish COUNT samples (value (r*COUNT+i)*CHANNELS+c) once an
 *                                                 inlet is there, then, once a line (or the end) comes on stdin,
 *                                                 destroy the outlet as a program that stops does
 *   lsltool LIB resolve PROP VALUE MINIMUM WAIT   resolve by PROP=VALUE, print every stream found
 *   lsltool LIB eeg NAME TYPE SOURCE FORMAT CHANNELS RATE COUNT ROUNDS SKIP LABELS [FIRST [gate]]
 *                                                 as rounds, for rounds FIRST (default 0) to ROUNDS - 1
 *                                                 (gate: each round, once an inlet is there, prints
 *                                                 WAITING and pushes only once a line comes on stdin):
 *                                                 SOURCE the source id (- for none), FORMAT a liblsl
 *                                                 channel format number (1 float32, 2 double64, 4 int32,
 *                                                 5 int16), RATE 0 for an irregular stream, SKIP a comma
 *                                                 list of sample indices of each round not pushed (their
 *                                                 time stamps left out: samples lost upstream; - none),
 *                                                 LABELS a comma list of label[:unit] for desc/channels
 *                                                 (- for no desc); value (r*COUNT+i)*CHANNELS+c, + 0.25
 *                                                 for float formats
 *   lsltool LIB pace NAME SOURCE CHANNELS DECLARED ACTUAL COUNT CHUNK STAMPS JITTER SKIP STALL LATE LABELS
 *                                                 (LABELS: label[:unit],… for desc/channels, microvolts
 *                                                 when no unit is given; - for no desc)
 *                                                 a float32 stream declaring DECLARED Hz, once a line comes
 *                                                 on stdin after the first inlet: samples 0..COUNT-1
 *                                                 (value i*CHANNELS+c+0.25) taken at ACTUAL Hz in real time,
 *                                                 pushed CHUNK at a time when the chunk's last one is due
 *                                                 (plus a random wait of up to JITTER ms); STAMPS push: each
 *                                                 sample of a chunk stamped with the push's time (OpenBCI
 *                                                 GUI's way), exact: sample i stamped start + i/ACTUAL;
 *                                                 SKIP a comma list of samples never pushed (- none);
 *                                                 STALL: the sample (- none) where the program stalls LATE
 *                                                 ms (push: the chunk holding it is pushed that late and the
 *                                                 chunks due meanwhile right after it; exact: it and the 4
 *                                                 after it are stamped LATE ms late, LATE may be negative;
 *                                                 *N: so every N samples from N on); prints START, SENT
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * liblsl's estimate of the outlet's clock offset, printed as CORRECTION OFFSET EC UNCERTAINTY: the
 * uncertainty is the round trip of the probe the estimate came from (lsl_time_correction_ex, 1.16);
 * liblsl 1.12 has no such call, and -1 is printed for it.
 */
typedef double (*correction_ex_fn)(handle, double *, double *, double, int32_t *);
static double time_correction(handle in, double timeout) {
	static correction_ex_fn ex;
	static int looked;
	if (!looked) {
		ex = (correction_ex_fn)dlsym(lib, "lsl_time_correction_ex");
		looked = 1;
	}
	int32_t ec = 0;
	double remote = 0, uncertainty = -1, offset;
	if (ex) offset = ex(in, &remote, &uncertainty, timeout, &ec);
	else {
		FN(double, lsl_time_correction, (handle, double, int32_t *));
		offset = lsl_time_correction(in, timeout, &ec);
	}
	printf("CORRECTION %.9f %d %.9f\n", offset, ec, uncertainty);
	fflush(stdout);
	return offset;
}

static int inlet(int argc, char **argv) {
	FN(int, lsl_resolve_byprop, (handle *, unsigned, const char *, const char *, int, double));
	FN(handle, lsl_create_inlet, (handle, int32_t, int32_t, int32_t));
	FN(handle, lsl_get_fullinfo, (handle, double, int32_t *));
	FN(char *, lsl_get_xml, (handle));
	FN(void, lsl_open_stream, (handle, double, int32_t *));
	FN(double, lsl_pull_sample_d, (handle, double *, int32_t, double, int32_t *));
	FN(int32_t, lsl_get_channel_count, (handle));
	FN(double, lsl_local_clock, (void));
	if (argc < 4) return 2;
	unsigned flags = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	printf("CLOCK %.9f\n", lsl_local_clock());
	fflush(stdout);
	const char *prop = argv[0], *value = argv[1];
	long count = atol(argv[2]);
	double timeout = atof(argv[3]);
	handle found[4];
	int n = lsl_resolve_byprop(found, 4, prop, value, 1, 10.0);
	printf("RESOLVED %d\n", n);
	fflush(stdout);
	if (n < 1) return 1;
	handle in = lsl_create_inlet(found[0], 360, 0, 1);
	int32_t ec = 0;
	if (flags) {
		/* Looked up only when asked for: liblsl 1.12's C API has no post-processing. */
		FN(int32_t, lsl_set_postprocessing, (handle, uint32_t));
		lsl_set_postprocessing(in, flags);
	}
	handle full = lsl_get_fullinfo(in, 10.0, &ec);
	if (ec != 0) {
		printf("ERROR fullinfo %d\n", ec);
		return 1;
	}
	char *xml = lsl_get_xml(full);
	printf("FULLINFO %zu\n%s\nEND\n", strlen(xml), xml);
	int channels = lsl_get_channel_count(full);
	lsl_open_stream(in, 10.0, &ec);
	printf("OPEN %d\n", ec);
	fflush(stdout);
	double correction = time_correction(in, 5.0);
	double *values = calloc(channels, sizeof(double));
	for (long i = 0; i < count; i++) {
		double ts = lsl_pull_sample_d(in, values, channels, timeout, &ec);
		if (ts == 0.0) {
			printf("TIMEOUT %ld %d\n", i, ec);
			return 1;
		}
		if (!flags && i % 500 == 0) correction = time_correction(in, 1.0);
		printf("S %.9f", flags ? ts : ts + correction);
		for (int c = 0; c < channels; c++) printf(" %.17g", values[c]);
		printf("\n");
		if (i % 100 == 0) fflush(stdout);
	}
	printf("DONE\n");
	return 0;
}

static int outlet(int argc, char **argv) {
	FN(handle, lsl_create_streaminfo, (const char *, const char *, int32_t, double, int32_t, const char *));
	FN(handle, lsl_get_desc, (handle));
	FN(handle, lsl_append_child, (handle, const char *));
	FN(handle, lsl_append_child_value, (handle, const char *, const char *));
	FN(handle, lsl_create_outlet, (handle, int32_t, int32_t));
	FN(int32_t, lsl_wait_for_consumers, (handle, double));
	FN(int32_t, lsl_push_sample_dtp, (handle, const double *, double, int32_t));
	FN(double, lsl_local_clock, (void));
	if (argc < 4) return 2;
	const char *name = argv[0];
	int channels = atoi(argv[1]);
	double rate = atof(argv[2]);
	long count = atol(argv[3]);
	handle info = lsl_create_streaminfo(name, "EEG", channels, rate, 2 /* double64 */, "lsltool-outlet");
	handle chans = lsl_append_child(lsl_get_desc(info), "channels");
	for (int c = 0; c < channels; c++) {
		char label[32];
		snprintf(label, sizeof label, "X%d", c + 1);
		handle ch = lsl_append_child(chans, "channel");
		lsl_append_child_value(ch, "label", label);
		lsl_append_child_value(ch, "unit", "microvolts");
	}
	handle out = lsl_create_outlet(info, 0, 360);
	printf("READY\n");
	fflush(stdout);
	if (!lsl_wait_for_consumers(out, 30.0)) {
		printf("NOCONSUMER\n");
		return 1;
	}
	/* The consumer's queue exists once it has read the test patterns. */
	usleep(200000);
	double start = lsl_local_clock();
	printf("START %.9f\n", start);
	double *values = calloc(channels, sizeof(double));
	for (long i = 0; i < count; i++) {
		for (int c = 0; c < channels; c++) values[c] = (double)(i * channels + c) + 0.25;
		lsl_push_sample_dtp(out, values, start + i / rate, (i % 10) == 9);
		if (i % 50 == 49) usleep(2000);
	}
	printf("SENT %ld\n", count);
	fflush(stdout);
	sleep(3);
	return 0;
}

static int rounds(int argc, char **argv) {
	FN(handle, lsl_create_streaminfo, (const char *, const char *, int32_t, double, int32_t, const char *));
	FN(handle, lsl_create_outlet, (handle, int32_t, int32_t));
	FN(void, lsl_destroy_outlet, (handle));
	FN(void, lsl_destroy_streaminfo, (handle));
	FN(int32_t, lsl_wait_for_consumers, (handle, double));
	FN(int32_t, lsl_push_sample_dtp, (handle, const double *, double, int32_t));
	FN(double, lsl_local_clock, (void));
	if (argc < 6) return 2;
	const char *name = argv[0], *type = argv[1];
	int channels = atoi(argv[2]);
	double rate = atof(argv[3]);
	long count = atol(argv[4]), total = atol(argv[5]);
	double *values = calloc(channels, sizeof(double));
	for (long r = 0; r < total; r++) {
		handle info = lsl_create_streaminfo(name, type, channels, rate, 2 /* double64 */, "lsltool-rounds");
		handle out = lsl_create_outlet(info, 0, 360);
		printf("READY %ld\n", r);
		fflush(stdout);
		if (!lsl_wait_for_consumers(out, 30.0)) {
			printf("NOCONSUMER\n");
			return 1;
		}
		usleep(200000);
		double start = lsl_local_clock();
		printf("START %ld %.9f\n", r, start);
		for (long i = 0; i < count; i++) {
			for (int c = 0; c < channels; c++) values[c] = (double)((r * count + i) * channels + c) + 0.25;
			lsl_push_sample_dtp(out, values, start + i / rate, 1);
			if (i % 50 == 49) usleep(2000);
		}
		printf("SENT %ld\n", r);
		fflush(stdout);
		for (int ch = getchar(); ch != EOF && ch != '\n'; ch = getchar()) {
		}
		/* What a program that stops does: the outlet goes while its inlets are connected. */
		lsl_destroy_outlet(out);
		lsl_destroy_streaminfo(info);
		printf("CLOSED %ld\n", r);
		fflush(stdout);
	}
	return 0;
}

static int resolve(int argc, char **argv) {
	FN(int, lsl_resolve_byprop, (handle *, unsigned, const char *, const char *, int, double));
	FN(const char *, lsl_get_name, (handle));
	FN(const char *, lsl_get_source_id, (handle));
	if (argc < 4) return 2;
	handle found[64];
	int n = lsl_resolve_byprop(found, 64, argv[0], argv[1], atoi(argv[2]), atof(argv[3]));
	printf("RESOLVED %d\n", n);
	for (int k = 0; k < n; k++) printf("FOUND %s\t%s\n", lsl_get_name(found[k]), lsl_get_source_id(found[k]));
	printf("DONE\n");
	return n >= atoi(argv[2]) ? 0 : 1;
}

static int in_list(const char *list, long value) {
	if (strcmp(list, "-") == 0) return 0;
	for (const char *p = list; *p;) {
		if (atol(p) == value) return 1;
		p = strchr(p, ',');
		if (!p) break;
		p++;
	}
	return 0;
}

static int eeg(int argc, char **argv) {
	FN(handle, lsl_create_streaminfo, (const char *, const char *, int32_t, double, int32_t, const char *));
	FN(handle, lsl_get_desc, (handle));
	FN(handle, lsl_append_child, (handle, const char *));
	FN(handle, lsl_append_child_value, (handle, const char *, const char *));
	FN(handle, lsl_create_outlet, (handle, int32_t, int32_t));
	FN(void, lsl_destroy_outlet, (handle));
	FN(void, lsl_destroy_streaminfo, (handle));
	FN(int32_t, lsl_wait_for_consumers, (handle, double));
	FN(int32_t, lsl_push_sample_dtp, (handle, const double *, double, int32_t));
	FN(double, lsl_local_clock, (void));
	if (argc < 10) return 2;
	const char *name = argv[0], *type = argv[1], *source = strcmp(argv[2], "-") == 0 ? "" : argv[2];
	int format = atoi(argv[3]), channels = atoi(argv[4]);
	double rate = atof(argv[5]);
	long count = atol(argv[6]), total = atol(argv[7]), first = argc > 10 ? atol(argv[10]) : 0;
	int gate = argc > 11 && strcmp(argv[11], "gate") == 0;
	const char *skip = argv[8], *labels = argv[9];
	double fraction = format == 1 || format == 2 ? 0.25 : 0.0;
	double *values = calloc(channels, sizeof(double));
	for (long r = first; r < total; r++) {
		handle info = lsl_create_streaminfo(name, type, channels, rate, format, source);
		if (strcmp(labels, "-") != 0) {
			handle chans = lsl_append_child(lsl_get_desc(info), "channels");
			char copy[4096];
			snprintf(copy, sizeof copy, "%s", labels);
			for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
				handle ch = lsl_append_child(chans, "channel");
				char *unit = strchr(item, ':');
				if (unit) *unit++ = 0;
				lsl_append_child_value(ch, "label", item);
				if (unit) lsl_append_child_value(ch, "unit", unit);
			}
		}
		handle out = lsl_create_outlet(info, 0, 360);
		printf("READY %ld\n", r);
		fflush(stdout);
		if (!lsl_wait_for_consumers(out, 30.0)) {
			printf("NOCONSUMER\n");
			return 1;
		}
		if (gate) {
			printf("WAITING %ld\n", r);
			fflush(stdout);
			for (int ch = getchar(); ch != EOF && ch != '\n'; ch = getchar()) {
			}
		}
		usleep(200000);
		double start = lsl_local_clock();
		printf("START %ld %.9f\n", r, start);
		fflush(stdout);
		for (long i = 0; i < count; i++) {
			if (in_list(skip, i)) continue;
			for (int c = 0; c < channels; c++) values[c] = (double)((r * count + i) * channels + c) + fraction;
			lsl_push_sample_dtp(out, values, start + i / rate, 1);
			if (i % 50 == 49) usleep(2000);
		}
		printf("SENT %ld\n", r);
		fflush(stdout);
		for (int ch = getchar(); ch != EOF && ch != '\n'; ch = getchar()) {
		}
		lsl_destroy_outlet(out);
		lsl_destroy_streaminfo(info);
		printf("CLOSED %ld\n", r);
		fflush(stdout);
	}
	return 0;
}

static void sleep_until(double (*clock)(void), double when) {
	double wait = when - clock();
	if (wait > 0) usleep((useconds_t)(wait * 1e6));
}

static int pace(int argc, char **argv) {
	FN(handle, lsl_create_streaminfo, (const char *, const char *, int32_t, double, int32_t, const char *));
	FN(handle, lsl_get_desc, (handle));
	FN(handle, lsl_append_child, (handle, const char *));
	FN(handle, lsl_append_child_value, (handle, const char *, const char *));
	FN(handle, lsl_create_outlet, (handle, int32_t, int32_t));
	FN(int32_t, lsl_wait_for_consumers, (handle, double));
	FN(int32_t, lsl_push_sample_ftp, (handle, const float *, double, int32_t));
	FN(double, lsl_local_clock, (void));
	if (argc < 13) return 2;
	const char *name = argv[0], *source = argv[1];
	int channels = atoi(argv[2]);
	double declared = atof(argv[3]), actual = atof(argv[4]);
	long count = atol(argv[5]), chunk = atol(argv[6]);
	/* exact: each sample at its own time; push: a chunk's samples at the clock read when it is pushed;
	   due: a chunk's samples at the time it was due (its jitter included), which the machine's load
	   cannot move. */
	int exact = strcmp(argv[7], "exact") == 0, due_stamps = strcmp(argv[7], "due") == 0;
	double jitter = atof(argv[8]) / 1000.0;
	const char *skip = argv[9];
	/* "*N": every N samples from N on (a clock that glitches once a second). */
	long every = argv[10][0] == '*' ? atol(argv[10] + 1) : 0;
	long stall = strcmp(argv[10], "-") == 0 ? -1 : every ? every : atol(argv[10]);
	double late = atof(argv[11]) / 1000.0;
	const char *labels = argv[12];
	handle info = lsl_create_streaminfo(name, "EEG", channels, declared, 1 /* float32 */, source);
	if (strcmp(labels, "-") != 0) {
		handle chans = lsl_append_child(lsl_get_desc(info), "channels");
		char copy[16384];
		snprintf(copy, sizeof copy, "%s", labels);
		for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
			char *colon = strchr(item, ':');
			if (colon) *colon = '\0';
			handle ch = lsl_append_child(chans, "channel");
			lsl_append_child_value(ch, "label", item);
			lsl_append_child_value(ch, "unit", colon ? colon + 1 : "microvolts");
		}
	}
	handle out = lsl_create_outlet(info, 0, 360);
	printf("READY\n");
	fflush(stdout);
	if (!lsl_wait_for_consumers(out, 30.0)) {
		printf("NOCONSUMER\n");
		return 1;
	}
	for (int ch = getchar(); ch != EOF && ch != '\n'; ch = getchar()) {
	}
	srand(7);
	float *values = calloc(channels, sizeof(float));
	double start = lsl_local_clock() + 0.05;
	printf("START %.9f\n", start);
	fflush(stdout);
	int stalled = 0;
	for (long first = 0; first < count; first += chunk) {
		long last = first + chunk < count ? first + chunk - 1 : count - 1;
		double due = start + last / actual;
		if (jitter > 0) due += jitter * (rand() / (double)RAND_MAX);
		if (!exact && !stalled && stall >= first && stall <= last) {
			due += late;
			stalled = 1;
		}
		sleep_until(lsl_local_clock, due);
		double pushed = lsl_local_clock();
		for (long i = first; i <= last; i++) {
			if (in_list(skip, i)) continue;
			for (int c = 0; c < channels; c++) values[c] = (float)(i * channels + c) + 0.25f;
			long at = every && i >= every ? i % every + every : i;
			double stamp = exact ? start + i / actual + (stall >= 0 && at >= stall && at < stall + 5 ? late : 0.0)
			               : due_stamps ? due : pushed;
			lsl_push_sample_ftp(out, values, stamp, i == last);
		}
	}
	printf("SENT %ld\n", count);
	fflush(stdout);
	for (int ch = getchar(); ch != EOF && ch != '\n'; ch = getchar()) {
	}
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		printf("ERROR dlopen %s\n", dlerror());
		return 2;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (strcmp(argv[2], "inlet") == 0) return inlet(argc - 3, argv + 3);
	if (strcmp(argv[2], "outlet") == 0) return outlet(argc - 3, argv + 3);
	if (strcmp(argv[2], "rounds") == 0) return rounds(argc - 3, argv + 3);
	if (strcmp(argv[2], "resolve") == 0) return resolve(argc - 3, argv + 3);
	if (strcmp(argv[2], "eeg") == 0) return eeg(argc - 3, argv + 3);
	if (strcmp(argv[2], "pace") == 0) return pace(argc - 3, argv + 3);
	return 2;
}
