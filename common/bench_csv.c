#include "bench_csv.h"

#include <errno.h>
#include <string.h>

static const char header[] = "device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,"
                             "cub_radix_ms,cub_merge_ms,std_sort_ms,floor_ms,"
                             "cub_radix_pairs_ms\n";

int kit_bench_csv_header(FILE *out)
{
    return fputs(header, out) < 0 ? -1 : 0;
}

/* Whether the file @p csv (open for reading) starts with this kit's header line. */
static int starts_with_header(FILE *csv)
{
    char line[sizeof header + 1];
    rewind(csv);
    return fgets(line, sizeof line, csv) && strcmp(line, header) == 0;
}

FILE *kit_bench_csv_open(const char *path, const char *who)
{
    FILE *csv = fopen(path, "a+"); /* writes go to the end; reads see the header */
    if (!csv) {
        fprintf(stderr, "%s: --csv %s: %s\n", who, path, strerror(errno));
        return NULL;
    }
    if (fseek(csv, 0, SEEK_END) != 0) {
        fprintf(stderr, "%s: --csv %s: cannot seek its end\n", who, path);
    } else if (ftell(csv) == 0) {
        if (kit_bench_csv_header(csv) == 0) {
            return csv;
        }
        fprintf(stderr, "%s: --csv %s: cannot write the header\n", who, path);
    } else if (!starts_with_header(csv)) {
        fprintf(stderr,
                "%s: --csv %s: its first line is not the header of these rows (common/"
                "bench_csv.h; a file of an older kit?): append to a new file\n",
                who, path);
    } else if (fseek(csv, 0, SEEK_END) == 0) { /* from reading back to writing */
        return csv;
    } else {
        fprintf(stderr, "%s: --csv %s: cannot seek its end\n", who, path);
    }
    fclose(csv);
    return NULL;
}

/* One text field: quoted only when it must be (RFC 4180), a line break made a space. */
static int put_text(FILE *out, const char *text)
{
    text = text ? text : "";
    int quote = strpbrk(text, ",\"\r\n") != NULL;
    int failed = quote && fputc('"', out) == EOF;
    for (const char *c = text; *c && !failed; c++) {
        char ch = *c == '\r' || *c == '\n' ? ' ' : *c;
        failed = (ch == '"' && fputc('"', out) == EOF) || fputc(ch, out) == EOF;
    }
    failed = failed || (quote && fputc('"', out) == EOF);
    return failed || fputc(',', out) == EOF ? -1 : 0;
}

int kit_bench_csv_row(FILE *out, const kit_bench_row *row)
{
    if (put_text(out, row->device) || fprintf(out, "%d,", row->driver) < 0 ||
        put_text(out, row->commit) || put_text(out, row->lab) || put_text(out, row->tier) ||
        fprintf(out, "%zu,", row->n) < 0 || put_text(out, row->distribution)) {
        return -1;
    }
    double gkeys = row->ms > 0 ? row->n / (row->ms * 1e6) : 0;
    if (fprintf(out, "%.4f,%.4f,%.4f,%.4f,%.4f,", row->ms, gkeys, row->cub_radix_ms,
                row->cub_merge_ms, row->std_sort_ms) < 0) {
        return -1;
    }
    /* Empty fields where a time was not measured: no floor, no CUB sort of pairs. */
    if ((row->floor_ms >= 0 && fprintf(out, "%.4f", row->floor_ms) < 0) || fputc(',', out) == EOF ||
        (row->cub_radix_pairs_ms > 0 && fprintf(out, "%.4f", row->cub_radix_pairs_ms) < 0)) {
        return -1;
    }
    return fputc('\n', out) == EOF ? -1 : 0;
}
