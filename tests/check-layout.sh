#!/usr/bin/env bash
# check-layout.sh: what .editorconfig and CONTRIBUTING.md promise about the source files, checked on
# every C file and header: spaces not tabs, LF line ends, a final newline, no trailing blanks, a
# first line saying what the file is for, and no .c file in ui/ or app/ over 1,200 lines.
# (Formatting is by hand: see CONTRIBUTING.md for why there is no .clang-format.)
set -u
cd "${1:-$(dirname "$0")/..}"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' '*.cc')
else
  mapfile -t files < <(find app ui model collector tests bench -name '*.[ch]' -o -name '*.cc')
fi
bad=0
complain () { echo "$1: $2"; bad=1; }
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  grep -q $'\t' "$f" && complain "$f" "has a tab (indent with spaces)"
  grep -q $'\r' "$f" && complain "$f" "has a CR (LF line ends only)"
  grep -qE ' +$' "$f" && complain "$f:$(grep -nE ' +$' "$f" | head -1 | cut -d: -f1)" "trailing blanks"
  [ -s "$f" ] && [ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" != '\n' ] && complain "$f" "no final newline"
  head -1 "$f" | grep -qE '^(/\*|//) ' || complain "$f" "the first line is not a comment saying what the file is for"
done
for f in "${files[@]}"; do
  case "$f" in
    ui/*.c|app/*.c)
      n=$(wc -l < "$f")
      [ "$n" -le 1200 ] || complain "$f" "$n lines: split it by concern (CONTRIBUTING.md)";;
  esac
done
[ ${#files[@]} -gt 50 ] || complain "." "only ${#files[@]} source files found: wrong folder?"
if [ $bad -eq 0 ]; then echo "ok: ${#files[@]} files"; fi
exit $bad
