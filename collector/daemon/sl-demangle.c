/* sl-demangle.c: kernel names as Nsight Systems writes them: an Itanium C++ ABI demangler that
 * prints in the style of NVIDIA's cu++filt (the EDG front end's), and the base name nsys keeps as
 * shortName.
 *
 * Why our own: nsys's demangledName is not what libstdc++'s __cxa_demangle prints.  It keeps the
 * template parameters of a signature as written ("T2 *", not the substituted type), spells
 * literals as casts ("(int)16", "(bool)0", "(unsigned long)3"), puts cv-qualifiers in front
 * ("const float *"), calls anonymous namespaces "<unnamed>" and lambdas
 * "[lambda(int) (instance 1)]", and closes nested templates without a space (">>").  Matching it
 * keeps a person's nsys scripts, and their grep for a kernel, working on our traces.
 *
 * The parser follows the ABI's grammar and, for its substitution table, exactly the rules of
 * LLVM's ItaniumDemangle (which entities are candidates, and in which order): getting one wrong
 * shifts every later S<n>_.  It builds a small tree in an arena, then prints it.  What it does
 * not know (vector types, rarer expressions, special names like vtables) falls back to
 * __cxa_demangle, whose output is correct C++ but GNU-styled; a name that is not mangled is kept.
 *
 * The same tree printed in libiberty's spelling (_sl_demangle_gnu_style) lets the tests check the
 * parser against __cxa_demangle on every symbol of libstdc++.
 *
 * Sizes: in the real exports kernel names are 20 B ... 1.6 KiB mangled and up to 4.9 KiB
 * printed (a cutlass GEMM); the daemon demangles each distinct name once, so this is not a hot
 * path.  A hostile name cannot blow the stack or the heap: nesting, printed length and printing
 * work are capped.
 */
#include "sl-demangle.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (the daemon links libstdc++), for what ours does not parse. */
char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status);

#define DN_MAX_DEPTH    256       /* parse nesting: 17 in the real exports, 19 in CUDA libs */
#define DN_MAX_PRINT    2048      /* print nesting (substitutions can chain deeper than parsing) */
#define DN_MAX_OUT      (1 << 20) /* printed length: 200 times the longest real one */
#define DN_MAX_STEPS    (1 << 22) /* printed nodes: substitutions can make output exponential */
#define DN_BLOCK        16384     /* arena block; a cutlass name needs 3 or 4 */

typedef enum
{
  DN_NAME,           /* str */
  DN_NESTED,         /* a::b */
  DN_TEMPLATE,       /* a<list> */
  DN_LOCAL,          /* a::b: b declared in function a */
  DN_ENCODING,       /* [a ]b(list)[ cv][ ref]: a function */
  DN_CTOR,           /* a's base name; flag: destructor */
  DN_CONVERSION,     /* operator a */
  DN_CLOSURE,        /* [lambda(list) (instance num)] */
  DN_UNNAMED,        /* [unnamed type (instance num)] */
  DN_ABI_TAG,        /* a[abi:str] */
  DN_SPECIAL,        /* Sa, Sb, Ss, Si, So, Sd: num indexes special_subs */
  DN_TPARAM,         /* T<num + 1> */
  DN_QUAL,           /* cv a */
  DN_POINTER,        /* a * */
  DN_LREF,           /* a & */
  DN_RREF,           /* a && */
  DN_FUNCTION,       /* a (list)[ cv][ ref]: a function type */
  DN_ARRAY,          /* a [b] */
  DN_PTRMEM,         /* b a::* */
  DN_VENDOR_QUAL,    /* a str */
  DN_ELABORATED,     /* str a */
  DN_PACK_EXPANSION, /* a... */
  DN_ARG_PACK,       /* list, inline */
  DN_LITERAL,        /* (str)a */
  DN_ENUM_LITERAL,   /* (a)b */
  DN_DECLTYPE,       /* decltype(a) */
  DN_FPARAM,         /* {parm#num} */
  DN_PREFIX,         /* str a */
  DN_BINARY,         /* (a str b) */
  DN_TERNARY,        /* (a ? b : list[0]) */
  DN_CALL,           /* a(list) */
  DN_CAST,           /* str<a>(list), or (a)(list) when str is NULL */
  DN_SIZEOF,         /* str(a) */
  DN_MEMBER,         /* a str b */
  DN_CLONE,          /* a [clone str] */
} DnKind;

enum
{
  DN_ANONYMOUS = 1, /* "<unnamed>" */
  DN_OPERATOR = 2,  /* str is the operator's symbol */
};

enum
{
  DN_CONST = 1,
  DN_VOLATILE = 2,
  DN_RESTRICT = 4,
};

typedef struct Dn Dn;
struct Dn
{
  uint8_t kind;
  uint8_t cv;   /* DN_QUAL; and a member function's (DN_ENCODING, DN_FUNCTION) */
  uint8_t ref;  /* a member function's ref-qualifier: 1 "&", 2 "&&" */
  uint8_t flag; /* DN_CTOR: a destructor; DN_NAME: DN_ANONYMOUS or DN_OPERATOR */
  uint32_t n;   /* list length */
  uint64_t num;
  const char *str; /* not terminated: len bytes */
  size_t len;
  Dn *a, *b;
  Dn **list;
};

typedef struct DnBlock DnBlock;
struct DnBlock
{
  DnBlock *next;
  size_t used, size;
  max_align_t data[];
};

typedef struct
{
  const char *p, *end;
  DnBlock *blocks;
  Dn **subs; /* the substitution table: S_, S0_, S1_ ... */
  size_t n_subs, cap_subs;
  Dn **stack; /* lists under construction */
  size_t n_stack, cap_stack;
  Dn *tparams; /* the template arguments T_, T0_ ... refer to (for the GNU-style check) */
  int depth;
  bool failed;
  bool limited; /* a cap was hit: the name is hostile, do not hand it to __cxa_demangle */
} Dp;

/* What the name of an encoding says about the function: cv- and ref-qualifiers of a member
 * function, and whether a return type is mangled (templates that are not ctor/dtor/conversion). */
typedef struct
{
  uint8_t cv, ref;
  bool ends_with_template_args;
  bool ctor_dtor_conversion;
} DnState;

/* ---------------------------------------------------------------------------------------------- */
/* Arena and small helpers                                                                        */

static void *
dp_alloc (Dp    *dp,
          size_t size)
{
  size = (size + sizeof (max_align_t) - 1) & ~(sizeof (max_align_t) - 1);
  if (dp->blocks == NULL || dp->blocks->size - dp->blocks->used < size)
    {
      size_t bytes = size > DN_BLOCK ? size : DN_BLOCK;
      DnBlock *b = malloc (sizeof (DnBlock) + bytes);
      if (b == NULL)
        {
          dp->failed = true;
          return NULL;
        }
      b->next = dp->blocks;
      b->used = 0;
      b->size = bytes;
      dp->blocks = b;
    }
  void *mem = (char *) dp->blocks->data + dp->blocks->used;
  dp->blocks->used += size;
  return mem;
}

static Dn *
dn_new (Dp    *dp,
        DnKind kind)
{
  Dn *n = dp_alloc (dp, sizeof (Dn));

  if (n == NULL)
    return NULL;
  memset (n, 0, sizeof *n);
  n->kind = (uint8_t) kind;
  return n;
}

static Dn *
dn_str (Dp         *dp,
        DnKind      kind,
        const char *str,
        size_t      len)
{
  Dn *n = dn_new (dp, kind);

  if (n != NULL)
    {
      n->str = str;
      n->len = len;
    }
  return n;
}

static Dn *
dn_name (Dp         *dp,
         const char *text)
{
  return dn_str (dp, DN_NAME, text, strlen (text));
}

static Dn *
dn_2 (Dp    *dp,
      DnKind kind,
      Dn    *a,
      Dn    *b)
{
  Dn *n;

  if (a == NULL || (kind != DN_ARRAY && b == NULL))
    return NULL;
  n = dn_new (dp, kind);
  if (n != NULL)
    {
      n->a = a;
      n->b = b;
    }
  return n;
}

static Dn *
dn_1 (Dp    *dp,
      DnKind kind,
      Dn    *a)
{
  Dn *n;

  if (a == NULL)
    return NULL;
  n = dn_new (dp, kind);
  if (n != NULL)
    n->a = a;
  return n;
}

/* Sets the node's text (a static string); passes NULL through. */
static Dn *
with_str (Dn         *n,
          const char *s)
{
  if (n != NULL)
    {
      n->str = s;
      n->len = strlen (s);
    }
  return n;
}

static char
peek (const Dp *dp,
      size_t    i)
{
  return (size_t) (dp->end - dp->p) > i ? dp->p[i] : '\0';
}

static bool
consume (Dp  *dp,
         char c)
{
  if (peek (dp, 0) != c || c == '\0')
    return false;
  dp->p++;
  return true;
}

static bool
consume_str (Dp         *dp,
             const char *s)
{
  size_t n = strlen (s);

  if ((size_t) (dp->end - dp->p) < n || memcmp (dp->p, s, n) != 0)
    return false;
  dp->p += n;
  return true;
}

static bool
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static bool
push_to (Dp     *dp,
         Dn   ***array,
         size_t *n,
         size_t *cap,
         Dn     *node)
{
  if (node == NULL)
    return false;
  if (*n == *cap)
    {
      size_t new_cap = *cap == 0 ? 64 : *cap * 2;
      Dn **grown = realloc (*array, new_cap * sizeof (Dn *));
      if (grown == NULL)
        {
          dp->failed = true;
          return false;
        }
      *array = grown;
      *cap = new_cap;
    }
  (*array)[(*n)++] = node;
  return true;
}

