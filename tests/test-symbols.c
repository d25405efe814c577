/* test-symbols.c: the daemon's ELF symbolizer (collector/daemon/sl-symbols.c) on this very test
 * program, on libc (against dladdr), on a stripped copy with and without its debug file, and on
 * files that are not ELF, are cut short or have random bytes in their tables. */
#include "sl-symbols.h"
#include "sl-test-util.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* ---------------------------------------------------------------------------------------------- */
/* Functions to find                                                                              */

/* Exported (the test is linked with -rdynamic): in .dynsym, so found in a stripped copy too. */
__attribute__ ((noinline)) int
sl_test_exported_function (int x)
{
  volatile int v = x;
  for (int i = 0; i < 8; i++)
    v = v * 3 + i;
  return v;
}

/* Static: only in .symtab. */
__attribute__ ((noinline)) static int
static_function (int x)
{
  volatile int v = x;
  for (int i = 0; i < 8; i++)
    v = v * 5 + i;
  return v;
}

int main (int argc, char **argv);

static jmp_buf jump_buffer;
static void *_Atomic return_address;

/* Never returns: its caller's call can be the caller's last instruction, whose return address
 * is then the first byte after the caller (the case lookup_frame's addr - 1 is for). */
__attribute__ ((noinline, noreturn)) static void
jump_back (void)
{
  return_address = __builtin_return_address (0);
  longjmp (jump_buffer, 1);
}

__attribute__ ((noinline)) void
sl_test_calls_last (void)
{
  jump_back ();
}

/* ---------------------------------------------------------------------------------------------- */
/* This process's modules                                                                         */

typedef struct
{
  uint64_t base, start, end;
  char    *path;
} Module;

static int
collect_module_cb (struct dl_phdr_info *info,
                   size_t               size,
                   void                *data)
{
  GArray *modules = data;
  Module m = { info->dlpi_addr, UINT64_MAX, 0, NULL };

  (void) size;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        m.start = MIN (m.start, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        m.end = MAX (m.end, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr
                              + info->dlpi_phdr[i].p_memsz);
      }
  if (m.start >= m.end)
    return 0;
  if (modules->len == 0) /* the program itself: dlpi_name is "" */
    m.path = g_file_read_link ("/proc/self/exe", NULL);
  else
    m.path = g_strdup (info->dlpi_name);
  g_array_append_val (modules, m);
  return 0;
}

static void
module_clear (gpointer data)
{
  g_free (((Module *) data)->path);
}

static GArray *
self_modules (void)
{
  GArray *modules = g_array_new (FALSE, TRUE, sizeof (Module));

  g_array_set_clear_func (modules, module_clear);
  dl_iterate_phdr (collect_module_cb, modules);
  g_assert_cmpuint (modules->len, >, 1);
  g_assert_nonnull (g_array_index (modules, Module, 0).path);
  return modules;
}

static SlSymbolizer *
symbolizer_for_self (int32_t pid)
{
  g_autoptr (GArray) modules = self_modules ();
  SlSymbolizer *s = sl_symbolizer_new ();

  for (guint i = 0; i < modules->len; i++)
    {
      Module *m = &g_array_index (modules, Module, i);
      sl_symbolizer_add_module (s, pid, m->base, m->start, m->end, m->path);
    }
  return s;
}

static uint64_t
addr_of (const void *p)
{
  return (uint64_t) (uintptr_t) p;
}

static void
assert_resolves (SlSymbolizer *s,
                 int32_t       pid,
                 uint64_t      addr,
                 const char   *want_symbol,
                 const char   *want_module)
{
  const char *symbol = NULL, *module = NULL;

  if (!sl_symbolizer_lookup (s, pid, addr, &symbol, &module))
    g_error ("0x%" G_GINT64_MODIFIER "x: unresolved (%s in %s), expected %s", addr, symbol, module,
             want_symbol);
  g_assert_cmpstr (symbol, ==, want_symbol);
  if (want_module != NULL)
    g_assert_cmpstr (module, ==, want_module);
}

