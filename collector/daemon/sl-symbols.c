/* sl-symbols.c: ELF symbol tables read straight from the files, for naming sample frames in
 * sightlined; C11 + POSIX, no GLib, no libelf/libdw (one dependency less in the daemon, and the
 * little we need, function symbols by address, is a page of ELF).
 *
 * A file is mmap'd once, on the first lookup that lands in it; its STT_FUNC/STT_GNU_IFUNC symbols
 * are copied into one sorted array with their names, and the mapping is dropped.  The table is
 * .symtab; for a file without one (a stripped library), the .symtab of its separate debug file
 * found by build id under /usr/lib/debug/.build-id (what distributions' -dbg packages install),
 * else .dynsym.  Aliases at one address are folded to one name (sym_pref()).  Cost: 32 bytes a
 * symbol plus its name; libc has 2.8·10^3 functions in .dynsym, 6.8·10^3 with its debug file.
 * C++ names are demangled on first use with libstdc++'s __cxa_demangle.
 *
 * Nothing in a file is trusted: every offset, count and string is checked against the file's
 * size before it is read (structs are memcpy'd, so a misaligned table is no problem either),
 * and a file that is not a regular 64-bit ELF file of this machine's byte order simply has no
 * symbols.  (What mmap cannot guard against: a file truncated by someone else during the few
 * milliseconds it is mapped raises SIGBUS.)
 */
#include "sl-symbols.h"
#include "sl-perfmap.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (the daemon links stdc++); returns malloc'd text or NULL. */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status);

#define SL_SYMBOLS_DEBUG_ROOT "/usr/lib/debug"
#define SL_NEST_WALK          16 /* how far back a lookup looks for an enclosing symbol */

typedef struct
{
  uint64_t start;     /* link-time address (st_value) */
  uint64_t end;       /* one past its last byte; for a size-0 symbol the next symbol's start */
  uint32_t name;      /* offset in SlElfFile.names */
  uint32_t pref;      /* higher is the better name among aliases (see sym_pref()) */
  char    *demangled; /* NULL: not tried yet; == the name when it needs none */
} SlSym;

typedef struct
{
  char  *path;   /* also the module's name in the trace */
  bool   loaded; /* read (whatever the outcome) */
  SlSym *syms;   /* sorted by start, one per start */
  size_t n_syms, syms_cap;
  char  *names;
  size_t names_len, names_cap;
} SlElfFile;

typedef struct
{
  int32_t    pid;
  uint64_t   base, start, end;
  SlElfFile *file;
} SlModule;

typedef struct
{
  uint64_t addr;
  char    *text; /* NULL: empty slot */
} SlAddrText;

struct _SlSymbolizer
{
  SlModule    *modules; /* sorted by (pid, start), no overlaps within a pid */
  size_t       n_modules, cap_modules;
  SlElfFile  **files; /* open addressing by path hash; cap is a power of two */
  size_t       n_files, cap_files;
  SlAddrText  *texts; /* "0x…" texts by address; open addressing */
  size_t       n_texts, cap_texts;
  const char  *debug_root; /* where debug files are looked for by build id; NULL: nowhere */
  char        *debug_root_copy;
  SlPerfMaps  *perf;       /* code no module maps: JITs' perf maps, Python's trampolines */
};

/* ---------------------------------------------------------------------------------------------- */
/* Small helpers                                                                                  */

static uint64_t
hash_str (const char *s)
{
  uint64_t h = 14695981039346656037u; /* FNV-1a */

  for (; *s != '\0'; s++)
    h = (h ^ (uint8_t) *s) * 1099511628211u;
  return h;
}

static uint64_t
hash_u64 (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdu;
  x ^= x >> 33;
  return x;
}

static void *
grow (void   *array,
      size_t *cap,
      size_t  need,
      size_t  elem)
{
  size_t n = *cap > 0 ? *cap : 16;

  if (need <= *cap)
    return array;
  while (n < need)
    n *= 2;
  void *p = realloc (array, n * elem);
  if (p == NULL)
    return NULL;
  *cap = n;
  return p;
}

/* [off, off + len) lies inside a file of `size` bytes (no overflow). */
static bool
in_file (uint64_t size,
         uint64_t off,
         uint64_t len)
{
  return off <= size && len <= size - off;
}

/* ---------------------------------------------------------------------------------------------- */
/* ELF                                                                                            */