static bool
push_sub (Dp *dp,
          Dn *node)
{
  return push_to (dp, &dp->subs, &dp->n_subs, &dp->cap_subs, node);
}

static bool
push_list (Dp *dp,
           Dn *node)
{
  return push_to (dp, &dp->stack, &dp->n_stack, &dp->cap_stack, node);
}

/* The stack's entries from @begin on, moved into the arena as @n's list. */
static Dn *
pop_list (Dp    *dp,
          Dn    *n,
          size_t begin)
{
  size_t count = dp->n_stack - begin;

  if (n == NULL)
    return NULL;
  n->n = (uint32_t) count;
  if (count > 0)
    {
      n->list = dp_alloc (dp, count * sizeof (Dn *));
      if (n->list == NULL)
        return NULL;
      memcpy (n->list, dp->stack + begin, count * sizeof (Dn *));
    }
  dp->n_stack = begin;
  return n;
}

/* Decimal digits (and a leading 'n' for minus when @negative), as a view of the input. */
static bool
parse_number (Dp          *dp,
              bool         negative,
              const char **str,
              size_t      *len)
{
  const char *start = dp->p;

  if (negative)
    consume (dp, 'n');
  while (is_digit (peek (dp, 0)))
    dp->p++;
  *str = start;
  *len = (size_t) (dp->p - start);
  return dp->p > start && is_digit (dp->p[-1]);
}

static bool
parse_count (Dp       *dp,
             uint64_t *value)
{
  const char *s;
  size_t len;

  *value = 0;
  if (!parse_number (dp, false, &s, &len))
    return false;
  for (size_t i = 0; i < len; i++)
    {
      if (*value > UINT64_MAX / 10 - 10)
        return false;
      *value = *value * 10 + (uint64_t) (s[i] - '0');
    }
  return true;
}

/* The literal's value with the ABI's 'n' as a minus sign. */
static Dn *
literal_value (Dp         *dp,
               const char *s,
               size_t      len)
{
  if (len > 0 && s[0] == 'n')
    {
      char *text = dp_alloc (dp, len + 1);
      if (text == NULL)
        return NULL;
      text[0] = '-';
      memcpy (text + 1, s + 1, len - 1);
      return dn_str (dp, DN_NAME, text, len);
    }
  return dn_str (dp, DN_NAME, s, len);
}

static bool
enter (Dp *dp)
{
  if (dp->failed || ++dp->depth > DN_MAX_DEPTH)
    {
      dp->limited |= dp->depth > DN_MAX_DEPTH;
      dp->failed = true;
      return false;
    }
  return true;
}

static Dn *
leave (Dp *dp,
       Dn *result)
{
  dp->depth--;
  if (result == NULL)
    dp->failed = true;
  return result;
}

/* ---------------------------------------------------------------------------------------------- */
/* Tables                                                                                         */

typedef struct
{
  char code[3];
  const char *symbol;
  uint8_t arity; /* in expressions: 1 prefix, 2 binary, 3 ternary; 0 other */
} DnOperator;

static const DnOperator operators[] = {
  { "aN", "&=", 2 },   { "aS", "=", 2 },      { "aa", "&&", 2 },      { "ad", "&", 1 },
  { "an", "&", 2 },    { "aw", "co_await", 1 }, { "cm", ",", 2 },     { "co", "~", 1 },
  { "dV", "/=", 2 },   { "da", "delete[]", 0 }, { "de", "*", 1 },     { "dl", "delete", 0 },
  { "ds", ".*", 2 },   { "dv", "/", 2 },      { "eO", "^=", 2 },      { "eo", "^", 2 },
  { "eq", "==", 2 },   { "ge", ">=", 2 },     { "gt", ">", 2 },       { "ix", "[]", 2 },
  { "lS", "<<=", 2 },  { "le", "<=", 2 },     { "ls", "<<", 2 },      { "lt", "<", 2 },
  { "mI", "-=", 2 },   { "mL", "*=", 2 },     { "mi", "-", 2 },       { "ml", "*", 2 },
  { "mm", "--", 1 },   { "na", "new[]", 0 },  { "ne", "!=", 2 },      { "ng", "-", 1 },
  { "nt", "!", 1 },    { "nw", "new", 0 },    { "oR", "|=", 2 },      { "oo", "||", 2 },
  { "or", "|", 2 },    { "pL", "+=", 2 },     { "pl", "+", 2 },       { "pm", "->*", 2 },
  { "pp", "++", 1 },   { "ps", "+", 1 },      { "qu", "?", 3 },       { "rM", "%=", 2 },
  { "rS", ">>=", 2 },  { "rm", "%", 2 },      { "rs", ">>", 2 },      { "ss", "<=>", 2 },
  { "cl", "()", 0 },    { "pt", "->", 0 },
};

static const DnOperator *
find_operator (const Dp *dp)
{
  for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
    if (peek (dp, 0) == operators[i].code[0] && peek (dp, 1) == operators[i].code[1])
      return &operators[i];
  return NULL;
}

static const char *
builtin_type (char c)
{
  switch (c)
    {
    case 'v': return "void";
    case 'w': return "wchar_t";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'n': return "__int128";
    case 'o': return "unsigned __int128";
    case 'f': return "float";
    case 'd': return "double";
    case 'e': return "long double";
    case 'g': return "__float128";
    case 'z': return "...";
    default: return NULL;
    }
}

static const char *
builtin_d_type (char c)
{
  switch (c)
    {
    case 'd': return "decimal64";
    case 'e': return "decimal128";
    case 'f': return "decimal32";
    case 'h': return "half";
    case 'i': return "char32_t";
    case 's': return "char16_t";
    case 'u': return "char8_t";
    case 'a': return "auto";
    case 'c': return "decltype(auto)";
    case 'n': return "std::nullptr_t";
    default: return NULL;
    }
}

