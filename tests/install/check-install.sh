#!/usr/bin/env bash
# check-install.sh: what `cmake --install` puts under a prefix works from there, also after the
# prefix was moved: the program records through its own daemon and injection library (not the
# build tree's), the desktop file, icon, metainfo, man pages and bash completion pass their
# validators, and no binary names the source or build folder.
# Usage: check-install.sh CMAKE SOURCE_DIR BUILD_DIR [plain|sanitized]. Exits 77 (skipped) when
# all that failed is that a validator is not installed (.ci/install-deps installs them all).
set -u
cmake=$1 src=$(cd "$2" && pwd) build=$(cd "$3" && pwd) flavour=${4:-plain}
app_id=dev.sightline.Sightline
commands=(record info stats analyze samples critical-path memory export diff merge-summaries)

tmp=$(mktemp -d /tmp/sightline-install.XXXXXX)
daemon_pid=""
cleanup ()
{
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

failed=0 skipped=()   # failed counts the failures
fail () { echo "FAIL: $*"; failed=$((failed + 1)); }
ok () { echo "ok: $*"; }
have () { command -v "$1" >/dev/null || { skipped+=("$2 ($1 is not installed)"); false; }; }

# Installed, then moved: whatever the programs find, they find relative to themselves.
"$cmake" --install "$build" --prefix "$tmp/first" >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; fail "cmake --install"; exit 1; }
mv "$tmp/first" "$tmp/prefix"
p=$tmp/prefix
for f in bin/sightline lib/sightline/sightlined lib/sightline/libsightline-inject.so \
         share/applications/$app_id.desktop share/metainfo/$app_id.metainfo.xml \
         share/icons/hicolor/scalable/apps/$app_id.svg \
         share/icons/hicolor/symbolic/apps/$app_id-symbolic.svg \
         share/bash-completion/completions/sightline share/man/man1/sightline.1 \
         share/man/man1/sightlined.1; do
  [ -e "$p/$f" ] || fail "$f is not installed"
done
for c in "${commands[@]}"; do
  [ -e "$p/share/man/man1/sightline-$c.1" ] || fail "no man page for sightline $c"
done

# No environment that points at the build tree (ctest's, a developer's shell): the daemon must be
# the installed one, found from bin/sightline, and it must not be one already running (a private
# runtime folder, so a new socket).
run ()
{
  env -u SIGHTLINE_DAEMON -u SIGHTLINE_INJECT -u SIGHTLINE_RUNTIME_DIR -u LD_PRELOAD \
      XDG_RUNTIME_DIR="$tmp/run" PATH=/usr/bin:/bin "$@"
}
mkdir -m 700 "$tmp/run"
version=$(run "$p/bin/sightline" --version) || fail "sightline --version"
[[ $version == "sightline "[0-9]* ]] && ok "$version" || fail "--version printed '$version'"
if run "$p/bin/sightline" record -o "$tmp/t.sqlite" -- /bin/sleep 0.1 >"$tmp/record.log" 2>&1; then
  ok "recorded /bin/sleep"
else
  cat "$tmp/record.log"; fail "sightline record from the moved prefix"
fi
# the daemon it started is the installed one (it stays up a minute for the next recording)
for exe in /proc/[0-9]*/exe; do
  if [ "$(readlink "$exe" 2>/dev/null)" = "$p/lib/sightline/sightlined" ]; then
    daemon_pid=${exe#/proc/}; daemon_pid=${daemon_pid%/exe}
  fi
done
[ -n "$daemon_pid" ] && ok "the daemon is $p/lib/sightline/sightlined" \
  || fail "no daemon from the moved prefix is running"
if run "$p/bin/sightline" info "$tmp/t.sqlite" >"$tmp/info.log" 2>&1 && grep -q sleep "$tmp/info.log"; then
  ok "sightline info shows the recorded process"
else
  cat "$tmp/info.log"; fail "sightline info on the recording"
fi

# The desktop file, its icon and the metainfo
desktop=$p/share/applications/$app_id.desktop
if have desktop-file-validate "the .desktop check"; then
  out=$(desktop-file-validate "$desktop" 2>&1)
  [ -z "$out" ] && ok "desktop-file-validate" || fail "desktop-file-validate: $out"
fi
icon=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$p/share/icons/hicolor/scalable/apps/$icon.svg" ] && ok "icon $icon" \
  || fail "the icon the .desktop file names ($icon) is not installed"
exec_word=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ -x "$p/bin/$exec_word" ] || fail "Exec=$exec_word is not in bin/"
if have appstreamcli "the metainfo check"; then
  appstreamcli validate --no-net "$p/share/metainfo/$app_id.metainfo.xml" >"$tmp/as.log" 2>&1 \
    && ok "appstreamcli validate" || { cat "$tmp/as.log"; fail "appstreamcli validate"; }
fi

