/*
 * merge_path_diagram: draws the merge path of a small stable merge as an SVG on stdout, for
 * Lab 02's handout.
 *
 *     merge_path_diagram [--left 1,5,7,9] [--right 2,6,8,10] [--piece 2] > file.svg
 *
 * The picture is the grid of the two runs: the left run a down the side (row i is a[i]), the
 * right run b across the top (column j is b[j]). Corner (i, j) of the grid is the state of the
 * merge after it has taken a[0 .. i) and b[0 .. j). The merge path is the staircase from
 * (0, 0) to (na, nb): a step down for each left key the merge takes, a step across for each
 * right key. Cell (i, j) is shaded by the comparison the merge would make there (a[i] <= b[j]:
 * the left key goes first; b[j] < a[i]: the right key does); the path runs between the two
 * shades. The output is cut into pieces of `--piece` keys, as tier 2.3 cuts a merge into pieces
 * of MERGESORT_TILE keys: diagonal k = i + j is drawn at every piece boundary, its co-rank point
 * (where the path crosses it) marked, and each piece's rectangle outlined: the small merge one
 * block does on its own.
 *
 * The path and the co-ranks come only from kit_merge_path_walk() and kit_merge_co_rank_ref()
 * of common/merge_path_ref.h, the CPU reference the Lab 02 tests hold the student's co-rank
 * to. The student's file and the solution are not used (the student package has no
 * solutions/). Build (nothing is linked but libc):
 *
 *     gcc -std=c11 -Wall -Wextra -Icommon tools/merge_path_diagram.c \
 *         -o build/tools/merge_path_diagram
 *
 * Exit status: 0 when the SVG was written, 2 (KIT_EXIT_USAGE) for a bad command line,
 * 1 when stdout could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "merge_path_ref.h"

/** Longest run drawn: beyond it the picture is too big to read. */
#define MAX_RUN 16u

/** The merge to draw: keys[0 .. na) is the left run a, keys[na .. na + nb) the right run b. */
typedef struct {
    unsigned int keys[2 * MAX_RUN];
    size_t na, nb;
    size_t piece; /* output keys per piece */
} merge_picture;

/* ------------------------------------------------------------------------------------------
 * Drawing. Geometry in SVG user units (pixels).
 * ------------------------------------------------------------------------------------------ */

enum {
    CELL = 52,        /* side of one cell of the grid */
    GRID_LEFT = 110,  /* room for the left run's labels */
    GRID_TOP = 112,   /* title, then the right run's labels */
    GRID_RIGHT = 110, /* room for the co-rank points' labels */
    LINE_GAP = 19,    /* between the text lines under the grid */
    CHAR_W = 7,       /* rough width of a character at font-size 13, to size the picture */
};

static const char *const PIECE_COLORS[] = {"#1b7837", "#762a83", "#b35806", "#2166ac"};
#define PIECE_COLOR_COUNT (sizeof PIECE_COLORS / sizeof PIECE_COLORS[0])

static unsigned corner_x(size_t j)
{
    return GRID_LEFT + (unsigned)j * CELL;
}

static unsigned corner_y(size_t i)
{
    return GRID_TOP + (unsigned)i * CELL;
}

static size_t min_z(size_t a, size_t b)
{
    return a < b ? a : b;
}

/** Appends the keys of a run, separated by spaces, to @p text (of @p size bytes). */
static void format_run(char *text, size_t size, const unsigned int *run, size_t len)
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < len && used < size; ++i) {
        int wrote = snprintf(text + used, size - used, "%s%u", i ? " " : "", run[i]);
        if (wrote < 0) {
            return;
        }
        used += (size_t)wrote;
    }
}

/** One line of text under the grid; the text holds no XML special characters. */
static void text_line(FILE *out, unsigned y, const char *text)
{
    fprintf(out, "<text x=\"24\" y=\"%u\" font-size=\"13\">%s</text>\n", y, text);
}

/**
 * Writes the picture of @p m as a standalone SVG document. Returns 0, or -1 when writing
 * failed.
 */
