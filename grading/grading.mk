# grading/grading.mk: the grader's rules. Included by the Makefile.
#
# Uses, from the Makefile: BUILD, CC, CFLAGS, NVCC, NVCCFLAGS, GENCODE, LDLIBS, CUNIT_LIB,
# LAB, LABS, LABS_ALL, HAVE_SOLUTIONS, lab_name, lab_id, NVCCFLAGS_NN-name; from
# common/common.mk KIT_LIB; from tests/tests.mk RUNNER_OBJ, HARNESS_OBJ; from
# tools/tools.mk KIT_TOOLS; from labs/labs.mk lab_hidden.
# Defines:
#   GRADING_KIT        everything grading/grade links a student's file with (built by `make`)
#   GRADER_TOOLS       the sandbox launcher and the GPU probe ($(BUILD)/tools/)
#   grade              grade labs/ in place
#   check-grader       the grader's own tests (grading/tests/, not in the student package)
#   check-slurm        class grading through a one-node Slurm cluster
#   gradescope, check-gradescope   Gradescope's autograder zip, and a check of it
#
GRADER_TOOLS := $(BUILD)/tools/sandbox_exec $(BUILD)/tools/gpu_probe

# The sandbox launcher and the GPU probe: the grader runs them (never a student's process).
$(BUILD)/tools/sandbox_exec: grading/runtime/sandbox_exec.c
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) $< -o $@

$(BUILD)/tools/gpu_probe: $(BUILD)/obj/grading/runtime/gpu_probe.o $(KIT_LIB)
	@mkdir -p $(@D)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# grading/grade compiles only the student's .cu (with the flags below) and links it with these
# prebuilt parts, so a GPU node needs nothing but the driver and the CUDA Toolkit.
#
# A graded test runs in two processes (grading/runtime/remote.h): the verdict binary, built here from
# the kit's code alone (runner, suites, verifier, and stubs that send the lab's calls away),
# and an executor the grader links from the student's object, the dispatcher and the lab's
# call table. The timed driver of speed points is split the same way.
SHARED_MEMORY_OBJ := $(BUILD)/obj/grading/runtime/shared_memory.o
REMOTE_CLIENT_OBJ := $(BUILD)/obj/grading/runtime/remote_client.o $(SHARED_MEMORY_OBJ)
REMOTE_EXECUTOR_OBJ := $(BUILD)/obj/grading/runtime/remote_executor.o $(SHARED_MEMORY_OBJ) \
                       $(BUILD)/obj/grading/runtime/memory_budget.o
GRADING_KIT := $(BUILD)/lib/libcunit.a $(BUILD)/grading.env $(BUILD)/obj/grading/runtime/timed_driver.o \
               $(REMOTE_EXECUTOR_OBJ) \
               $(foreach l,$(LABS),$(BUILD)/grading/verdict_$(call lab_id,$(l)) \
                 $(BUILD)/grading/timed_$(call lab_id,$(l)) \
                 $(BUILD)/obj/grading/calls/api_$(call lab_id,$(l)).exec.o)

$(BUILD)/obj/grading/%.o: KIT_CFLAGS += -Igrading/runtime $(foreach l,$(LABS_ALL),-Ilabs/$(l))

# The executor's half of a lab's call table: the same file, compiled as the executor's.
$(BUILD)/obj/grading/calls/%.exec.o: grading/calls/%.c
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) -DKIT_REMOTE_EXECUTOR -MMD -MP -c $< -o $@

define GRADING_RULES
$(BUILD)/grading/verdict_$(call lab_id,$(1)): $(RUNNER_OBJ) $(HARNESS_OBJ) \
        $(BUILD)/obj/tests/test_$(call lab_id,$(1)).o $(call lab_hidden,$(1)) \
        $(BUILD)/obj/grading/calls/api_$(call lab_id,$(1)).o $(REMOTE_CLIENT_OBJ) $(KIT_LIB)
	@mkdir -p $$(@D)
	$$(CC) -o $$@ $$^ $(CUNIT_LIB) $$(LDLIBS)

$(BUILD)/grading/timed_$(call lab_id,$(1)): $(BUILD)/obj/grading/runtime/timed_driver.o \
        $(BUILD)/obj/labs/$(1)/$(call lab_name,$(1))_main.o \
        $(BUILD)/obj/grading/calls/api_$(call lab_id,$(1)).o $(REMOTE_CLIENT_OBJ) $(KIT_LIB)
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
	   echo "NVCCFLAGS=$(KIT_NVCCFLAGS)"; \
	   echo "LDLIBS=$(LDLIBS)"; \
	   $(foreach l,$(LABS_ALL),echo "NVCCFLAGS_$(l)=$(NVCCFLAGS_$(l))";) } > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