/* Sa Sb Ss Si So Sd: printed in full, as EDG spells the standard library's names. */
static const struct
{
  char code;
  const char *full, *base, *gnu, *gnu_scope;
} special_subs[] = {
  { 'a', "std::allocator", "allocator", "std::allocator", "std::allocator" },
  { 'b', "std::basic_string", "basic_string", "std::basic_string", "std::basic_string" },
  { 's', "std::basic_string<char, std::char_traits<char>, std::allocator<char>>", "basic_string",
    "std::string", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >" },
  { 'i', "std::basic_istream<char, std::char_traits<char>>", "basic_istream", "std::istream",
    "std::basic_istream<char, std::char_traits<char> >" },
  { 'o', "std::basic_ostream<char, std::char_traits<char>>", "basic_ostream", "std::ostream",
    "std::basic_ostream<char, std::char_traits<char> >" },
  { 'd', "std::basic_iostream<char, std::char_traits<char>>", "basic_iostream", "std::iostream",
    "std::basic_iostream<char, std::char_traits<char> >" },
};

/* ---------------------------------------------------------------------------------------------- */
/* Parser                                                                                         */

static Dn *parse_type (Dp *dp);
static Dn *parse_name (Dp *dp, DnState *st);
static Dn *parse_encoding (Dp *dp);
static Dn *parse_expr (Dp *dp);
static Dn *parse_template_args (Dp *dp);
static Dn *parse_unqualified_name (Dp *dp, DnState *st, Dn *scope);

static uint8_t
parse_cv (Dp *dp)
{
  uint8_t cv = 0;

  if (consume (dp, 'r'))
    cv |= DN_RESTRICT;
  if (consume (dp, 'V'))
    cv |= DN_VOLATILE;
  if (consume (dp, 'K'))
    cv |= DN_CONST;
  return cv;
}

/* <source-name> ::= <length> <identifier>; "_GLOBAL__N..." is an anonymous namespace. */
static Dn *
parse_source_name (Dp *dp)
{
  uint64_t len;

  if (!parse_count (dp, &len) || len == 0 || len > (uint64_t) (dp->end - dp->p))
    return NULL;
  const char *s = dp->p;
  dp->p += len;
  if (len >= 10 && memcmp (s, "_GLOBAL__N", 10) == 0)
    {
      Dn *n = dn_name (dp, "<unnamed>");
      if (n != NULL)
        n->flag = DN_ANONYMOUS;
      return n;
    }
  return dn_str (dp, DN_NAME, s, (size_t) len);
}

static Dn *
parse_abi_tags (Dp *dp,
                Dn *n)
{
  while (n != NULL && consume (dp, 'B'))
    {
      Dn *tag = parse_source_name (dp);
      if (tag == NULL)
        return NULL;
      Dn *t = dn_1 (dp, DN_ABI_TAG, n);
      if (t == NULL)
        return NULL;
      t->str = tag->str;
      t->len = tag->len;
      n = t;
    }
  return n;
}

/* <substitution> ::= S_ | S <seq-id> _ | Sa | Sb | Ss | Si | So | Sd */
static Dn *
parse_substitution (Dp *dp)
{
  if (!consume (dp, 'S'))
    return NULL;
  char c = peek (dp, 0);
  if (c >= 'a' && c <= 'z')
    {
      for (size_t i = 0; i < sizeof special_subs / sizeof special_subs[0]; i++)
        if (special_subs[i].code == c)
          {
            dp->p++;
            Dn *n = dn_new (dp, DN_SPECIAL);
            if (n == NULL)
              return NULL;
            n->num = i;
            /* ABI 5.1.2: abi tags on a special substitution make a candidate */
            Dn *tagged = parse_abi_tags (dp, n);
            if (tagged != n && !push_sub (dp, tagged))
              return NULL;
            return tagged;
          }
      return NULL;
    }
  if (consume (dp, '_'))
    return dp->n_subs > 0 ? dp->subs[0] : NULL;
  uint64_t index = 0;
  bool any = false;
  for (;;)
    {
      c = peek (dp, 0);
      uint64_t d;
      if (is_digit (c))
        d = (uint64_t) (c - '0');
      else if (c >= 'A' && c <= 'Z')
        d = (uint64_t) (c - 'A') + 10;
      else
        break;
      if (index > (UINT64_MAX - d) / 36)
        return NULL;
      index = index * 36 + d;
      any = true;
      dp->p++;
    }
  if (!any || !consume (dp, '_') || index + 1 >= dp->n_subs)
    return NULL;
  return dp->subs[index + 1];
}

/* <template-param> ::= T_ | T <number> _ | TL <level> __ | TL <level> _ <number> _ */
static Dn *
parse_template_param (Dp *dp)
{
  uint64_t index = 0;
  Dn *n;

  if (!consume (dp, 'T'))
    return NULL;
  if (consume (dp, 'L'))
    {
      uint64_t level;
      if (!parse_count (dp, &level) || !consume (dp, '_'))
        return NULL;
    }
  if (!consume (dp, '_'))
    {
      if (!parse_count (dp, &index) || !consume (dp, '_'))
        return NULL;
      index++;
    }
  n = dn_new (dp, DN_TPARAM);
  if (n != NULL)
    {
      n->num = index;
      if (dp->tparams != NULL && index < dp->tparams->n)
        n->b = dp->tparams->list[index];
    }
  return n;
}

static Dn *
parse_decltype (Dp *dp)
{
  if (!consume (dp, 'D') || !(consume (dp, 't') || consume (dp, 'T')))
    return NULL;
  Dn *e = parse_expr (dp);
  if (e == NULL || !consume (dp, 'E'))
    return NULL;
  return dn_1 (dp, DN_DECLTYPE, e);
}

/* <unnamed-type-name> ::= Ut [<number>] _ | Ul <lambda-sig> E [<number>] _ */
static Dn *
parse_unnamed_type_name (Dp  *dp,
                         bool in_name)
{
  uint64_t count = 0;
  Dn *n;

  if (in_name)
    dp->tparams = NULL; /* T_ in a closure's signature are not the enclosing template's */
  if (consume_str (dp, "Ut"))
    {
      bool numbered = parse_count (dp, &count);
      if (!consume (dp, '_'))
        return NULL;
      n = dn_new (dp, DN_UNNAMED);
      if (n != NULL)
        n->num = numbered ? count + 2 : 1;
      return n;
    }
  if (consume_str (dp, "Ul"))
    {
      size_t begin = dp->n_stack;
      /* template parameter declarations of a generic lambda (C++20): not in kernel names */
      if (peek (dp, 0) == 'T' && strchr ("yntp", peek (dp, 1)) != NULL && peek (dp, 1) != '\0')
        return NULL;
      if (!consume_str (dp, "vE"))
        while (!consume (dp, 'E'))
          if (!push_list (dp, parse_type (dp)))
            return NULL;
      bool numbered = parse_count (dp, &count);
      if (!consume (dp, '_'))
        return NULL;
      n = pop_list (dp, dn_new (dp, DN_CLOSURE), begin);
      if (n != NULL)
        n->num = numbered ? count + 2 : 1;
      return n;
    }
  if (consume_str (dp, "Ub"))
    {
      parse_count (dp, &count);
      if (!consume (dp, '_'))
        return NULL;
      return dn_name (dp, "'block-literal'");
    }
  return NULL;
}

static Dn *
parse_operator_name (Dp      *dp,
                     DnState *st)
{
  if (consume_str (dp, "cv"))
    {
      Dn *t = parse_type (dp);
      if (st != NULL)
        st->ctor_dtor_conversion = true;
      return dn_1 (dp, DN_CONVERSION, t);
    }
  if (consume_str (dp, "li"))
    {
      Dn *id = parse_source_name (dp);
      if (id == NULL)
        return NULL;
      size_t len = id->len + 12;
      char *text = dp_alloc (dp, len + 1);
      if (text == NULL)
        return NULL;
      snprintf (text, len + 1, "operator \"\" %.*s", (int) id->len, id->str);
      return dn_str (dp, DN_NAME, text, strlen (text));
    }
  if (peek (dp, 0) == 'v' && is_digit (peek (dp, 1)))
    {
      dp->p += 2;
      Dn *id = parse_source_name (dp);
      if (id == NULL)
        return NULL;
      size_t len = id->len + 9;
      char *text = dp_alloc (dp, len + 1);
      if (text == NULL)
        return NULL;
      snprintf (text, len + 1, "operator %.*s", (int) id->len, id->str);
      return dn_str (dp, DN_NAME, text, strlen (text));
    }
  const DnOperator *op = find_operator (dp);
  if (op == NULL)
    return NULL;
  dp->p += 2;
  Dn *n = with_str (dn_new (dp, DN_NAME), op->symbol);
  if (n != NULL)
    n->flag = DN_OPERATOR;
  return n;
}

static Dn *
parse_ctor_dtor_name (Dp      *dp,
                      Dn     **scope_inout,
                      DnState *st)
{
  Dn *n;
  Dn *scope = *scope_inout;

  if (scope->kind == DN_SPECIAL && scope->flag == 0)
    {
      /* a constructor's class is spelled in full ("std::basic_string<char, ...>::basic_string") */
      Dn *expanded = dn_new (dp, DN_SPECIAL);
      if (expanded == NULL)
        return NULL;
      *expanded = *scope;
      expanded->flag = 1;
      *scope_inout = scope = expanded;
    }
  if (consume (dp, 'C'))
    {
      bool inherited = consume (dp, 'I');
      char v = peek (dp, 0);
      if (v < '1' || v > '5')
        return NULL;
      dp->p++;
      if (st != NULL)
        st->ctor_dtor_conversion = true;
      if (inherited && parse_name (dp, st) == NULL)
        return NULL;
      n = dn_1 (dp, DN_CTOR, scope);
      return n;
    }
  if (peek (dp, 0) == 'D' && strchr ("01245", peek (dp, 1)) != NULL && peek (dp, 1) != '\0')
    {
      dp->p += 2;
      if (st != NULL)
        st->ctor_dtor_conversion = true;
      n = dn_1 (dp, DN_CTOR, scope);
      if (n != NULL)
        n->flag = 1;
      return n;
    }
  return NULL;
}

static Dn *
parse_unqualified_name (Dp      *dp,
                        DnState *st,
                        Dn      *scope)
{
  Dn *r;

  if (scope != NULL)
    consume (dp, 'F'); /* member-like friend */
  consume (dp, 'L');   /* internal linkage (old GCC) */
  char c = peek (dp, 0);
  if (c >= '1' && c <= '9')
    r = parse_source_name (dp);
  else if (c == 'U')
    r = parse_unnamed_type_name (dp, st != NULL);
  else if (c == 'C' || (c == 'D' && peek (dp, 1) != 'C'))
    r = scope != NULL ? parse_ctor_dtor_name (dp, &scope, st) : NULL;
  else if (c == 'D')
    r = NULL; /* structured binding: not a kernel */
  else
    r = parse_operator_name (dp, st);
  r = parse_abi_tags (dp, r);
  if (r != NULL && scope != NULL)
    r = dn_2 (dp, DN_NESTED, scope, r);
  return r;
}

/* <unscoped-name> ::= [St] <unqualified-name>, or a substitution (*is_subst set). */
static Dn *
parse_unscoped_name (Dp      *dp,
                     DnState *st,
                     bool    *is_subst)
{
  Dn *std = NULL;
  Dn *r = NULL;

  if (consume_str (dp, "St"))
    {
      std = dn_name (dp, "std");
      if (std == NULL)
        return NULL;
    }
  if (peek (dp, 0) == 'S')
    {
      if (std != NULL)
        return NULL;
      r = parse_substitution (dp);
      if (r == NULL)
        return NULL;
      *is_subst = true;
      return r;
    }
  return parse_unqualified_name (dp, st, std);
}

/* <nested-name> ::= N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E */
static Dn *
parse_nested_name (Dp      *dp,
                   DnState *st)
{
  Dn *so_far = NULL;

  if (!consume (dp, 'N'))
    return NULL;
  uint8_t cv = parse_cv (dp);
  uint8_t ref = consume (dp, 'O') ? 2 : consume (dp, 'R') ? 1 : 0;
  if (st != NULL)
    {
      st->cv = cv;
      st->ref = ref;
    }
  while (!consume (dp, 'E'))
    {
      if (dp->failed || dp->p >= dp->end)
        return NULL;
      if (st != NULL)
        st->ends_with_template_args = false;
      if (peek (dp, 0) == 'T')
        {
          if (so_far != NULL)
            return NULL;
          so_far = parse_template_param (dp);
        }
      else if (peek (dp, 0) == 'I')
        {
          if (so_far == NULL || so_far->kind == DN_TEMPLATE)
            return NULL;
          Dn *args = parse_template_args (dp);
          if (args == NULL)
            return NULL;
          if (st != NULL)
            {
              st->ends_with_template_args = true;
              dp->tparams = args;
            }
          args->a = so_far;
          so_far = args;
        }
      else if (peek (dp, 0) == 'D' && (peek (dp, 1) == 't' || peek (dp, 1) == 'T'))
        {
          if (so_far != NULL)
            return NULL;
          so_far = parse_decltype (dp);
        }
      else
        {
          if (peek (dp, 0) == 'S')
            {
              Dn *s;
              if (peek (dp, 1) == 't')
                {
                  dp->p += 2;
                  s = dn_name (dp, "std");
                }
              else
                s = parse_substitution (dp);
              if (s == NULL || so_far != NULL)
                return NULL;
              so_far = s;
              continue; /* not a new candidate */
            }
          so_far = parse_unqualified_name (dp, st, so_far);
        }
      if (!push_sub (dp, so_far))
        return NULL;
      consume (dp, 'M'); /* <data-member-prefix> */
    }
  if (so_far == NULL || dp->n_subs == 0)
    return NULL;
  dp->n_subs--; /* the whole name is not a candidate, only its prefixes */
  return so_far;
}

/* LLVM's parse_discriminator: `_ <digit>`, `__ <number> _`, or trailing digits. */
static void
parse_discriminator (Dp *dp)
{
  if (peek (dp, 0) == '_')
    {
      if (is_digit (peek (dp, 1)))
        dp->p += 2;
      else if (peek (dp, 1) == '_')
        {
          const char *t = dp->p + 2;
          while (t < dp->end && is_digit (*t))
            t++;
          if (t < dp->end && *t == '_')
            dp->p = t + 1;
        }
    }
  else if (is_digit (peek (dp, 0)))
    {
      const char *t = dp->p + 1;
      while (t < dp->end && is_digit (*t))
        t++;
      if (t == dp->end)
        dp->p = t;
    }
}

/* <local-name> ::= Z <encoding> E <entity name> [<discriminator>] | Z <encoding> E s [...] */
static Dn *
parse_local_name (Dp      *dp,
                  DnState *st)
{
  if (!consume (dp, 'Z'))
    return NULL;
  Dn *enc = parse_encoding (dp);
  if (enc == NULL || !consume (dp, 'E'))
    return NULL;
  if (consume (dp, 's'))
    {
      parse_discriminator (dp);
      return dn_2 (dp, DN_LOCAL, enc, dn_name (dp, "string literal"));
    }
  if (consume (dp, 'd'))
    {
      uint64_t n;
      parse_count (dp, &n);
      if (!consume (dp, '_'))
        return NULL;
      return dn_2 (dp, DN_LOCAL, enc, parse_name (dp, st));
    }
  Dn *entity = parse_name (dp, st);
  if (entity == NULL)
    return NULL;
  parse_discriminator (dp);
  return dn_2 (dp, DN_LOCAL, enc, entity);
}

static Dn *
parse_name (Dp      *dp,
            DnState *st)
{
  Dn *r;
  bool is_subst = false;

  if (!enter (dp))
    return NULL;
  if (peek (dp, 0) == 'N')
    return leave (dp, parse_nested_name (dp, st));
  if (peek (dp, 0) == 'Z')
    return leave (dp, parse_local_name (dp, st));
  r = parse_unscoped_name (dp, st, &is_subst);
  if (r == NULL)
    return leave (dp, NULL);
  if (peek (dp, 0) == 'I')
    {
      /* <unscoped-template-name> <template-args>: the template name is a candidate */
      if (!is_subst && !push_sub (dp, r))
        return leave (dp, NULL);
      Dn *args = parse_template_args (dp);
      if (args == NULL)
        return leave (dp, NULL);
      if (st != NULL)
        {
          st->ends_with_template_args = true;
          dp->tparams = args;
        }
      args->a = r;
      r = args;
    }
  else if (is_subst)
    return leave (dp, NULL);
  return leave (dp, r);
}

static Dn *
parse_integer_literal (Dp         *dp,
                       const char *type)
{
  const char *s;
  size_t len;

  if (!parse_number (dp, true, &s, &len) || !consume (dp, 'E'))
    return NULL;
  return with_str (dn_1 (dp, DN_LITERAL, literal_value (dp, s, len)), type);
}

/* <expr-primary> ::= L <type> <value> E | L _Z <encoding> E | LDnE ... */
static Dn *
parse_expr_primary (Dp *dp)
{
  if (!consume (dp, 'L'))
    return NULL;
  char c = peek (dp, 0);
  switch (c)
    {
    case 'w': case 'c': case 'a': case 'h': case 's': case 't': case 'i': case 'j':
    case 'l': case 'm': case 'x': case 'y': case 'n': case 'o': case 'b':
      dp->p++;
      return parse_integer_literal (dp, builtin_type (c));
    case 'f': case 'd': case 'e':
      {
        /* the value in hex, as the ABI writes it: kept as it is */
        const char *start = ++dp->p;
        while (dp->p < dp->end && strchr ("0123456789abcdef", *dp->p) != NULL)
          dp->p++;
        size_t len = (size_t) (dp->p - start);
        if (len == 0 || !consume (dp, 'E'))
          return NULL;
        return with_str (dn_1 (dp, DN_LITERAL, dn_str (dp, DN_NAME, start, len)),
                         builtin_type (c));
      }
    case '_':
      if (consume_str (dp, "_Z"))
        {
          Dn *r = parse_encoding (dp);
          if (r != NULL && consume (dp, 'E'))
            return r;
        }
      return NULL;
    case 'D':
      if (consume_str (dp, "Dn"))
        {
          consume (dp, '0');
          if (consume (dp, 'E'))
            return dn_name (dp, "nullptr");
        }
      return NULL;
    case 'A': case 'T': case 'U':
      return NULL; /* string literals, lambdas: not in kernel names */
    default:
      {
        Dn *type = parse_type (dp);
        const char *s;
        size_t len;
        if (type == NULL || !parse_number (dp, true, &s, &len) || !consume (dp, 'E'))
          return NULL;
        return dn_2 (dp, DN_ENUM_LITERAL, type, literal_value (dp, s, len));
      }
    }
}

/* <simple-id> ::= <source-name> [<template-args>] */
static Dn *
parse_simple_id (Dp *dp)
{
  Dn *n = parse_source_name (dp);

  if (n != NULL && peek (dp, 0) == 'I')
    {
      Dn *args = parse_template_args (dp);
      if (args == NULL)
        return NULL;
      args->a = n;
      n = args;
    }
  return n;
}

static Dn *
parse_base_unresolved_name (Dp *dp)
{
  if (is_digit (peek (dp, 0)))
    return parse_simple_id (dp);
  if (consume_str (dp, "dn"))
    {
      Dn *t = is_digit (peek (dp, 0)) ? parse_simple_id (dp) : parse_type (dp);
      return with_str (dn_1 (dp, DN_PREFIX, t), "~");
    }
  consume_str (dp, "on");
  Dn *op = parse_operator_name (dp, NULL);
  if (op != NULL && peek (dp, 0) == 'I')
    {
      Dn *args = parse_template_args (dp);
      if (args == NULL)
        return NULL;
      args->a = op;
      op = args;
    }
  return op;
}

/* <unresolved-name>, the forms kernel template arguments use.  "sr <type>" is parsed as
 * libiberty does (the type with its substitution candidates, "srN..." as a nested-name type):
 * GCC mangles it that way, and nvcc mangles kernels to match the host compiler. */
static Dn *
parse_unresolved_name (Dp *dp)
{
  Dn *q;

  consume_str (dp, "gs");
  if (!consume_str (dp, "sr"))
    return parse_base_unresolved_name (dp);
  if (is_digit (peek (dp, 0)))
    {
      /* sr <unresolved-qualifier-level>+ E <base-unresolved-name> */
      q = parse_simple_id (dp);
      while (q != NULL && !consume (dp, 'E'))
        q = dn_2 (dp, DN_NESTED, q, parse_simple_id (dp));
    }
  else
    q = parse_type (dp);
  return dn_2 (dp, DN_NESTED, q, parse_base_unresolved_name (dp));
}

static Dn *
parse_expr (Dp *dp)
{
  Dn *n;

  if (!enter (dp))
    return NULL;
  char c = peek (dp, 0);
  if (c == 'L')
    return leave (dp, parse_expr_primary (dp));
  if (c == 'T')
    return leave (dp, parse_template_param (dp));
  if (consume_str (dp, "fp"))
    {
      uint64_t index = 0;
      parse_cv (dp);
      if (!consume (dp, '_'))
        {
          if (!parse_count (dp, &index) || !consume (dp, '_'))
            return leave (dp, NULL);
          index++;
        }
      n = dn_new (dp, DN_FPARAM);
      if (n != NULL)
        n->num = index + 1;
      return leave (dp, n);
    }
  if (consume_str (dp, "sZ"))
    {
      Dn *p = peek (dp, 0) == 'T' ? parse_template_param (dp) : parse_expr (dp);
      return leave (dp, with_str (dn_1 (dp, DN_SIZEOF, p), "sizeof..."));
    }
  if (peek (dp, 0) == 's' && strchr ("tz", peek (dp, 1)) != NULL && peek (dp, 1) != '\0')
    {
      bool type = peek (dp, 1) == 't';
      dp->p += 2;
      n = dn_1 (dp, DN_SIZEOF, type ? parse_type (dp) : parse_expr (dp));
      return leave (dp, with_str (n, "sizeof"));
    }
  if (peek (dp, 0) == 'a' && strchr ("tz", peek (dp, 1)) != NULL && peek (dp, 1) != '\0')
    {
      bool type = peek (dp, 1) == 't';
      dp->p += 2;
      n = dn_1 (dp, DN_SIZEOF, type ? parse_type (dp) : parse_expr (dp));
      return leave (dp, with_str (n, "alignof"));
    }
  if (consume_str (dp, "cv"))
    {
      size_t begin = dp->n_stack;
      Dn *t = parse_type (dp);
      if (t == NULL)
        return leave (dp, NULL);
      if (consume (dp, '_'))
        {
          while (!consume (dp, 'E'))
            if (!push_list (dp, parse_expr (dp)))
              return leave (dp, NULL);
        }
      else if (!push_list (dp, parse_expr (dp)))
        return leave (dp, NULL);
      n = pop_list (dp, dn_1 (dp, DN_CAST, t), begin);
      return leave (dp, n);
    }
  static const struct
  {
    const char *code, *name;
  } casts[] = { { "sc", "static_cast" },
                { "dc", "dynamic_cast" },
                { "rc", "reinterpret_cast" },
                { "cc", "const_cast" } };
  for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++)
    if (consume_str (dp, casts[i].code))
      {
        size_t begin = dp->n_stack;
        Dn *t = parse_type (dp);
        if (!push_list (dp, parse_expr (dp)))
          return leave (dp, NULL);
        n = pop_list (dp, dn_1 (dp, DN_CAST, t), begin);
        return leave (dp, with_str (n, casts[i].name));
      }
  if (consume_str (dp, "sp"))
    return leave (dp, dn_1 (dp, DN_PACK_EXPANSION, parse_expr (dp)));
  if (consume_str (dp, "cl"))
    {
      size_t begin = dp->n_stack;
      Dn *f = parse_expr (dp);
      if (f == NULL)
        return leave (dp, NULL);
      while (!consume (dp, 'E'))
        if (!push_list (dp, parse_expr (dp)))
          return leave (dp, NULL);
      return leave (dp, pop_list (dp, dn_1 (dp, DN_CALL, f), begin));
    }
  if (peek (dp, 0) == 'd' && peek (dp, 1) == 't')
    {
      dp->p += 2;
      Dn *obj = parse_expr (dp);
      n = dn_2 (dp, DN_MEMBER, obj, parse_unresolved_name (dp));
      return leave (dp, with_str (n, "."));
    }
  if (peek (dp, 0) == 'p' && peek (dp, 1) == 't')
    {
      dp->p += 2;
      Dn *obj = parse_expr (dp);
      n = dn_2 (dp, DN_MEMBER, obj, parse_unresolved_name (dp));
      return leave (dp, with_str (n, "->"));
    }
  const DnOperator *op = find_operator (dp);
  if (op != NULL && op->arity > 0)
    {
      dp->p += 2;
      if (op->arity == 1)
        {
          /* pp_/mm_ are prefix forms; without the _ they are postfix (printed as prefix) */
          consume (dp, '_');
          n = dn_1 (dp, DN_PREFIX, parse_expr (dp));
        }
      else if (op->arity == 2)
        {
          Dn *a = parse_expr (dp);
          n = dn_2 (dp, DN_BINARY, a, parse_expr (dp));
        }
      else
        {
          size_t begin = dp->n_stack;
          Dn *a = parse_expr (dp);
          Dn *b = parse_expr (dp);
          if (!push_list (dp, parse_expr (dp)))
            return leave (dp, NULL);
          n = pop_list (dp, dn_2 (dp, DN_TERNARY, a, b), begin);
        }
      return leave (dp, with_str (n, op->symbol));
    }
  if (is_digit (c) || (c == 's' && peek (dp, 1) == 'r') || (c == 'g' && peek (dp, 1) == 's')
      || (c == 'o' && peek (dp, 1) == 'n') || (c == 'd' && peek (dp, 1) == 'n'))
    return leave (dp, parse_unresolved_name (dp));
  return leave (dp, NULL);
}