static int merge_path_write_svg(const merge_picture *m, FILE *out)
{
    const unsigned int *a = m->keys, *b = m->keys + m->na;
    size_t na = m->na, nb = m->nb, n = na + nb;
    size_t pieces = n == 0 ? 0 : (n - 1) / m->piece + 1;

    char left[16 * MAX_RUN], right[16 * MAX_RUN], merged[32 * MAX_RUN];
    format_run(left, sizeof left, a, na);
    format_run(right, sizeof right, b, nb);
    /* The merged output, walked along the path: step k takes a[i] or b[j]. */
    {
        kit_merge_path_point at = {0, 0};
        size_t used = 0;
        merged[0] = '\0';
        for (size_t k = 0; k < n && used < sizeof merged; ++k) {
            kit_merge_path_point before = at;
            kit_merge_path_walk(a, na, b, nb, k + 1, &at);
            int from_left = at.i > before.i;
            int wrote = snprintf(merged + used, sizeof merged - used, "%s%u%s", k ? " " : "",
                                 from_left ? a[before.i] : b[before.j], from_left ? "a" : "b");
            if (wrote < 0) {
                break;
            }
            used += (size_t)wrote;
        }
    }

    char title[64 + 2 * sizeof left];
    snprintf(title, sizeof title, "Merge path of a = %s and b = %s", left, right);

    /* The text under the grid: three lines of key, one per piece, one for the output. */
    size_t text_lines = 3 + pieces + 1;
    unsigned text_top = corner_y(na) + 44;
    unsigned height = text_top + (unsigned)text_lines * LINE_GAP + 12;
    unsigned width = corner_x(nb) + GRID_RIGHT;
    size_t longest = strlen(title) + 4;
    if (strlen(merged) + 40 > longest) {
        longest = strlen(merged) + 40;
    }
    if (width < 24 + (unsigned)longest * CHAR_W) {
        width = 24 + (unsigned)longest * CHAR_W;
    }
    if (width < 720) {
        width = 720; /* room for the key's lines */
    }

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
            "viewBox=\"0 0 %u %u\" font-family=\"Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fprintf(out, "<title>%s, pieces of %zu output keys</title>\n", title, m->piece);
    fprintf(out, "<rect width=\"%u\" height=\"%u\" fill=\"white\"/>\n", width, height);
    fprintf(out,
            "<text x=\"24\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s, pieces of %zu "
            "output keys</text>\n",
            title, m->piece);

    /* The runs' labels: b across the top, a down the side. */
    fprintf(out,
            "<text x=\"%u\" y=\"%u\" font-size=\"13\" font-style=\"italic\">right run b "
            "(a step across takes b[j])</text>\n",
            corner_x(0), GRID_TOP - 62);
    fprintf(out,
            "<text x=\"24\" y=\"%u\" font-size=\"13\" font-style=\"italic\">left run a</text>\n",
            GRID_TOP - 62 + 18);
    fprintf(out,
            "<text x=\"24\" y=\"%u\" font-size=\"13\" font-style=\"italic\">(down takes a[i])"
            "</text>\n",
            GRID_TOP - 62 + 36);
    for (size_t j = 0; j < nb; ++j) {
        unsigned cx = corner_x(j) + CELL / 2;
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"11\" fill=\"#555\" "
                "text-anchor=\"middle\">b[%zu]</text>\n",
                cx, GRID_TOP - 26, j);
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"15\" font-weight=\"bold\" "
                "text-anchor=\"middle\">%u</text>\n",
                cx, GRID_TOP - 9, b[j]);
    }
    for (size_t i = 0; i < na; ++i) {
        unsigned cy = corner_y(i) + CELL / 2 + 5;
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"11\" fill=\"#555\" "
                "text-anchor=\"end\">a[%zu]</text>\n",
                GRID_LEFT - 36, cy, i);
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"15\" font-weight=\"bold\" "
                "text-anchor=\"end\">%u</text>\n",
                GRID_LEFT - 10, cy, a[i]);
    }

    /* Cells, shaded by who goes first there, and the grid lines. */
    for (size_t i = 0; i < na; ++i) {
        for (size_t j = 0; j < nb; ++j) {
            fprintf(out,
                    "<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                    "stroke=\"#bbb\"/>\n",
                    corner_x(j), corner_y(i), CELL, CELL, a[i] <= b[j] ? "#dbe9f7" : "#fbe1c8");
        }
    }
    fprintf(out,
            "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"none\" stroke=\"#888\"/>\n",
            corner_x(0), corner_y(0), corner_x(nb) - corner_x(0), corner_y(na) - corner_y(0));

    /* Each piece's rectangle: rows i0 .. i1 and columns j0 .. j1, its own small merge. */
    for (size_t p = 0; p < pieces; ++p) {
        size_t k0 = p * m->piece, k1 = min_z(k0 + m->piece, n);
        size_t i0 = kit_merge_co_rank_ref(m->keys, n, na, k0);
        size_t i1 = kit_merge_co_rank_ref(m->keys, n, na, k1);
        /* Drawn 3 px inside its corners, so neighbouring pieces do not share an edge; a piece
         * of one run only is a line. */
        unsigned w = corner_x(k1 - i1) - corner_x(k0 - i0), h = corner_y(i1) - corner_y(i0);
        fprintf(out,
                "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"none\" "
                "stroke=\"%s\" stroke-width=\"3\" stroke-opacity=\"0.7\"/>\n",
                corner_x(k0 - i0) + (w > 6 ? 3 : 0), corner_y(i0) + (h > 6 ? 3 : 0),
                w > 6 ? w - 6 : w, h > 6 ? h - 6 : h, PIECE_COLORS[p % PIECE_COLOR_COUNT]);
    }

    /* The merge path: the corners it visits, one output key per step. */
    fputs("<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"4\" stroke-linejoin=\"round\" "
          "points=\"",
          out);
    {
        kit_merge_path_point at = {0, 0};
        for (size_t k = 0; k <= n; ++k) {
            kit_merge_path_walk(a, na, b, nb, k, &at);
            fprintf(out, "%s%u,%u", k ? " " : "", corner_x(at.j), corner_y(at.i));
        }
    }
    fputs("\"/>\n", out);

    /* The diagonals of the piece boundaries inside the merge, each with its co-rank point. */
    for (size_t p = 1; p < pieces; ++p) {
        size_t k = p * m->piece;
        size_t i_first = k > nb ? k - nb : 0, i_last = min_z(k, na); /* inside the grid */
        size_t i = kit_merge_co_rank_ref(m->keys, n, na, k);
        /* The diagonal inside the grid: from (i_first, k - i_first) at the top right to
         * (i_last, k - i_last) at the bottom left. */
        fprintf(out,
                "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#555\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n",
                corner_x(k - i_first), corner_y(i_first), corner_x(k - i_last), corner_y(i_last));
        /* The co-rank point, labelled above and right of it, where the path has not been
         * (it came from the left or from above, and goes on right or down). */
        unsigned px = corner_x(k - i), py = corner_y(i);
        fprintf(out, "<circle cx=\"%u\" cy=\"%u\" r=\"7\" fill=\"#c0392b\"/>\n", px, py);
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"12\" font-weight=\"bold\" "
                "fill=\"#c0392b\">k = %zu: (%zu, %zu)</text>\n",
                px + 11, py - 12, k, i, k - i);
    }
    /* The ends of the path. */
    fprintf(out, "<circle cx=\"%u\" cy=\"%u\" r=\"5\" fill=\"#222\"/>\n", corner_x(0), corner_y(0));
    fprintf(out, "<circle cx=\"%u\" cy=\"%u\" r=\"5\" fill=\"#222\"/>\n", corner_x(nb),
            corner_y(na));

    /* The key to the picture, then one line per piece, then the output. */
    unsigned y = text_top;
    fprintf(out,
            "<rect x=\"24\" y=\"%u\" width=\"14\" height=\"14\" fill=\"#dbe9f7\" "
            "stroke=\"#bbb\"/>\n",
            y - 12);
    fprintf(out,
            "<text x=\"44\" y=\"%u\" font-size=\"13\">cell (i, j) with a[i] &lt;= b[j]: a[i] goes "
            "first (ties too: stable)</text>\n",
            y);
    y += LINE_GAP;
    fprintf(out,
            "<rect x=\"24\" y=\"%u\" width=\"14\" height=\"14\" fill=\"#fbe1c8\" "
            "stroke=\"#bbb\"/>\n",
            y - 12);
    fprintf(out,
            "<text x=\"44\" y=\"%u\" font-size=\"13\">cell (i, j) with b[j] &lt; a[i]: b[j] goes "
            "first; the path runs between the two</text>\n",
            y);
    y += LINE_GAP;
    fprintf(out,
            "<circle cx=\"31\" cy=\"%u\" r=\"6\" fill=\"#c0392b\"/><text x=\"44\" y=\"%u\" "
            "font-size=\"13\">k: (i, j): the path crosses diagonal i + j = k (dashed, a piece "
            "boundary) at (i, j); i is the co-rank of k</text>\n",
            y - 5, y);
    y += LINE_GAP;
    for (size_t p = 0; p < pieces; ++p, y += LINE_GAP) {
        size_t k0 = p * m->piece, k1 = min_z(k0 + m->piece, n);
        size_t i0 = kit_merge_co_rank_ref(m->keys, n, na, k0);
        size_t i1 = kit_merge_co_rank_ref(m->keys, n, na, k1);
        char line[160];
        snprintf(line, sizeof line,
                 "piece %zu, outputs %zu..%zu: the merge of a[%zu..%zu) and b[%zu..%zu)", p, k0,
                 k1 - 1, i0, i1, k0 - i0, k1 - i1);
        fprintf(out, "<text x=\"24\" y=\"%u\" font-size=\"13\" fill=\"%s\">%s</text>\n", y,
                PIECE_COLORS[p % PIECE_COLOR_COUNT], line);
    }
    char line[64 + sizeof merged];
    snprintf(line, sizeof line, "merged (the run each key came from): %s", merged);
    text_line(out, y, line);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------
 * Command line.
 * ------------------------------------------------------------------------------------------ */

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "usage: %s [--left KEYS] [--right KEYS] [--piece P] > file.svg\n"
            "Draws the merge path of the stable merge of two sorted runs as an SVG on stdout.\n"
            "  --left KEYS   the left run a, sorted, comma-separated (default 1,5,7,9)\n"
            "  --right KEYS  the right run b, sorted, comma-separated (default 2,6,8,10)\n"
            "  --piece P     output keys per piece, 1..%u (default 2): a diagonal is drawn at\n"
            "                every multiple of P, with the co-rank point where the path crosses\n"
            "  -h, --help    this text\n"
            "Each run holds 0 to %u keys (decimal, 0 .. 4294967295), and not both none.\n",
            prog, 2 * MAX_RUN, MAX_RUN);
}

