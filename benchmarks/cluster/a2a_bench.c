/* a2a_bench: time MPI_Alltoall among all ranks (or a subset) for message sizes min..max.
 *
 * usage: a2a_bench [--min BYTES] [--max BYTES] [--iters K] [--budget SECONDS]
 *                  [--subset r0,r1,...] [--json FILE] [--label TEXT] [--alltoallv 1]
 *
 * --alltoallv 1 times MPI_Alltoallv with the same counts instead (what volfft's alltoallv
 * engine calls: the baseline an exchange of the same bytes with no FFT is compared against).
 *
 * "Message size" is the number of bytes each rank sends to each other rank (the per-pair
 * message of [Bhatele2012] Fig. 1, docs/references.md); sizes double from --min to --max.
 * Each timed iteration is barrier-bracketed and its time is the maximum over ranks; the result per size is the
 * median of those maxima. Large sizes on slow links would take long, so the number of
 * iterations shrinks to fit --budget seconds per size (never below 3).
 * JSON (rank 0): {"label", "ranks", "hosts": [...], "mpi", "sizes": [{"bytes", "iters",
 * "median_s", "min_s", "max_s"}]}.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One all-to-all of `bytes` per pair: MPI_Alltoall, or MPI_Alltoallv with equal counts. */
static void exchange(const char *send, char *recv, long bytes, MPI_Comm comm, int v, int *counts,
                     int *displs) {
    if (!v) {
        MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm);
        return;
    }
    int size;
    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size; ++r) counts[r] = (int)bytes, displs[r] = (int)(r * bytes);
    MPI_Alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, comm);
}

static void usage_error(const char *msg, const char *arg) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "a2a_bench: %s: %s\n", msg, arg ? arg : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long parse_long(const char *text, const char *what) {
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v <= 0) usage_error(what, text);
    return v;
}

