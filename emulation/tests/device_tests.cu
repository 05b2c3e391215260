/*
 * device_tests.cu: the emulation's own tests of what kernels do together (make check-emulate):
 * the warp-level functions, computed in lockstep over the lanes of their mask, and the blocks of
 * a launch that wait for each other (look-backs). A CUDA file built as a lab's is
 * (emulation/cu2cpp.py, then the host compiler), run by emulation/check_emulation.py once per
 * case and thread order:
 *
 *   device_tests -l        the cases: name, what the emulation must report (or "-": the
 *                          results are checked and must be right), the orders in which it
 *                          must report it ("all", or one order: it passes in the others), and
 *                          the marker of the line the report must name
 *   device_tests CASE      runs one case: exit 0 when it ran and its results are right, 1 when
 *                          they are wrong (printed), 3 when a launch failed (the emulation's
 *                          report is on stderr)
 *
 * The expected results are computed here on the host from CUDA's definitions, written plainly
 * (the programming guide's words, not the emulation's code): a shuffle of width w works in
 * segments of w lanes; __shfl_sync reads srcLane modulo w in the caller's segment; up and down
 * keep the caller's value when they would leave the segment; xor keeps it when the lane it would
 * read lies in a later segment; a delta or lane mask counts modulo 32 (PTX's shfl.sync).
 *
 * The same file builds with nvcc, and the cases whose results are checked ("-") must pass on a
 * GPU too (tools/gpu_check.sh, step emulation): the definitions above are the hardware's, not
 * only ours. A value the GPU leaves undefined (a lane outside the mask) is checked only here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FULL 0xFFFFFFFFu

static cudaError_t launch_error(void)
{
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

/* ---- shuffles -------------------------------------------------------------------------------- */

enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR };
enum { T_INT, T_UINT, T_LL, T_ULL, T_FLOAT, T_DOUBLE, TYPES };
static const char *const type_names[] = {"int",   "unsigned", "long long", "unsigned long long",
                                         "float", "double"};

/* Thread r's value of each type: distinct, and using the high bits of the 64-bit ones. */
__host__ __device__ static long long value_ll(unsigned r)
{
    return -(((long long)r << 40) | (r * 977u + 5u));
}

#define SHUFFLE_ONE(T)                                                                             \
    __device__ static T shuffle(int op, T v, int param, int width)                                 \
    {                                                                                              \
        switch (op) {                                                                              \
        case SHFL_IDX:                                                                             \
            return __shfl_sync(FULL, v, param, width);                                             \
        case SHFL_UP:                                                                              \
            return __shfl_up_sync(FULL, v, (unsigned)param, width);                                \
        case SHFL_DOWN:                                                                            \
            return __shfl_down_sync(FULL, v, (unsigned)param, width);                              \
        default:                                                                                   \
            return __shfl_xor_sync(FULL, v, param, width);                                         \
        }                                                                                          \
    }
SHUFFLE_ONE(int)
SHUFFLE_ONE(unsigned int)
SHUFFLE_ONE(long long)
SHUFFLE_ONE(unsigned long long)
SHUFFLE_ONE(float)
SHUFFLE_ONE(double)

/* The bits of a value, zero-extended (memcpy is a host function for clang's parse of device
 * code). */
__device__ static unsigned long long bits_of(float x)
{
    return __float_as_uint(x);
}
__device__ static unsigned long long bits_of(double x)
{
    union {
        double d;
        unsigned long long u;
    } b;
    b.d = x;
    return b.u;
}

/* Every thread shuffles its value of @p type; __shfl_sync's source lane varies by lane (it
 * is `lane * 7 + param`, negative and past the width included), the others' param is the
 * same in every lane. out[r] gets the result's bits. */
__global__ void shuffle_kernel(int op, int type, int param, int width, unsigned long long *out)
{
    unsigned r = threadIdx.x;
    int p = op == SHFL_IDX ? (int)(r % 32u) * 7 + param : param;
    long long v = value_ll(r);
    unsigned long long bits = 0;
    switch (type) {
    case T_INT:
        bits = (unsigned)shuffle(op, (int)v, p, width);
        break;
    case T_UINT:
        bits = shuffle(op, (unsigned int)v, p, width);
        break;
    case T_LL:
        bits = (unsigned long long)shuffle(op, v, p, width);
        break;
    case T_ULL:
        bits = shuffle(op, (unsigned long long)v, p, width);
        break;
    case T_FLOAT:
        bits = bits_of(shuffle(op, (float)(r % 4096u) + 0.5f, p, width));
        break;
    default:
        bits = bits_of(shuffle(op, (double)v * 0.25, p, width));
    }
    out[r] = bits;
}

