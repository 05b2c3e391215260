/* What the emulation's runtime does differently on Linux and on macOS, in one place (issue 43):
 * where the running program's file is (for addr2line and the freshness check), when a file was
 * last changed, and which interfaces the preemption reads an interrupted thread with
 * (signals.cpp). KIT_EMU_PORTABLE (make emulate EMU_DEFINES=-DKIT_EMU_PORTABLE, the "portable"
 * configuration of make check-emulate-configs) makes a Linux build take the paths that do not
 * depend on Linux wherever both exist, so that they are built and tried here; what only a Mac
 * runs (Darwin's thread state and its program's text segment, in signals.cpp) is built on a Mac
 * alone. */
#ifndef KIT_EMU_PLATFORM_H
#define KIT_EMU_PLATFORM_H

#include <sys/stat.h>
#include <time.h>

#include <string>

#if defined(__linux__) && !defined(KIT_EMU_PORTABLE)
#define KIT_EMU_LINUX 1 /* /proc/self/exe, and the like */
#else
#define KIT_EMU_LINUX 0
#endif

namespace kit_emu
{

/** The running program's file ("" when it cannot be told): /proc/self/exe on Linux, else the
 * object that holds the emulation's own code, as the dynamic loader names it. */
std::string program_path();

/** When @p s's file last changed (Darwin names the field st_mtimespec). */
inline struct timespec modified(const struct stat &s)
{
#if defined(__APPLE__)
    return s.st_mtimespec;
#else
    return s.st_mtim;
#endif
}

} // namespace kit_emu

#endif