typedef struct
{
  const uint8_t *data;
  uint64_t       size;
  Elf64_Ehdr     eh;
  uint64_t       shnum;
  bool           borrowed; /* memory of this process (the vDSO): not unmapped */
} SlElfImage;

/* Checks the ELF header of the image in img->data: a 64-bit executable or shared object of this
 * machine's byte order with a section header table inside the image. */
static bool
elf_check (SlElfImage *img)
{
  memcpy (&img->eh, img->data, sizeof img->eh);

  const unsigned char *id = img->eh.e_ident;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const unsigned char native = ELFDATA2LSB;
#else
  const unsigned char native = ELFDATA2MSB;
#endif
  bool ok = memcmp (id, ELFMAG, SELFMAG) == 0 && id[EI_CLASS] == ELFCLASS64
            && id[EI_DATA] == native && (img->eh.e_type == ET_EXEC || img->eh.e_type == ET_DYN)
            && img->eh.e_shentsize == sizeof (Elf64_Shdr) && img->eh.e_shoff != 0
            && in_file (img->size, img->eh.e_shoff, sizeof (Elf64_Shdr));
  if (ok)
    {
      /* more than 0xff00 sections: the count is in section 0's sh_size */
      img->shnum = img->eh.e_shnum;
      if (img->shnum == 0)
        {
          Elf64_Shdr sh0;
          memcpy (&sh0, img->data + img->eh.e_shoff, sizeof sh0);
          img->shnum = sh0.sh_size;
        }
      uint64_t room = (img->size - img->eh.e_shoff) / sizeof (Elf64_Shdr);
      if (img->shnum > room)
        img->shnum = room; /* truncated file: use the headers that are there */
      ok = img->shnum > 0;
    }
  return ok;
}

/* Maps `path` and checks its ELF header (elf_check). */
static bool
elf_open (const char *path,
          SlElfImage *img)
{
  struct stat st;
  /* O_NONBLOCK: a FIFO at that path must not hang the daemon (it is refused just below) */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

  memset (img, 0, sizeof *img);
  if (fd < 0)
    return false;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < (off_t) sizeof (Elf64_Ehdr)
      || (uint64_t) st.st_size > SIZE_MAX)
    {
      close (fd);
      return false;
    }
  void *map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return false;
  img->data = map;
  img->size = (uint64_t) st.st_size;
  if (!elf_check (img))
    {
      munmap (map, (size_t) img->size);
      memset (img, 0, sizeof *img);
      return false;
    }
  return true;
}

/* The vDSO has no file: the kernel maps one image into every 64-bit process of the machine, so
 * the daemon reads its own (AT_SYSINFO_EHDR), as large as /proc/self/maps says its mapping is.
 * Its .dynsym names clock_gettime, gettimeofday, time, getcpu: hot in programs that read the
 * clock in a loop (Python's time.monotonic(), CUDA's own timing). */
static bool
elf_open_vdso (SlElfImage *img)
{
  uint64_t at = (uint64_t) getauxval (AT_SYSINFO_EHDR), start, end;
  char line[512];
  FILE *maps;

  memset (img, 0, sizeof *img);
  if (at == 0 || (maps = fopen ("/proc/self/maps", "re")) == NULL)
    return false;
  while (fgets (line, sizeof line, maps) != NULL)
    if (strstr (line, "[vdso]") != NULL && sscanf (line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2
        && start == at && end > start && end - start >= sizeof (Elf64_Ehdr))
      {
        img->data = (const uint8_t *) (uintptr_t) at;
        img->size = end - start;
        img->borrowed = true;
        break;
      }
  fclose (maps);
  if (img->data == NULL || !elf_check (img))
    {
      memset (img, 0, sizeof *img);
      return false;
    }
  return true;
}

static void
elf_close (SlElfImage *img)
{
  if (img->data != NULL && !img->borrowed)
    munmap ((void *) img->data, (size_t) img->size);
  memset (img, 0, sizeof *img);
}

static bool
elf_section (const SlElfImage *img,
             uint64_t          index,
             Elf64_Shdr       *sh)
{
  if (index >= img->shnum)
    return false;
  memcpy (sh, img->data + img->eh.e_shoff + index * sizeof (Elf64_Shdr), sizeof *sh);
  return true;
}

/* How good a name is among aliases at one address: one with a size, then one visible outside its
 * file, then fewer leading underscores, then global over weak, then the longer name.  This is
 * perf's choose_best_symbol() with underscores ranked above weakness, so that glibc's public
 * weak names win over their strong internal twins ("opendir", not "__opendir"), as dladdr and
 * the program's source have them. */
static uint32_t
sym_pref (const Elf64_Sym *sym,
          const char      *name,
          size_t           len)
{
  unsigned bind = ELF64_ST_BIND (sym->st_info);
  size_t underscores = 0;

  while (underscores < len && name[underscores] == '_')
    underscores++;
  return (uint32_t) (sym->st_size > 0) << 31 | (uint32_t) (bind != STB_LOCAL) << 30
         | (uint32_t) (255 - (underscores < 255 ? underscores : 255)) << 22
         | (uint32_t) (bind == STB_GLOBAL) << 21 | (uint32_t) (len < 0xfffff ? len : 0xfffff);
}

static int
sym_compare (const void *a,
             const void *b)
{
  const SlSym *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->pref != y->pref)
    return x->pref > y->pref ? -1 : 1; /* best first */
  return x->name < y->name ? -1 : x->name > y->name;
}

