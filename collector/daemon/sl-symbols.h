/* sl-symbols.h: turns the addresses of CPU samples into function and module names when sightlined
 * writes SAMPLING_CALLCHAINS; C11 + POSIX, no GLib.
 *
 * The injection library sends an SL_WIRE_MODULE record for every ELF object mapped into the
 * target; the daemon passes each one to sl_symbolizer_add_module() and then asks for the frames
 * of every sample.  ELF files are read on the first lookup that lands in them (.symtab, else
 * .dynsym) and cached by path for the whole session, so that a module shared by many processes
 * (libc, libcuda) is read once.  Typical load: 10^3 … 10^5 frames a second, 10 … 100 modules
 * a process, up to 10^6 symbols in one library (libcuda, libtorch).
 *
 * Names follow what nsys writes: a resolved frame has the (demangled) function name and the
 * module's path; a frame in a known module that no symbol covers has "0x<address>" as its symbol
 * and the module's path; a frame that no module maps has "0x<address>" and
 * SL_SYMBOLS_UNKNOWN_MODULE ("[Unknown]").  <address> is the frame's address as sampled (nsys's
 * originalIP), in lower-case hex.  Separate debug files are used when installed (see
 * sl_symbolizer_set_debug_root()), so libc's internal functions get names where libc6-dbg is.
 *
 * Not thread-safe: one symbolizer belongs to the thread that writes the trace.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* nsys's module name for a frame outside every known module. */
#define SL_SYMBOLS_UNKNOWN_MODULE "[Unknown]"
/* The module name the injection library gives the vDSO (nsys's); its symbols are read from the
 * daemon's own vDSO, the same image on one machine. */
#define SL_SYMBOLS_VDSO "[vdso]"

  typedef struct _SlSymbolizer SlSymbolizer;

  SlSymbolizer *sl_symbolizer_new (void);
  void sl_symbolizer_free (SlSymbolizer *s);

  /* Where separate debug files are looked for, as DIR/.build-id/xx/yyyy.debug ("/usr/lib/debug"
   * unless set; NULL: nowhere).  Before the first lookup. */
  void sl_symbolizer_set_debug_root (SlSymbolizer *s,
                                     const char   *dir);

  /* Where the perf maps of generated code (perf-PID.map, sl-perfmap.h) are read, "/tmp" unless
   * set: a frame that no module maps is looked up there.  Before the first lookup. */
  void sl_symbolizer_set_perf_map_dir (SlSymbolizer *s,
                                       const char   *dir);

  /* An ELF object mapped into process `pid` at load bias `base`, its PT_LOAD segments covering
   * [start, end).  `path` is the file to read ("[vdso]" and other names not starting with '/'
   * are kept as module names and never opened).  A module that overlaps ones already known for
   * `pid` replaces them (they were unloaded); adding the same module again does nothing. */
  void sl_symbolizer_add_module (SlSymbolizer *s,
                                 int32_t       pid,
                                 uint64_t      base,
                                 uint64_t      start,
                                 uint64_t      end,
                                 const char   *path);

  /* Names `addr` of process `pid` exactly as given.  *symbol and *module are set in every case
   * and stay valid until the symbolizer is freed.  Returns true when a function symbol covers
   * the address, false when the frame is unresolved (SAMPLING_CALLCHAINS.unresolved = 1). */
  bool sl_symbolizer_lookup (SlSymbolizer *s,
                             int32_t       pid,
                             uint64_t      addr,
                             const char  **symbol,
                             const char  **module);

  /* As sl_symbolizer_lookup() for frame of a sampled call stack: every frame but the leaf is a
   * return address, which points after the call and may be in the next function (a call as a
   * function's last instruction), so those are looked up at addr - 1.  The "0x…" text still
   * shows `addr`. */
  bool sl_symbolizer_lookup_frame (SlSymbolizer *s,
                                   int32_t       pid,
                                   uint64_t      addr,
                                   bool          is_leaf,
                                   const char  **symbol,
                                   const char  **module);

#ifdef __cplusplus
}
#endif
