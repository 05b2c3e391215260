/*
 * A quicksort with dynamic parallelism as public samples write it for CUDA 12 and later: one
 * thread partitions a segment (Lomuto, last key as pivot), then launches the two halves, each
 * into a stream it created in device code (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)),
 * and destroys the streams, whose work still runs. Below a small size or a depth limit, a
 * selection sort. Exit 0 when the keys come back sorted and the same keys.
 */
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define MAX_DEPTH 16
#define SMALL 32

__device__ void selection_sort(unsigned *keys, int left, int right)
{
    for (int i = left; i <= right; i++) {
        int min_at = i;
        for (int j = i + 1; j <= right; j++) {
            if (keys[j] < keys[min_at]) {
                min_at = j;
            }
        }
        unsigned t = keys[i];
        keys[i] = keys[min_at];
        keys[min_at] = t;
    }
}

__global__ void quicksort(unsigned *keys, int left, int right, int depth)
{
    if (depth >= MAX_DEPTH || right - left < SMALL) {
        selection_sort(keys, left, right);
        return;
    }
    unsigned pivot = keys[right];
    int store = left;
    for (int i = left; i < right; i++) {
        if (keys[i] < pivot) {
            unsigned t = keys[i];
            keys[i] = keys[store];
            keys[store] = t;
            store++;
        }
    }
    keys[right] = keys[store];
    keys[store] = pivot;

    cudaStream_t low, high;
    cudaStreamCreateWithFlags(&low, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&high, cudaStreamNonBlocking);
    if (left < store - 1) {
        quicksort<<<1, 1, 0, low>>>(keys, left, store - 1, depth + 1);
    }
    if (store + 1 < right) {
        quicksort<<<1, 1, 0, high>>>(keys, store + 1, right, depth + 1);
    }
    cudaStreamDestroy(low);
    cudaStreamDestroy(high);
}

static int compare_keys(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const int n = 5000;
    unsigned *keys = (unsigned *)malloc(n * sizeof *keys);
    unsigned *want = (unsigned *)malloc(n * sizeof *want);
    unsigned state = 12345;
    for (int i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        keys[i] = want[i] = state >> 8;
    }
    qsort(want, n, sizeof *want, compare_keys);
    unsigned *d_keys;
    CHECK(cudaMalloc(&d_keys, n * sizeof *d_keys));
    CHECK(cudaMemcpy(d_keys, keys, n * sizeof *keys, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4096));
    quicksort<<<1, 1>>>(d_keys, 0, n - 1, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(keys, d_keys, n * sizeof *keys, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        if (keys[i] != want[i]) {
            printf("index %d: %u, want %u\n", i, keys[i], want[i]);
            return 1;
        }
    }
    printf("ok\n");
    return 0;
}
