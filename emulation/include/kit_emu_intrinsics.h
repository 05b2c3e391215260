/*
 * kit_emu_intrinsics.h of the kit's CPU emulation (emulation/README.md): CUDA's integer and float
 * intrinsics that kit_emu_device.h does not define itself. Included at its end.
 */
#ifndef KIT_EMU_INTRINSICS_H
#define KIT_EMU_INTRINSICS_H

#endif
