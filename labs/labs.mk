# labs/labs.mk: every lab's objects, test binaries and drivers. Included by the Makefile.
#
# Uses, from the Makefile: BUILD, NVCC, NVCCFLAGS, GENCODE, LDLIBS, CUNIT_LIB, LABS_ALL,
# HAVE_SOLUTIONS, lab_name, lab_id, NVCCFLAGS_NN-name (a lab's labs/NN-name/lab.mk);
# from common/common.mk KIT_LIB, BASELINES_OBJ; from tests/tests.mk RUNNER_OBJ, HARNESS_OBJ.
# Defines: lab_targets (what `make` builds for a lab), SKELETON_PAIRS (the student files
# generated from solutions/), and for each lab and variant the rules below.
#
# Lab NN-name has the API labs/NN-name/name.h, the student file labs/NN-name/name.cu, the
# reference solution solutions/NN-name/name.cu, the driver labs/NN-name/name_main.c and the
# GPU suites tests/test_NN_name.c. Each variant (solution, student) gives an object, a test
# binary $(BUILD)/VARIANT/test_NN_name and a driver $(BUILD)/VARIANT/bin/name.
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
        labs/$(1)/$(call lab_name,$(1)).h $(BUILD)/nvcc-flags.stamp
	@mkdir -p $$(@D)
	$$(NVCC) $$(KIT_NVCCFLAGS) $$(NVCCFLAGS) $$(NVCCFLAGS_$(1)) -Ilabs/$(1) -MMD -MP -c \
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
$(BUILD)/obj/labs/$(1)/%.o: KIT_CFLAGS += -Ilabs/$(1)
$(if $(HAVE_SOLUTIONS),$(call VARIANT_RULES,$(1),solution))
$(call VARIANT_RULES,$(1),student)
endef
$(foreach l,$(LABS_ALL),$(eval $(call LAB_RULES,$(l))))

lab_targets = $(foreach v,$(VARIANTS),$(BUILD)/$(v)/test_$(call lab_id,$(1)) \
                $(BUILD)/$(v)/bin/$(call lab_name,$(1)))
SKELETON_PAIRS := $(if $(HAVE_SOLUTIONS),$(foreach l,$(LABS_ALL),$(l)/$(call lab_name,$(l)).cu \
                    $(if $(call lab_bonus,$(l)),$(l)/$(call lab_name,$(l))_bonus.cu)))

# `make ptxas LAB=03`: each kernel of your lab file(s) with its registers, spills and shared
# memory (ptxas -v), compiled as `make` compiles them, for one architecture: CUDA_ARCH's, or
# sm_90 when that is the fat list (which would print every architecture). Nothing is kept.
PTXAS_ARCH := $(if $(filter all,$(CUDA_ARCH)),sm_90,$(CUDA_ARCH))
ptxas:
	@$(foreach l,$(LABS),echo "== $(l) (labs/$(l), -arch=$(PTXAS_ARCH))"; \
	  $(NVCC) $(filter-out -arch=% -gencode arch=%,$(KIT_NVCCFLAGS)) -arch=$(PTXAS_ARCH) \
	    $(NVCCFLAGS) $(NVCCFLAGS_$(l)) -Ilabs/$(l) -Xptxas -v -c $(call lab_compiled,$(l),student) \
	    -o /dev/null 2>&1 | tools/ptxas_summary.sh || exit 1;)
