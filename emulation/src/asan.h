/* KIT_EMU_ASAN: 1 when this translation unit is built with AddressSanitizer (gcc says so with
 * __SANITIZE_ADDRESS__, clang with __has_feature), else 0. The fibers and the scheduler tell
 * ASan about every stack switch and poison device memory only then. */
#ifndef KIT_EMU_ASAN_H
#define KIT_EMU_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define KIT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KIT_EMU_ASAN 1
#endif
#endif
#ifndef KIT_EMU_ASAN
#define KIT_EMU_ASAN 0
#endif

#endif
