# GPU Sorting Lab Kit: the one entry point. `make help` lists the targets, by who runs them.
#
# Building and running are separate steps: `make` builds everything on any machine with the
# CUDA Toolkit (no GPU needed); the binaries link CUnit and the CUDA runtime statically, so
# a GPU node needs only the NVIDIA driver to run them.
#
# This file holds the settings every part shares and the top targets (all, check, help,
# clean); the rules live beside what they build, one concern a file:
#   common/common.mk     how the kit compiles; common/'s library
#   tests/tests.mk       the runner, the kit's own tests and the checks that run them
#   labs/labs.mk         each lab's objects, test binaries and drivers (student and solution)
#   grading/grading.mk   the grader: what it links a student's file with, grade, its own tests
#   tools/tools.mk       the kit's tools: deps, skeletons, layout check, GPU-host check, handout
#   docs/docs.mk         the Doxygen site

SHELL := /bin/bash
BUILD ?= build
# gcc unless the user names another (make's own default, cc, would make `CC ?=` a no-op).
ifeq ($(origin CC),default)
CC := gcc
endif
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

# A lab's folder NN-name: the name, and the id of its tests (test_NN_name).
lab_name = $(word 2,$(subst -, ,$(1)))
lab_id = $(subst -,_,$(1))

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
lab_files = labs/$(1)/$(call lab_name,$(1)).h labs/$(1)/$(call lab_name,$(1)).cu \
            labs/$(1)/$(call lab_name,$(1))_main.c labs/$(1)/README.md \
            tests/test_$(subst -,_,$(1)).c grading/calls/api_$(subst -,_,$(1)).c \
            $(if $(HAVE_SOLUTIONS),solutions/$(1)/$(call lab_name,$(1)).cu)
MISSING_LAB_FILES := $(foreach l,$(LABS_ALL),$(filter-out $(wildcard $(call lab_files,$(l))),\
                       $(call lab_files,$(l))))
