# GPU Sorting Lab Kit: the one entry point. `make help` lists the targets.
#
# Building and running are separate steps: `make` builds everything on any machine with the
# CUDA Toolkit (no GPU needed); the binaries link CUnit and the CUDA runtime statically, so
# a GPU node needs only the NVIDIA driver to run them.

SHELL := /bin/bash
BUILD ?= build
CC ?= gcc
CUDA_HOME ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
NVCC ?= $(CUDA_HOME)/bin/nvcc

# Which GPUs to build for. The default is the fat list: machine code for every architecture
# CUDA 12/13 supports from sm_75 up, plus PTX of the newest so newer GPUs can run it too.
# `native` builds for the GPU of this machine only (it silently falls back when there is
# none, so it is never the default); `sm_90` and friends build for one architecture.
CUDA_ARCH ?= all
ifeq ($(CUDA_ARCH),all)
GENCODE := $(foreach a,75 80 86 89,-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_90,code=[sm_90,compute_90]
else
GENCODE := -arch=$(CUDA_ARCH)
endif

# LAB=01 restricts lab targets (build, grade, GPU checks) to one lab.
LAB ?=
LABS_ALL := $(sort $(notdir $(wildcard labs/[0-9][0-9]-*)))
# The student package (make handout) has no solutions/: then there is no reference variant,
# no skeleton check and no speed points, and everything else works the same.
HAVE_SOLUTIONS := $(if $(wildcard solutions/[0-9][0-9]-*),yes,)
VARIANTS := $(if $(HAVE_SOLUTIONS),solution student,student)
LABS := $(if $(LAB),$(filter $(LAB)-% $(LAB),$(LABS_ALL)),$(LABS_ALL))
ifeq ($(strip $(LABS)),)
$(error LAB=$(LAB) matches no lab; labs: $(LABS_ALL))
endif
# The files every lab must have (docs/instructor.md, "A new lab"): one missing stops make
# with a sentence that names it, not with "No rule to make target".
lab_files = labs/$(1)/$(word 2,$(subst -, ,$(1))).h labs/$(1)/$(word 2,$(subst -, ,$(1))).cu \
            labs/$(1)/$(word 2,$(subst -, ,$(1)))_main.c labs/$(1)/README.md \
            tests/test_$(subst -,_,$(1)).c tests/api_$(subst -,_,$(1)).c \
            $(if $(HAVE_SOLUTIONS),solutions/$(1)/$(word 2,$(subst -, ,$(1))).cu)
MISSING_LAB_FILES := $(foreach l,$(LABS_ALL),$(filter-out $(wildcard $(call lab_files,$(l))),\
                       $(call lab_files,$(l))))
ifneq ($(strip $(MISSING_LAB_FILES)),)
$(error a lab lacks files every lab needs: $(strip $(MISSING_LAB_FILES)) (docs/instructor.md, "A new lab", lists them))
endif
# A lab's own build settings, in one place it owns: labs/NN-name/lab.mk (Lab 05's -rdc=true as
# NVCCFLAGS_05-quicksort, which grading.env hands to the grader too).
-include $(wildcard labs/*/lab.mk)

KIT_INCLUDES := -Icommon -I$(CUDA_HOME)/include
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra $(KIT_INCLUDES)
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -Icommon
CUNIT_LIB := $(shell $(CC) -print-file-name=libcunit.a)
LDLIBS := -lm

COMMON_C := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_C:%.c=$(BUILD)/obj/%.o)
KIT_LIB := $(BUILD)/lib/libkit.a
BASELINES_OBJ := $(BUILD)/obj/common/baselines.o
RUNNER_OBJ := $(BUILD)/obj/tests/runner.o
HARNESS_OBJ := $(BUILD)/obj/tests/gpu_harness.o
# merge_path_diagram draws Lab 02's merge path (its handout shows the command, and the
# site's figure is drawn with it: docs/docs.mk).
TOOLS := $(BUILD)/tools/skeleton $(BUILD)/tools/gpu_probe $(BUILD)/tools/sandbox_exec \
         $(BUILD)/tools/merge_path_diagram

.PHONY: all help deps check check-host check-skeletons check-gpu check-grader check-slurm \
        skeletons grade \
        docs clean gpu-check bench-report handout gradescope check-handout check-gradescope FORCE \
        emulate check-emulate bench-emulate
.DEFAULT_GOAL := all

help:
	@echo "GPU Sorting Lab Kit. Targets:"
	@echo "  make              build everything: common/, $(if $(HAVE_SOLUTIONS),both variants of each lab (student and reference),each lab (your version)), tests, tools"
	@echo "                    (faster: make LAB=04 CUDA_ARCH=native builds one lab for this machine's GPU)"
	@echo "  make grade        grade labs/ in place (needs an NVIDIA GPU; without one it still checks that"
	@echo "                    each file compiles and calls only what its lab allows, then exits 3)"
	@echo "  make check        the kit's own tests: host suites, skeletons, docs, GPU suites if a GPU"
	@echo "  make docs         the Doxygen site in $(BUILD)/docs/html/index.html"
	@$(if $(HAVE_SOLUTIONS),echo "  make skeletons    instructors: rewrite labs/NN/name.cu from solutions/NN/name.cu")
	@echo "  make gpu-check    on a GPU host: every GPU suite, sanitizers, grading and benchmarks"
	@echo "  make bench-report charts and a table from bench rows (BENCH_CSV=FILE...; default gpu-check's)"
	@echo "  make handout      instructors: the student package, $(BUILD)/handout/gpu-sorting-kit.tar.gz"
	@echo "  make gradescope   instructors: Gradescope's autograder, $(BUILD)/gradescope/autograder.zip"
	@echo "  make deps         install CUnit, Doxygen, Graphviz, MathJax, bubblewrap (apt, as root)"
	@echo "  make check-slurm  class grading through a one-node Slurm cluster (root; installs Slurm)"
	@echo "  make clean        remove $(BUILD)/"
	@echo "Variables: LAB=01 (one lab)  CUDA_ARCH=sm_90|native (one GPU; default: fat binary)"
	@echo "Labs: $(LABS_ALL)"

# ---- tools that must be here ---------------------------------------------------------------
deps:
	@bash tools/deps.sh

# ---- common/ ---------------------------------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(BUILD)/gencode.stamp
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# The GPU architectures the objects were compiled for: rewritten only when CUDA_ARCH changes,
# and every CUDA object depends on it, so `make CUDA_ARCH=sm_90` then `make` rebuilds them fat
# instead of linking sm_90-only code into binaries that other GPUs cannot run.
$(BUILD)/gencode.stamp: FORCE
	@mkdir -p $(@D)
	@echo "$(GENCODE)" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(KIT_LIB): $(COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/test_common: $(RUNNER_OBJ) $(BUILD)/obj/tests/test_common.o \
                      $(BUILD)/obj/tests/keyflip_device.o $(KIT_LIB)
	$(NVCC) $(GENCODE) -o $@ $^ $(CUNIT_LIB) $(LDLIBS)

$(BUILD)/obj/tests/%.o: CFLAGS += -Itests $(foreach l,$(LABS_ALL),-Ilabs/$(l))
$(BUILD)/obj/tests/%.o: NVCCFLAGS += -Itests

# ---- tools -----------------------------------------------------------------------------------
$(BUILD)/tools/skeleton: tools/skeleton.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

# The merge path is drawn from common/merge_path_ref.h, the CPU reference of Lab 02's tests
# (the co-rank of the lab itself is the student's TODO).
$(BUILD)/tools/merge_path_diagram: tools/merge_path_diagram.c common/merge_path_ref.h \
                                   common/exit_codes.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/tools/sandbox_exec: tools/sandbox_exec.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/tools/gpu_probe: $(BUILD)/obj/tools/gpu_probe.o $(KIT_LIB)
	@mkdir -p $(@D)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# ---- labs: one template, instantiated per lab and variant -------------------------------------
# Lab NN-name has the API labs/NN-name/name.h, the student file labs/NN-name/name.cu, the
# reference solution solutions/NN-name/name.cu, the driver labs/NN-name/name_main.c and the
# GPU suites tests/test_NN_name.c. Each variant (solution, student) gives an object, a test
# binary $(BUILD)/VARIANT/test_NN_name and a driver $(BUILD)/VARIANT/bin/name.
lab_name = $(word 2,$(subst -, ,$(1)))
lab_id = $(subst -,_,$(1))
# A lab's hidden suites (instructors only; never in the student package), when there are any.
lab_hidden = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/hidden/test_$(call lab_id,$(1))_hidden.c))
lab_source = $(if $(filter solution,$(2)),solutions,labs)/$(1)/$(call lab_name,$(1)).cu
# A lab may have a second student file for its bonus TODOs, NAME_bonus.cu (so that neither
# file grows past what a student reads in one sitting). The two are compiled as one
# translation unit, NAME.cu first (nvcc -include), since the bonus's kernels call device
# functions of NAME.cu (Lab 04's block scan), which separate objects could reach only as
# relocatable device code, at a cost in registers to every kernel. So everything that links a
# lab, and the grader, still sees one object per lab, compiled as before.
lab_bonus = $(firstword $(wildcard labs/$(1)/$(call lab_name,$(1))_bonus.cu \
                                   solutions/$(1)/$(call lab_name,$(1))_bonus.cu))
lab_bonus_source = $(if $(filter solution,$(2)),solutions,labs)/$(1)/$(call lab_name,$(1))_bonus.cu
# What nvcc -c compiles for a lab: NAME.cu, or NAME_bonus.cu with NAME.cu included first.
lab_compiled = $(if $(call lab_bonus,$(1)),$(call lab_bonus_source,$(1),$(2)) \
                 -include $(call lab_source,$(1),$(2)),$(call lab_source,$(1),$(2)))

define VARIANT_RULES
$(BUILD)/$(2)/obj/$(1).o: $(call lab_source,$(1),$(2)) \
        $(if $(call lab_bonus,$(1)),$(call lab_bonus_source,$(1),$(2))) \
        labs/$(1)/$(call lab_name,$(1)).h $(BUILD)/gencode.stamp
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) $$(NVCCFLAGS_$(1)) -Ilabs/$(1) -MMD -MP -c \
	    $(call lab_compiled,$(1),$(2)) -o $$@

$(BUILD)/$(2)/test_$(call lab_id,$(1)): $(RUNNER_OBJ) $(HARNESS_OBJ) \
        $(BUILD)/obj/tests/test_$(call lab_id,$(1)).o $(call lab_hidden,$(1)) \
        $(BUILD)/$(2)/obj/$(1).o $(KIT_LIB)
	$$(NVCC) $$(GENCODE) $$(NVCCFLAGS_$(1)) -o $$@ $$^ $$(CUNIT_LIB) $$(LDLIBS)

$(BUILD)/$(2)/bin/$(call lab_name,$(1)): $(BUILD)/obj/labs/$(1)/$(call lab_name,$(1))_main.o \
        $(BUILD)/$(2)/obj/$(1).o $(BASELINES_OBJ) $(KIT_LIB)
	@mkdir -p $$(@D)
	$$(NVCC) $$(GENCODE) $$(NVCCFLAGS_$(1)) -o $$@ $$^ $$(LDLIBS)
endef

define LAB_RULES
$(BUILD)/obj/labs/$(1)/%.o: CFLAGS += -Ilabs/$(1)
$(if $(HAVE_SOLUTIONS),$(call VARIANT_RULES,$(1),solution))
$(call VARIANT_RULES,$(1),student)
endef
$(foreach l,$(LABS_ALL),$(eval $(call LAB_RULES,$(l))))

lab_targets = $(foreach v,$(VARIANTS),$(BUILD)/$(v)/test_$(call lab_id,$(1)) \
                $(BUILD)/$(v)/bin/$(call lab_name,$(1)))
SKELETON_PAIRS := $(if $(HAVE_SOLUTIONS),$(foreach l,$(LABS_ALL),$(l)/$(call lab_name,$(l)).cu \
                    $(if $(call lab_bonus,$(l)),$(l)/$(call lab_name,$(l))_bonus.cu)))

# ---- what the grader links a student's file with ---------------------------------------------
# grading/grade compiles only the student's .cu (with the flags below) and links it with these
# prebuilt parts, so a GPU node needs nothing but the driver and the CUDA Toolkit.
#
# A graded test runs in two processes (tests/remote.h): the verdict binary, built here from
# the kit's code alone (runner, suites, verifier, and stubs that send the lab's calls away),
# and an executor the grader links from the student's object, the dispatcher and the lab's
# call table. The timed driver of speed points is split the same way.
SHARED_MEMORY_OBJ := $(BUILD)/obj/tests/shared_memory.o
REMOTE_CLIENT_OBJ := $(BUILD)/obj/tests/remote_client.o $(SHARED_MEMORY_OBJ)
REMOTE_EXECUTOR_OBJ := $(BUILD)/obj/tests/remote_executor.o $(SHARED_MEMORY_OBJ)
GRADING_KIT := $(BUILD)/lib/libcunit.a $(BUILD)/grading.env $(BUILD)/obj/grading/timed_driver.o \
               $(REMOTE_EXECUTOR_OBJ) \
               $(foreach l,$(LABS),$(BUILD)/grading/verdict_$(call lab_id,$(l)) \
                 $(BUILD)/grading/timed_$(call lab_id,$(l)) \
                 $(BUILD)/obj/tests/api_$(call lab_id,$(l)).exec.o)

$(BUILD)/obj/grading/%.o: CFLAGS += -Itests

# The executor's half of a lab's call table: the same file, compiled as the executor's.
$(BUILD)/obj/tests/%.exec.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DKIT_REMOTE_EXECUTOR -MMD -MP -c $< -o $@

define GRADING_RULES
$(BUILD)/grading/verdict_$(call lab_id,$(1)): $(RUNNER_OBJ) $(HARNESS_OBJ) \
        $(BUILD)/obj/tests/test_$(call lab_id,$(1)).o $(call lab_hidden,$(1)) \
        $(BUILD)/obj/tests/api_$(call lab_id,$(1)).o $(REMOTE_CLIENT_OBJ) $(KIT_LIB)
	@mkdir -p $$(@D)
	$$(CC) -o $$@ $$^ $(CUNIT_LIB) $$(LDLIBS)

$(BUILD)/grading/timed_$(call lab_id,$(1)): $(BUILD)/obj/grading/timed_driver.o \
        $(BUILD)/obj/labs/$(1)/$(call lab_name,$(1))_main.o \
        $(BUILD)/obj/tests/api_$(call lab_id,$(1)).o $(REMOTE_CLIENT_OBJ) $(KIT_LIB)
	@mkdir -p $$(@D)
	$$(CC) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach l,$(LABS_ALL),$(eval $(call GRADING_RULES,$(l))))

$(BUILD)/lib/libcunit.a: $(CUNIT_LIB)
	@mkdir -p $(@D)
	cp $< $@

# Rewritten only when a flag changes (CUDA_ARCH=..., a lab's NVCCFLAGS_NN-name).
$(BUILD)/grading.env: FORCE
	@mkdir -p $(@D)
	@{ echo "# Written by make: how grading/grade compiles and links a student's file."; \
	   echo "NVCC=$(NVCC)"; \
	   echo "GENCODE=$(GENCODE)"; \
	   echo "NVCCFLAGS=$(NVCCFLAGS)"; \
	   echo "LDLIBS=$(LDLIBS)"; \
	   $(foreach l,$(LABS_ALL),echo "NVCCFLAGS_$(l)=$(NVCCFLAGS_$(l))";) } > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

all: $(TOOLS) $(BUILD)/test_common $(foreach l,$(LABS),$(call lab_targets,$(l))) $(GRADING_KIT)

# ---- skeletons ---------------------------------------------------------------------------------
skeletons: $(BUILD)/tools/skeleton
	@$(if $(HAVE_SOLUTIONS),,echo "skeletons: no solutions/ here (a student package): nothing to write")
	@for p in $(SKELETON_PAIRS); do \
	  $(BUILD)/tools/skeleton solutions/$$p > labs/$$p.tmp && mv labs/$$p.tmp labs/$$p \
	    && echo "wrote labs/$$p" || { rm -f labs/$$p.tmp; exit 2; }; done

check-skeletons: $(BUILD)/tools/skeleton
	@$(if $(HAVE_SOLUTIONS),,echo "check-skeletons: no solutions/ here (a student package): nothing to check")
	@mkdir -p $(BUILD)/skeletons
	@status=0; for p in $(SKELETON_PAIRS); do \
	  out=$(BUILD)/skeletons/$$(echo $$p | tr / _); \
	  $(BUILD)/tools/skeleton solutions/$$p > $$out || exit 2; \
	  if cmp -s $$out labs/$$p; then echo "skeleton labs/$$p: up to date"; \
	  else echo "skeleton labs/$$p differs from what solutions/$$p gives: run 'make skeletons'"; \
	       diff -u labs/$$p $$out | head -20; status=1; fi; done; exit $$status

# ---- the two commands --------------------------------------------------------------------------
grade:
	@bash tools/deps.sh grade
	@set -o pipefail; \
	  $(MAKE) --no-print-directory $(TOOLS) $(GRADING_KIT) \
	  $(if $(HAVE_SOLUTIONS),$(foreach l,$(LABS),$(BUILD)/solution/obj/$(l).o)) \
	  2>&1 | sed '/is up to date\.$$/d'
	@python3 grading/grade -v --build $(BUILD) --out $(BUILD)/grade/student $(if $(LAB),--lab $(LAB)) labs

# Without a GPU test_common runs its host suites and exits 3 (its GPU suite skipped): that is
# a pass here; check-gpu says what was not run.
check-host: all
	@$(BUILD)/test_common; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 3 ]
	@bash tools/check_build_rules.sh
	@python3 tools/lab_tables.py --check
	@python3 tools/test_bench_report.py

check-gpu: all
	@bash tests/check_gpu.sh $(BUILD) $(LABS)

# Every step's output also goes to $(BUILD)/check.log; the last line adds up the counts.
check:
	@mkdir -p $(BUILD); set -o pipefail; \
	{ $(MAKE) --no-print-directory deps && \
	  $(MAKE) --no-print-directory check-host && \
	  $(MAKE) --no-print-directory check-skeletons && \
	  $(MAKE) --no-print-directory docs && \
	  $(MAKE) --no-print-directory check-grader && \
	  $(MAKE) --no-print-directory check-slurm && \
	  $(MAKE) --no-print-directory check-handout && \
	  $(MAKE) --no-print-directory check-gradescope && \
	  $(MAKE) --no-print-directory check-gpu; } 2>&1 | tee $(BUILD)/check.log; \
	status=$$?; bash tools/check_summary.sh $(BUILD)/check.log; exit $$status

# Class grading through Slurm, on a one-node cluster started for the test (root, no GPU):
# tools/deps.sh slurm installs Debian's slurmctld slurmd slurm-client munge with apt.
check-slurm: all
	@if [ ! -d grading/tests ]; then echo "check-slurm: SKIPPED (no grading/tests here: a student package)"; exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ]; then echo "check-slurm: SKIPPED (not root: the test cluster's daemons run as root)"; exit 0; fi; \
	if ! command -v apt-get >/dev/null && ! bash tools/deps.sh slurm >/dev/null 2>&1; then \
	  echo "check-slurm: SKIPPED (Slurm is not installed and there is no apt-get to install it)"; exit 0; fi; \
	bash tools/deps.sh slurm && python3 grading/tests/test_slurm.py --build $(BUILD)

# The grader's own tests stay with the instructor's kit (not in the student package).
check-grader: all
	@if [ ! -d grading/tests ]; then echo "check-grader: no grading/tests here (a student package)"; exit 0; fi; \
	python3 grading/tests/test_sandbox.py --build $(BUILD) && \
	python3 grading/tests/test_intake.py --build $(BUILD) && \
	python3 grading/tests/test_gpu_fixtures_build.py --build $(BUILD) && \
	python3 grading/tests/test_policy.py --build $(BUILD) && \
	python3 grading/tests/test_hardening.py --build $(BUILD) && \
	python3 grading/tests/test_grader.py --build $(BUILD)

gpu-check: all
	@bash tools/gpu_check.sh $(BUILD) $(LABS)

# Charts and a table from benchmark rows (a driver's --bench --csv FILE; gpu-check writes them
# to $(BUILD)/gpu-check/bench.csv): BENCH_CSV names other files. Needs gnuplot, no GPU.
BENCH_CSV ?= $(BUILD)/gpu-check/bench.csv
bench-report:
	@python3 tools/bench_report.py $(BUILD)/bench-report $(BENCH_CSV)

# ---- what a course hands out (instructors' kit only: they need solutions/) ------------------
handout: docs
	@bash tools/handout/make_handout.sh $(BUILD)

gradescope:
	@python3 tools/gradescope/make_autograder.py $(BUILD)

# Each unpacks what it checks into a fresh folder and builds it there (one architecture).
check-handout:
	@if [ ! -d tools/handout ]; then echo "check-handout: not in a student package"; exit 0; fi; \
	$(MAKE) --no-print-directory handout && python3 tools/handout/check_handout.py $(BUILD)

check-gradescope:
	@if [ ! -d tools/handout ]; then echo "check-gradescope: not in a student package"; exit 0; fi; \
	$(MAKE) --no-print-directory gradescope && python3 tools/gradescope/check_autograder.py $(BUILD)

-include docs/docs.mk
-include emulation/emulation.mk

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