/* The bits thread r's value of @p type has (as shuffle_kernel makes them). */
static unsigned long long value_bits(int type, unsigned r)
{
    unsigned long long bits = 0;
    long long v = value_ll(r);
    int i = (int)v;
    unsigned u = (unsigned)v;
    unsigned long long ull = (unsigned long long)v;
    float f = (float)(r % 4096u) + 0.5f;
    double d = (double)v * 0.25;
    switch (type) {
    case T_INT:
        memcpy(&bits, &i, sizeof i);
        break;
    case T_UINT:
        memcpy(&bits, &u, sizeof u);
        break;
    case T_LL:
        memcpy(&bits, &v, sizeof v);
        break;
    case T_ULL:
        memcpy(&bits, &ull, sizeof ull);
        break;
    case T_FLOAT:
        memcpy(&bits, &f, sizeof f);
        break;
    default:
        memcpy(&bits, &d, sizeof d);
    }
    return bits;
}

/* The thread whose value thread r gets, by CUDA's definition of each shuffle; a delta or lane
 * mask counts modulo 32, as PTX's shfl.sync takes its low five bits (a GPU shows it: a delta of
 * 1000 shifts by 8). */
static unsigned shuffle_source(int op, unsigned r, int param, int width)
{
    unsigned lane = r % 32u, warp_first = r - lane;
    if (op != SHFL_IDX) {
        param &= 31;
    }
    unsigned segment = lane / (unsigned)width * (unsigned)width; /* the segment's first lane */
    long long src;
    switch (op) {
    case SHFL_IDX: {
        long long wanted = (long long)lane * 7 + param; /* modulo width, as a non-negative */
        long long m = ((wanted % width) + width) % width;
        src = segment + m;
        break;
    }
    case SHFL_UP:
        src = (long long)lane - param;
        if (src < (long long)segment) {
            src = lane;
        }
        break;
    case SHFL_DOWN:
        src = (long long)lane + param;
        if (src >= (long long)segment + width) {
            src = lane;
        }
        break;
    default:
        src = (long long)(lane ^ (unsigned)param);
        if (src >= (long long)segment + width) { /* a later segment: an earlier one reads */
            src = lane;
        }
    }
    return warp_first + (unsigned)src;
}

static unsigned long long *d_out;
static unsigned long long h_out[1024];

/* 0 when thread r's `count` results, h_out[count * r ...], are want[0 .. count); else 1, after a
 * line naming the test, the thread and the first result that differs. */
static int results_are(const char *test, unsigned r, const unsigned long long *want, int count)
{
    for (int k = 0; k < count; k++) {
        if (h_out[count * r + k] != want[k]) {
            printf("%s: thread %u, result %d: got 0x%llx, want 0x%llx\n", test, r, k,
                   h_out[count * r + k], want[k]);
            return 1;
        }
    }
    return 0;
}

static int run_shuffles(unsigned threads)
{
    static const int idx_params[] = {0, 3, -1, -40, 33};
    static const int shift_params[] = {0, 1, 3, 16, 31, 32, 1000};
    static const int xor_params[] = {0, 1, 5, 16, 31, 32, -1}; /* -1: 31 (modulo 32) */
    static const int widths[] = {32, 16, 8, 4, 2, 1};
    static const char *const names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                        "__shfl_xor_sync"};
    int bad = 0;
    for (int op = SHFL_IDX; op <= SHFL_XOR; op++) {
        const int *params = op == SHFL_IDX   ? idx_params
                            : op == SHFL_XOR ? xor_params
                                             : shift_params;
        int count = op == SHFL_IDX ? 5 : 7;
        for (int type = 0; type < TYPES; type++) {
            for (int w = 0; w < 6; w++) {
                for (int p = 0; p < count; p++) {
                    /* Every width with one param; every param with widths 32 and 8. */
                    if (p > 0 && widths[w] != 32 && widths[w] != 8) {
                        continue;
                    }
                    shuffle_kernel<<<1, threads>>>(op, type, params[p], widths[w], d_out);
                    if (launch_error() != cudaSuccess) {
                        return 3;
                    }
                    cudaMemcpy(h_out, d_out, threads * sizeof *h_out, cudaMemcpyDeviceToHost);
                    for (unsigned r = 0; r < threads && bad < 10; r++) {
                        unsigned src = shuffle_source(op, r, params[p], widths[w]);
                        if (h_out[r] != value_bits(type, src)) {
                            printf("%s(%s, param %d, width %d): thread %u got 0x%llx, want "
                                   "thread %u's 0x%llx\n",
                                   names[op], type_names[type], params[p], widths[w], r, h_out[r],
                                   src, value_bits(type, src));
                            bad++;
                        }
                    }
                }
            }
        }
    }
    return bad ? 1 : 0;
}

static int test_shuffles(void)
{
    return run_shuffles(64); /* two warps */
}

/* Lanes 0-15 and 16-31 shuffle among themselves, each half with its own mask (two groups at one
 * line); lanes of the same half also meet from two different lines (sm_70 and later). */
__global__ void half_masks_kernel(unsigned long long *out)
{
    unsigned lane = threadIdx.x % 32u;
    unsigned half = lane < 16 ? 0x0000FFFFu : 0xFFFF0000u;
    unsigned x = __shfl_xor_sync(half, threadIdx.x * 10u, 1);
    unsigned y;
    if (lane & 2u) {
        y = __shfl_down_sync(half, x, 4, 8);
    } else {
        y = __shfl_down_sync(half, x, 4, 8); /* another line: the same group */
    }
    out[threadIdx.x] = y;
}

