/* Fixture lab 93's API as a graded test reaches it (see grading/runtime/remote_api.h). */
#include "remote_api.h"
#include "sandbox.h"

KIT_REMOTE_ARRAY_FN(size_t, sandbox_count, int)
