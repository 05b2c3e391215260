# Lab 02's build settings, read by the Makefile (its -include of labs/*/lab.mk).
#
# `mergesort --algo streams`, the driver of the bonus TODO 2.5 (mergesort_streams.c: pinned host
# memory, streams, the copies timed alone), is linked into both variants of the lab's driver
# only. mergesort_main.c refers to it weakly, so the grader's timed driver, which links
# mergesort_main.o without it (and has neither streams nor pinned memory), still links.
MERGESORT_STREAMS_OBJ := $(BUILD)/obj/labs/02-mergesort/mergesort_streams.o
$(BUILD)/solution/bin/mergesort $(BUILD)/student/bin/mergesort: $(MERGESORT_STREAMS_OBJ)