static int test_half_masks(void)
{
    half_masks_kernel<<<1, 64>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 64 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 64; r++) {
        unsigned lane = r % 32u;
        unsigned src = (lane % 8u) + 4u < 8u ? r + 4u : r;
        unsigned want = (src ^ 1u) * 10u;
        if (h_out[r] != want) {
            printf("half masks: thread %u got %llu, want %u\n", r, h_out[r], want);
            return 1;
        }
    }
    return 0;
}

/* A shuffle that reads a lane the mask leaves out gets the poison (undefined on a GPU). */
__global__ void outside_mask_kernel(unsigned long long *out)
{
    unsigned lane = threadIdx.x % 32u;
    if (lane < 16) {
        out[threadIdx.x] = __shfl_down_sync(0x0000FFFFu, lane + 1u, 8);
    }
}

static int test_outside_mask(void)
{
    outside_mask_kernel<<<1, 32>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 16 * sizeof *h_out, cudaMemcpyDeviceToHost);
#ifdef __NVCC__
    const unsigned checked = 8; /* lanes 8-15 read outside the mask: undefined on a GPU */
#else
    const unsigned checked = 16;
#endif
    for (unsigned lane = 0; lane < checked; lane++) {
        unsigned long long want = lane < 8 ? lane + 9u : 0xA5A5A5A5u;
        if (h_out[lane] != want) {
            printf("outside mask: lane %u got 0x%llx, want 0x%llx\n", lane, h_out[lane], want);
            return 1;
        }
    }
    return 0;
}

/* ---- votes, matches, reductions -------------------------------------------------------------- */

/* out[3r .. 3r+2]: __ballot_sync, __any_sync, __all_sync of three predicates, over the full warp
 * and (lanes below 20) over the mask of lanes 0-19 */
__global__ void votes_kernel(unsigned long long *out)
{
    unsigned r = threadIdx.x, lane = r % 32u, warp = r / 32u;
    int p = (lane % 3u == 0) || warp == 2; /* warp 2: all true */
    int q = warp == 1 && lane == 7;        /* one lane of warp 1 */
    unsigned b = __ballot_sync(FULL, p);
    int any = __any_sync(FULL, q);
    int all = __all_sync(FULL, p);
    unsigned b20 = 0;
    int all20 = -1;
    if (lane < 20) {
        b20 = __ballot_sync(0x000FFFFFu, lane % 2u);
        all20 = __all_sync(0x000FFFFFu, lane < 20);
    }
    out[4 * r] = b;
    out[4 * r + 1] = (unsigned)any;
    out[4 * r + 2] = (unsigned)all;
    out[4 * r + 3] = ((unsigned long long)b20 << 8) | (unsigned)(all20 & 0xFF);
}

static int test_votes(void)
{
    votes_kernel<<<1, 96>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 4 * 96 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 96; r++) {
        unsigned lane = r % 32u, warp = r / 32u;
        unsigned long long want[4];
        want[0] = warp == 2 ? 0xFFFFFFFFu : 0x49249249u; /* lanes 0, 3, 6, ... 30 */
        want[1] = warp == 1;
        want[2] = warp == 2;
        want[3] = lane < 20 ? ((unsigned long long)0x000AAAAAu << 8) | 1u : 0xFFu;
        if (results_are("votes", r, want, 4)) {
            return 1;
        }
    }
    return 0;
}

/* out[4r ..]: __match_any_sync of an unsigned (lane % 5), of a 64-bit value that differs only
 * in its high bits (lane % 3 << 40), of a float (lane % 2 + 0.5); __match_all_sync's mask and
 * predicate (all equal in warp 0, not in warp 1). */
__global__ void match_kernel(unsigned long long *out)
{
    unsigned r = threadIdx.x, lane = r % 32u, warp = r / 32u;
    unsigned a = __match_any_sync(FULL, lane % 5u);
    unsigned b = __match_any_sync(FULL, (unsigned long long)(lane % 3u) << 40);
    unsigned c = __match_any_sync(FULL, (float)(lane % 2u) + 0.5f);
    int pred = -1;
    unsigned d = __match_all_sync(FULL, warp == 0 ? 42u : lane, &pred);
    out[4 * r] = a;
    out[4 * r + 1] = b;
    out[4 * r + 2] = c;
    out[4 * r + 3] = ((unsigned long long)(unsigned)pred << 32) | d;
}

static int test_match(void)
{
    match_kernel<<<1, 64>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 4 * 64 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 64; r++) {
        unsigned lane = r % 32u, warp = r / 32u;
        unsigned long long want[4] = {0, 0, 0, 0};
        for (unsigned l = 0; l < 32; l++) {
            want[0] |= (unsigned long long)(l % 5u == lane % 5u) << l;
            want[1] |= (unsigned long long)(l % 3u == lane % 3u) << l;
            want[2] |= (unsigned long long)(l % 2u == lane % 2u) << l;
        }
        want[3] = warp == 0 ? (1ull << 32) | 0xFFFFFFFFu : 0;
        if (results_are("match", r, want, 4)) {
            return 1;
        }
    }
    return 0;
}

