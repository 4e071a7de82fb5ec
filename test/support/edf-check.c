/*
 * edf-check: opens an EDF/EDF+/BDF/BDF+ file with EDFlib's strict reader
 * (edfopen_file_readonly with EDFLIB_READ_ALL_ANNOTATIONS) and prints what EDFlib read as one JSON
 * object on stdout. Used by test/support/edf-check.ts as an independent reference for the
 * project's EDF reader and writer.
 *
 * usage: edf-check FILE [--no-samples]
 * exit status: 0 when EDFlib accepted the file, 2 when it refused it (JSON still printed), 1 on usage.
 */
#include <edflib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      printf("\\%c", *p);
    } else if (*p < 0x20) {
      printf("\\u%04x", *p);
    } else {
      putchar(*p);
    }
  }
  putchar('"');
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: edf-check FILE [--no-samples]\n");
    return 1;
  }
  int samples = !(argc > 2 && strcmp(argv[2], "--no-samples") == 0);
  static struct edf_hdr_struct hdr;
  if (edfopen_file_readonly(argv[1], &hdr, EDFLIB_READ_ALL_ANNOTATIONS) != 0) {
    printf("{\"ok\":false,\"error\":%d}\n", hdr.filetype);
    return 2;
  }
  printf("{\"ok\":true,\"filetype\":%d,\"signalCount\":%d,", hdr.filetype, hdr.edfsignals);
  printf("\"datarecords\":%lld,\"datarecordDuration\":%lld,\"fileDuration\":%lld,", hdr.datarecords_in_file,
         hdr.datarecord_duration, hdr.file_duration);
  printf("\"start\":[%d,%d,%d,%d,%d,%d],\"startSubsecond\":%lld,", hdr.startdate_year, hdr.startdate_month,
         hdr.startdate_day, hdr.starttime_hour, hdr.starttime_minute, hdr.starttime_second,
         hdr.starttime_subsecond);
  printf("\"signals\":[");
  for (int s = 0; s < hdr.edfsignals; s++) {
    struct edf_param_struct *p = &hdr.signalparam[s];
    printf("%s{\"label\":", s ? "," : "");
    print_string(p->label);
    printf(",\"physicalDimension\":");
    print_string(p->physdimension);
    printf(",\"physicalMin\":%.17g,\"physicalMax\":%.17g,\"digitalMin\":%d,\"digitalMax\":%d,", p->phys_min,
           p->phys_max, p->dig_min, p->dig_max);
    printf("\"samplesPerRecord\":%d,\"samplesInFile\":%lld", p->smp_in_datarecord, p->smp_in_file);
    if (samples) {
      long long n = p->smp_in_file;
      double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
      if (!buf) return 1;
      int got = edfread_physical_samples(hdr.handle, s, (int)n, buf);
      printf(",\"samples\":[");
      for (int i = 0; i < got; i++) printf("%s%.17g", i ? "," : "", buf[i]);
      printf("]");
      free(buf);
    }
    printf("}");
  }
  printf("],\"annotations\":[");
  for (long long i = 0; i < hdr.annotations_in_file; i++) {
    struct edf_annotation_struct a;
    if (edf_get_annotation(hdr.handle, (int)i, &a) != 0) break;
    printf("%s{\"onset\":%lld,\"duration\":%lld,\"text\":", i ? "," : "", a.onset, a.duration_l);
    print_string(a.annotation);
    printf("}");
  }
  printf("]}\n");
  edfclose_file(hdr.handle);
  return 0;
}