/* Parses "0,3,5" into a membership flag per world rank. */
static int parse_subset(const char *text, int size, int *member) {
    int count = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long r = strtol(tok, &end, 10);
        if (*end != '\0' || r < 0 || r >= size || member[r])
            usage_error("--subset: expected distinct ranks in 0..size-1 separated by commas", text);
        member[r] = 1;
        ++count;
    }
    free(copy);
    if (count < 2) usage_error("--subset: expected at least 2 ranks", text);
    return count;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    long min_bytes = 1024, max_bytes = 1 << 20, iters = 10;
    double budget = 5.0;
    const char *json_path = NULL, *label = "", *subset = NULL;
    int use_v = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage_error("option without a value", a);
        if (!strcmp(a, "--min")) min_bytes = parse_long(v, "--min: expected bytes > 0");
        else if (!strcmp(a, "--max")) max_bytes = parse_long(v, "--max: expected bytes > 0");
        else if (!strcmp(a, "--iters")) iters = parse_long(v, "--iters: expected a count > 0");
        else if (!strcmp(a, "--budget")) budget = (double)parse_long(v, "--budget: expected seconds > 0");
        else if (!strcmp(a, "--json")) json_path = v;
        else if (!strcmp(a, "--label")) label = v;
        else if (!strcmp(a, "--subset")) subset = v;
        else if (!strcmp(a, "--alltoallv")) use_v = (int)parse_long(v, "--alltoallv: expected 1") == 1;
        else usage_error("unknown option", a);
        ++i;
    }
    if (max_bytes < min_bytes) usage_error("--max: expected >= --min", NULL);

    int *member = calloc((size_t)world_size, sizeof *member);
    if (subset) parse_subset(subset, world_size, member);
    else for (int r = 0; r < world_size; ++r) member[r] = 1;
    /* Ranks outside the subset only take part in the barriers on MPI_COMM_WORLD. */
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, member[world_rank] ? 0 : MPI_UNDEFINED, world_rank, &comm);
    int first = 0;
    while (!member[first]) ++first;

    int size = 0, rank = -1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_size(comm, &size);
        MPI_Comm_rank(comm, &rank);
    }
    MPI_Bcast(&size, 1, MPI_INT, first, MPI_COMM_WORLD);

    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(host, &len);
    char *hosts = world_rank == 0 ? calloc((size_t)world_size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    char *send = NULL, *recv = NULL;
    if (comm != MPI_COMM_NULL) {
        send = malloc((size_t)max_bytes * size);
        recv = malloc((size_t)max_bytes * size);
        for (long i = 0; i < max_bytes * size; ++i) send[i] = (char)(i * 31 + rank);
    }
    double *times = malloc((size_t)iters * sizeof *times);
    int *counts = malloc((size_t)(size > 0 ? size : 1) * sizeof *counts);
    int *displs = malloc((size_t)(size > 0 ? size : 1) * sizeof *displs);
    if ((long long)max_bytes * size > 2147483647LL) usage_error("--max: bytes x ranks must fit an int", NULL);

    FILE *out = NULL;
    if (world_rank == 0) {
        out = json_path ? fopen(json_path, "w") : stdout;
        if (!out) usage_error("--json: cannot open for writing", json_path);
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int vlen;
        MPI_Get_library_version(version, &vlen);
        for (char *c = version; *c; ++c)
            if (*c == '"' || *c == '\\' || *c == '\n' || *c == '\t') *c = ' ';
        version[vlen < 100 ? vlen : 100] = '\0';
        fprintf(out, "{\"label\": \"%s\", \"ranks\": %d, \"world\": %d, \"collective\": \"%s\", \"mpi\": \"%s\",\n \"hosts\": [",
                label, size, world_size, use_v ? "MPI_Alltoallv" : "MPI_Alltoall", version);
        for (int r = 0; r < world_size; ++r)
            fprintf(out, "%s\"%s\"", r ? ", " : "", hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        fprintf(out, "],\n \"subset\": [");
        for (int r = 0, n = 0; r < world_size; ++r)
            if (member[r]) fprintf(out, "%s%d", n++ ? ", " : "", r);
        fprintf(out, "],\n \"sizes\": [");
    }

    for (long bytes = min_bytes, k = 0; bytes <= max_bytes; bytes *= 2, ++k) {
        /* Warm-up (connections, buffers), and its time chooses the iteration count. */
        double t0 = MPI_Wtime();
        if (comm != MPI_COMM_NULL) exchange(send, recv, bytes, comm, use_v, counts, displs);
        double warm = MPI_Wtime() - t0, warm_max;
        MPI_Allreduce(&warm, &warm_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        long n = warm_max > 0 ? (long)(budget / warm_max) : iters;
        n = n < 3 ? 3 : (n > iters ? iters : n);
        for (long it = 0; it < n; ++it) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (comm != MPI_COMM_NULL) exchange(send, recv, bytes, comm, use_v, counts, displs);
            double t = MPI_Wtime() - t0;
            MPI_Reduce(&t, &times[it], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        }
        if (comm != MPI_COMM_NULL) {
            /* Check one received block so that a broken exchange cannot pass as fast. */
            int peer = (rank + 1) % size, bad = 0;
            for (long i = 0; i < bytes; i += 97)
                bad |= recv[(size_t)peer * bytes + i] != (char)((rank * bytes + i) * 31 + peer);
            if (bad) usage_error("received data is wrong", NULL);
        }
        if (world_rank == 0) {
            qsort(times, (size_t)n, sizeof *times, cmp_double);
            double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
            fprintf(out, "%s\n  {\"bytes\": %ld, \"iters\": %ld, \"median_s\": %.9g, \"min_s\": %.9g, \"max_s\": %.9g}",
                    k ? "," : "", bytes, n, median, times[0], times[n - 1]);
            fflush(out);
        }
    }
    if (world_rank == 0) {
        fprintf(out, "\n ]}\n");
        if (json_path) fclose(out);
        free(hosts);
    }
    free(send);
    free(recv);
    free(times);
    free(counts);
    free(displs);
    free(member);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