/* <template-arg> ::= <type> | X <expression> E | <expr-primary> | J <template-arg>* E */
static Dn *
parse_template_arg (Dp *dp)
{
  Dn *n;

  switch (peek (dp, 0))
    {
    case 'X':
      dp->p++;
      n = parse_expr (dp);
      return n != NULL && consume (dp, 'E') ? n : NULL;
    case 'J':
      {
        size_t begin = dp->n_stack;
        dp->p++;
        while (!consume (dp, 'E'))
          {
            if (!enter (dp) || !push_list (dp, parse_template_arg (dp)))
              return NULL;
            dp->depth--;
          }
        return pop_list (dp, dn_new (dp, DN_ARG_PACK), begin);
      }
    case 'L':
      if (peek (dp, 1) == 'Z')
        {
          dp->p += 2;
          n = parse_encoding (dp);
          return n != NULL && consume (dp, 'E') ? n : NULL;
        }
      return parse_expr_primary (dp);
    default:
      return parse_type (dp);
    }
}

/* Returns a DN_TEMPLATE node whose `a` (the template's name) the caller sets. */
static Dn *
parse_template_args (Dp *dp)
{
  size_t begin = dp->n_stack;

  if (!consume (dp, 'I'))
    return NULL;
  while (!consume (dp, 'E'))
    {
      if (dp->failed || dp->p >= dp->end || !push_list (dp, parse_template_arg (dp)))
        return NULL;
      if (peek (dp, 0) == 'Q')
        return NULL; /* requires-clause */
    }
  return pop_list (dp, dn_new (dp, DN_TEMPLATE), begin);
}

