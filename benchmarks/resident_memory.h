/* Resident memory of this process (Linux /proc), for the benchmarks that report what a library
 * holds beside its data (volfft-memory, volfft-relink-*). */
#ifndef VOLFFT_BENCH_RESIDENT_MEMORY_H
#define VOLFFT_BENCH_RESIDENT_MEMORY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Peak resident memory in bytes (VmHWM of /proc/self/status), 0 where /proc does not say. */
static inline double peak_resident_bytes(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  double kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kib = atof(line + 6);
  if (f) fclose(f);
  return kib * 1024;
}

/* Starts VmHWM again from the current resident memory (Linux: 5 into clear_refs). */
static inline void reset_peak_resident(void) {
  FILE* f = fopen("/proc/self/clear_refs", "w");
  if (f) fputs("5", f), fclose(f);
}

#endif