/* The reductions of sm_80: over lanes 0-23 (a mask) of signed values with negatives, and of
 * unsigned ones. */
__global__ void reduce_kernel(unsigned long long *out)
{
    unsigned lane = threadIdx.x % 32u;
    if (lane >= 24) {
        return;
    }
    unsigned m = 0x00FFFFFFu;
    int s = (int)lane * 3 - 40;
    unsigned u = 0x80000000u + lane * 977u;
    unsigned long long *o = out + 9 * threadIdx.x;
    o[0] = (unsigned)__reduce_add_sync(m, s);
    o[1] = (unsigned)__reduce_min_sync(m, s);
    o[2] = (unsigned)__reduce_max_sync(m, s);
    o[3] = __reduce_add_sync(m, u);
    o[4] = __reduce_min_sync(m, u);
    o[5] = __reduce_max_sync(m, u);
    o[6] = __reduce_and_sync(m, u | (1u << lane));
    o[7] = __reduce_or_sync(m, 1u << lane);
    o[8] = __reduce_xor_sync(m, lane);
}

static int test_reduce(void)
{
    reduce_kernel<<<1, 64>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 9 * 64 * sizeof *h_out, cudaMemcpyDeviceToHost);
    unsigned long long want[9];
    int sum = 0, mn = 1 << 30, mx = -(1 << 30);
    unsigned usum = 0, umin = 0xFFFFFFFFu, umax = 0, uand = 0xFFFFFFFFu, uor = 0, uxor = 0;
    for (unsigned l = 0; l < 24; l++) {
        int s = (int)l * 3 - 40;
        unsigned u = 0x80000000u + l * 977u;
        sum += s;
        mn = s < mn ? s : mn;
        mx = s > mx ? s : mx;
        usum += u;
        umin = u < umin ? u : umin;
        umax = u > umax ? u : umax;
        uand &= u | (1u << l);
        uor |= 1u << l;
        uxor ^= l;
    }
    want[0] = (unsigned)sum;
    want[1] = (unsigned)mn;
    want[2] = (unsigned)mx;
    want[3] = usum;
    want[4] = umin;
    want[5] = umax;
    want[6] = uand;
    want[7] = uor;
    want[8] = uxor;
    for (unsigned r = 0; r < 64; r++) {
        if (r % 32u >= 24) {
            continue;
        }
        if (results_are("reduce", r, want, 9)) {
            return 1;
        }
    }
    return 0;
}

/* ---- __syncwarp and __activemask ------------------------------------------------------------- */

/* Each lane writes its word of the warp's part of shared memory, __syncwarp(), then reads its
 * neighbour's: right in every thread order only because the lanes wait for each other. */
__global__ void syncwarp_kernel(unsigned long long *out)
{
    __shared__ unsigned s[128];
    unsigned r = threadIdx.x, lane = r % 32u;
    for (int round = 0; round < 3; round++) {
        s[r] = r * 100u + (unsigned)round;
        __syncwarp();
        unsigned next = s[r - lane + (lane + 1u) % 32u];
        __syncwarp();
        if (lane < 16) { /* half the warp again, with its own mask */
            s[r] = next;
            __syncwarp(0x0000FFFFu);
            next = s[r - lane + (lane + 1u) % 16u];
            __syncwarp(0x0000FFFFu);
        }
        out[3 * r + (unsigned)round] = next;
    }
}

static int test_syncwarp(void)
{
    syncwarp_kernel<<<1, 128>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 3 * 128 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 128; r++) {
        unsigned lane = r % 32u, first = r - lane;
        for (unsigned round = 0; round < 3; round++) {
            unsigned want = (first + (lane + 1u) % 32u) * 100u + round;
            if (lane < 16) {
                unsigned n = first + (lane + 1u) % 16u;
                want = (first + (n - first + 1u) % 32u) * 100u + round;
            }
            if (h_out[3 * r + round] != want) {
                printf("syncwarp: thread %u round %u got %llu, want %u\n", r, round,
                       h_out[3 * r + round], want);
                return 1;
            }
        }
    }
    return 0;
}

/* __activemask: the lanes that call it together. A block of 48 threads: warp 1 has 16 lanes. */
__global__ void activemask_kernel(unsigned long long *out)
{
    unsigned lane = threadIdx.x % 32u;
    unsigned all = __activemask();
    unsigned some = 0;
    if (lane < 10) {
        some = __activemask();
    } else if (lane % 2u) {
        some = __activemask();
    }
    out[threadIdx.x] = ((unsigned long long)all << 32) | some;
}

static int test_activemask(void)
{
    activemask_kernel<<<1, 48>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 48 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 48; r++) {
        unsigned lane = r % 32u;
        unsigned long long all = r < 32 ? 0xFFFFFFFFu : 0x0000FFFFu;
        unsigned long long some = lane < 10        ? 0x3FFu
                                  : lane % 2u == 0 ? 0u
                                  : r < 32         ? 0xAAAAA800u
                                                   : 0x0000A800u;
        unsigned long long want = (all << 32) | some;
        if (h_out[r] != want) {
            printf("activemask: thread %u got 0x%llx, want 0x%llx\n", r, h_out[r], want);
            return 1;
        }
    }
    return 0;
}