/* <function-type> ::= [<CV-qualifiers>] [<exception-spec>] [Dx] F [Y] <type>+ [<ref>] E */
static Dn *
parse_function_type (Dp *dp)
{
  uint8_t cv = parse_cv (dp);
  size_t begin;
  uint8_t ref = 0;

  if (consume_str (dp, "Do"))
    ;
  else if (consume_str (dp, "DO"))
    {
      if (parse_expr (dp) == NULL || !consume (dp, 'E'))
        return NULL;
    }
  else if (consume_str (dp, "Dw"))
    {
      while (!consume (dp, 'E'))
        if (parse_type (dp) == NULL)
          return NULL;
    }
  consume_str (dp, "Dx");
  if (!consume (dp, 'F'))
    return NULL;
  consume (dp, 'Y');
  Dn *ret = parse_type (dp);
  if (ret == NULL)
    return NULL;
  begin = dp->n_stack;
  for (;;)
    {
      if (consume (dp, 'E'))
        break;
      if (consume (dp, 'v'))
        continue;
      if (consume_str (dp, "RE"))
        {
          ref = 1;
          break;
        }
      if (consume_str (dp, "OE"))
        {
          ref = 2;
          break;
        }
      if (!push_list (dp, parse_type (dp)))
        return NULL;
    }
  Dn *n = pop_list (dp, dn_1 (dp, DN_FUNCTION, ret), begin);
  if (n != NULL)
    {
      n->cv = cv;
      n->ref = ref;
    }
  return n;
}

static Dn *
parse_array_type (Dp *dp)
{
  Dn *dim = NULL;

  if (!consume (dp, 'A'))
    return NULL;
  if (is_digit (peek (dp, 0)))
    {
      const char *s;
      size_t len;
      parse_number (dp, false, &s, &len);
      dim = dn_str (dp, DN_NAME, s, len);
      if (dim == NULL || !consume (dp, '_'))
        return NULL;
    }
  else if (!consume (dp, '_'))
    {
      dim = parse_expr (dp);
      if (dim == NULL || !consume (dp, '_'))
        return NULL;
    }
  return dn_2 (dp, DN_ARRAY, parse_type (dp), dim);
}

static Dn *
parse_qualified_type (Dp *dp)
{
  if (consume (dp, 'U'))
    {
      Dn *qual = parse_source_name (dp);
      if (qual == NULL)
        return NULL;
      if (peek (dp, 0) == 'I' && parse_template_args (dp) == NULL)
        return NULL;
      Dn *n = dn_1 (dp, DN_VENDOR_QUAL, parse_qualified_type (dp));
      if (n != NULL)
        {
          n->str = qual->str;
          n->len = qual->len;
        }
      return n;
    }
  uint8_t cv = parse_cv (dp);
  Dn *t = parse_type (dp);
  if (t == NULL || cv == 0)
    return t;
  Dn *n = dn_1 (dp, DN_QUAL, t);
  if (n != NULL)
    n->cv = cv;
  return n;
}

static Dn *
parse_class_enum_type (Dp *dp)
{
  const char *elaborated = NULL;

  if (consume_str (dp, "Ts"))
    elaborated = "struct";
  else if (consume_str (dp, "Tu"))
    elaborated = "union";
  else if (consume_str (dp, "Te"))
    elaborated = "enum";
  Dn *name = parse_name (dp, NULL);
  if (name == NULL || elaborated == NULL)
    return name;
  return with_str (dn_1 (dp, DN_ELABORATED, name), elaborated);
}