grade:
	@bash tools/deps.sh grade
	@set -o pipefail; \
	  $(MAKE) --no-print-directory $(KIT_TOOLS) $(GRADER_TOOLS) $(GRADING_KIT) \
	  $(if $(HAVE_SOLUTIONS),$(foreach l,$(LABS),$(BUILD)/solution/obj/$(l).o)) \
	  2>&1 | sed '/is up to date\.$$/d'
	@python3 grading/grade -v --build $(BUILD) --out $(BUILD)/grade/student $(if $(LAB),--lab $(LAB)) labs

# The grader's own tests stay with the instructor's kit (not in the student package). The longest
# file, test_grader.py (about 4 minutes, mostly waiting on sandboxes and time limits), runs beside
# the others, its lines printed after theirs: each file builds its fixtures in a folder of its own.
check-grader: all
	@if [ ! -d grading/tests ]; then echo "check-grader: no grading/tests here (a student package)"; exit 0; fi; \
	python3 grading/tests/test_grader.py --build $(BUILD) > $(BUILD)/check-grader-side.log 2>&1 & side=$$!; \
	python3 grading/tests/test_sandbox.py --build $(BUILD) && \
	python3 grading/tests/test_intake.py --build $(BUILD) && \
	python3 grading/tests/test_bridge_intake.py --build $(BUILD) && \
	python3 grading/tests/test_gpu_fixtures_build.py --build $(BUILD) && \
	python3 grading/tests/test_policy.py --build $(BUILD) && \
	python3 grading/tests/test_hardening.py --build $(BUILD) && \
	python3 grading/tests/test_sharing.py --build $(BUILD); rest=$$?; \
	wait $$side; side=$$?; cat $(BUILD)/check-grader-side.log; \
	[ $$rest -eq 0 ] && [ $$side -eq 0 ]

# Class grading through Slurm, on a one-node cluster started for the test (root, no GPU):
# tools/deps.sh slurm installs Debian's slurmctld slurmd slurm-client munge with apt.
check-slurm: all
	@if [ ! -d grading/tests ]; then echo "check-slurm: SKIPPED (no grading/tests here: a student package)"; exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ]; then echo "check-slurm: SKIPPED (not root: the test cluster's daemons run as root)"; exit 0; fi; \
	if ! command -v apt-get >/dev/null && ! bash tools/deps.sh slurm >/dev/null 2>&1; then \
	  echo "check-slurm: SKIPPED (Slurm is not installed and there is no apt-get to install it)"; exit 0; fi; \
	bash tools/deps.sh slurm && { bash tools/deps.sh bridge || true; } && \
	python3 grading/tests/test_slurm.py --build $(BUILD)

# Gradescope's autograder zip (instructors' kit only: grading/gradescope/ is not in the
# student package); check-gradescope makes a zip of its own (build/gradescope-check/, without
# the course's settings: an instructor's configured zip is never written over), unpacks it into
# a fresh folder and tries it.
gradescope:
	@python3 grading/gradescope/make_autograder.py $(BUILD)

# The link to the course's GPU host, from the instructor's machine, with the course's own
# settings and key: does the host answer, and would it grade (a GPU, a built kit, its queue)?
gradescope-check:
	@if [ -z "$(GRADESCOPE_CONFIG)" ]; then echo "gradescope-check: name the course's settings: make gradescope-check GRADESCOPE_CONFIG=/path/to/gradescope.conf"; exit 2; fi; \
	python3 grading/gradescope/bridge.py --check --config "$(GRADESCOPE_CONFIG)"

# Then the bridge to the course's GPU host, over a real sshd on localhost (root: it logs in
# as root with a forced command; tools/deps.sh bridge installs OpenSSH's server).
check-gradescope:
	@if [ ! -d grading/gradescope ]; then echo "check-gradescope: not in a student package"; exit 0; fi; \
	env -u GRADESCOPE_CONFIG python3 grading/gradescope/make_autograder.py $(BUILD) $(BUILD)/gradescope-check && \
	python3 grading/gradescope/check_autograder.py $(BUILD) && \
	if [ "$$(id -u)" -ne 0 ]; then echo "check-bridge: SKIPPED (not root: the test sshd logs in as root)"; \
	elif ! bash tools/deps.sh bridge; then echo "check-bridge: SKIPPED (no OpenSSH server, and apt-get could not install it)"; \
	else python3 grading/tests/test_bridge.py --build $(BUILD); fi
