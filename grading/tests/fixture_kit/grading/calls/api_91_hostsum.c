/* Fixture lab 91's API as a graded test reaches it (see grading/runtime/remote_api.h). */
#include "hostsum.h"
#include "remote_api.h"

KIT_REMOTE_ARRAY_FN(long long, hostsum_total, int)
KIT_REMOTE_ARRAY_FN(int, hostsum_max, int)