/** Parses a decimal number in [0, @p max]; returns 0 on success. */
static int parse_number(const char *text, unsigned long max, unsigned long *value)
{
    char *end;
    if (text[0] < '0' || text[0] > '9') {
        return -1;
    }
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) {
        return -1;
    }
    *value = v;
    return 0;
}

/**
 * Parses a comma-separated, sorted run of at most MAX_RUN keys into @p run; an empty string is
 * an empty run. Returns the number of keys, or -1 (and a message on stderr) on error.
 */
static long parse_run(const char *prog, const char *name, const char *text, unsigned int *run)
{
    char copy[512];
    size_t len = 0;
    if (strlen(text) >= sizeof copy) {
        fprintf(stderr, "%s: %s: too long\n", prog, name);
        return -1;
    }
    strcpy(copy, text);
    if (copy[0] == '\0') {
        return 0;
    }
    for (char *item = copy;;) {
        char *comma = strchr(item, ',');
        if (comma) {
            *comma = '\0';
        }
        unsigned long key;
        if (parse_number(item, 0xFFFFFFFFul, &key) != 0) {
            fprintf(stderr, "%s: %s: '%s' is not a key (a decimal number up to 4294967295)\n", prog,
                    name, item);
            return -1;
        }
        if (len == MAX_RUN) {
            fprintf(stderr, "%s: %s: more than %u keys\n", prog, name, MAX_RUN);
            return -1;
        }
        if (len > 0 && key < run[len - 1]) {
            fprintf(stderr, "%s: %s must be sorted: %lu comes after %u\n", prog, name, key,
                    run[len - 1]);
            return -1;
        }
        run[len++] = (unsigned int)key;
        if (!comma) {
            break;
        }
        item = comma + 1;
    }
    return (long)len;
}