/* ---- what the emulation must report ---------------------------------------------------------- */

__global__ void mask_without_caller_kernel(void)
{
    __syncwarp(0xFFFFFFFEu); /* LINE:mask_without_caller */
}

static int test_mask_without_caller(void)
{
    mask_without_caller_kernel<<<1, 32>>>();
    return launch_error() != cudaSuccess ? 3 : 0;
}

__global__ void lane_returned_kernel(unsigned long long *out)
{
    if (threadIdx.x == 31) {
        return;
    }
    out[threadIdx.x] = __shfl_sync(FULL, threadIdx.x, 0); /* LINE:lane_returned */
}

static int test_lane_returned(void)
{
    lane_returned_kernel<<<1, 32>>>(d_out);
    return launch_error() != cudaSuccess ? 3 : 0;
}

__global__ void lane_at_barrier_kernel(unsigned long long *out)
{
    if (threadIdx.x == 5) {
        __syncthreads();
    } else {
        out[threadIdx.x] = __shfl_xor_sync(FULL, threadIdx.x, 1); /* LINE:lane_at_barrier */
    }
}

static int test_lane_at_barrier(void)
{
    lane_at_barrier_kernel<<<1, 32>>>(d_out);
    return launch_error() != cudaSuccess ? 3 : 0;
}

__global__ void different_functions_kernel(unsigned long long *out)
{
    unsigned lane = threadIdx.x % 32u;
    if (lane < 16) {
        out[threadIdx.x] = __ballot_sync(FULL, 1); /* LINE:different_functions */
    } else {
        out[threadIdx.x] = (unsigned)__any_sync(FULL, 1);
    }
}

static int test_different_functions(void)
{
    different_functions_kernel<<<1, 32>>>(d_out);
    return launch_error() != cudaSuccess ? 3 : 0;
}

/* A full mask in a warp the block does not fill: on sm_70 and later the lanes that exist take
 * part (a block of 48 threads: warp 1 has lanes 0-15), so a ballot names them and an inclusive
 * scan with __shfl_up_sync over a block of 16 threads is the scan of its 16 values. */
__global__ void partial_warp_kernel(unsigned long long *out)
{
    unsigned ballot = __ballot_sync(FULL, 1);
    unsigned sum = threadIdx.x + 1u;
    for (unsigned delta = 1; delta < 32; delta *= 2) {
        unsigned up = __shfl_up_sync(FULL, sum, delta);
        if (threadIdx.x % 32u >= delta) {
            sum += up;
        }
    }
    out[threadIdx.x] = ((unsigned long long)ballot << 32) | sum;
}

static int test_partial_warp(void)
{
    unsigned long long h_out[48];
    partial_warp_kernel<<<1, 48>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    for (unsigned r = 0; r < 48; r++) {
        unsigned warp_first = r / 32u * 32u, want_sum = 0;
        for (unsigned t = warp_first; t <= r; t++) {
            want_sum += t + 1u;
        }
        unsigned long long want = ((unsigned long long)(r < 32 ? FULL : 0xFFFFu) << 32) | want_sum;
        if (h_out[r] != want) {
            printf("thread %u of a block of 48: ballot 0x%08x, scan %u; want 0x%08x, %u\n", r,
                   (unsigned)(h_out[r] >> 32), (unsigned)h_out[r], (unsigned)(want >> 32),
                   want_sum);
            return 1;
        }
    }
    return 0;
}

__global__ void bad_width_kernel(unsigned long long *out)
{
    out[threadIdx.x] = __shfl_sync(FULL, threadIdx.x, 0, 12); /* LINE:bad_width */
}

static int test_bad_width(void)
{
    bad_width_kernel<<<1, 32>>>(d_out);
    return launch_error() != cudaSuccess ? 3 : 0;
}

/* Lane 31 spins on a flag nobody sets (polling) while the others wait for it at a shuffle. */
__global__ void lane_spins_kernel(unsigned long long *out)
{
    if (threadIdx.x == 31) {
        while (atomicAdd((unsigned *)&out[63], 0u) == 0u) {
            __nanosleep(100);
        }
    }
    out[threadIdx.x] = __shfl_sync(FULL, threadIdx.x, 0); /* LINE:lane_spins */
}

static int test_lane_spins(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    lane_spins_kernel<<<1, 32>>>(d_out);
    return launch_error() != cudaSuccess ? 3 : 0;
}

/* ---- blocks that wait for each other ----------------------------------------------------------
 * A chain of blocks, each adding its value to the sum of those before it (a look-back of one
 * step): tile t waits until tile t - 1 has published its inclusive sum. */

#define CHAIN_BLOCKS 8u
#define CHAIN_THREADS 64u

/* A chain's state, zeroed before the launch: the counter, each tile's flag and inclusive sum. */
struct chain_state {
    unsigned counter;
    unsigned flag[CHAIN_BLOCKS];
    unsigned sum[CHAIN_BLOCKS];
};

/* Thread 0 takes the block's tile number from the counter (blocks that start first get the
 * lower ones); every thread of the block gets it. */