static void
assert_unresolved (SlSymbolizer *s,
                   int32_t       pid,
                   uint64_t      addr,
                   const char   *want_module)
{
  const char *symbol = NULL, *module = NULL;
  g_autofree char *text = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", addr);

  g_assert_false (sl_symbolizer_lookup (s, pid, addr, &symbol, &module));
  g_assert_cmpstr (symbol, ==, text);
  g_assert_cmpstr (module, ==, want_module);
}

static char *
self_path (void)
{
  char *path = g_file_read_link ("/proc/self/exe", NULL);

  g_assert_nonnull (path);
  return path;
}

/* ---------------------------------------------------------------------------------------------- */
/* Tests                                                                                          */

static void
test_self (void)
{
  g_autofree char *exe = self_path ();
  SlSymbolizer *s = symbolizer_for_self (100);
  const char *symbol, *module;

  assert_resolves (s, 100, addr_of (sl_test_exported_function), "sl_test_exported_function", exe);
  assert_resolves (s, 100, addr_of (sl_test_exported_function) + 3, "sl_test_exported_function",
                   exe);
  assert_resolves (s, 100, addr_of (static_function), "static_function", exe);
  assert_resolves (s, 100, addr_of (static_function) + 7, "static_function", exe);
  assert_resolves (s, 100, addr_of (main), "main", exe);
  assert_resolves (s, 100, addr_of (test_self), "test_self", exe);

  /* a return address: addr - 1 is still in the caller even when it is the caller's end */
  if (setjmp (jump_buffer) == 0)
    sl_test_calls_last ();
  uint64_t ret = addr_of (return_address);
  g_assert_true (sl_symbolizer_lookup_frame (s, 100, ret, false, &symbol, &module));
  g_assert_cmpstr (symbol, ==, "sl_test_calls_last");
  g_assert_cmpstr (module, ==, exe);

  /* another pid, and an address nothing maps */
  assert_unresolved (s, 101, addr_of (static_function), SL_SYMBOLS_UNKNOWN_MODULE);
  assert_unresolved (s, 100, 16, SL_SYMBOLS_UNKNOWN_MODULE);
  g_assert_false (sl_symbolizer_lookup_frame (s, 100, 0, false, &symbol, &module));
  g_assert_cmpstr (symbol, ==, "0x0");

  /* texts are kept: the same pointer every time, valid until the symbolizer is freed */
  const char *first, *again;
  sl_symbolizer_lookup (s, 100, 0x1234, &first, &module);
  for (int i = 0; i < 5000; i++)
    sl_symbolizer_lookup (s, 100, 0x100000 + (uint64_t) i, &symbol, &module);
  sl_symbolizer_lookup (s, 100, 0x1234, &again, &module);
  g_assert_true (first == again);
  g_assert_cmpstr (first, ==, "0x1234");

  /* C++: demangled (libstdc++ is loaded: the symbolizer uses its demangler) */
  void *dtor = dlsym (RTLD_DEFAULT, "_ZNSt9exceptionD1Ev");
  if (dtor != NULL)
    assert_resolves (s, 100, addr_of (dtor), "std::exception::~exception()", NULL);
  else
    g_test_message ("libstdc++'s std::exception destructor not found: demangling not checked");
  sl_symbolizer_free (s);
}

