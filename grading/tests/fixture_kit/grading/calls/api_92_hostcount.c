/* Fixture lab 92's API as a graded test reaches it (see grading/runtime/remote_api.h). */
#include "hostcount.h"
#include "remote_api.h"

KIT_REMOTE_ARRAY_FN(size_t, hostcount_zeros, int)
