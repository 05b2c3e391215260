# The CPU emulation of the kit's CUDA (emulation/README.md): every lab's [emulate] tests without
# a GPU or the CUDA Toolkit. Included by the Makefile, which defines BUILD, LABS, lab_name,
# lab_id, HAVE_SOLUTIONS and CUNIT_LIB; nothing here calls nvcc or reads CUDA_HOME.
#
#   make emulate [LAB=NN]        build the labs' files against the emulation and run their
#                                [emulate] tests in every thread order (EMU_VARIANT=solution
#                                runs the reference instead of your file)
#   make check-emulate [LAB=NN]  the emulation's own acceptance: the solution passes in every
#                                order, the skeleton fails cleanly, planted faults are reported
#   make emulate-driver LAB=NN ARGS="..."   the lab's driver (labs/NN-name/name_main.c) with
#                                your file on the emulation: an input you pick, --check, --trace
#   make bench-emulate           the cost of a fiber switch, emulated GPU threads per second
#   make check-emulate-configs   Lab 01's [emulate] suite with gcc, clang, no Boost, PyPI's libclang, portable
#
# Each variant V (solution, student, skeleton, or a planted fault's name) of lab NN-name goes:
#   source -> $(EMU_BUILD)/V/src/NN-name/name.cu      (emulation/cu2cpp.py: <<<>>> and __shared__)
#          -> $(EMU_BUILD)/V/obj/NN-name.o            (the host C++ compiler)
#          -> $(EMU_BUILD)/V/test_NN_name             (with the tests, common/ and the runtime)
# and so does a lab's bonus file name_bonus.cu, next to name.cu, which it is compiled with.
# The source of solution and student is the kit's file; of any other V, the file
# $(EMU_BUILD)/V/orig/NN-name/name.cu (make writes the skeleton's; check_emulation.py the rest).

EMU_BUILD := $(BUILD)/emulate
# The labs the emulation runs so far (issue 28 builds it up lab by lab).
EMU_SUPPORTED := 01-oddeven 02-mergesort 03-bitonic 04-radix 05-quicksort
EMU_LABS := $(filter $(EMU_SUPPORTED),$(LABS))
EMU_PYTHON ?= python3
EMU_CXX ?= g++
EMU_CC ?= gcc
EMU_VARIANT ?= student
# Thread orders of make emulate: each [emulate] test runs once in each (the list:
# emulation/orders.txt, which run_emulated.py and check_emulation.py read too).
EMU_ORDERS ?= $(shell sed -e '/^\#/d' emulation/orders.txt)

# What this machine has (Boost.Context, AddressSanitizer), found once by emulation/configure.sh,
# which stops with the command to run when something is missing: the first step of emulate,
# check-emulate and bench-emulate, which build everything else in a make of their own that
# reads it. (Delete the file to look again.)
ifneq ($(filter $(EMU_BUILD)/%,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(EMU_BUILD)/config.mk),)
$(error $(EMU_BUILD)/config.mk is missing: make emulate writes it (emulation/configure.sh))
endif
include $(EMU_BUILD)/config.mk
endif
EMU_CONFIGURE = @test -f $(EMU_BUILD)/config.mk || { mkdir -p $(EMU_BUILD) && \
    bash emulation/configure.sh $(EMU_CXX) $(EMU_PYTHON) $(EMU_CC) > $(EMU_BUILD)/config.mk.tmp && \
    mv $(EMU_BUILD)/config.mk.tmp $(EMU_BUILD)/config.mk; }

EMU_SAN := $(if $(EMU_SANITIZE),-fsanitize=$(EMU_SANITIZE) $(EMU_SAN_LINK))
EMU_FIBER_FLAGS := $(if $(filter boost,$(EMU_FIBER)),-DKIT_EMU_FIBER_BOOST=1)
# EMU_DEFINES: macros for every emulated object (make emulate LAB=04 BUILD=build-r1
# EMU_DEFINES=-DRADIX_BITS=1, as labs/04-radix/README.md builds a second tree for the GPU).
EMU_DEFINES ?=
EMU_CPPFLAGS := -Iemulation/include -Icommon -Itests -Igrading/runtime $(EMU_DEFINES) \
                $(filter -I%,$(EMU_PREFIX_FLAGS))