/* Adds the function symbols of symbol table section `table` to `f`; returns how many.  A size-0
 * symbol's `end` is, for now, the end of its section (UINT64_MAX when unknown). */
static size_t
elf_read_symbols (const SlElfImage *img,
                  const Elf64_Shdr *table,
                  SlElfFile        *f)
{
  Elf64_Shdr strtab;
  size_t added = 0;

  if ((table->sh_entsize != 0 && table->sh_entsize != sizeof (Elf64_Sym))
      || !in_file (img->size, table->sh_offset, table->sh_size)
      || !elf_section (img, table->sh_link, &strtab) || strtab.sh_type != SHT_STRTAB
      || !in_file (img->size, strtab.sh_offset, strtab.sh_size))
    return 0;

  const char *strings = (const char *) img->data + strtab.sh_offset;
  uint64_t n = table->sh_size / sizeof (Elf64_Sym);
  for (uint64_t i = 0; i < n; i++)
    {
      Elf64_Sym sym;
      Elf64_Shdr sec;

      memcpy (&sym, img->data + table->sh_offset + i * sizeof sym, sizeof sym);
      unsigned type = ELF64_ST_TYPE (sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF
          || sym.st_shndx >= SHN_LORESERVE || sym.st_value == 0 || sym.st_name >= strtab.sh_size)
        continue;
      const char *name = strings + sym.st_name;
      const char *nul = memchr (name, '\0', strtab.sh_size - sym.st_name);
      if (nul == NULL || nul == name)
        continue;
      size_t len = (size_t) (nul - name);

      uint64_t end;
      if (sym.st_size > 0)
        end = sym.st_value + sym.st_size < sym.st_value ? UINT64_MAX : sym.st_value + sym.st_size;
      else if (elf_section (img, sym.st_shndx, &sec) && sec.sh_addr <= sym.st_value
               && sym.st_value - sec.sh_addr < sec.sh_size)
        end = sec.sh_addr + sec.sh_size;
      else
        end = UINT64_MAX;

      if (f->names_len + len + 1 > UINT32_MAX)
        break; /* 4 GiB of names: no real file has that */
      SlSym *syms = grow (f->syms, &f->syms_cap, f->n_syms + 1, sizeof *syms);
      char *names = grow (f->names, &f->names_cap, f->names_len + len + 1, 1);
      if (syms != NULL)
        f->syms = syms;
      if (names != NULL)
        f->names = names;
      if (syms == NULL || names == NULL)
        break;
      memcpy (f->names + f->names_len, name, len + 1);
      f->syms[f->n_syms++] = (SlSym){ sym.st_value, end, (uint32_t) f->names_len,
                                      sym_pref (&sym, name, len), NULL };
      f->names_len += len + 1;
      added++;
    }
  return added;
}

/* The function symbols of an open image: .symtab, else .dynsym; returns how many. */
static size_t
elf_read_functions (const SlElfImage *img,
                    SlElfFile        *f,
                    bool              symtab_only)
{
  static const uint32_t kinds[] = { SHT_SYMTAB, SHT_DYNSYM };

  for (size_t k = 0; k < (symtab_only ? 1 : 2); k++)
    for (uint64_t i = 0; i < img->shnum; i++)
      {
        Elf64_Shdr sh;
        if (elf_section (img, i, &sh) && sh.sh_type == kinds[k])
          {
            size_t n = elf_read_symbols (img, &sh, f);
            if (n > 0)
              return n;
            break; /* one table of each kind */
          }
      }
  return 0;
}

