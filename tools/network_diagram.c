/*
 * network_diagram: draws a sorting network's comparators as an SVG on stdout.
 *
 *     network_diagram [--lab oddeven|bitonic] [-n N] > file.svg
 *
 * The program has two halves, so a later lab only adds a schedule:
 * - a schedule (here: odd-even transposition sort) fills a network: columns (one per phase
 *   or step) and, in each, comparators between two wires;
 * - network_write_svg() draws any such network: one horizontal line per key, one column per
 *   step, each comparator a vertical segment with a dot on both of its wires.
 *
 * The odd-even schedule comes only from oddeven_pair_left() and oddeven_pair_count() of
 * labs/01-oddeven/oddeven.h, the bitonic one only from bitonic_pair_low() and
 * bitonic_descending_at() of labs/03-bitonic/bitonic.h: the functions the kernels and the
 * tests use, so the handout's picture is the schedule the lab runs. Build (no CUDA library
 * is linked; the functions are static inline):
 *
 *     gcc -std=c11 -Wall -Wextra -Icommon -Ilabs/01-oddeven -Ilabs/03-bitonic \
 *         -I$CUDA_HOME/include tools/network_diagram.c -o build/tools/network_diagram
 *
 * Exit status: 0 when the SVG was written, 2 (KIT_EXIT_USAGE) for a bad command line,
 * 1 when memory ran out or stdout could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "exit_codes.h"
#include "oddeven.h"

/** Largest n drawn: beyond it the picture is too big to read. */
#define MAX_WIRES 64u

/* ------------------------------------------------------------------------------------------
 * A comparator network: what a schedule produces and network_write_svg() draws.
 * ------------------------------------------------------------------------------------------ */

/** One compare-exchange: after it, the smaller key is on wire `to_min`, the larger on `to_max`. */
typedef struct {
    unsigned column; /* the step it belongs to */
    unsigned to_min; /* wire that receives the smaller key */
    unsigned to_max; /* wire that receives the larger key */
} comparator;

/** One step of the network: its label (lines separated by '\n') and its shading. */
typedef struct {
    char label[48];
    int shaded; /* drawn on a tinted background, to tell alternating steps apart */
} column;

typedef struct {
    unsigned wires;
    char title[160];
    column *columns;
    size_t column_count, column_capacity;
    comparator *comparators;
    size_t comparator_count, comparator_capacity;
} network;

static void *grow(void *array, size_t *capacity, size_t needed, size_t item_size)
{
    if (needed <= *capacity) {
        return array;
    }
    size_t new_capacity = *capacity ? 2 * *capacity : 16;
    while (new_capacity < needed) {
        new_capacity *= 2;
    }
    void *grown = realloc(array, new_capacity * item_size);
    if (grown) {
        *capacity = new_capacity;
    }
    return grown;
}

/** Appends a column; returns its index, or -1 when memory runs out. */
static long network_add_column(network *net, const char *label, int shaded)
{
    column *columns =
        grow(net->columns, &net->column_capacity, net->column_count + 1, sizeof *columns);
    if (!columns) {
        return -1;
    }
    net->columns = columns;
    column *c = &net->columns[net->column_count];
    snprintf(c->label, sizeof c->label, "%s", label);
    c->shaded = shaded;
    return (long)net->column_count++;
}

/** Appends a comparator to column @p col; returns 0, or -1 when memory runs out. */
static int network_add_comparator(network *net, unsigned col, unsigned to_min, unsigned to_max)
{
    comparator *list =
        grow(net->comparators, &net->comparator_capacity, net->comparator_count + 1, sizeof *list);
    if (!list) {
        return -1;
    }
    net->comparators = list;
    net->comparators[net->comparator_count++] = (comparator){col, to_min, to_max};
    return 0;
}

static void network_free(network *net)
{
    free(net->columns);
    free(net->comparators);
}

/* ------------------------------------------------------------------------------------------
 * Drawing. Geometry in SVG user units (pixels).
 * ------------------------------------------------------------------------------------------ */