# Frame pointers: the watchdog names the line a stopped kernel was at by walking them.
EMU_CFLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra $(EMU_SAN) $(EMU_CPPFLAGS)
EMU_CXXFLAGS := -std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra $(EMU_SAN) $(EMU_CPPFLAGS)
# A .cu file, rewritten: C++, with cuda_runtime.h first, as nvcc does (which does not warn of
# a kernel's unused parameters or of a variable it sets and does not use yet, as a skeleton's
# kernels have, of its own #pragma unroll, nor of a header's static __device__ function that
# a file does not call).
# Student code is built so that the race detector sees every load and store (AddressSanitizer
# calls a function for each, emulation/src/race.cpp), and so that a load stays where the code
# has it: at -O1 the compiler sinks a load into the branch that uses its value, and an
# out-of-bounds load before a bounds check would go unseen (a GPU's memcheck sees it).
# (configure.sh writes both as the compiler spells them: gcc's by default, clang's through
# -mllvm, and no load sinking to turn off in clang.)
EMU_RACE_FLAGS ?= $(if $(EMU_SAN),--param asan-instrumentation-with-call-threshold=0)
EMU_KEEP_LOADS ?= -fno-tree-sink
EMU_CUFLAGS := $(EMU_CXXFLAGS) $(if $(EMU_SAN),$(EMU_RACE_FLAGS)) $(EMU_KEEP_LOADS) -Wno-unused-parameter -Wno-unused-but-set-variable \
               -Wno-unknown-pragmas -Wno-unused-function -D__CUDACC__ -include cuda_runtime.h -x c++