ifneq ($(strip $(MISSING_LAB_FILES)),)
$(error a lab lacks files every lab needs: $(strip $(MISSING_LAB_FILES)) (docs/instructor.md, "A new lab", lists them))
endif
# A lab's own build settings, in one place it owns: labs/NN-name/lab.mk (Lab 05's -rdc=true as
# NVCCFLAGS_05-quicksort, which grading.env hands to the grader too).
-include $(wildcard labs/*/lab.mk)

# The kit's own flags. A user's CFLAGS and NVCCFLAGS, from the command line or the
# environment, come after them (`make NVCCFLAGS="-Xptxas -v" LAB=03`: the last of two
# contradicting flags wins), and a change of either rebuilds what they compile
# ($(BUILD)/flags/, common/common.mk). The grader compiles with the kit's alone.
KIT_INCLUDES := -Icommon -I$(CUDA_HOME)/include
KIT_CFLAGS := -O2 -g -std=c11 -Wall -Wextra $(KIT_INCLUDES)
KIT_NVCCFLAGS := -O3 -lineinfo -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -Icommon
CFLAGS ?=
NVCCFLAGS ?=
CUNIT_LIB := $(shell $(CC) -print-file-name=libcunit.a)
LDLIBS := -lm

# Every target a person runs; `make help` lists each (tools/check_layout.py checks it does).
.PHONY: all help clean check deps grade docs check-host check-lab-suites check-skeletons \
        check-layout check-format format check-quick check-grader check-slurm check-handout check-gradescope skeletons \
        gpu-check bench-report handout gradescope gradescope-check docs-images docs-performance emulate \
        emulate-parts emulate-driver check-emulate check-emulate-configs bench-emulate ptxas FORCE
.DEFAULT_GOAL := all

# Grouped by who runs a target. The student package (no solutions/) lists the students' only.
help:
	@echo "GPU Sorting Lab Kit. Labs: $(LABS_ALL)"
	@echo "Variables: LAB=01 (one lab)  CUDA_ARCH=sm_90|native (one GPU; default: a fat binary)"
	@echo "           NVCCFLAGS=... CFLAGS=... (added after the kit's own; a change rebuilds)"
	@echo ""
	@echo "Students (and everyone):"
	@echo "  make                  build everything: common/, $(if $(HAVE_SOLUTIONS),both variants of each lab (student and reference),each lab (your version)), tests, tools"
	@echo "                        (faster: make LAB=04 CUDA_ARCH=native builds one lab for this machine's GPU)"
	@echo "  make grade            grade labs/ in place (needs an NVIDIA GPU; without one it checks that each"
	@echo "                        file compiles and calls only what its lab allows, runs the suites that"
	@echo "                        need no GPU, and the [emulate] tests; the grader then exits 3, make 2)"
	@echo "  make check-host       build, then run what needs no GPU: common/'s host suites and build checks"
	@echo "  make ptxas LAB=03     each kernel of your lab file: registers, spills, shared memory (ptxas -v)"
	@echo "  make emulate          without a GPU: your labs' [emulate] tests on the CPU emulation, every"
	@echo "                        thread order (feedback, no points; emulation/README.md)"
	@echo "  make emulate-driver LAB=01 ARGS=\"-n 1000 --check\"   without a GPU: your lab's driver on the"
	@echo "                        emulation, on an input you pick (--check, --trace; no --bench)"
	@echo "  make docs             the handouts and the API as a site: $(BUILD)/docs/html/index.html"
	@echo "  make deps             install CUnit, bubblewrap, Doxygen, Graphviz, MathJax, gnuplot, libclang,"
	@echo "                        Boost.Context (apt, as root: tools/deps.sh says what each is for)"
	@echo "  make clean            remove $(BUILD)/"
	@echo "  make help             this list"
ifneq ($(HAVE_SOLUTIONS),)
	@echo ""
	@echo "Instructors:"
	@echo "  make skeletons        rewrite labs/NN/name.cu from solutions/NN/name.cu"
	@echo "  make handout          the student package, $(BUILD)/handout/gpu-sorting-kit.tar.gz"
	@echo "  make gradescope       Gradescope's autograder, $(BUILD)/gradescope/autograder.zip"
	@echo "  make gradescope-check GRADESCOPE_CONFIG=FILE: does the course's GPU host answer and grade?"
	@echo "  make gpu-check        on a GPU host: every GPU suite, sanitizers, grading, fixtures, benchmarks"
	@echo "                        (GPU_CHECK_STEPS=tests,sanitize,drivers,grade,emulation,fixtures,bench picks)"
	@echo "  make bench-report     charts and a table from bench rows (BENCH_CSV=FILE...; default gpu-check's)"
	@echo "  (grading/grade --help: grade a submission or a whole class, locally or on Slurm)"
	@echo ""
	@echo "Kit maintainers (make check runs every check-* below: the builds, then two lanes at once):"
	@echo "  make check            the kit's own tests: installs what it needs (apt), then the checks below"
	@echo "  make check-quick      after a change: form, maps, skeletons, host suites, grader intake, Lab 01"
	@echo "                        emulated (under 3 minutes, no root; CONTRIBUTING.md)"
	@echo "  make check-format     C/CUDA in .clang-format's form, Python in black's, pyflakes clean"
	@echo "  make format           rewrite the files check-format names (clang-format, black)"
	@echo "  make check-layout     the layout maps and this help name what is there"
	@echo "  make check-host       (above) also part of make check"
	@echo "  make check-skeletons  the committed skeletons are what solutions/ gives"
	@echo "  make docs             (above) warnings are errors, links checked"
	@echo "  make check-grader     the grader's own tests on a fixture kit (no GPU)"
	@echo "  make check-slurm      class grading through a one-node Slurm cluster (root; installs Slurm)"
	@echo "  make check-handout    build and try the student package in a fresh folder"
	@echo "  make check-gradescope build and try the Gradescope zip, and its bridge over a local sshd"
	@echo "  make check-lab-suites every lab's suites: solutions pass, skeletons fail (GPU suites on a GPU)"
	@echo "  make docs-images      just the handouts' diagrams; make docs-performance just the Performance page"
	@echo "  make check-emulate    the CPU emulation's acceptance: solutions pass in every thread order,"
	@echo "                        skeletons fail cleanly, planted faults are reported (every lab)"
	@echo "  make bench-emulate    the emulation's costs: a fiber switch, emulated threads per second"
	@echo "  make check-emulate-configs  Lab 01 emulated: gcc, clang, no Boost, PyPI's libclang, macOS's paths"
	@echo "  make emulate-parts    the emulation's prebuilt parts the grader links a file with (no GPU)"
endif

include common/common.mk
include tests/tests.mk
include labs/labs.mk
include tools/tools.mk
include grading/grading.mk
-include docs/docs.mk
-include emulation/emulation.mk

all: $(KIT_TOOLS) $(GRADER_TOOLS) $(BUILD)/test_common $(foreach l,$(LABS),$(call lab_targets,$(l))) \
     $(GRADING_KIT)

# Every step's output also goes to $(BUILD)/check.log, with its time ("check-time:" lines); the
# last lines add up the counts and the times. After the steps that build (in order), two lanes run
# side by side, so that make check takes about 14 minutes on CI's 2 cores, not 18: the CPU-bound
# emulation (which uses every core, KIT_EMU_JOBS) and the handout beside the steps that mostly
# wait (the grader's sandboxes and time limits, Slurm's and sshd's daemons, which install their
# packages one after the other in this lane); the second lane's lines come after the first's. The emulation's watchdog counts CPU time, and the grader's tests measure what they time
# from outside, so neither lane's load makes the other fail.
check:
	@mkdir -p $(BUILD); set -o pipefail; start=$$(date +%s); \
	step() { local TIMEFORMAT="check-time: $$1 %0R s (cpu %0U + %0S s)"; \
	         time $(MAKE) --no-print-directory "$$@"; }; \
	{ step deps && \
	  step check-format && \
	  step check-layout && \
	  step check-host && \
	  step check-skeletons && \
	  step docs && \
	  $(if $(HAVE_SOLUTIONS),step emulate-parts &&) \
	  { { step check-grader && \
	      step check-slurm && \
	      step check-gradescope; } > $(BUILD)/check-lane2.log 2>&1 & lane2=$$!; \
	    $(if $(HAVE_SOLUTIONS),step check-emulate &&) \
	    step check-handout && \
	    step check-lab-suites; lane1=$$?; \
	    wait $$lane2; lane2=$$?; \
	    echo "---- make check's second lane (run beside the first): the grader, Slurm, Gradescope"; \
	    cat $(BUILD)/check-lane2.log; \
	    [ $$lane1 -eq 0 ] && [ $$lane2 -eq 0 ]; }; } 2>&1 | tee $(BUILD)/check.log; \
	status=$$?; bash tools/check_summary.sh $(BUILD)/check.log; \
	echo "check: $$(( $$(date +%s) - start )) s in all"; exit $$status

# What a change most often breaks, in under 3 minutes on 2 cores with nothing installed as root
# and no service started (CONTRIBUTING.md): the form, the maps, the skeletons, the build and the
# host suites, the grader's intake tests, and Lab 01's emulated tests in one thread order.
check-quick:
	@set -o pipefail; start=$$(date +%s); \
	$(MAKE) --no-print-directory check-format && \
	$(MAKE) --no-print-directory check-layout && \
	$(MAKE) --no-print-directory check-skeletons && \
	$(MAKE) --no-print-directory check-host && \
	python3 grading/tests/test_intake.py --build $(BUILD) && \
	$(if $(HAVE_SOLUTIONS),$(MAKE) --no-print-directory emulate LAB=01 EMU_VARIANT=solution EMU_ORDERS=forward &&) \
	echo "check-quick: passed in $$(( $$(date +%s) - start )) s (make check runs everything)"

clean:
	rm -rf $(BUILD)

FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
