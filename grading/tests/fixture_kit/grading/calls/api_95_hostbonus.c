/* Fixture lab 95's API as a graded test reaches it (see grading/runtime/remote_api.h). */
#include "hostbonus.h"
#include "remote_api.h"

KIT_REMOTE_ARRAY_FN(long long, hostbonus_sum, int)
KIT_REMOTE_ARRAY_FN(long long, hostbonus_sum_squares, int)