/* The GNU build id of an open image in hex ("" when it has none), for its debug file's path. */
static void
elf_build_id (const SlElfImage *img,
              char             *hex,
              size_t            hex_size)
{
  hex[0] = '\0';
  for (uint64_t i = 0; i < img->shnum; i++)
    {
      Elf64_Shdr sh;
      if (!elf_section (img, i, &sh) || sh.sh_type != SHT_NOTE
          || !in_file (img->size, sh.sh_offset, sh.sh_size))
        continue;
      /* notes: namesz, descsz, type, name and desc each padded to 4 bytes */
      uint64_t off = 0;
      while (sh.sh_size - off >= sizeof (Elf64_Nhdr))
        {
          Elf64_Nhdr nh;
          memcpy (&nh, img->data + sh.sh_offset + off, sizeof nh);
          uint64_t name_off = off + sizeof nh;
          uint64_t desc_off = name_off + (((uint64_t) nh.n_namesz + 3) & ~3u);
          uint64_t next = desc_off + (((uint64_t) nh.n_descsz + 3) & ~3u);
          if (next > sh.sh_size || next <= off)
            break;
          if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4
              && memcmp (img->data + sh.sh_offset + name_off, "GNU", 4) == 0 && nh.n_descsz > 1
              && (uint64_t) nh.n_descsz * 2 + 1 <= hex_size)
            {
              const uint8_t *d = img->data + sh.sh_offset + desc_off;
              for (uint32_t b = 0; b < nh.n_descsz; b++)
                snprintf (hex + 2 * b, 3, "%02x", d[b]);
              return;
            }
          off = next;
        }
    }
}

/* Sorts the symbols, keeps the best name of each address and bounds size-0 symbols by the next
 * one: "an address is in the nearest preceding symbol when that one has no size". */
static void
file_finish_symbols (SlElfFile *f)
{
  size_t kept = 0;

  if (f->n_syms == 0)
    return;
  qsort (f->syms, f->n_syms, sizeof *f->syms, sym_compare);
  for (size_t i = 0; i < f->n_syms; i++)
    if (kept == 0 || f->syms[i].start != f->syms[kept - 1].start)
      f->syms[kept++] = f->syms[i];
  f->n_syms = kept;
  for (size_t i = 0; i < kept; i++)
    {
      SlSym *sym = &f->syms[i];
      bool sized = (sym->pref >> 31) != 0;
      if (!sized)
        {
          uint64_t next = i + 1 < kept ? f->syms[i + 1].start : UINT64_MAX;
          if (next < sym->end)
            sym->end = next;
          if (sym->end == UINT64_MAX)
            sym->end = sym->start + 1; /* last one, section unknown: its own address only */
        }
    }
}

/* Reads `f`'s symbols once; a file that cannot be read just has none. */
static void
file_load (SlSymbolizer *s,
           SlElfFile    *f)
{
  SlElfImage img;
  Elf64_Shdr sh;
  bool has_symtab = false, done = false;

  f->loaded = true;
  if (strcmp (f->path, SL_SYMBOLS_VDSO) == 0)
    {
      if (elf_open_vdso (&img))
        {
          elf_read_functions (&img, f, false);
          elf_close (&img);
          file_finish_symbols (f);
        }
      return;
    }
  if (f->path[0] != '/' || !elf_open (f->path, &img))
    return;
  for (uint64_t i = 0; i < img.shnum && !has_symtab; i++)
    has_symtab = elf_section (&img, i, &sh) && sh.sh_type == SHT_SYMTAB;
  if (!has_symtab && s->debug_root != NULL)
    {
      /* a stripped library: its debug file, when installed, has the local functions too
       * (libc's __memmove_avx_unaligned_erms, say, where .dynsym has only memcpy's resolver) */
      char id[2 * 64 + 1], path[4096];
      SlElfImage dbg;
      elf_build_id (&img, id, sizeof id);
      if (id[0] != '\0'
          && snprintf (path, sizeof path, "%s/.build-id/%.2s/%s.debug", s->debug_root, id, id + 2)
               < (int) sizeof path
          && elf_open (path, &dbg))
        {
          done = elf_read_functions (&dbg, f, true) > 0;
          elf_close (&dbg);
        }
    }
  if (!done)
    elf_read_functions (&img, f, false);
  elf_close (&img);
  file_finish_symbols (f);
}

