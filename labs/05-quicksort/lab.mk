# Lab 05's build flags, read by the Makefile (its -include of labs/*/lab.mk) and written by it
# to build/grading.env, which the grader reads to compile and link a student's quicksort.cu.
# Dynamic parallelism (kernels that launch kernels) needs relocatable device code on every
# object that holds such a kernel, and the device runtime (cudadevrt) at the link: nvcc links
# it by itself when -rdc=true is on the link line, which the Makefile and the grader both do.
NVCCFLAGS_05-quicksort := -rdc=true

# The seed article's quicksort, run correctly (solutions/05-quicksort/seed_quicksort.cu): a
# baseline of `quicksort --bench` only, never the student's file, and only in the instructor's
# kit (its CUDA 12 fixes are what TODO 5.1 teaches, so the student package leaves it out).
# Compiled with the lab's flags and linked into both variants of the lab's driver
# (quicksort_main.c refers to it weakly: without it, and in the grader's timed driver, the
# driver still links and --bench leaves the seed's column out).
SEED_QUICKSORT_SRC := $(wildcard solutions/05-quicksort/seed_quicksort.cu)
ifneq ($(SEED_QUICKSORT_SRC),)
SEED_QUICKSORT_OBJ := $(BUILD)/obj/solutions/05-quicksort/seed_quicksort.o
$(SEED_QUICKSORT_OBJ): KIT_NVCCFLAGS += $(NVCCFLAGS_05-quicksort)
$(BUILD)/solution/bin/quicksort $(BUILD)/student/bin/quicksort: $(SEED_QUICKSORT_OBJ)
endif
