# common/common.mk: how the kit compiles, and common/'s library. Included by the Makefile.
#
# Uses, from the Makefile: BUILD, CC, KIT_CFLAGS, CFLAGS, NVCC, KIT_NVCCFLAGS, NVCCFLAGS.
# Defines:
#   $(BUILD)/obj/%.o      any .c (gcc) or .cu (nvcc) of the kit, with its dependency file
#   $(BUILD)/cc-flags.stamp, $(BUILD)/nvcc-flags.stamp  the flags the objects were compiled with
#   KIT_LIB               $(BUILD)/lib/libkit.a, every common/*.c
#   BASELINES_OBJ         CUB and Thrust baselines of the drivers' --bench (common/baselines.cu)

COMMON_C := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_C:%.c=$(BUILD)/obj/%.o)
KIT_LIB := $(BUILD)/lib/libkit.a
BASELINES_OBJ := $(BUILD)/obj/common/baselines.o

$(BUILD)/obj/%.o: %.c $(BUILD)/cc-flags.stamp
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(BUILD)/nvcc-flags.stamp
	@mkdir -p $(@D)
	$(NVCC) $(KIT_NVCCFLAGS) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# The flags the objects were compiled with, the kit's and the user's: each file is rewritten
# only when they change, and every object depends on its compiler's, so `make CUDA_ARCH=sm_90`
# then `make` rebuilds the CUDA objects fat (instead of linking sm_90-only code into binaries
# that other GPUs cannot run), and `make NVCCFLAGS="-Xptxas -v"` recompiles what it affects.
# (Taken here, once: a target's own additions, such as -Itests, would reach the stamp too.)
STAMPED_CFLAGS := $(KIT_CFLAGS) $(CFLAGS)
STAMPED_NVCCFLAGS := $(KIT_NVCCFLAGS) $(NVCCFLAGS)
$(BUILD)/cc-flags.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(subst ','\'',$(STAMPED_CFLAGS))' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/nvcc-flags.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(subst ','\'',$(STAMPED_NVCCFLAGS))' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(KIT_LIB): $(COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