static Dn *
parse_type (Dp *dp)
{
  Dn *r = NULL;
  const char *builtin;

  if (!enter (dp))
    return NULL;
  char c = peek (dp, 0);
  switch (c)
    {
    case 'r':
    case 'V':
    case 'K':
      {
        size_t q = 0;
        if (peek (dp, q) == 'r')
          q++;
        if (peek (dp, q) == 'V')
          q++;
        if (peek (dp, q) == 'K')
          q++;
        char f = peek (dp, q);
        char f1 = peek (dp, q + 1);
        if (f == 'F' || (f == 'D' && f1 != '\0' && strchr ("oOwx", f1) != NULL))
          r = parse_function_type (dp);
        else
          r = parse_qualified_type (dp);
        break;
      }
    case 'U':
      r = parse_qualified_type (dp);
      break;
    case 'u':
      {
        dp->p++;
        r = parse_source_name (dp);
        if (r != NULL && consume (dp, 'I'))
          {
            Dn *base = parse_type (dp);
            if (base == NULL || !consume (dp, 'E'))
              return leave (dp, NULL);
          }
        break;
      }
    case 'D':
      {
        char d = peek (dp, 1);
        if ((builtin = builtin_d_type (d)) != NULL)
          {
            dp->p += 2;
            return leave (dp, dn_name (dp, builtin)); /* builtins are not candidates */
          }
        if (d == 'F')
          {
            const char *s;
            size_t len;
            dp->p += 2;
            if (!parse_number (dp, false, &s, &len) || !consume (dp, '_') || len > 8)
              return leave (dp, NULL);
            char *text = dp_alloc (dp, len + 8);
            if (text == NULL)
              return leave (dp, NULL);
            snprintf (text, len + 8, "_Float%.*s", (int) len, s);
            return leave (dp, dn_name (dp, text));
          }
        if (d == 't' || d == 'T')
          r = parse_decltype (dp);
        else if (d == 'p')
          {
            dp->p += 2;
            r = dn_1 (dp, DN_PACK_EXPANSION, parse_type (dp));
          }
        else if (d == 'o' || d == 'O' || d == 'w' || d == 'x')
          r = parse_function_type (dp);
        else
          r = NULL; /* vector types, _BitInt: fall back */
        break;
      }
    case 'F':
      r = parse_function_type (dp);
      break;
    case 'A':
      r = parse_array_type (dp);
      break;
    case 'M':
      {
        dp->p++;
        Dn *cls = parse_type (dp);
        r = dn_2 (dp, DN_PTRMEM, cls, cls != NULL ? parse_type (dp) : NULL);
        break;
      }
    case 'T':
      if (peek (dp, 1) == 's' || peek (dp, 1) == 'u' || peek (dp, 1) == 'e')
        {
          r = parse_class_enum_type (dp);
          break;
        }
      r = parse_template_param (dp);
      if (r != NULL && peek (dp, 0) == 'I')
        {
          /* <template-template-param> <template-args> */
          if (!push_sub (dp, r))
            return leave (dp, NULL);
          Dn *args = parse_template_args (dp);
          if (args == NULL)
            return leave (dp, NULL);
          args->a = r;
          r = args;
        }
      break;
    case 'P':
      dp->p++;
      r = dn_1 (dp, DN_POINTER, parse_type (dp));
      break;
    case 'R':
      dp->p++;
      r = dn_1 (dp, DN_LREF, parse_type (dp));
      break;
    case 'O':
      dp->p++;
      r = dn_1 (dp, DN_RREF, parse_type (dp));
      break;
    case 'C':
    case 'G':
      {
        dp->p++;
        Dn *t = parse_type (dp);
        r = with_str (dn_1 (dp, DN_VENDOR_QUAL, t), c == 'C' ? "_Complex" : "_Imaginary");
        break;
      }
    case 'S':
      if (peek (dp, 1) != 't')
        {
          bool is_subst = false;
          r = parse_unscoped_name (dp, NULL, &is_subst);
          if (r == NULL)
            return leave (dp, NULL);
          if (peek (dp, 0) == 'I')
            {
              if (!is_subst && !push_sub (dp, r))
                return leave (dp, NULL);
              Dn *args = parse_template_args (dp);
              if (args == NULL)
                return leave (dp, NULL);
              args->a = r;
              r = args;
            }
          else if (is_subst)
            return leave (dp, r); /* a substitution is not a candidate again */
          break;
        }
      r = parse_class_enum_type (dp);
      break;
    default:
      if ((builtin = builtin_type (c)) != NULL)
        {
          dp->p++;
          return leave (dp, dn_name (dp, builtin));
        }
      r = parse_class_enum_type (dp);
      break;
    }
  if (r == NULL || !push_sub (dp, r))
    return leave (dp, NULL);
  return leave (dp, r);
}

static bool
end_of_encoding (const Dp *dp)
{
  char c = peek (dp, 0);

  return c == '\0' || c == 'E' || c == '.' || c == '_';
}

/* <encoding> ::= <name> <bare-function-type> | <name> (data) */
static Dn *
parse_encoding_inner (Dp *dp)
{
  DnState st = { 0 };

  if (!enter (dp))
    return NULL;
  if (peek (dp, 0) == 'G' || peek (dp, 0) == 'T')
    return leave (dp, NULL); /* special names (vtables, guards, thunks): fall back */
  Dn *name = parse_name (dp, &st);
  if (name == NULL)
    return leave (dp, NULL);
  if (end_of_encoding (dp))
    return leave (dp, name);
  Dn *ret = NULL;
  if (!st.ctor_dtor_conversion && st.ends_with_template_args)
    {
      ret = parse_type (dp);
      if (ret == NULL)
        return leave (dp, NULL);
    }
  size_t begin = dp->n_stack;
  if (!consume (dp, 'v'))
    do
      if (!push_list (dp, parse_type (dp)))
        return leave (dp, NULL);
    while (!end_of_encoding (dp) && peek (dp, 0) != 'Q');
  else if (!end_of_encoding (dp) && peek (dp, 0) != 'Q')
    return leave (dp, NULL);
  if (peek (dp, 0) == 'Q')
    return leave (dp, NULL); /* requires-clause */
  Dn *n = pop_list (dp, dn_new (dp, DN_ENCODING), begin);
  if (n != NULL)
    {
      n->a = ret; /* NULL: no return type mangled */
      n->b = name;
      n->cv = st.cv;
      n->ref = st.ref;
    }
  return leave (dp, n);
}

static Dn *
parse_encoding (Dp *dp)
{
  /* an encoding's template parameters are its own, not the enclosing context's */
  Dn *saved = dp->tparams;
  Dn *n = parse_encoding_inner (dp);

  dp->tparams = saved;
  return n;
}

/* ---------------------------------------------------------------------------------------------- */
/* Printer                                                                                        */

typedef struct
{
  char *s;
  size_t len, cap;
  size_t steps;
  int depth;
  bool gnu; /* libiberty's spelling, template parameters resolved: for the test's cross-check */
  bool failed;
  bool limited;
} DnOut;

static void
out_n (DnOut      *o,
       const char *s,
       size_t      n)
{
  if (o->failed)
    return;
  if (o->len + n + 1 > DN_MAX_OUT)
    {
      o->failed = o->limited = true;
      return;
    }
  if (o->len + n + 1 > o->cap)
    {
      size_t cap = o->cap == 0 ? 256 : o->cap;
      while (cap < o->len + n + 1)
        cap *= 2;
      char *grown = realloc (o->s, cap);
      if (grown == NULL)
        {
          o->failed = true;
          return;
        }
      o->s = grown;
      o->cap = cap;
    }
  memcpy (o->s + o->len, s, n);
  o->len += n;
  o->s[o->len] = '\0';
}

static void
out_s (DnOut      *o,
       const char *s)
{
  out_n (o, s, strlen (s));
}

static char
out_last (const DnOut *o)
{
  return o->len > 0 ? o->s[o->len - 1] : '\0';
}

/* EDG's spacing before a declarator: "char *", "char **", "void (*)", "char *const". */
static void
out_sep (DnOut *o)
{
  char c = out_last (o);

  if (o->gnu)
    return; /* "char*", "char const&" */
  if (c != '\0' && c != '*' && c != '&' && c != '(' && c != ' ')
    out_s (o, " ");
}

static void
out_u64 (DnOut   *o,
         uint64_t v)
{
  char buf[24];

  snprintf (buf, sizeof buf, "%llu", (unsigned long long) v);
  out_s (o, buf);
}

static void
out_cv (DnOut  *o,
        uint8_t cv)
{
  if (cv & DN_CONST)
    out_s (o, " const");
  if (cv & DN_VOLATILE)
    out_s (o, " volatile");
  if (cv & DN_RESTRICT)
    out_s (o, " __restrict");
}

static void
out_cv_words (DnOut  *o,
              uint8_t cv)
{
  const char *sep = "";

  if (cv & DN_CONST)
    {
      out_s (o, "const");
      sep = " ";
    }
  if (cv & DN_VOLATILE)
    {
      out_s (o, sep);
      out_s (o, "volatile");
      sep = " ";
    }
  if (cv & DN_RESTRICT)
    {
      out_s (o, sep);
      out_s (o, "__restrict");
    }
}

static void print_node (DnOut *o, const Dn *n);

/* libiberty's literals: 16, 4u, 1ul, true; false when it writes them as casts too. */
static bool
gnu_literal (DnOut    *o,
             const Dn *n)
{
  static const struct
  {
    const char *type, *suffix;
  } suffixes[] = {
    { "int", "" },         { "unsigned int", "u" }, { "long", "l" },
    { "unsigned long", "ul" }, { "long long", "ll" }, { "unsigned long long", "ull" },
  };

  if (n->len == 4 && memcmp (n->str, "bool", 4) == 0 && n->a->len == 1)
    {
      out_s (o, n->a->str[0] == '0' ? "false" : "true");
      return true;
    }
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
    if (n->len == strlen (suffixes[i].type) && memcmp (n->str, suffixes[i].type, n->len) == 0)
      {
        print_node (o, n->a);
        out_s (o, suffixes[i].suffix);
        return true;
      }
  return false;
}

static bool
print_enter (DnOut *o)
{
  if (o->failed || ++o->depth > DN_MAX_PRINT || ++o->steps > DN_MAX_STEPS)
    {
      o->limited |= !o->failed;
      o->failed = true;
      return false;
    }
  return true;
}

static bool
needs_paren (const Dn *n)
{
  return n->kind == DN_FUNCTION || n->kind == DN_ARRAY;
}

static bool
is_declarator (const Dn *n)
{
  return n->kind == DN_POINTER || n->kind == DN_LREF || n->kind == DN_RREF
         || n->kind == DN_PTRMEM;
}

static bool
has_rhs (const Dn *n)
{
  for (int i = 0; i < DN_MAX_PRINT && n != NULL; i++)
    {
      if (n->kind == DN_FUNCTION || n->kind == DN_ARRAY)
        return true;
      if (n->kind == DN_PTRMEM)
        n = n->b;
      else if (is_declarator (n) || n->kind == DN_QUAL)
        n = n->a;
      else
        return false;
    }
  return false;
}

