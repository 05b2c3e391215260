/*
 * A host that waits by its own means, as simpleCallback does: a stream's callback sets a flag the
 * host polls with no CUDA call between (a GPU runs the stream meanwhile); the program's first
 * launch comes from a thread of its own (std::thread), which then ends; and host threads launch
 * into streams of their own at the same time, each then freeing what it used. Exit 0 when every
 * result is right.
 */
#include <atomic>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <thread>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Adds 1 to *count once per thread. */
__global__ void count_threads(int *count)
{
    atomicAdd(count, 1);
}

static std::atomic<int> stream_done{0};

static void CUDART_CB on_done(cudaStream_t, cudaError_t status, void *)
{
    stream_done = status == cudaSuccess ? 1 : -1;
}

int main(void)
{
    int failures = 0;
    int *count = NULL;
    CHECK(cudaMalloc(&count, sizeof(int)));
    CHECK(cudaMemset(count, 0, sizeof(int)));
    CHECK(cudaDeviceSynchronize());

    /* the first launch, from a thread of the program's own */
    cudaError_t from_thread = cudaErrorUnknown;
    std::thread worker([&] {
        count_threads<<<2, 64>>>(count);
        from_thread = cudaDeviceSynchronize();
    });
    worker.join();
    int host = 0;
    CHECK(from_thread);
    CHECK(cudaMemcpy(&host, count, sizeof host, cudaMemcpyDeviceToHost));
    if (host != 128) {
        printf("the thread's launch counted %d threads, want 128\n", host);
        failures++;
    }

    /* a stream the host waits for through its callback alone (at most 10 s) */
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    count_threads<<<4, 32, 0, stream>>>(count);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamAddCallback(stream, on_done, NULL, 0));
    for (int i = 0; i < 1000 && stream_done == 0; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (stream_done != 1) {
        printf("the stream's callback %s while the host waited for it\n",
               stream_done == 0 ? "never ran" : "saw an error");
        failures++;
    }
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(&host, count, sizeof host, cudaMemcpyDeviceToHost));
    if (host != 128 + 128) {
        printf("after the stream's launch: %d threads counted, want 256\n", host);
        failures++;
    }
    CHECK(cudaStreamDestroy(stream));

    /* four host threads at once, each 20 launches of 4 x 32 threads into a stream of its own */
    cudaError_t results[4];
    std::thread workers[4];
    for (int w = 0; w < 4; w++) {
        workers[w] = std::thread([&results, count, w] {
            cudaStream_t own;
            int *scratch = NULL;
            results[w] = cudaStreamCreate(&own);
            for (int i = 0; i < 20 && results[w] == cudaSuccess; i++) {
                count_threads<<<4, 32, 0, own>>>(count);
                results[w] = cudaGetLastError();
            }
            if (results[w] == cudaSuccess) {
                results[w] = cudaMalloc(&scratch, 1024);
            }
            if (results[w] == cudaSuccess) {
                results[w] = cudaStreamSynchronize(own);
            }
            cudaFree(scratch);
            cudaStreamDestroy(own);
        });
    }
    for (int w = 0; w < 4; w++) {
        workers[w].join();
        CHECK(results[w]);
    }
    CHECK(cudaMemcpy(&host, count, sizeof host, cudaMemcpyDeviceToHost));
    if (host != 256 + 4 * 20 * 128) {
        printf("after four host threads' launches: %d threads counted, want %d\n", host,
               256 + 4 * 20 * 128);
        failures++;
    }
    CHECK(cudaFree(count));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