static void
file_free (SlElfFile *f)
{
  for (size_t i = 0; i < f->n_syms; i++)
    if (f->syms[i].demangled != NULL && f->syms[i].demangled != f->names + f->syms[i].name)
      free (f->syms[i].demangled);
  free (f->syms);
  free (f->names);
  free (f->path);
  free (f);
}

/* The symbol covering link-time address `vaddr`, or NULL. */
static SlSym *
file_find (SlElfFile *f,
           uint64_t   vaddr)
{
  size_t lo = 0, hi = f->n_syms;

  /* the last symbol starting at or before vaddr */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (f->syms[mid].start <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* nested symbols (a local label typed FUNC inside a function) can hide the enclosing one:
   * look a few symbols further back */
  for (size_t i = lo, walked = 0; i > 0 && walked < SL_NEST_WALK; i--, walked++)
    if (vaddr < f->syms[i - 1].end)
      return &f->syms[i - 1];
  return NULL;
}

static const char *
sym_name (SlElfFile *f,
          SlSym     *sym)
{
  char *name = f->names + sym->name;

  if (sym->demangled == NULL)
    {
      int status = -1;
      char *d = name[0] == '_' && name[1] == 'Z' ? __cxa_demangle (name, NULL, NULL, &status)
                                                 : NULL;
      sym->demangled = d != NULL && status == 0 ? d : name;
      if (d != NULL && status != 0)
        free (d);
    }
  return sym->demangled;
}

/* ---------------------------------------------------------------------------------------------- */
/* Tables                                                                                         */

/* The cached file for `path`, made on first use (not read yet); NULL when out of memory. */
static SlElfFile *
files_get (SlSymbolizer *s,
           const char   *path)
{
  if ((s->n_files + 1) * 2 > s->cap_files)
    {
      size_t cap = s->cap_files > 0 ? s->cap_files * 2 : 64;
      SlElfFile **table = calloc (cap, sizeof *table);
      if (table == NULL)
        return NULL;
      for (size_t i = 0; i < s->cap_files; i++)
        if (s->files[i] != NULL)
          {
            size_t j = hash_str (s->files[i]->path) & (cap - 1);
            while (table[j] != NULL)
              j = (j + 1) & (cap - 1);
            table[j] = s->files[i];
          }
      free (s->files);
      s->files = table;
      s->cap_files = cap;
    }
  size_t j = hash_str (path) & (s->cap_files - 1);
  for (; s->files[j] != NULL; j = (j + 1) & (s->cap_files - 1))
    if (strcmp (s->files[j]->path, path) == 0)
      return s->files[j];
  SlElfFile *f = calloc (1, sizeof *f);
  if (f == NULL || (f->path = strdup (path)) == NULL)
    {
      free (f);
      return NULL;
    }
  s->files[j] = f;
  s->n_files++;
  return f;
}

/* "0x<addr>", kept for the symbolizer's life (one per distinct unresolved address). */
static const char *
addr_text (SlSymbolizer *s,
           uint64_t      addr)
{
  if ((s->n_texts + 1) * 2 > s->cap_texts)
    {
      size_t cap = s->cap_texts > 0 ? s->cap_texts * 2 : 256;
      SlAddrText *table = calloc (cap, sizeof *table);
      if (table == NULL)
        return "0x?";
      for (size_t i = 0; i < s->cap_texts; i++)
        if (s->texts[i].text != NULL)
          {
            size_t j = hash_u64 (s->texts[i].addr) & (cap - 1);
            while (table[j].text != NULL)
              j = (j + 1) & (cap - 1);
            table[j] = s->texts[i];
          }
      free (s->texts);
      s->texts = table;
      s->cap_texts = cap;
    }
  size_t j = hash_u64 (addr) & (s->cap_texts - 1);
  for (; s->texts[j].text != NULL; j = (j + 1) & (s->cap_texts - 1))
    if (s->texts[j].addr == addr)
      return s->texts[j].text;
  char buf[24];
  snprintf (buf, sizeof buf, "0x%" PRIx64, addr);
  char *text = strdup (buf);
  if (text == NULL)
    return "0x?";
  s->texts[j] = (SlAddrText){ addr, text };
  s->n_texts++;
  return text;
}

/* Index of the first module of `pid` that ends after `addr` (modules are sorted by (pid, start)
 * and do not overlap within a pid, so ends are sorted too). */
static size_t
modules_search (SlSymbolizer *s,
                int32_t       pid,
                uint64_t      addr)
{
  size_t lo = 0, hi = s->n_modules;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const SlModule *m = &s->modules[mid];
      if (m->pid < pid || (m->pid == pid && m->end <= addr))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---------------------------------------------------------------------------------------------- */
/* Public API                                                                                     */

SlSymbolizer *
sl_symbolizer_new (void)
{
  SlSymbolizer *s = calloc (1, sizeof *s);

  if (s != NULL)
    {
      s->debug_root = SL_SYMBOLS_DEBUG_ROOT;
      s->perf = sl_perf_maps_new (NULL);
    }
  return s;
}

void
sl_symbolizer_free (SlSymbolizer *s)
{
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->cap_files; i++)
    if (s->files[i] != NULL)
      file_free (s->files[i]);
  for (size_t i = 0; i < s->cap_texts; i++)
    free (s->texts[i].text);
  free (s->files);
  free (s->texts);
  free (s->modules);
  free (s->debug_root_copy);
  sl_perf_maps_free (s->perf);
  free (s);
}

void
sl_symbolizer_set_perf_map_dir (SlSymbolizer *s,
                                const char   *dir)
{
  if (s == NULL)
    return;
  sl_perf_maps_free (s->perf);
  s->perf = sl_perf_maps_new (dir);
}

void
sl_symbolizer_set_debug_root (SlSymbolizer *s,
                              const char   *dir)
{
  if (s == NULL)
    return;
  free (s->debug_root_copy);
  s->debug_root_copy = dir != NULL ? strdup (dir) : NULL;
  s->debug_root = s->debug_root_copy;
}

void
sl_symbolizer_add_module (SlSymbolizer *s,
                          int32_t       pid,
                          uint64_t      base,
                          uint64_t      start,
                          uint64_t      end,
                          const char   *path)
{
  if (s == NULL || path == NULL || start >= end)
    return;
  SlElfFile *f = files_get (s, path);
  if (f == NULL)
    return;

  /* the modules of pid that overlap [start, end): [first, last) */
  size_t first = modules_search (s, pid, start), last = first;
  while (last < s->n_modules && s->modules[last].pid == pid && s->modules[last].start < end)
    last++;
  if (last == first + 1)
    {
      const SlModule *m = &s->modules[first];
      if (m->base == base && m->start == start && m->end == end && m->file == f)
        return; /* sent again (after a fork, say): nothing new */
    }
  if (last == first)
    {
      SlModule *modules = grow (s->modules, &s->cap_modules, s->n_modules + 1, sizeof *modules);
      if (modules == NULL)
        return;
      s->modules = modules;
      memmove (&s->modules[first + 1], &s->modules[first],
               (s->n_modules - first) * sizeof *s->modules);
      s->n_modules++;
    }
  else if (last > first + 1)
    {
      /* they were unloaded: the new one takes the place of all of them */
      memmove (&s->modules[first + 1], &s->modules[last],
               (s->n_modules - last) * sizeof *s->modules);
      s->n_modules -= last - first - 1;
    }
  s->modules[first] = (SlModule){ pid, base, start, end, f };
}

bool
sl_symbolizer_lookup_frame (SlSymbolizer *s,
                            int32_t       pid,
                            uint64_t      addr,
                            bool          is_leaf,
                            const char  **symbol,
                            const char  **module)
{
  uint64_t at = is_leaf || addr == 0 ? addr : addr - 1;
  const char *sym = NULL, *mod = SL_SYMBOLS_UNKNOWN_MODULE;

  if (s != NULL)
    {
      size_t i = modules_search (s, pid, at);
      if (i < s->n_modules && s->modules[i].pid == pid && s->modules[i].start <= at)
        {
          SlModule *m = &s->modules[i];
          if (!m->file->loaded)
            file_load (s, m->file);
          mod = m->file->path;
          SlSym *found = file_find (m->file, at - m->base);
          if (found != NULL)
            sym = sym_name (m->file, found);
        }
      else
        sl_perf_maps_lookup (s->perf, pid, at, &sym, &mod); /* generated code, named in the
                                                               * process's perf map */
    }
  if (symbol != NULL)
    *symbol = sym != NULL ? sym : s != NULL ? addr_text (s, addr) : "0x?";
  if (module != NULL)
    *module = mod;
  return sym != NULL;
}

bool
sl_symbolizer_lookup (SlSymbolizer *s,
                      int32_t       pid,
                      uint64_t      addr,
                      const char  **symbol,
                      const char  **module)
{
  return sl_symbolizer_lookup_frame (s, pid, addr, true, symbol, module);
}