enum {
    WIRE_GAP = 36,   /* vertical distance between wires */
    LANE_GAP = 16,   /* horizontal distance between overlapping comparators of one column */
    COLUMN_MIN = 76, /* narrowest column: room for its label */
    COLUMN_PAD = 14, /* space left and right of the comparators inside a column */
    LEFT = 56,       /* wire labels */
    RIGHT = 24,
    TOP = 84, /* title and column labels */
    BOTTOM = 22,
    DOT_RADIUS = 5,
};

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

static unsigned max_u(unsigned a, unsigned b)
{
    return a > b ? a : b;
}

/*
 * Comparators of one column that overlap vertically (a bitonic step with stride > 1) would
 * hide each other on one vertical line, so each gets a lane: the first lane where nothing
 * it overlaps is drawn yet. Odd-even pairs never overlap: one lane per column.
 * Fills lane[] (one per comparator) and lanes_in[] (one per column).
 */
static void assign_lanes(const network *net, unsigned *lane, unsigned *lanes_in)
{
    for (size_t c = 0; c < net->column_count; ++c) {
        lanes_in[c] = 0;
    }
    for (size_t i = 0; i < net->comparator_count; ++i) {
        const comparator *ci = &net->comparators[i];
        unsigned lo = min_u(ci->to_min, ci->to_max), hi = max_u(ci->to_min, ci->to_max);
        unsigned candidate = 0;
        for (int moved = 1; moved;) {
            moved = 0;
            for (size_t j = 0; j < i; ++j) {
                const comparator *cj = &net->comparators[j];
                unsigned lo_j = min_u(cj->to_min, cj->to_max);
                unsigned hi_j = max_u(cj->to_min, cj->to_max);
                if (cj->column == ci->column && lane[j] == candidate && lo <= hi_j && lo_j <= hi) {
                    ++candidate;
                    moved = 1;
                }
            }
        }
        lane[i] = candidate;
        lanes_in[ci->column] = max_u(lanes_in[ci->column], candidate + 1);
    }
}

/** Writes @p text with the five XML special characters escaped. */
static void put_xml_text(FILE *out, const char *text)
{
    for (; *text; ++text) {
        switch (*text) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        default:
            fputc(*text, out);
        }
    }
}

/**
 * Draws @p net as a standalone SVG document. A comparator whose smaller key goes to the
 * lower-numbered wire (the usual, ascending one) is a plain segment with two dots; one that
 * sends the smaller key down (descending, as in bitonic sort) has a dot at the wire that
 * receives the smaller key and an arrowhead pointing at the wire that receives the larger. Returns
 * 0, or -1 when memory runs out.
 */