__device__ unsigned chain_take_tile(chain_state *c)
{
    __shared__ unsigned tile;
    if (threadIdx.x == 0) {
        tile = atomicAdd(&c->counter, 1u);
    }
    __syncthreads();
    return tile;
}

/* Thread 0 publishes tile t's inclusive sum, then (after a fence) its flag, and writes it out. */
__device__ void chain_publish(chain_state *c, unsigned t, unsigned before, unsigned *out)
{
    if (threadIdx.x == 0) {
        volatile chain_state *v = c;
        v->sum[t] = before + t + 1u;
        __threadfence();
        v->flag[t] = 1u;
        out[t] = before + t + 1u;
    }
}

/* Tile numbers from a counter, so that a tile waits only for tiles whose blocks started first;
 * thread 0 spins on its predecessor's flag with plain volatile reads (no poll the scheduler
 * sees: it must preempt it), while the predecessor publishes only after three barriers. */
__global__ void chain_volatile_kernel(chain_state *c, unsigned *out)
{
    unsigned t = chain_take_tile(c), before = 0;
    volatile chain_state *v = c;
    if (threadIdx.x == 0 && t > 0) {
        while (v->flag[t - 1] == 0) {
        }
        before = v->sum[t - 1];
    }
    for (int i = 0; i < 3; i++) {
        __syncthreads();
    }
    chain_publish(c, t, before, out);
}

/* The same with the look-back of Lab 04's single-pass scan: warp 0 polls with a vote and
 * __nanosleep. */
__global__ void chain_polling_kernel(chain_state *c, unsigned *out)
{
    unsigned t = chain_take_tile(c), before = 0;
    volatile chain_state *v = c;
    if (threadIdx.x < 32 && t > 0) {
        for (;;) {
            unsigned ready = v->flag[t - 1];
            if (__all_sync(FULL, ready != 0)) {
                break;
            }
            __nanosleep(64);
        }
        before = v->sum[t - 1];
    }
    __syncthreads();
    chain_publish(c, t, before, out);
}

/* The tile is blockIdx.x: right only if blocks start in index order, which CUDA does not
 * promise. The emulation starts them in the order of the run: forward passes, reverse is a
 * deadlock (block 7 waits for block 6, ..., and the last started for one not started). */
__global__ void chain_blockidx_kernel(chain_state *c, unsigned *out)
{
    unsigned t = blockIdx.x, before = 0;
    volatile chain_state *v = c;
    if (threadIdx.x == 0 && t > 0) {
        while (atomicAdd(&c->flag[t - 1], 0u) == 0u) {
            __nanosleep(64); /* LINE:chain_blockidx */
        }
        before = v->sum[t - 1];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        v->sum[t] = before + t + 1u;
        __threadfence();
        atomicExch(&c->flag[t], 1u);
        out[t] = before + t + 1u;
    }
}

/* The same with a volatile spin: the scheduler preempts the spinning threads, and the watchdog
 * ends the launch, naming the loop and the blocks that have not started. */
__global__ void chain_blockidx_volatile_kernel(chain_state *c, unsigned *out)
{
    unsigned t = blockIdx.x, before = 0;
    volatile chain_state *v = c;
    if (threadIdx.x == 0 && t > 0) {
        while (v->flag[t - 1] == 0) { /* LINE:chain_blockidx_volatile */
        }
        before = v->sum[t - 1];
    }
    __syncthreads();
    chain_publish(c, t, before, out);
}

static int run_chain(void (*kernel)(chain_state *, unsigned *))
{
    unsigned *d = NULL, h[CHAIN_BLOCKS];
    chain_state *c = NULL;
    cudaMalloc((void **)&d, sizeof h);
    cudaMalloc((void **)&c, sizeof *c);
    cudaMemset(c, 0, sizeof *c);
    kernel<<<CHAIN_BLOCKS, CHAIN_THREADS>>>(c, d);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    cudaFree(c);
    for (unsigned t = 0; t < CHAIN_BLOCKS; t++) {
        unsigned want = (t + 1u) * (t + 2u) / 2u;
        if (h[t] != want) {
            printf("chain: tile %u got %u, want %u\n", t, h[t], want);
            return 1;
        }
    }
    return 0;
}

static int test_chain_volatile(void)
{
    return run_chain(chain_volatile_kernel);
}

static int test_chain_polling(void)
{
    return run_chain(chain_polling_kernel);
}

static int test_chain_blockidx(void)
{
    return run_chain(chain_blockidx_kernel);
}

static int test_chain_blockidx_volatile(void)
{
    return run_chain(chain_blockidx_volatile_kernel);
}

/* ---- launches from device code (dynamic parallelism) ------------------------------------------
 * The host's one wait covers every grid the tree launches; a launch's error is the launching
 * thread's cudaGetLastError(). */

__global__ void dp_square_kernel(unsigned long long *out, unsigned i)
{
    out[i] = (unsigned long long)i * i;
}

/* Thread t launches a child for index t into fire-and-forget: out[t] = t * t, out[64 + t] its
 * launch's error. */
__global__ void dp_fire_and_forget_kernel(unsigned long long *out)
{
    dp_square_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(out, threadIdx.x);
    out[64 + threadIdx.x] = (unsigned long long)cudaGetLastError();
}