static void
print_list (DnOut    *o,
            Dn *const *list,
            uint32_t  n)
{
  bool any = false;

  for (uint32_t i = 0; i < n && !o->failed; i++)
    {
      size_t before = o->len;
      if (any)
        out_s (o, ", ");
      size_t mark = o->len;
      print_node (o, list[i]);
      if (o->len == mark && !o->failed)
        {
          o->len = before; /* an empty pack takes its comma with it */
          if (o->s != NULL)
            o->s[o->len] = '\0';
        }
      else
        any = true;
    }
}

static void print_left (DnOut *o, const Dn *n);
static void print_right (DnOut *o, const Dn *n);

static void
print_params (DnOut    *o,
              Dn *const *list,
              uint32_t  n)
{
  out_s (o, "(");
  print_list (o, list, n);
  out_s (o, ")");
}

/* GNU style only: T_ as its argument, and references to references collapsed (T&& with
 * T = U& is U&), as libiberty prints them. */
static const Dn *
gnu_resolve (const DnOut *o,
             const Dn    *n)
{
  for (int i = 0; o->gnu && i < 64 && n != NULL && n->kind == DN_TPARAM && n->b != NULL; i++)
    n = n->b;
  return n;
}

static const Dn *
gnu_collapse (const DnOut *o,
              const Dn    *n,
              DnKind      *kind)
{
  const Dn *child = gnu_resolve (o, n->a);

  *kind = (DnKind) n->kind;
  for (int i = 0; o->gnu && i < 64 && (child->kind == DN_LREF || child->kind == DN_RREF); i++)
    {
      if (child->kind == DN_LREF)
        *kind = DN_LREF;
      child = gnu_resolve (o, child->a);
    }
  return o->gnu ? child : n->a;
}

static void
print_left (DnOut    *o,
            const Dn *n)
{
  if (!print_enter (o))
    return;
  n = gnu_resolve (o, n);
  switch (n->kind)
    {
    case DN_LREF:
    case DN_RREF:
      {
        DnKind kind;
        const Dn *child = gnu_collapse (o, n, &kind);
        print_left (o, child);
        if (needs_paren (child))
          {
            if (!o->gnu || child->kind == DN_ARRAY)
              out_s (o, out_last (o) == ' ' ? "" : " ");
            out_s (o, "(");
          }
        else
          out_sep (o);
        out_s (o, kind == DN_LREF ? "&" : "&&");
        break;
      }
    case DN_POINTER:
      print_left (o, n->a);
      if (needs_paren (gnu_resolve (o, n->a)))
        {
          if (!o->gnu || gnu_resolve (o, n->a)->kind == DN_ARRAY)
            out_s (o, out_last (o) == ' ' ? "" : " ");
          out_s (o, "(");
        }
      else
        out_sep (o);
      out_s (o, n->kind == DN_POINTER ? "*" : n->kind == DN_LREF ? "&" : "&&");
      break;
    case DN_QUAL:
      if (o->gnu)
        {
          print_left (o, n->a);
          out_cv (o, n->cv);
        }
      else if (is_declarator (n->a))
        {
          /* "char *const" */
          print_left (o, n->a);
          if (out_last (o) != '*' && out_last (o) != '&')
            out_s (o, " ");
          out_cv_words (o, n->cv);
        }
      else
        {
          /* EDG puts the qualifier first: "const float", "const T1" */
          out_cv_words (o, n->cv);
          out_s (o, " ");
          print_left (o, n->a);
        }
      break;
    case DN_FUNCTION:
      print_left (o, n->a);
      out_s (o, " ");
      break;
    case DN_ARRAY:
      print_left (o, n->a);
      break;
    case DN_PTRMEM:
      print_left (o, n->b);
      if (needs_paren (n->b))
        out_s (o, "(");
      else if (o->gnu || (out_last (o) != '*' && out_last (o) != '&'))
        out_s (o, " ");
      print_node (o, n->a);
      out_s (o, "::*");
      break;
    default:
      print_node (o, n);
      break;
    }
  o->depth--;
}

static void
print_right (DnOut    *o,
             const Dn *n)
{
  if (!print_enter (o))
    return;
  n = gnu_resolve (o, n);
  switch (n->kind)
    {
    case DN_LREF:
    case DN_RREF:
      {
        DnKind kind;
        const Dn *child = gnu_collapse (o, n, &kind);
        if (needs_paren (child))
          out_s (o, ")");
        print_right (o, child);
        break;
      }
    case DN_POINTER:
      if (needs_paren (gnu_resolve (o, n->a)))
        out_s (o, ")");
      print_right (o, n->a);
      break;
    case DN_QUAL:
      print_right (o, n->a);
      break;
    case DN_FUNCTION:
      print_params (o, n->list, n->n);
      print_right (o, n->a);
      out_cv (o, n->cv);
      if (n->ref != 0)
        out_s (o, n->ref == 1 ? " &" : " &&");
      break;
    case DN_ARRAY:
      /* "int [4]", "int (*)[4]" (GNU: "int (*) [4]"), "int [4][12]" */
      if (out_last (o) != ']' && (o->gnu || out_last (o) != ')'))
        out_s (o, " ");
      out_s (o, "[");
      if (n->b != NULL)
        print_node (o, n->b);
      out_s (o, "]");
      print_right (o, n->a);
      break;
    case DN_PTRMEM:
      if (needs_paren (n->b))
        out_s (o, ")");
      print_right (o, n->b);
      break;
    default:
      break;
    }
  o->depth--;
}

/* The last component's name, without scope or template arguments: a constructor's name, and
 * nsys's shortName. */
static const Dn *
base_of (const Dn *n)
{
  for (int i = 0; i < DN_MAX_PRINT && n != NULL; i++)
    switch (n->kind)
      {
      case DN_ENCODING:
        n = n->b;
        break;
      case DN_LOCAL:
      case DN_NESTED:
        n = n->b;
        break;
      case DN_TEMPLATE:
      case DN_ABI_TAG:
      case DN_ELABORATED:
      case DN_CLONE:
        n = n->a;
        break;
      default:
        return n;
      }
  return NULL;
}

static void
print_node (DnOut    *o,
            const Dn *n)
{
  if (n == NULL)
    {
      o->failed = true;
      return;
    }
  if (!print_enter (o))
    return;
  switch (n->kind)
    {
    case DN_NAME:
      if (n->flag == DN_OPERATOR)
        {
          /* EDG writes a space after "operator" even before a symbol: "operator ()" */
          bool word = n->str[0] >= 'a' && n->str[0] <= 'z';
          out_s (o, o->gnu && !word ? "operator" : "operator ");
        }
      if (n->flag == DN_ANONYMOUS && o->gnu)
        out_s (o, "(anonymous namespace)");
      else
        out_n (o, n->str, n->len);
      break;
    case DN_NESTED:
    case DN_LOCAL:
      print_node (o, n->a);
      out_s (o, "::");
      print_node (o, n->b);
      break;
    case DN_TEMPLATE:
      print_node (o, n->a);
      out_s (o, "<");
      print_list (o, n->list, n->n);
      if (o->gnu && out_last (o) == '>')
        out_s (o, " ");
      out_s (o, ">");
      break;
    case DN_ENCODING:
      if (n->a != NULL)
        {
          print_left (o, n->a);
          if (!has_rhs (n->a))
            {
              if (o->gnu)
                out_s (o, " ");
              else
                out_sep (o);
            }
        }
      print_node (o, n->b);
      print_params (o, n->list, n->n);
      if (n->a != NULL)
        print_right (o, n->a);
      out_cv (o, n->cv);
      if (n->ref != 0)
        out_s (o, n->ref == 1 ? " &" : " &&");
      break;
    case DN_CTOR:
      {
        const Dn *base = base_of (n->a);
        if (n->flag)
          out_s (o, "~");
        if (base != NULL && base->kind == DN_SPECIAL)
          out_s (o, special_subs[base->num].base);
        else if (base != NULL)
          print_node (o, base);
        else
          o->failed = true;
        break;
      }
    case DN_CONVERSION:
      out_s (o, "operator ");
      print_node (o, n->a);
      break;
    case DN_CLOSURE:
      out_s (o, o->gnu ? "{lambda(" : "[lambda(");
      print_list (o, n->list, n->n);
      out_s (o, o->gnu ? ")#" : ") (instance ");
      out_u64 (o, n->num);
      out_s (o, o->gnu ? "}" : ")]");
      break;
    case DN_UNNAMED:
      out_s (o, o->gnu ? "{unnamed type#" : "[unnamed type (instance ");
      out_u64 (o, n->num);
      out_s (o, o->gnu ? "}" : ")]");
      break;
    case DN_ABI_TAG:
      print_node (o, n->a);
      out_s (o, "[abi:");
      out_n (o, n->str, n->len);
      out_s (o, "]");
      break;
    case DN_SPECIAL:
      if (o->gnu)
        out_s (o, n->flag ? special_subs[n->num].gnu_scope : special_subs[n->num].gnu);
      else
        out_s (o, special_subs[n->num].full);
      break;
    case DN_TPARAM:
      /* EDG names template parameters by position, 1-based: T_ is T1, T0_ is T2 */
      if (o->gnu)
        print_node (o, n->b); /* fails when unresolved */
      else
        {
          out_s (o, "T");
          out_u64 (o, n->num + 1);
        }
      break;
    case DN_QUAL:
    case DN_POINTER:
    case DN_LREF:
    case DN_RREF:
    case DN_FUNCTION:
    case DN_ARRAY:
    case DN_PTRMEM:
      print_left (o, n);
      print_right (o, n);
      break;
    case DN_VENDOR_QUAL:
      print_node (o, n->a);
      out_s (o, " ");
      out_n (o, n->str, n->len);
      break;
    case DN_ELABORATED:
      out_n (o, n->str, n->len);
      out_s (o, " ");
      print_node (o, n->a);
      break;
    case DN_PACK_EXPANSION:
      print_node (o, n->a);
      out_s (o, "...");
      break;
    case DN_ARG_PACK:
      print_list (o, n->list, n->n);
      break;
    case DN_LITERAL:
      if (o->gnu && gnu_literal (o, n))
        break;
      out_s (o, "(");
      out_n (o, n->str, n->len);
      out_s (o, ")");
      print_node (o, n->a);
      break;
    case DN_ENUM_LITERAL:
      out_s (o, "(");
      print_node (o, n->a);
      out_s (o, ")");
      print_node (o, n->b);
      break;
    case DN_DECLTYPE:
      out_s (o, o->gnu ? "decltype (" : "decltype(");
      print_node (o, n->a);
      out_s (o, ")");
      break;
    case DN_FPARAM:
      out_s (o, "{parm#");
      out_u64 (o, n->num);
      out_s (o, "}");
      break;
    case DN_PREFIX:
      out_n (o, n->str, n->len);
      if (o->gnu)
        out_s (o, "(");
      print_node (o, n->a);
      if (o->gnu)
        out_s (o, ")");
      break;
    case DN_BINARY:
      if (o->gnu)
        {
          out_s (o, "(");
          print_node (o, n->a);
          out_s (o, ")");
          out_n (o, n->str, n->len);
          out_s (o, "(");
          print_node (o, n->b);
          out_s (o, ")");
          break;
        }
      out_s (o, "(");
      print_node (o, n->a);
      out_s (o, " ");
      out_n (o, n->str, n->len);
      out_s (o, " ");
      print_node (o, n->b);
      out_s (o, ")");
      break;
    case DN_TERNARY:
      out_s (o, "(");
      print_node (o, n->a);
      out_s (o, " ? ");
      print_node (o, n->b);
      out_s (o, " : ");
      print_list (o, n->list, n->n);
      out_s (o, ")");
      break;
    case DN_CALL:
      if (o->gnu)
        out_s (o, "(");
      print_node (o, n->a);
      if (o->gnu)
        out_s (o, ")");
      print_params (o, n->list, n->n);
      break;
    case DN_CAST:
      if (n->str != NULL)
        {
          out_n (o, n->str, n->len);
          out_s (o, "<");
          print_node (o, n->a);
          out_s (o, ">");
        }
      else
        {
          out_s (o, "(");
          print_node (o, n->a);
          out_s (o, ")");
        }
      print_params (o, n->list, n->n);
      break;
    case DN_SIZEOF:
      out_n (o, n->str, n->len);
      out_s (o, "(");
      print_node (o, n->a);
      out_s (o, ")");
      break;
    case DN_MEMBER:
      print_node (o, n->a);
      out_n (o, n->str, n->len);
      print_node (o, n->b);
      break;
    case DN_CLONE:
      print_node (o, n->a);
      out_s (o, " [clone ");
      out_n (o, n->str, n->len);
      out_s (o, "]");
      break;
    default:
      o->failed = true;
      break;
    }
  o->depth--;
}