static void
test_libc (void)
{
  /* functions that are not IFUNCs (their address is their own) */
  static const char *const names[] = { "getenv", "qsort", "abort", "fork", "opendir", "atoi" };
  void *handle = dlopen ("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  SlSymbolizer *plain = symbolizer_for_self (7);
  SlSymbolizer *debug = symbolizer_for_self (7);

  g_assert_nonnull (handle);
  sl_symbolizer_set_debug_root (plain, NULL); /* .dynsym only, like dladdr */
  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      void *fn = dlsym (handle, names[i]);
      Dl_info info;
      g_assert_nonnull (fn);
      g_assert_true (dladdr (fn, &info) != 0);
      g_assert_true (info.dli_saddr == fn);
      /* the name dladdr gives, or another of the function's exported names (dladdr takes any
       * alias: __libc_fork for fork) */
      SlSymbolizer *both[] = { plain, debug };
      for (size_t k = 0; k < G_N_ELEMENTS (both); k++)
        for (uint64_t off = 0; off < 4; off++)
          {
            const char *symbol, *module;
            g_assert_true (sl_symbolizer_lookup (both[k], 7, addr_of (fn) + off, &symbol, &module));
            g_assert_cmpstr (module, ==, info.dli_fname);
            if (strcmp (symbol, info.dli_sname) != 0 && dlsym (handle, symbol) != fn)
              g_error ("%s+%u is %s here, %s for dladdr", names[i], (unsigned) off, symbol,
                       info.dli_sname);
            if (off == 0)
              g_test_message ("%s: %s (dladdr: %s)", names[i], symbol, info.dli_sname);
          }
    }

  /* memcpy's implementation is local to libc: only a debug file names it */
  void *(*volatile copy) (void *, const void *, size_t) = memcpy;
  const char *symbol, *module;
  Dl_info info;
  g_assert_true (dladdr ((void *) copy, &info) != 0);
  if (sl_symbolizer_lookup (debug, 7, addr_of ((void *) copy), &symbol, &module))
    {
      g_test_message ("memcpy is %s in %s", symbol, module);
      g_assert_nonnull (strstr (symbol, "mem"));
    }
  else
    g_test_message ("memcpy unresolved (%s in %s): libc has no debug file here", symbol, module);
  g_assert_cmpstr (module, ==, info.dli_fname);
  dlclose (handle);
  sl_symbolizer_free (plain);
  sl_symbolizer_free (debug);
}

static void
run_tool (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err, &status, &error))
    g_error ("cannot run %s: %s", argv[0], error->message);
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s failed: %s\n%s", argv[0], error->message, err);
}

/* The ELF build id of `path` in hex, read with the symbolizer's own rules left aside. */
static char *
build_id_of (const char *path)
{
  g_autofree char *out = NULL;
  const char *argv[] = { "readelf", "-n", path, NULL };
  g_autoptr (GError) error = NULL;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, NULL, &error))
    return NULL;
  const char *at = strstr (out, "Build ID: ");
  if (at == NULL)
    return NULL;
  at += strlen ("Build ID: ");
  return g_strndup (at, strspn (at, "0123456789abcdef"));
}

/* One frame of process `pid` named: its symbol and module, "symbol @ module". */
static char *
named (SlSymbolizer *s,
       int32_t       pid,
       uint64_t      addr)
{
  const char *sym = NULL, *mod = NULL;

  sl_symbolizer_lookup_frame (s, pid, addr, TRUE, &sym, &mod);
  return g_strdup_printf ("%s @ %s", sym, mod);
}

static void
append (const char *path,
        const char *text)
{
  FILE *f = fopen (path, "a");
  g_assert_nonnull (f);
  fputs (text, f);
  fclose (f);
}

/* Generated code that no module maps, named by the process's perf map (perf-PID.map: Python's
 * -X perf trampolines, JITs): lines read as they are appended; malformed lines, an unfinished
 * last line, links, another user's map and one others may write are not trusted. */