static int test_dp_fire_and_forget(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    dp_fire_and_forget_kernel<<<1, 32>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 96 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned t = 0; t < 32; t++) {
        if (h_out[t] != (unsigned long long)t * t || h_out[64 + t] != 0) {
            printf("fire and forget: child %u wrote %llu (want %u), its launch gave error %llu\n",
                   t, h_out[t], t * t, h_out[64 + t]);
            return 1;
        }
    }
    return 0;
}

__global__ void dp_write_kernel(unsigned long long *out, unsigned at, unsigned long long value)
{
    out[at] = value;
}

__global__ void dp_add_one_kernel(unsigned long long *out, unsigned to, unsigned from)
{
    out[to] = out[from] + 1u;
}

/* Two tail launches made first, a fire-and-forget child after them: the tails run after the
 * child (the grid is complete only with its children), in the order they were made. */
__global__ void dp_tail_kernel(unsigned long long *out)
{
    dp_add_one_kernel<<<1, 1, 0, cudaStreamTailLaunch>>>(out, 1, 0);
    dp_add_one_kernel<<<1, 1, 0, cudaStreamTailLaunch>>>(out, 2, 1);
    dp_write_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(out, 0, 41);
}

static int test_dp_tail(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    dp_tail_kernel<<<1, 1>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 3 * sizeof *h_out, cudaMemcpyDeviceToHost);
    if (h_out[0] != 41 || h_out[1] != 42 || h_out[2] != 43) {
        printf("tail launches: got %llu %llu %llu, want 41 42 43\n", h_out[0], h_out[1], h_out[2]);
        return 1;
    }
    return 0;
}

/* Thread 0 of each block launches two grids into the NULL stream: the block's stream runs them
 * in order, so the second reads what the first wrote. */
__global__ void dp_block_stream_kernel(unsigned long long *out)
{
    if (threadIdx.x == 0) {
        dp_write_kernel<<<1, 1>>>(out, blockIdx.x, 5u + blockIdx.x);
        dp_add_one_kernel<<<1, 1>>>(out, 8u + blockIdx.x, blockIdx.x);
    }
}

static int test_dp_block_stream(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    dp_block_stream_kernel<<<8, 32>>>(d_out);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 16 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned b = 0; b < 8; b++) {
        if (h_out[b] != 5u + b || h_out[8 + b] != 6u + b) {
            printf("NULL stream of block %u: got %llu then %llu, want %u then %u\n", b, h_out[b],
                   h_out[8 + b], 5u + b, 6u + b);
            return 1;
        }
    }
    return 0;
}

/* One thread launches 12 children with the pending-launch limit at 4: out[i] = 1 from child i,
 * out[16 + i] launch i's error. In the emulation children start only after their parent ended,
 * so exactly the first 4 launches succeed; on a GPU children may start sooner and free their
 * places, so at least 4 do, and every other fails with cudaErrorLaunchPendingCountExceeded. */
#define DP_LIMIT 4u
#define DP_LAUNCHES 12u

__global__ void dp_pending_kernel(unsigned long long *out)
{
    for (unsigned i = 0; i < DP_LAUNCHES; i++) {
        dp_write_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(out, i, 1u);
        out[16 + i] = (unsigned long long)cudaGetLastError();
    }
}

static int test_dp_pending_limit(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, DP_LIMIT) != cudaSuccess) {
        return 3;
    }
    dp_pending_kernel<<<1, 1>>>(d_out);
    cudaError_t err = launch_error();
    cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048);
    if (err != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 32 * sizeof *h_out, cudaMemcpyDeviceToHost);
    unsigned launched = 0;
    for (unsigned i = 0; i < DP_LAUNCHES; i++) {
        int ok = h_out[16 + i] == cudaSuccess;
        launched += ok;
        if (ok != (h_out[i] == 1u) ||
            (!ok && h_out[16 + i] != cudaErrorLaunchPendingCountExceeded)) {
            printf("pending limit: launch %u gave error %llu and its child wrote %llu\n", i,
                   h_out[16 + i], h_out[i]);
            return 1;
        }
#ifndef __NVCC__
        if (ok != (i < DP_LIMIT)) {
            printf("pending limit %u: launch %u %s (the emulation starts no child before its "
                   "parent ends: the first %u succeed, the others fail)\n",
                   DP_LIMIT, i, ok ? "succeeded" : "failed", DP_LIMIT);
            return 1;
        }
#endif
    }
    if (launched < DP_LIMIT) {
        printf("pending limit %u: only %u launches succeeded\n", DP_LIMIT, launched);
        return 1;
    }
    return 0;
}

/* A chain of 32 grids, each launching the next: out[d] = 1 at depth d, out[32 + d] the error of
 * its launch of depth d + 1. Every launch succeeds: an H100 with CUDA 13 ran it, past the
 * nesting depth of 24 the programming guide names. */
__global__ void dp_depth_kernel(unsigned long long *out, unsigned depth)
{
    out[depth] = 1u;
    if (depth < 31) {
        dp_depth_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(out, depth + 1);
        out[32 + depth] = (unsigned long long)cudaGetLastError();
    }
}