/* ---------------------------------------------------------------------------------------------- */
/* Public                                                                                         */

static void
dp_clear (Dp *dp)
{
  while (dp->blocks != NULL)
    {
      DnBlock *next = dp->blocks->next;
      free (dp->blocks);
      dp->blocks = next;
    }
  free (dp->subs);
  free (dp->stack);
}

static char *
print_to_string_style (const Dn *n,
                       bool      gnu,
                       bool     *limited)
{
  DnOut o = { .gnu = gnu };

  print_node (&o, n);
  if (limited != NULL)
    *limited |= o.limited;
  if (o.failed || o.s == NULL)
    {
      free (o.s);
      return NULL;
    }
  return o.s;
}

/* Ours: false when the name is outside what this parser knows (the caller falls back to
 * __cxa_demangle unless *limited: a name that hit our caps would make libiberty's printer, which
 * has none on output size, run away). */
static bool
demangle_edg (const char *name,
              char      **full,
              char      **base,
              bool       *limited)
{
  Dp dp = { .p = name, .end = name + strlen (name) };
  Dn *n = NULL;
  bool ok = false;

  *full = *base = NULL;
  if (consume_str (&dp, "_Z"))
    {
      n = parse_encoding (&dp);
      if (n != NULL && peek (&dp, 0) == '.')
        {
          /* "[clone .cold.1]", GCC's and LLVM's spelling */
          Dn *c = dn_1 (&dp, DN_CLONE, n);
          if (c != NULL)
            {
              c->str = dp.p;
              c->len = (size_t) (dp.end - dp.p);
            }
          dp.p = dp.end;
          n = c;
        }
    }
  if (n != NULL && !dp.failed && dp.p == dp.end)
    {
      *full = print_to_string_style (n, false, limited);
      const Dn *b = base_of (n);
      *base = b != NULL ? print_to_string_style (b, false, limited) : NULL;
      ok = *full != NULL && *base != NULL;
    }
  if (!ok)
    {
      free (*full);
      free (*base);
      *full = *base = NULL;
    }
  *limited |= dp.limited;
  dp_clear (&dp);
  return ok;
}

/* The test's cross-check of this parser against libstdc++'s: the same tree printed as
 * __cxa_demangle would, template parameters resolved.  NULL when it does not parse. */
char *
_sl_demangle_gnu_style (const char *name)
{
  Dp dp = { .p = name, .end = name + strlen (name) };
  char *r = NULL;

  if (consume_str (&dp, "_Z"))
    {
      Dn *n = parse_encoding (&dp);
      if (n != NULL && !dp.failed && dp.p == dp.end)
        r = print_to_string_style (n, true, NULL);
    }
  dp_clear (&dp);
  return r;
}

/* The base name in an already demangled string (the __cxa_demangle fallback): the component
 * before the parameter list, without scope, template arguments or return type. */
static char *
base_from_text (const char *s)
{
  size_t end = strlen (s);
  size_t start;
  int depth;

  /* the parameter list: the last top-level (...) */
  while (end > 0 && s[end - 1] != ')')
    end--;
  if (end > 0)
    {
      depth = 0;
      size_t i = end;
      while (i > 0)
        {
          i--;
          if (s[i] == ')')
            depth++;
          else if (s[i] == '(' && --depth == 0)
            break;
        }
      end = depth == 0 ? i : strlen (s);
    }
  else
    end = strlen (s);
  /* template arguments of the function */
  while (end > 0 && s[end - 1] == ' ')
    end--;
  if (end > 0 && s[end - 1] == '>')
    {
      depth = 0;
      size_t i = end;
      while (i > 0)
        {
          i--;
          if (s[i] == '>')
            depth++;
          else if (s[i] == '<' && --depth == 0)
            break;
        }
      if (depth == 0 && i > 0)
        end = i;
    }
  /* the last top-level component: after "::" or a space (the return type) */
  depth = 0;
  start = end;
  while (start > 0)
    {
      char c = s[start - 1];
      if (c == '>' || c == ')' || c == ']')
        depth++;
      else if (c == '<' || c == '(' || c == '[')
        depth--;
      else if (depth == 0 && (c == ':' || c == ' '))
        break;
      start--;
    }
  if (start >= end)
    {
      start = 0;
      end = strlen (s);
    }
  char *r = malloc (end - start + 1);
  if (r != NULL)
    {
      memcpy (r, s + start, end - start);
      r[end - start] = '\0';
    }
  return r;
}

static char *
copy_string (const char *s)
{
  size_t len = strlen (s);
  char *r = malloc (len + 1);

  if (r != NULL)
    memcpy (r, s, len + 1);
  return r;
}

/* A special name libstdc++'s demangler may be given: a vtable, VTT, typeinfo or typeinfo name
 * ("_ZTV", "_ZTT", "_ZTI", "_ZTS") whose type our parser reads whole and within its caps.  Its
 * printer loops for minutes on some garbage of that shape too (fuzz-demangle: the 114-byte
 * "_ZTVNrrDOsrrODOs…", > 2 min; tests/fuzz/regress/demangle/); thunks and guards, rarer still in
 * a trace and not checked this way, stay as they are. */
static bool
special_name_sane (const char *name)
{
  if (strncmp (name, "_ZT", 3) != 0 || name[3] == '\0' || strchr ("VTIS", name[3]) == NULL)
    return false;
  Dp dp = { .p = name + 4, .end = name + strlen (name) };
  Dn *t = parse_type (&dp);
  bool ok = t != NULL && !dp.failed && !dp.limited && dp.p == dp.end;
  dp_clear (&dp);
  return ok;
}

char *
sl_kernel_names (const char *name,
                 char      **short_name)
{
  char *full = NULL, *base = NULL;
  bool limited = false;

  if (name == NULL)
    name = "";
  /* libstdc++'s demangler is the fallback only for the special names whose type we read
   * (special_name_sane) of a sane length: on some garbage it loops for minutes (a random 60-byte
   * "_Z3jXYF…" string did), and a kernel name is not trusted input.  Other names our parser
   * cannot print stay as they are. */
  if (strncmp (name, "_Z", 2) == 0 && !demangle_edg (name, &full, &base, &limited) && !limited
      && strlen (name) <= 512 && special_name_sane (name))
    {
      int status = 0;
      char *gnu = __cxa_demangle (name, NULL, NULL, &status);
      if (gnu != NULL && status == 0 && strlen (gnu) < DN_MAX_OUT)
        {
          full = gnu;
          base = base_from_text (gnu);
        }
      else
        free (gnu);
    }
  if (full == NULL)
    {
      free (base);
      full = copy_string (name);
      base = copy_string (name);
    }
  if (full == NULL || base == NULL)
    {
      free (full);
      free (base);
      full = base = NULL;
    }
  if (short_name != NULL)
    *short_name = base;
  else
    free (base);
  return full;
}
