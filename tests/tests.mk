# tests/tests.mk: the CUnit runner, its harness, the kit's own test binary, and the checks
# that run the tests. Included by the Makefile.
#
# Uses, from the Makefile: BUILD, NVCC, GENCODE, CUNIT_LIB, LDLIBS, LABS_ALL, LABS; from
# common/common.mk KIT_LIB.
# Defines:
#   RUNNER_OBJ, HARNESS_OBJ  the runner (tests/runner.c) and the GPU test harness every lab's
#                            test binary links
#   $(BUILD)/test_common     the suites of common/
#   check-host               what runs without a GPU: common/'s host suites and the build rules
#   check-lab-suites         every lab's suites: solutions pass, skeletons fail cleanly

RUNNER_OBJ := $(BUILD)/obj/tests/runner.o
HARNESS_OBJ := $(BUILD)/obj/tests/gpu_harness.o

# The runner includes the grader's remote.h for the hooks a verdict binary fills in.
$(BUILD)/obj/tests/%.o: KIT_CFLAGS += -Itests -Igrading/runtime $(foreach l,$(LABS_ALL),-Ilabs/$(l))
$(BUILD)/obj/tests/%.o: KIT_NVCCFLAGS += -Itests

$(BUILD)/test_common: $(RUNNER_OBJ) $(BUILD)/obj/tests/test_common.o \
                      $(BUILD)/obj/tests/keyflip_device.o $(KIT_LIB)
	$(NVCC) $(GENCODE) -o $@ $^ $(CUNIT_LIB) $(LDLIBS)

# Without a GPU test_common runs its host suites and exits 3 (its GPU suite skipped): that is
# a pass here; check-lab-suites says what was not run.
check-host: all
	@$(BUILD)/test_common; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 3 ]
	@bash tools/check_build_rules.sh
	@python3 tools/lab_tables.py --check
	@python3 tools/test_bench_report.py
	@python3 tools/test_handout_numbers.py

check-lab-suites: all
	@bash tests/check_lab_suites.sh $(BUILD) $(LABS)