static int network_write_svg(const network *net, FILE *out)
{
    size_t columns = net->column_count;
    unsigned *lane = malloc((net->comparator_count + 1) * sizeof *lane);
    unsigned *lanes_in = malloc((columns + 1) * sizeof *lanes_in);
    unsigned *column_x = malloc((columns + 1) * sizeof *column_x); /* left edge */
    unsigned *column_w = malloc((columns + 1) * sizeof *column_w);
    if (!lane || !lanes_in || !column_x || !column_w) {
        free(lane), free(lanes_in), free(column_x), free(column_w);
        return -1;
    }
    assign_lanes(net, lane, lanes_in);

    unsigned x = LEFT;
    for (size_t c = 0; c < columns; ++c) {
        unsigned lanes = max_u(lanes_in[c], 1);
        column_x[c] = x;
        column_w[c] = max_u(COLUMN_MIN, 2 * COLUMN_PAD + (lanes - 1) * LANE_GAP);
        x += column_w[c];
    }
    unsigned width = max_u(x + RIGHT, LEFT + 9 * (unsigned)strlen(net->title)); /* ~9 px/char */
    unsigned wires_h = net->wires > 1 ? (net->wires - 1) * WIRE_GAP : 0;
    unsigned height = TOP + wires_h + BOTTOM;

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
            "viewBox=\"0 0 %u %u\" font-family=\"Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fputs("<title>", out);
    put_xml_text(out, net->title);
    fputs("</title>\n", out);
    fputs("<defs><marker id=\"max\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
          "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
          "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#222\"/></marker></defs>\n",
          out);
    fprintf(out, "<rect width=\"%u\" height=\"%u\" fill=\"white\"/>\n", width, height);

    /* Title, then the column backgrounds and labels. */
    fprintf(out, "<text x=\"%u\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", LEFT);
    put_xml_text(out, net->title);
    fputs("</text>\n", out);
    for (size_t c = 0; c < columns; ++c) {
        if (net->columns[c].shaded) {
            fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#eef3fb\"/>\n",
                    column_x[c], TOP - 18, column_w[c], wires_h + 36);
        }
        unsigned center = column_x[c] + column_w[c] / 2;
        fprintf(out, "<text x=\"%u\" y=\"%u\" font-size=\"12\" text-anchor=\"middle\">", center,
                TOP - 46);
        const char *line = net->columns[c].label;
        for (unsigned row = 0;; ++row) {
            size_t len = strcspn(line, "\n");
            char part[sizeof net->columns[c].label];
            snprintf(part, sizeof part, "%.*s", (int)len, line);
            fprintf(out, "<tspan x=\"%u\" dy=\"%s\">", center, row ? "1.2em" : "0");
            put_xml_text(out, part);
            fputs("</tspan>", out);
            if (line[len] == '\0') {
                break;
            }
            line += len + 1;
        }
        fputs("</text>\n", out);
    }

    /* Wires, labelled with the key's index. */
    for (unsigned w = 0; w < net->wires; ++w) {
        unsigned y = TOP + w * WIRE_GAP;
        fprintf(out,
                "<text x=\"%u\" y=\"%u\" font-size=\"13\" text-anchor=\"end\" "
                "dominant-baseline=\"middle\">%u</text>\n",
                LEFT - 12, y, w);
        fprintf(out,
                "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#444\" "
                "stroke-width=\"1.5\"/>\n",
                LEFT - 6, y, width - RIGHT + 6, y);
    }

    /* Comparators: centred in their column, lanes spread around the centre. */
    for (size_t i = 0; i < net->comparator_count; ++i) {
        const comparator *cmp = &net->comparators[i];
        unsigned c = cmp->column;
        unsigned lanes = max_u(lanes_in[c], 1);
        unsigned cx =
            column_x[c] + column_w[c] / 2 - (lanes - 1) * LANE_GAP / 2 + lane[i] * LANE_GAP;
        unsigned y_min = TOP + cmp->to_min * WIRE_GAP, y_max = TOP + cmp->to_max * WIRE_GAP;
        int descending = cmp->to_min > cmp->to_max;
        fprintf(out,
                "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#222\" "
                "stroke-width=\"2\"%s/>\n",
                cx, y_min, cx, y_max, descending ? " marker-end=\"url(#max)\"" : "");
        fprintf(out, "<circle cx=\"%u\" cy=\"%u\" r=\"%d\" fill=\"#222\"/>\n", cx, y_min,
                DOT_RADIUS);
        if (!descending) { /* the arrowhead marks the max end of a descending one */
            fprintf(out, "<circle cx=\"%u\" cy=\"%u\" r=\"%d\" fill=\"#222\"/>\n", cx, y_max,
                    DOT_RADIUS);
        }
    }
    fputs("</svg>\n", out);

    free(lane), free(lanes_in), free(column_x), free(column_w);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Schedules. Each fills a network from the lab's own header.
 * ------------------------------------------------------------------------------------------ */

/** Odd-even transposition sort of n keys: n phases, pair i of phase p starts at 2i + p%2. */
static int oddeven_network(network *net, unsigned n)
{
    size_t total = 0;
    for (unsigned phase = 0; phase < n; ++phase) {
        total += oddeven_pair_count(n, phase);
    }
    net->wires = n;
    snprintf(net->title, sizeof net->title,
             "Odd-even transposition sort, n = %u: %u phases, %zu comparators", n, n, total);

    for (unsigned phase = 0; phase < n; ++phase) {
        char label[48];
        snprintf(label, sizeof label, "phase %u\n(%s)", phase, (phase & 1u) ? "odd" : "even");
        long col = network_add_column(net, label, (int)(phase & 1u));
        if (col < 0) {
            return -1;
        }
        size_t pairs = oddeven_pair_count(n, phase);
        for (size_t pair = 0; pair < pairs; ++pair) {
            size_t left = oddeven_pair_left(pair, phase);
            if (network_add_comparator(net, (unsigned)col, (unsigned)left, (unsigned)(left + 1)) !=
                0) {
                return -1;
            }
        }
    }
    return 0;
}