EMU_HEADERS := $(wildcard emulation/include/*.h emulation/include/*/*.h)
EMU_RUNTIME_OBJ := $(patsubst emulation/src/%.cpp,$(EMU_BUILD)/obj/emulation/%.o,\
                     $(wildcard emulation/src/*.cpp))
EMU_KIT_LIB := $(EMU_BUILD)/lib/libkit.a
EMU_COMMON_OBJ := $(patsubst %.c,$(EMU_BUILD)/obj/%.o,$(wildcard common/*.c))
EMU_LINK = $(EMU_CXX) $(EMU_SAN) -o $@ $^ $(or $(EMU_CUNIT_LIB),$(CUNIT_LIB)) \
           $(filter -L%,$(EMU_PREFIX_FLAGS)) $(EMU_FIBER_LIBS) -lm

# Every object depends on the flags it was built with: switching EMU_SANITIZE or the fiber back
# end rebuilds them all instead of linking a mix.
$(EMU_BUILD)/flags.stamp: FORCE
	@mkdir -p $(@D)
	@echo "$(EMU_SAN) $(EMU_FIBER_FLAGS) $(EMU_CXX) $(EMU_CC) $(EMU_DEFINES)" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(EMU_BUILD)/obj/%.o: %.c $(EMU_BUILD)/flags.stamp
	@mkdir -p $(@D)
	$(EMU_CC) $(EMU_CFLAGS) $(foreach l,$(LABS_ALL),-Ilabs/$(l)) -MMD -MP -c $< -o $@

$(EMU_BUILD)/obj/emulation/%.o: emulation/src/%.cpp $(EMU_BUILD)/flags.stamp
	@mkdir -p $(@D)
	$(EMU_CXX) $(EMU_CXXFLAGS) -O2 $(EMU_FIBER_FLAGS) -MMD -MP -c $< -o $@

# Objects the pattern rules make on the way to a test binary: kept (make would delete them).
.PRECIOUS: $(EMU_BUILD)/obj/%.o

$(EMU_KIT_LIB): $(EMU_COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# How variant $(1) of lab $(2) gets file $(3) rewritten, from the folder $(4) that holds its
# source (the kit's file, or the variant's orig/ copy). A bonus file ($(5): NAME.cu) is parsed
# with that folder's NAME.cu first, as nvcc compiles it (the recipe's second prerequisite).
define EMU_REWRITE
$(EMU_BUILD)/$(1)/src/$(2)/$(3): $(4)/$(3) $(if $(5),$(4)/$(5)) emulation/cu2cpp.py $(EMU_HEADERS)
	@mkdir -p $$(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $$@ --depfile $$@.d $(if $(5),--include $$(word 2,$$^)) \
	    -I common -I labs/$(2) $$<
endef

# A lab's rules, for every variant at once (the variant is the pattern's stem). A lab with a
# bonus file (labs.mk's lab_bonus: NAME_bonus.cu) compiles as the Makefile's lab_compiled
# does: one object from NAME_bonus.cu with NAME.cu included first, both rewritten, so that
# messages and reports name the student's own two files.
emu_files = $(call lab_name,$(1)).cu $(if $(call lab_bonus,$(1)),$(call lab_name,$(1))_bonus.cu)
emu_first = $(if $(filter %_bonus.cu,$(2)),$(call lab_name,$(1)).cu)
define EMU_LAB_RULES
$(foreach f,$(call emu_files,$(1)),
$(call EMU_REWRITE,solution,$(1),$(f),solutions/$(1),$(call emu_first,$(1),$(f)))
$(call EMU_REWRITE,student,$(1),$(f),labs/$(1),$(call emu_first,$(1),$(f)))
$(call EMU_REWRITE,%,$(1),$(f),$(EMU_BUILD)/%/orig/$(1),$(call emu_first,$(1),$(f)))

$(EMU_BUILD)/skeleton/orig/$(1)/$(f): solutions/$(1)/$(f) $(BUILD)/tools/skeleton
	@mkdir -p $$(@D)
	$(BUILD)/tools/skeleton $$< > $$@.tmp && mv $$@.tmp $$@
)

$(EMU_BUILD)/%/obj/$(1).o: $(foreach f,$(call emu_files,$(1)),$(EMU_BUILD)/%/src/$(1)/$(f)) \
        $(EMU_BUILD)/flags.stamp
	@mkdir -p $$(@D)
	$(EMU_CXX) $(EMU_CUFLAGS) -Ilabs/$(1) -MMD -MP -c \
	    $(if $(call lab_bonus,$(1)),-include $$< $$(word 2,$$^),$$<) -o $$@

$(EMU_BUILD)/%/test_$(call lab_id,$(1)): $(EMU_BUILD)/obj/tests/runner.o \
        $(EMU_BUILD)/obj/tests/gpu_harness.o $(EMU_BUILD)/obj/tests/test_$(call lab_id,$(1)).o \
        $(EMU_BUILD)/%/obj/$(1).o $(EMU_KIT_LIB) $(EMU_RUNTIME_OBJ)
	$$(EMU_LINK)

# The lab's driver: its C files (name_main.c, and Lab 02's streams driver) with the lab's object;
# the benchmark's baselines are the emulation's (src/baselines.cpp: none, said once).
$(EMU_BUILD)/%/bin/$(call lab_name,$(1)): $(patsubst %.c,$(EMU_BUILD)/obj/%.o,$(wildcard labs/$(1)/*.c)) \
        $(EMU_BUILD)/%/obj/$(1).o $(EMU_KIT_LIB) $(EMU_RUNTIME_OBJ)
	@mkdir -p $$(@D)
	$$(EMU_LINK)

.PRECIOUS: $(foreach f,$(call emu_files,$(1)),$(EMU_BUILD)/%/src/$(1)/$(f) \
             $(EMU_BUILD)/%/orig/$(1)/$(f)) $(EMU_BUILD)/%/obj/$(1).o
endef
$(foreach l,$(EMU_SUPPORTED),$(eval $(call EMU_LAB_RULES,$(l))))

emu_tests = $(foreach l,$(EMU_LABS),$(EMU_BUILD)/$(1)/test_$(call lab_id,$(l)))

emulate:
	@$(if $(EMU_LABS),,echo "emulate: the emulation runs $(EMU_SUPPORTED) so far, not $(LABS)"; exit 2)
	$(EMU_CONFIGURE)
	@$(MAKE) --no-print-directory $(call emu_tests,$(EMU_VARIANT))
	@$(EMU_PYTHON) emulation/run_emulated.py --orders $(EMU_ORDERS) $(call emu_tests,$(EMU_VARIANT))

# A lab's driver on the emulation, with the arguments of ARGS: the student's own run of their
# code on an input they pick (issue 43), where `make emulate` runs the tests.
emulate-driver:
	@$(if $(filter 1,$(words $(EMU_LABS))),,echo "emulate-driver: name one lab, as in: make emulate-driver LAB=01 ARGS=\"-n 1000 --check\""; exit 2)
	$(EMU_CONFIGURE)
	@$(MAKE) --no-print-directory $(EMU_BUILD)/$(EMU_VARIANT)/bin/$(call lab_name,$(EMU_LABS))
	@ASAN_OPTIONS=detect_leaks=0:$$ASAN_OPTIONS $(EMU_BUILD)/$(EMU_VARIANT)/bin/$(call lab_name,$(EMU_LABS)) $(ARGS)

check-emulate:
	@$(if $(EMU_LABS),,echo "check-emulate: the emulation runs $(EMU_SUPPORTED) so far, not $(LABS)"; exit 2)
	$(EMU_CONFIGURE)
	@$(EMU_PYTHON) emulation/check_emulation.py --build $(BUILD) $(if $(filter command line,$(origin EMU_SANITIZE)),--sanitize "$(EMU_SANITIZE)") $(EMU_LABS)

# The kit's own parts of the emulated test binaries, and what compiles and links a student's
# file with them ($(EMU_BUILD)/grader.env): the grader builds them (trusted code, here), then
# compiles, links and runs a submission's files in its sandbox when no GPU is there
# (grading/kitgrader/emulated.py).
emulate-parts:
	@$(if $(EMU_LABS),,echo "emulate-parts: the emulation runs $(EMU_SUPPORTED), not $(LABS)"; exit 2)
	$(EMU_CONFIGURE)
	@$(MAKE) --no-print-directory $(EMU_BUILD)/grader.env $(EMU_KIT_LIB) $(EMU_RUNTIME_OBJ) \
	    $(EMU_BUILD)/obj/tests/runner.o $(EMU_BUILD)/obj/tests/gpu_harness.o \
	    $(foreach l,$(EMU_LABS),$(EMU_BUILD)/obj/tests/test_$(call lab_id,$(l)).o)

# (Written again when a file of the runtime comes or goes: its list of objects is in it.)
$(EMU_BUILD)/grader.env: $(EMU_BUILD)/config.mk $(EMU_BUILD)/flags.stamp emulation/emulation.mk \
        $(wildcard emulation/src/*.cpp)
	@{ echo "EMU_CXX=$(EMU_CXX)"; echo "EMU_PYTHON=$(EMU_PYTHON)"; \
	   echo "EMU_CUFLAGS=$(EMU_CUFLAGS)"; echo "EMU_SAN=$(EMU_SAN)"; \
	   echo "EMU_LIBS=$(or $(EMU_CUNIT_LIB),$(CUNIT_LIB)) $(EMU_FIBER_LIBS) -lm"; \
	   echo "EMU_RUNTIME_OBJ=$(EMU_RUNTIME_OBJ)"; echo "EMU_KIT_LIB=$(EMU_KIT_LIB)"; } > $@

# The emulation as students' machines build it (gcc, clang, no Boost, PyPI's libclang, macOS's paths), each
# running Lab 01's [emulate] suite: not part of make check (about 3 minutes).
check-emulate-configs:
	@bash emulation/tests/check_configs.sh

bench-emulate:
	$(EMU_CONFIGURE)
	@$(MAKE) --no-print-directory $(EMU_BUILD)/bench/emu_bench
	@ASAN_OPTIONS=detect_leaks=0 $(EMU_BUILD)/bench/emu_bench

# The emulation's own tests of warp-level functions and of blocks that wait for each other
# (emulation/tests/device_tests.cu), built as a lab's .cu is; check-emulate runs them.
$(EMU_BUILD)/tests/src/device_tests.cu: emulation/tests/device_tests.cu emulation/cu2cpp.py \
        $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $@ --depfile $@.d $<

$(EMU_BUILD)/tests/device_tests: $(EMU_BUILD)/tests/src/device_tests.cu $(EMU_RUNTIME_OBJ) \
        $(EMU_BUILD)/flags.stamp
	$(EMU_CXX) $(EMU_CUFLAGS) -o $@ $< -x none $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)

# The corpus (emulation/corpus/*.cu): whole CUDA programs written as students and public samples
# write them, each checking its own result; built as a lab's .cu is, and by nvcc on a GPU host
# (emulation/tests/run_on_gpu.sh), where they must give the same answer.
EMU_CORPUS := $(patsubst emulation/corpus/%.cu,$(EMU_BUILD)/corpus/%,$(wildcard emulation/corpus/*.cu))

$(EMU_BUILD)/corpus/src/%.cu: emulation/corpus/%.cu emulation/cu2cpp.py $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $@ --depfile $@.d $<

$(EMU_BUILD)/corpus/%: $(EMU_BUILD)/corpus/src/%.cu $(EMU_RUNTIME_OBJ) $(EMU_BUILD)/flags.stamp
	$(EMU_CXX) $(EMU_CUFLAGS) -o $@ $< -x none $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)

emulate-corpus: $(EMU_CORPUS)

# The one list of the CUDA a lab may use (grading/kitgrader/allowlist.py) against the emulation
# (emulation/coverage.py): a C program that takes the address of every runtime call on it, linked
# with the emulation's runtime, and a CUDA program that runs every device statement on it.
EMU_COVERAGE_SOURCES := emulation/coverage.py grading/kitgrader/allowlist.py

$(EMU_BUILD)/coverage/runtime_probe.c: $(EMU_COVERAGE_SOURCES)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/coverage.py --runtime-probe $@

$(EMU_BUILD)/coverage/runtime_probe: $(EMU_BUILD)/coverage/runtime_probe.c $(EMU_RUNTIME_OBJ) \
        $(EMU_BUILD)/flags.stamp
	$(EMU_CC) $(EMU_CFLAGS) -c $< -o $@.o
	$(EMU_CXX) $(EMU_SAN) -o $@ $@.o $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)

$(EMU_BUILD)/coverage/device_probe.cu: $(EMU_COVERAGE_SOURCES)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/coverage.py --device-probe $@

$(EMU_BUILD)/coverage/src/device_probe.cu: $(EMU_BUILD)/coverage/device_probe.cu emulation/cu2cpp.py \
        $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $@ --depfile $@.d $<

$(EMU_BUILD)/coverage/device_probe: $(EMU_BUILD)/coverage/src/device_probe.cu $(EMU_RUNTIME_OBJ) \
        $(EMU_BUILD)/flags.stamp
	$(EMU_CXX) $(EMU_CUFLAGS) -o $@ $< -x none $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)

# The race detector's own tests (emulation/tests/race_tests.cu), built the same way.
$(EMU_BUILD)/tests/src/race_tests.cu: emulation/tests/race_tests.cu emulation/cu2cpp.py \
        $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $@ --depfile $@.d $<

$(EMU_BUILD)/tests/race_tests: $(EMU_BUILD)/tests/src/race_tests.cu $(EMU_RUNTIME_OBJ) \
        $(EMU_BUILD)/flags.stamp
	$(EMU_CXX) $(EMU_CUFLAGS) -o $@ $< -x none $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)

$(EMU_BUILD)/bench/src/emu_bench.cu: emulation/bench/emu_bench.cu emulation/cu2cpp.py $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_PYTHON) emulation/cu2cpp.py -o $@ --depfile $@.d -I emulation/src $<

$(EMU_BUILD)/bench/emu_bench: $(EMU_BUILD)/bench/src/emu_bench.cu $(EMU_RUNTIME_OBJ) \
        $(EMU_BUILD)/flags.stamp
	$(EMU_CXX) $(filter-out -O1,$(EMU_CUFLAGS)) -O2 -Iemulation/src $(EMU_FIBER_FLAGS) \
	    -o $@ $< -x none $(EMU_RUNTIME_OBJ) $(EMU_FIBER_LIBS)
