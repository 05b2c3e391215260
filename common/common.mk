# common/common.mk: how the kit compiles, and common/'s library. Included by the Makefile.
#
# Uses, from the Makefile: BUILD, CC, CFLAGS, NVCC, NVCCFLAGS, GENCODE.
# Defines:
#   $(BUILD)/obj/%.o      any .c (gcc) or .cu (nvcc) of the kit, with its dependency file
#   $(BUILD)/gencode.stamp  the GPU architectures the CUDA objects were compiled for
#   KIT_LIB               $(BUILD)/lib/libkit.a, every common/*.c
#   BASELINES_OBJ         CUB and Thrust baselines of the drivers' --bench (common/baselines.cu)

COMMON_C := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_C:%.c=$(BUILD)/obj/%.o)
KIT_LIB := $(BUILD)/lib/libkit.a
BASELINES_OBJ := $(BUILD)/obj/common/baselines.o

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