/**
 * Bitonic sort of n keys (a power of two): one column per step (size, stride), comparator c
 * between bitonic_pair_low(c, stride) and `stride` wires below, sending the larger key up
 * where bitonic_descending_at() says so. Stages are shaded alternately.
 */
static int bitonic_network(network *net, unsigned n)
{
    unsigned steps = 0;
    for (unsigned size = 2; size <= n; size *= 2) {
        for (unsigned stride = size / 2; stride > 0; stride /= 2) {
            ++steps;
        }
    }
    net->wires = n;
    snprintf(net->title, sizeof net->title, "Bitonic sort, n = %u: %u steps, %u comparators", n,
             steps, steps * (n / 2));

    unsigned stage = 0;
    for (unsigned size = 2; size <= n; size *= 2, ++stage) {
        for (unsigned stride = size / 2; stride > 0; stride /= 2) {
            char label[48];
            snprintf(label, sizeof label, "size %u\nstride %u", size, stride);
            long col = network_add_column(net, label, (int)(stage & 1u));
            if (col < 0) {
                return -1;
            }
            for (unsigned c = 0; c < n / 2; ++c) {
                unsigned lo = (unsigned)bitonic_pair_low(c, stride);
                unsigned hi = lo + stride;
                int down = bitonic_descending_at(lo, size, n, 0);
                if (network_add_comparator(net, (unsigned)col, down ? hi : lo, down ? lo : hi) !=
                    0) {
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Command line.
 * ------------------------------------------------------------------------------------------ */

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "usage: %s [--lab oddeven|bitonic] [-n N] > file.svg\n"
            "Draws the comparator network of a lab's sort as an SVG on stdout.\n"
            "  --lab NAME  which network: oddeven (odd-even transposition sort; the default)\n"
            "              or bitonic (bitonic sort; n a power of two)\n"
            "  -n N        number of keys, 1..%u (default 8)\n"
            "  -h, --help  this text\n",
            prog, MAX_WIRES);
}

/** Parses a decimal number in [1, MAX_WIRES]; returns 0 on success. */
static int parse_wires(const char *text, unsigned *n)
{
    char *end;
    if (text[0] < '0' || text[0] > '9') {
        return -1;
    }
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 1 || value > MAX_WIRES) {
        return -1;
    }
    *n = (unsigned)value;
    return 0;
}

int main(int argc, char **argv)
{
    const char *prog = argv[0] ? argv[0] : "network_diagram";
    const char *lab = "oddeven";
    unsigned n = 8;

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout, prog);
            return KIT_EXIT_OK;
        } else if (strcmp(arg, "--lab") == 0 || strcmp(arg, "-n") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, arg);
                usage(stderr, prog);
                return KIT_EXIT_USAGE;
            }
            const char *value = argv[++i];
            if (arg[1] == 'n') {
                if (parse_wires(value, &n) != 0) {
                    fprintf(stderr, "%s: -n wants a whole number from 1 to %u, not '%s'\n", prog,
                            MAX_WIRES, value);
                    return KIT_EXIT_USAGE;
                }
            } else {
                lab = value;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, arg);
            usage(stderr, prog);
            return KIT_EXIT_USAGE;
        }
    }

    network net = {0};
    int status;
    if (strcmp(lab, "oddeven") == 0) {
        status = oddeven_network(&net, n);
    } else if (strcmp(lab, "bitonic") == 0) {
        if (n < 2 || (n & (n - 1)) != 0) {
            fprintf(stderr, "%s: the bitonic network needs n a power of two from 2 to %u, not %u\n",
                    prog, MAX_WIRES, n);
            return KIT_EXIT_USAGE;
        }
        status = bitonic_network(&net, n);
    } else {
        fprintf(stderr, "%s: unknown lab '%s' (known: oddeven, bitonic)\n", prog, lab);
        return KIT_EXIT_USAGE;
    }
    if (status == 0) {
        status = network_write_svg(&net, stdout);
    }
    network_free(&net);
    if (status != 0) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_FAILURE;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write the SVG: %s\n", prog, strerror(errno));
        return EXIT_FAILURE;
    }
    return KIT_EXIT_OK;
}
