/* Fixture lab 94's API as a graded test reaches it (see grading/runtime/remote_api.h). */
#include "devcount.h"
#include "remote_api.h"

KIT_REMOTE_FN3(cudaError_t, devcount_zeros, 0, const int *, size_t, unsigned long long *)
KIT_REMOTE_ARRAY_FN(size_t, devcount_zeros_host, int)