static void
test_perf_map (void)
{
  g_autofree char *dir = g_build_filename (sl_test_tmpdir (), "perf-maps", NULL);
  g_autofree char *map = g_build_filename (dir, "perf-4242.map", NULL);
  g_autofree char *link = g_build_filename (dir, "perf-4243.map", NULL);
  g_autofree char *other = g_build_filename (dir, "perf-4244.map", NULL);
  g_autofree char *open_to_all = g_build_filename (dir, "perf-4245.map", NULL);
  SlSymbolizer *s = sl_symbolizer_new ();

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  sl_symbolizer_set_perf_map_dir (s, dir);
  append (map, "7f0000001000 40 py::train_step:/src/train.py\n"
               "7f0000002000 100 [jit] matmul_kernel\n"
               "zz 10 bad\n"
               "7f0000003000 0 empty\n"
               "\n"
               "7f0000003100 10\n"
               "7f0000004000 10 unfinished");
  g_autofree char *a = named (s, 4242, 0x7f0000001010);
  g_assert_cmpstr (a, ==, "train_step @ /src/train.py");
  g_autofree char *b = named (s, 4242, 0x7f000000203f);
  g_autofree char *b_want = g_strdup_printf ("[jit] matmul_kernel @ %s", map);
  g_assert_cmpstr (b, ==, b_want);
  g_autofree char *c = named (s, 4242, 0x7f0000003000);
  g_assert_cmpstr (c, ==, "0x7f0000003000 @ [Unknown]");
  g_autofree char *d = named (s, 4242, 0x7f0000001040);   /* one past its end */
  g_assert_cmpstr (d, ==, "0x7f0000001040 @ [Unknown]");
  g_autofree char *e = named (s, 4242, 0x7f0000004005);   /* its line is not finished */
  g_assert_cmpstr (e, ==, "0x7f0000004005 @ [Unknown]");

  /* appended: the unfinished line, a later one, and a new name for train_step's code */
  append (map, "\n7f0000005000 10 py::later:/src/x.py\n"
               "7f0000001000 40 py::renamed:/src/train.py\n");
  g_autofree char *f = named (s, 4242, 0x7f0000005001);
  g_assert_cmpstr (f, ==, "later @ /src/x.py");
  g_autofree char *g = named (s, 4242, 0x7f0000004005);
  g_autofree char *g_want = g_strdup_printf ("unfinished @ %s", map);
  g_assert_cmpstr (g, ==, g_want);
  g_autofree char *h = named (s, 4242, 0x7f0000001010);   /* the later line wins */
  g_assert_cmpstr (h, ==, "renamed @ /src/train.py");

  /* not trusted: a link to a good map, another user's map, a map others may write */
  g_assert_cmpint (symlink (map, link), ==, 0);
  g_autofree char *i = named (s, 4243, 0x7f0000001010);
  g_assert_cmpstr (i, ==, "0x7f0000001010 @ [Unknown]");
  append (open_to_all, "7f0000001000 40 py::evil:/x.py\n");
  g_assert_cmpint (chmod (open_to_all, 0666), ==, 0);
  g_autofree char *j = named (s, 4245, 0x7f0000001010);
  g_assert_cmpstr (j, ==, "0x7f0000001010 @ [Unknown]");
  if (geteuid () == 0)
    {
      append (other, "7f0000001000 40 py::evil:/x.py\n");
      g_assert_cmpint (chown (other, 65534, 65534), ==, 0);
      g_autofree char *k = named (s, 4244, 0x7f0000001010);
      g_assert_cmpstr (k, ==, "0x7f0000001010 @ [Unknown]");
    }
  /* a process without a map */
  g_autofree char *l = named (s, 4246, 0x7f0000001010);
  g_assert_cmpstr (l, ==, "0x7f0000001010 @ [Unknown]");
  sl_symbolizer_free (s);
}

