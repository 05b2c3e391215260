# Lab 05's build flags, read by the Makefile (its -include of labs/*/lab.mk) and written by it
# to build/grading.env, which the grader reads to compile and link a student's quicksort.cu.
# Dynamic parallelism (kernels that launch kernels) needs relocatable device code on every
# object that holds such a kernel, and the device runtime (cudadevrt) at the link: nvcc links
# it by itself when -rdc=true is on the link line, which the Makefile and the grader both do.
NVCCFLAGS_05-quicksort := -rdc=true

# The seed article's quicksort (seed_quicksort.cu), a baseline of `quicksort --bench` only,
# never the student's file: compiled with the lab's flags and linked into both variants of
# the lab's driver (quicksort_main.c refers to it weakly, so the grader's timed driver, which
# links quicksort_main.o without it, still links).
SEED_QUICKSORT_OBJ := $(BUILD)/obj/labs/05-quicksort/seed_quicksort.o
$(SEED_QUICKSORT_OBJ): NVCCFLAGS += $(NVCCFLAGS_05-quicksort)
$(BUILD)/solution/bin/quicksort $(BUILD)/student/bin/quicksort: $(SEED_QUICKSORT_OBJ)