# Man pages render without a warning
if have groff "the man page checks" && have man "the man page checks"; then
  failed_before=$failed
  for page in "$p"/share/man/man1/*.1; do
    out=$( { groff -ww -z -man "$page"; MANWIDTH=80 man -l -Tutf8 "$page" >/dev/null; } 2>&1)
    [ -z "$out" ] || fail "$(basename "$page"): $out"
  done
  [ $failed -ne $failed_before ] || ok "man pages"
fi

# Bash completion: parses, completes, and knows the reports and rules the program has
completion=$p/share/bash-completion/completions/sightline
bash -n "$completion" || fail "bash -n on the completion"
if [ -f /usr/share/bash-completion/bash_completion ]; then
  failed_before=$failed
  cat >"$tmp/complete.sh" <<'SCRIPT'
source /usr/share/bash-completion/bash_completion
source "$1"
compopt () { :; }   # outside a real completion it has nothing to act on
complete_line ()
{
  COMP_LINE=$1 COMP_POINT=${#1}
  read -ra COMP_WORDS <<<"$COMP_LINE"
  [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _sightline sightline "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  echo "${COMPREPLY[*]}"
}
echo "top: $(complete_line 'sightline ')"
echo "report: $(complete_line 'sightline stats --report cuda_api_sum,cuda_gpu_kern_s')"
echo "legacy: $(complete_line 'sightline stats --report gputr')"
echo "rule: $(complete_line 'sightline analyze --rule gpu_g')"
echo "commands:" $_sightline_commands
echo "reports:" $_sightline_reports
echo "legacy_reports:" $_sightline_legacy_reports
echo "rules:" $_sightline_rules
SCRIPT
  (cd "$tmp" && bash "$tmp/complete.sh" "$completion") >"$tmp/complete.log" 2>&1
  words () { sed -n "s/^$1: //p" "$tmp/complete.log" | tr -s ' \n' '\n\n' | sed '/^$/d' | sort -u; }
  words top | grep -qx record && ok "completion of 'sightline ' offers record" \
    || { cat "$tmp/complete.log"; fail "completion of 'sightline ' lacks record"; }
  [ "$(words report)" = "cuda_api_sum,cuda_gpu_kern_sum" ] || fail "stats --report completion: $(words report)"
  [ "$(words rule)" = "gpu_gaps" ] || fail "analyze --rule completion: $(words rule)"
  [ "$(words legacy)" = "gputrace" ] || fail "stats --report completion of nsys's older name: $(words legacy)"
  # the lists in the completion against the program's own
  prog_rules=$(run "$p/bin/sightline" analyze --list-rules | sed -n 's/^\([a-z_][a-z_]*\) .*/\1/p' | sort -u)
  prog_reports=$(run "$p/bin/sightline" stats --help | sed -n 's/^Reports: //p' | tr -d ' .' | tr , '\n' | sort -u)
  prog_commands=$(run "$p/bin/sightline" --help | sed -n 's/^  sightline \([a-z][a-z-]*\) .*/\1/p' | sort -u)
  [ "$(words rules)" = "$prog_rules" ] || fail "the completion's rules are not analyze --list-rules': $(words rules | tr '\n' ' ')"
  [ "$(words reports)" = "$prog_reports" ] || fail "the completion's reports are not stats --help's: $(words reports | tr '\n' ' ')"
  # nsys's older names: the paragraph "nsys's older names are taken too, …: gputrace (cuda_gpu_trace), …"
  prog_legacy=$(run "$p/bin/sightline" stats --help | sed -n "s/^nsys's older names .*: //p" \
    | sed 's/ ([a-z_]*)//g' | tr -d ' .' | tr , '\n' | sort -u)
  [ -n "$prog_legacy" ] && [ "$(words legacy_reports)" = "$prog_legacy" ] \
    || fail "the completion's older report names are not stats --help's: $(words legacy_reports | tr '\n' ' ')"
  [ "$(words commands)" = "$prog_commands" ] || fail "the completion's commands are not --help's: $(words commands | tr '\n' ' ')"
  [ "$(words commands)" = "$(printf '%s\n' "${commands[@]}" | sort)" ] \
    || fail "a command without its man page, or a man page without its command"
  [ $failed -ne $failed_before ] || ok "bash completion"
else
  skipped+=("the completion smoke test (bash-completion is not installed)")
fi

# Nothing names the build: __FILE__, debug information, compiled-in paths
if [ "$flavour" = sanitized ]; then
  # GCC 12 keeps the sources' absolute paths in ASan's and UBSan's report data
  echo "note: build paths not checked in a sanitizer build (never installed)"
elif have strings "the build-path check"; then
  failed_before=$failed
  for f in bin/sightline lib/sightline/sightlined lib/sightline/libsightline-inject.so; do
    hits=$(strings -a "$p/$f" | grep -F -e "$src" -e "$build" | head -3)
    [ -z "$hits" ] || fail "$f names the build tree: $hits"
  done
  [ $failed -ne $failed_before ] || ok "no build-tree path in the binaries"
fi

if [ $failed -ne 0 ]; then
  exit 1
fi
if [ ${#skipped[@]} -gt 0 ]; then
  printf 'SKIPPED: %s\n' "${skipped[@]}"
  exit 77
fi
echo "all install checks passed"