static void
test_stripped (void)
{
  g_autofree char *exe = self_path ();
  g_autofree char *copy = g_build_filename (sl_test_tmpdir (), "stripped-copy", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  g_autoptr (GArray) modules = self_modules ();
  Module *self = &g_array_index (modules, Module, 0);

  g_assert_true (g_file_get_contents (exe, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, (gssize) len, NULL));
  run_tool ((const char *const[]){ "strip", "--strip-all", copy, NULL });

  /* .dynsym only: exported functions are found, static ones are not (and are not given a
   * neighbour's name) */
  SlSymbolizer *s = sl_symbolizer_new ();
  sl_symbolizer_set_debug_root (s, NULL);
  sl_symbolizer_add_module (s, 3, self->base, self->start, self->end, copy);
  assert_resolves (s, 3, addr_of (sl_test_exported_function) + 1, "sl_test_exported_function",
                   copy);
  assert_resolves (s, 3, addr_of (sl_test_calls_last), "sl_test_calls_last", copy);
  assert_unresolved (s, 3, addr_of (static_function) + 1, copy);
  sl_symbolizer_free (s);

  /* its debug file, found by build id, names the static ones too */
  g_autofree char *id = build_id_of (exe);
  if (id == NULL || strlen (id) < 4)
    {
      g_test_message ("no build id in %s: debug file lookup not checked", exe);
      return;
    }
  g_autofree char *root = g_build_filename (sl_test_tmpdir (), "debug", NULL);
  g_autofree char *sub = g_strndup (id, 2);
  g_autofree char *dir = g_build_filename (root, ".build-id", sub, NULL);
  g_autofree char *name = g_strdup_printf ("%s.debug", id + 2);
  g_autofree char *debug_file = g_build_filename (dir, name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  run_tool ((const char *const[]){ "objcopy", "--only-keep-debug", exe, debug_file, NULL });

  s = sl_symbolizer_new ();
  sl_symbolizer_set_debug_root (s, root);
  sl_symbolizer_add_module (s, 3, self->base, self->start, self->end, copy);
  assert_resolves (s, 3, addr_of (static_function) + 1, "static_function", copy);
  assert_resolves (s, 3, addr_of (sl_test_exported_function), "sl_test_exported_function", copy);
  sl_symbolizer_free (s);
}

/* Looks up a spread of addresses in a module read from `path`: nothing may crash, and every
 * answer is a string; returns how many resolved. */
static guint
probe_file (const char *path,
            const Module *like)
{
  SlSymbolizer *s = sl_symbolizer_new ();
  guint resolved = 0;

  sl_symbolizer_set_debug_root (s, NULL);
  sl_symbolizer_add_module (s, 9, like->base, like->start, like->end, path);
  for (uint64_t a = like->start + 1; a < like->end; a += MAX ((like->end - like->start) / 97, 1))
    {
      const char *symbol = NULL, *module = NULL;
      resolved += sl_symbolizer_lookup_frame (s, 9, a, (a & 1) != 0, &symbol, &module);
      g_assert_nonnull (symbol);
      g_assert_cmpstr (module, ==, path);
      g_assert_cmpuint (strlen (symbol), >, 0);
    }
  const char *symbol = NULL, *module = NULL;
  resolved += sl_symbolizer_lookup (s, 9, addr_of (static_function), &symbol, &module);
  g_assert_nonnull (symbol);
  sl_symbolizer_free (s);
  return resolved;
}

static void
test_bad_files (void)
{
  g_autofree char *exe = self_path ();
  g_autofree char *contents = NULL;
  gsize len;
  g_autoptr (GArray) modules = self_modules ();
  const Module *self = &g_array_index (modules, Module, 0);
  const char *tmp = sl_test_tmpdir ();
  g_autofree char *path = g_build_filename (tmp, "bad-elf", NULL);
  GRand *rand = g_rand_new_with_seed (sl_test_seed ());

  g_assert_true (g_file_get_contents (exe, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 4096);
  g_assert_cmpuint (probe_file (exe, self), >, 0);

  /* missing, a directory, a FIFO, empty, garbage, garbage behind a valid ELF magic */
  g_assert_cmpuint (probe_file ("/nonexistent/sightline/file", self), ==, 0);
  g_assert_cmpuint (probe_file (tmp, self), ==, 0);
  g_autofree char *fifo = g_build_filename (tmp, "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0); /* opening it must not wait for a writer */
  g_assert_cmpuint (probe_file (fifo, self), ==, 0);
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  g_assert_cmpuint (probe_file (path, self), ==, 0);
  g_autofree guint8 *garbage = g_malloc (65536);
  for (gsize i = 0; i < 65536; i++)
    garbage[i] = (guint8) g_rand_int (rand);
  g_assert_true (g_file_set_contents (path, (char *) garbage, 65536, NULL));
  g_assert_cmpuint (probe_file (path, self), ==, 0);
  memcpy (garbage, contents, EI_NIDENT);
  g_assert_true (g_file_set_contents (path, (char *) garbage, 65536, NULL));
  g_assert_cmpuint (probe_file (path, self), ==, 0);

  /* cut short anywhere: the section headers are at the end, so nothing resolves, nothing
   * crashes */
  const gsize cuts[] = { 1, 16, sizeof (Elf64_Ehdr) - 1, sizeof (Elf64_Ehdr), 1000, len / 3,
                         len / 2, len - 4096, len - 65, len - 1 };
  for (gsize i = 0; i < G_N_ELEMENTS (cuts); i++)
    {
      g_assert_true (g_file_set_contents (path, contents, (gssize) cuts[i], NULL));
      probe_file (path, self);
    }

  /* random bytes in the ELF header, the section headers and the symbol tables: whatever is
   * found, no crash (ASan/UBSan builds check every read) */
  Elf64_Ehdr eh;
  memcpy (&eh, contents, sizeof eh);
  g_assert_cmpuint (eh.e_shoff + (guint64) eh.e_shnum * sizeof (Elf64_Shdr), <=, len);
  g_autofree char *mutant = g_malloc (len);
  for (int round = 0; round < 300; round++)
    {
      memcpy (mutant, contents, len);
      int flips = 1 + g_rand_int_range (rand, 0, 16);
      for (int k = 0; k < flips; k++)
        {
          gsize at;
          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0: /* ELF header */
              at = (gsize) g_rand_int_range (rand, EI_NIDENT, sizeof (Elf64_Ehdr));
              break;
            case 1: /* section header table */
              at = eh.e_shoff
                   + (gsize) g_rand_int_range (rand, 0, eh.e_shnum * sizeof (Elf64_Shdr));
              break;
            default: /* anywhere */
              at = (gsize) g_rand_int_range (rand, 0, (gint32) MIN (len, G_MAXINT32));
              break;
            }
          mutant[at] = (char) g_rand_int (rand);
        }
      /* a new path each round: files are cached by path */
      g_autofree char *name = g_strdup_printf ("mutant-%d", round);
      g_autofree char *mpath = g_build_filename (tmp, name, NULL);
      g_assert_true (g_file_set_contents (mpath, mutant, (gssize) len, NULL));
      probe_file (mpath, self);
      g_unlink (mpath);
    }
  g_rand_free (rand);
}

static void
test_modules (void)
{
  SlSymbolizer *s = sl_symbolizer_new ();
  g_autofree char *exe = self_path ();
  const char *symbol, *module;

  sl_symbolizer_add_module (s, 1, 0, 0x1000, 0x2000, "[stack]");
  sl_symbolizer_add_module (s, 1, 0, 0x5000, 0x6000, "/nonexistent/a.so");
  sl_symbolizer_add_module (s, 2, 0, 0x1000, 0x2000, "/nonexistent/b.so");
  sl_symbolizer_add_module (s, 1, 0, 0x3000, 0x3000, "/nonexistent/empty.so"); /* ignored */
  sl_symbolizer_add_module (s, 1, 0, 0x1000, 0x2000, "[stack]");                  /* again */

  assert_unresolved (s, 1, 0x1000, "[stack]");
  assert_unresolved (s, 1, 0x1fff, "[stack]");
  assert_unresolved (s, 1, 0x2000, SL_SYMBOLS_UNKNOWN_MODULE);
  assert_unresolved (s, 1, 0x3000, SL_SYMBOLS_UNKNOWN_MODULE);
  assert_unresolved (s, 1, 0x5800, "/nonexistent/a.so");
  assert_unresolved (s, 2, 0x1800, "/nonexistent/b.so");
  assert_unresolved (s, 3, 0x1800, SL_SYMBOLS_UNKNOWN_MODULE);
  /* a leaf at a module's start is in it; a return address there is in the one before */
  g_assert_false (sl_symbolizer_lookup_frame (s, 1, 0x5000, false, &symbol, &module));
  g_assert_cmpstr (module, ==, SL_SYMBOLS_UNKNOWN_MODULE);
  g_assert_cmpstr (symbol, ==, "0x5000");
  g_assert_false (sl_symbolizer_lookup_frame (s, 1, 0x2000, false, &symbol, &module));
  g_assert_cmpstr (module, ==, "[stack]");

  /* unloaded and replaced: a module over both older ones takes their place */
  sl_symbolizer_add_module (s, 1, 0, 0x1800, 0x5800, "/nonexistent/c.so");
  assert_unresolved (s, 1, 0x1000, SL_SYMBOLS_UNKNOWN_MODULE);
  assert_unresolved (s, 1, 0x1800, "/nonexistent/c.so");
  assert_unresolved (s, 1, 0x5700, "/nonexistent/c.so");
  assert_unresolved (s, 1, 0x5800, SL_SYMBOLS_UNKNOWN_MODULE);
  assert_unresolved (s, 2, 0x1800, "/nonexistent/b.so");

  /* the same file under two pids at different places: read once, found in both */
  g_autoptr (GArray) modules = self_modules ();
  Module *self = &g_array_index (modules, Module, 0);
  uint64_t shift = 0x100000000000u;
  sl_symbolizer_add_module (s, 5, self->base, self->start, self->end, exe);
  sl_symbolizer_add_module (s, 6, self->base + shift, self->start + shift, self->end + shift, exe);
  assert_resolves (s, 5, addr_of (static_function), "static_function", exe);
  assert_resolves (s, 6, addr_of (static_function) + shift, "static_function", exe);

  /* NULLs are tolerated */
  g_assert_false (sl_symbolizer_lookup (NULL, 1, 0x1000, &symbol, &module));
  g_assert_cmpstr (module, ==, SL_SYMBOLS_UNKNOWN_MODULE);
  sl_symbolizer_add_module (s, 1, 0, 0, 1, NULL);
  g_assert_false (sl_symbolizer_lookup (s, 1, 0x1000, NULL, NULL));
  sl_symbolizer_free (s);
  sl_symbolizer_free (NULL);
}

/* The vDSO has no file: its functions are named from the daemon's own vDSO (the same image on
 * one machine), here this process's, registered under the name the injection library sends. */
static void
test_vdso (void)
{
  g_autoptr (GArray) modules = self_modules ();
  SlSymbolizer *s = sl_symbolizer_new ();
  void *vdso = dlopen ("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
  const char *symbol = NULL, *module = NULL;
  const Module *m = NULL;

  if (vdso == NULL)
    {
      g_test_skip ("no vDSO in this process");
      sl_symbolizer_free (s);
      return;
    }
  void *fn = dlsym (vdso, "__vdso_clock_gettime");
  g_assert_nonnull (fn);
  for (guint i = 0; i < modules->len; i++)
    if (g_strcmp0 (g_array_index (modules, Module, i).path, "linux-vdso.so.1") == 0)
      m = &g_array_index (modules, Module, i);
  g_assert_nonnull (m);
  g_assert_cmpuint (addr_of (fn), >=, m->start);
  g_assert_cmpuint (addr_of (fn), <, m->end);
  sl_symbolizer_add_module (s, 7, m->base, m->start, m->end, SL_SYMBOLS_VDSO);
  /* the entry and a byte inside: clock_gettime (the public alias of __vdso_clock_gettime) */
  for (uint64_t off = 0; off <= 4; off += 4)
    {
      g_assert_true (sl_symbolizer_lookup (s, 7, addr_of (fn) + off, &symbol, &module));
      g_assert_cmpstr (module, ==, SL_SYMBOLS_VDSO);
      g_assert_nonnull (strstr (symbol, "clock_gettime"));
    }
  /* the same offsets under another process, elsewhere: its vDSO is the same image */
  uint64_t shift = 0x100000000u;
  sl_symbolizer_add_module (s, 8, m->base + shift, m->start + shift, m->end + shift,
                            SL_SYMBOLS_VDSO);
  g_assert_true (sl_symbolizer_lookup (s, 8, addr_of (fn) + shift, &symbol, &module));
  g_assert_nonnull (strstr (symbol, "clock_gettime"));
  dlclose (vdso);
  sl_symbolizer_free (s);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/symbols/self", test_self);
  g_test_add_func ("/collector/symbols/libc", test_libc);
  g_test_add_func ("/collector/symbols/stripped", test_stripped);
  g_test_add_func ("/collector/symbols/bad-files", test_bad_files);
  g_test_add_func ("/collector/symbols/modules", test_modules);
  g_test_add_func ("/collector/symbols/vdso", test_vdso);
  g_test_add_func ("/collector/symbols/perf-map", test_perf_map);
  return g_test_run ();
}
