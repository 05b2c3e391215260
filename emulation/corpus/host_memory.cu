/*
 * Host memory as CUDA's samples use it: managed memory (cudaMallocManaged) written by the host
 * and read by a kernel without a copy; a pitched 2D array (cudaMallocPitch, cudaMemcpy2D,
 * cudaMemset2D); pinned host memory mapped for the device (cudaHostAlloc with
 * cudaHostAllocMapped, cudaHostGetDevicePointer) and registered memory (cudaHostRegister);
 * host functions in a stream's order (cudaLaunchHostFunc, cudaStreamAddCallback). Exit 0 when
 * every result is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Doubles each of n values in place. */
__global__ void twice(int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] *= 2;
    }
}

/* Adds its column number to each element of a width x height array with rows `pitch` bytes
 * apart: one thread per element, (x, y) from a 2D grid. */
__global__ void add_column(float *rows, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float *row = (float *)((char *)rows + y * pitch);
        row[x] += (float)x;
    }
}

static int failures = 0;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("wrong: %s\n", what);
        failures++;
    }
}

/* The stream's host functions record the order they ran in. */
static int order[2], ran = 0;

static void host_function(void *data)
{
    order[ran++] = *(int *)data;
}

static void callback(cudaStream_t, cudaError_t status, void *data)
{
    if (status == cudaSuccess) {
        order[ran++] = *(int *)data;
    }
}

static void managed_memory(void)
{
    const int n = 1000;
    int *values = NULL;
    CHECK(cudaMallocManaged(&values, n * sizeof(int)));
    for (int i = 0; i < n; i++) {
        values[i] = i;
    }
    twice<<<(n + 255) / 256, 256>>>(values, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int right = 1;
    for (int i = 0; i < n; i++) {
        right &= values[i] == 2 * i;
    }
    expect(right, "managed memory doubled by a kernel");
    CHECK(cudaFree(values));
}

static void pitched_array(void)
{
    const int width = 100, height = 37;
    float host[height][width];
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            host[y][x] = (float)(y * 1000);
        }
    }
    float *rows = NULL;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&rows, &pitch, width * sizeof(float), height));
    expect(pitch >= width * sizeof(float), "a pitch at least a row's width");
    CHECK(cudaMemset2D(rows, pitch, 0, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(rows, pitch, host, width * sizeof(float), width * sizeof(float), height,
                       cudaMemcpyHostToDevice));
    dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    add_column<<<grid, block>>>(rows, pitch, width, height);
    CHECK(cudaGetLastError());
    float back[height][width];
    CHECK(cudaMemcpy2D(back, width * sizeof(float), rows, pitch, width * sizeof(float), height,
                       cudaMemcpyDeviceToHost));
    int right = 1;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            right &= back[y][x] == (float)(y * 1000 + x);
        }
    }
    expect(right, "a pitched array through cudaMemcpy2D");
    /* A width past the pitch: two rows or more, a bad pitch; one row, a bad argument (as an
     * H200 answers); cudaMemset2D fills one row whatever its pitch. */
    expect(cudaMemcpy2D(rows, 8, host, width * sizeof(float), 16, 2, cudaMemcpyHostToDevice) ==
               cudaErrorInvalidPitchValue,
           "a width past the pitch refused");
    expect(cudaMemcpy2D(rows, 8, host, width * sizeof(float), 16, 1, cudaMemcpyHostToDevice) ==
               cudaErrorInvalidValue,
           "one row wider than its pitch refused");
    expect(cudaMemset2D(rows, 8, 0, 16, 2) == cudaErrorInvalidValue,
           "a fill of rows wider than their pitch refused");
    expect(cudaMemset2D(rows, 8, 0, 16, 1) == cudaSuccess, "one row filled whatever its pitch");
    cudaGetLastError();
    CHECK(cudaFree(rows));
}

static void mapped_memory(void)
{
    const int n = 512;
    int *host = NULL, *device = NULL;
    CHECK(cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&device, host, 0));
    for (int i = 0; i < n; i++) {
        host[i] = i + 1;
    }
    twice<<<(n + 127) / 128, 128>>>(device, n);
    CHECK(cudaDeviceSynchronize());
    int right = 1;
    for (int i = 0; i < n; i++) {
        right &= host[i] == 2 * (i + 1);
    }
    expect(right, "mapped pinned memory doubled by a kernel");
    CHECK(cudaFreeHost(host));

    int *heap = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        heap[i] = 3;
    }
    CHECK(cudaHostRegister(heap, n * sizeof(int), cudaHostRegisterMapped));
    int *mapped = NULL;
    CHECK(cudaHostGetDevicePointer(&mapped, heap, 0));
    twice<<<(n + 127) / 128, 128>>>(mapped, n);
    CHECK(cudaDeviceSynchronize());
    int again[1];
    CHECK(cudaMemcpy(again, mapped + 7, sizeof(int), cudaMemcpyDeviceToHost));
    expect(heap[0] == 6 && heap[n - 1] == 6 && again[0] == 6, "registered memory doubled");
    expect(cudaHostRegister(heap, n * sizeof(int), 0) == cudaErrorHostMemoryAlreadyRegistered,
           "memory registered twice refused");
    CHECK(cudaHostUnregister(heap));
    expect(cudaHostUnregister(heap) == cudaErrorHostMemoryNotRegistered,
           "memory unregistered twice refused");
    free(heap);
}

static void stream_order(void)
{
    const int n = 256;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int *values = NULL, first = 1, second = 2, host[n];
    CHECK(cudaMalloc(&values, n * sizeof(int)));
    CHECK(cudaMemsetAsync(values, 0, n * sizeof(int), stream));
    CHECK(cudaLaunchHostFunc(stream, host_function, &first));
    twice<<<1, n, 0, stream>>>(values, n);
    CHECK(cudaStreamAddCallback(stream, callback, &second, 0));
    CHECK(cudaMemcpyAsync(host, values, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect(ran == 2 && order[0] == 1 && order[1] == 2, "host functions in the stream's order");
    CHECK(cudaFree(values));
    CHECK(cudaStreamDestroy(stream));
}

int main(void)
{
    managed_memory();
    pitched_array();
    mapped_memory();
    stream_order();
    if (failures) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