int main(int argc, char **argv)
{
    const char *prog = argv[0] ? argv[0] : "merge_path_diagram";
    const char *left = "1,5,7,9", *right = "2,6,8,10";
    unsigned long piece = 2;

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout, prog);
            return KIT_EXIT_OK;
        } else if (strcmp(arg, "--left") == 0 || strcmp(arg, "--right") == 0 ||
                   strcmp(arg, "--piece") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, arg);
                usage(stderr, prog);
                return KIT_EXIT_USAGE;
            }
            const char *value = argv[++i];
            if (strcmp(arg, "--left") == 0) {
                left = value;
            } else if (strcmp(arg, "--right") == 0) {
                right = value;
            } else if (parse_number(value, 2 * MAX_RUN, &piece) != 0 || piece == 0) {
                fprintf(stderr, "%s: --piece wants a whole number from 1 to %u, not '%s'\n", prog,
                        2 * MAX_RUN, value);
                return KIT_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, arg);
            usage(stderr, prog);
            return KIT_EXIT_USAGE;
        }
    }

    merge_picture m;
    long na = parse_run(prog, "--left", left, m.keys);
    if (na < 0) {
        return KIT_EXIT_USAGE;
    }
    long nb = parse_run(prog, "--right", right, m.keys + na);
    if (nb < 0) {
        return KIT_EXIT_USAGE;
    }
    if (na + nb == 0) {
        fprintf(stderr, "%s: both runs are empty: nothing to draw\n", prog);
        return KIT_EXIT_USAGE;
    }
    m.na = (size_t)na;
    m.nb = (size_t)nb;
    m.piece = (size_t)piece;

    if (merge_path_write_svg(&m, stdout) != 0 || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write the SVG: %s\n", prog, strerror(errno));
        return EXIT_FAILURE;
    }
    return KIT_EXIT_OK;
}
