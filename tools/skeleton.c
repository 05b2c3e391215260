/*
 * skeleton: writes a lab's student file from its reference solution.
 *
 *   skeleton solutions/01-oddeven/oddeven.cu > labs/01-oddeven/oddeven.cu
 *
 * In the solution, each piece a student must write is marked
 *
 *       BEGIN SOLUTION 1.1 what to write          (inside a C comment)
 *       ...the reference code...
 *       SKELETON                                  (optional, inside a C comment)
 *       ...a stub the skeleton keeps, e.g. return cudaErrorNotSupported;...
 *       END SOLUTION                              (inside a C comment)
 *
 * and becomes `TODO 1.1: what to write` (as a comment, same indentation) followed by the
 * stub. Everything outside the markers is copied as it is. A malformed file (a block never
 * closed, an END or SKELETON outside a block, a BEGIN inside one) is an error: the message
 * names the line, and the exit code is 2, so `make skeletons` stops.
 */
#include <stdio.h>
#include <string.h>

#define MAX_LINE 4096

/* If `line` is `<indent>/ * WORD... * /` returns a pointer past the indentation and stores
 * the indentation length; else NULL. */
static const char *marker(const char *line, const char *word, size_t *indent)
{
    size_t i = strspn(line, " \t");
    if (strncmp(line + i, "/* ", 3) != 0 || strncmp(line + i + 3, word, strlen(word)) != 0) {
        return NULL;
    }
    *indent = i;
    return line + i + 3 + strlen(word);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: skeleton SOLUTION_FILE > SKELETON_FILE\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    enum { OUTSIDE, IN_SOLUTION, IN_STUB } state = OUTSIDE;
    char line[MAX_LINE];
    long number = 0, opened_at = 0;
    while (fgets(line, sizeof line, in)) {
        number++;
        size_t indent = 0;
        const char *rest;
        if ((rest = marker(line, "BEGIN SOLUTION ", &indent)) != NULL) {
            if (state != OUTSIDE) {
                fprintf(stderr, "%s:%ld: BEGIN SOLUTION inside the block opened at line %ld\n",
                        argv[1], number, opened_at);
                return 2;
            }
            const char *end = strstr(rest, " */");
            if (!end) {
                fprintf(stderr, "%s:%ld: BEGIN SOLUTION must close its comment on the line\n",
                        argv[1], number);
                return 2;
            }
            /* "1.1 what to write" -> "TODO 1.1: what to write" */
            size_t id_len = strcspn(rest, " ");
            const char *text = rest + id_len;
            text += strspn(text, " ");
            printf("%.*s/* TODO %.*s: %.*s */\n", (int)indent, line, (int)id_len, rest,
                   (int)(end - text > 0 ? end - text : 0), text);
            state = IN_SOLUTION;
            opened_at = number;
        } else if (marker(line, "SKELETON */", &indent)) {
            if (state != IN_SOLUTION) {
                fprintf(stderr, "%s:%ld: SKELETON outside a solution block\n", argv[1], number);
                return 2;
            }
            state = IN_STUB;
        } else if (marker(line, "END SOLUTION */", &indent)) {
            if (state == OUTSIDE) {
                fprintf(stderr, "%s:%ld: END SOLUTION without BEGIN SOLUTION\n", argv[1], number);
                return 2;
            }
            state = OUTSIDE;
        } else if (state != IN_SOLUTION) {
            fputs(line, stdout);
        }
    }
    fclose(in);
    if (state != OUTSIDE) {
        fprintf(stderr, "%s: the block opened at line %ld is never closed\n", argv[1], opened_at);
        return 2;
    }
    return 0;
}