static int test_dp_depth(void)
{
    cudaMemset(d_out, 0, sizeof h_out);
    dp_depth_kernel<<<1, 1>>>(d_out, 0);
    if (launch_error() != cudaSuccess) {
        return 3;
    }
    cudaMemcpy(h_out, d_out, 64 * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (unsigned d = 0; d < 32; d++) {
        if (h_out[d] != 1u || (d < 31 && h_out[32 + d] != cudaSuccess)) {
            printf("depth: the grid at depth %u %s, its launch of the next gave error %llu\n", d,
                   h_out[d] == 1u ? "ran" : "did not run", d < 31 ? h_out[32 + d] : 0ull);
            return 1;
        }
    }
    return 0;
}

/* A child that faults (a barrier half its threads never reach): the host's wait reports it. */
__global__ void dp_divergent_child_kernel(void)
{
    if (threadIdx.x < 16) {
        __syncthreads(); /* LINE:dp_child_fault */
    }
}

__global__ void dp_child_fault_kernel(void)
{
    dp_divergent_child_kernel<<<1, 32, 0, cudaStreamFireAndForget>>>();
}

static int test_dp_child_fault(void)
{
    dp_child_fault_kernel<<<1, 1>>>();
    return launch_error() != cudaSuccess ? 3 : 0;
}

/* cudaDeviceSynchronize() in device code: CUDA 12 removed it (nvcc refuses it with -rdc). */
#ifndef __NVCC__
__global__ void dp_device_sync_kernel(void)
{
    dp_square_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(NULL, 0);
    cudaDeviceSynchronize();
}
#endif

static int test_dp_device_sync(void)
{
#ifndef __NVCC__
    dp_device_sync_kernel<<<1, 1>>>();
#endif
    return launch_error() != cudaSuccess ? 3 : 0;
}

/* ---- the cases ------------------------------------------------------------------------------- */

struct test_case {
    const char *name;
    int (*run)(void);
    const char *reports; /* what the report must say ("a|b": both), or NULL: results checked */
    const char *orders;  /* where it must report it: "all", or the one order that does */
};

static const struct test_case cases[] = {
    {"shuffles", test_shuffles, NULL, NULL},
    {"half_masks", test_half_masks, NULL, NULL},
    {"outside_mask", test_outside_mask, NULL, NULL},
    {"votes", test_votes, NULL, NULL},
    {"match", test_match, NULL, NULL},
    {"reduce", test_reduce, NULL, NULL},
    {"syncwarp", test_syncwarp, NULL, NULL},
    {"activemask", test_activemask, NULL, NULL},
    {"mask_without_caller", test_mask_without_caller,
     "__syncwarp with mask 0xfffffffe, which leaves out the calling lane (lane 0 of warp 0)",
     "all"},
    {"lane_returned", test_lane_returned, "lane 31 of warp 0|it never gets there", "all"},
    {"lane_at_barrier", test_lane_at_barrier, "lane 5 of warp 0|__syncthreads", "all"},
    {"different_functions", test_different_functions, "each waits for the other", "all"},
    {"partial_warp", test_partial_warp, NULL, NULL},
    {"bad_width", test_bad_width, "__shfl_sync with width 12", "all"},
    {"lane_spins", test_lane_spins, "deadlock|wait at __shfl_sync|thread 31 spin: polled with",
     "all"},
    {"chain_volatile", test_chain_volatile, NULL, NULL},
    {"chain_polling", test_chain_polling, NULL, NULL},
    {"chain_blockidx", test_chain_blockidx,
     "deadlock|have not started|take a tile number from an atomic counter", "reverse"},
    {"chain_blockidx_volatile", test_chain_blockidx_volatile,
     "KIT_EMU_TIMEOUT|preempted it again and again|have not started", "reverse"},
    {"dp_fire_and_forget", test_dp_fire_and_forget, NULL, NULL},
    {"dp_tail", test_dp_tail, NULL, NULL},
    {"dp_block_stream", test_dp_block_stream, NULL, NULL},
    {"dp_pending_limit", test_dp_pending_limit, NULL, NULL},
    {"dp_depth", test_dp_depth, NULL, NULL},
    {"dp_child_fault", test_dp_child_fault, "dp_divergent_child_kernel|__syncthreads", "all"},
    {"dp_device_sync", test_dp_device_sync, "CUDA 12 removed it", "all"},
};

int main(int argc, char **argv)
{
    size_t count = sizeof cases / sizeof cases[0];
    if (argc == 2 && strcmp(argv[1], "-l") == 0) {
        for (size_t i = 0; i < count; i++) {
            printf("%s\t%s\t%s\n", cases[i].name, cases[i].reports ? cases[i].reports : "-",
                   cases[i].orders ? cases[i].orders : "-");
        }
        return 0;
    }
    for (size_t i = 0; argc == 2 && i < count; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cudaMalloc((void **)&d_out, sizeof h_out);
            return cases[i].run();
        }
    }
    fprintf(stderr, "usage: %s -l | CASE\n", argv[0]);
    return 2;
}
