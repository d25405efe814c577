#!/usr/bin/env bash
# check-build-types.sh: a packager's build is not stopped by a warning, and CI's is (issue 29).
# Configures the sources in a scratch folder as Release: no -Werror unless SL_WERROR=ON; then, with
# it on, compiles the file -O3 once warned about (tests/test-python.c, -Warray-bounds) in Release
# and MinSizeRel.  Configuring and one file: seconds; the whole builds of each type are in .ci/run.
# Usage: check-build-types.sh CMAKE SOURCE_DIR C_COMPILER CXX_COMPILER
set -u
cmake=$1 src=$2 cc=$3 cxx=$4
tmp=$(mktemp -d /tmp/sightline-build-types.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/check.log
failed=0
fail () { echo "FAIL: $*"; failed=1; }

# the Makefile generator, for its flags.make and its one-object targets
configure ()
{
  "$cmake" -S "$src" -B "$tmp" -G "Unix Makefiles" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_COMPILER="$cxx" "$@" >"$log" 2>&1 || { cat "$log"; echo "FAIL: cmake $*"; exit 1; }
}
has_werror () { grep -q -- -Werror "$tmp/tests/CMakeFiles/test-python.dir/flags.make"; }
compile ()
{
  make -C "$tmp/tests" test-python.c.o >"$log" 2>&1 \
    && echo "ok: $1: tests/test-python.c compiles with -Werror" \
    || { cat "$log"; fail "$1: tests/test-python.c"; }
}

configure -DCMAKE_BUILD_TYPE=Release
has_werror && fail "Release without SL_WERROR has -Werror" || echo "ok: no -Werror by default"
configure -DSL_WERROR=ON
has_werror && echo "ok: -Werror with SL_WERROR=ON" || fail "SL_WERROR=ON gives no -Werror"
compile Release
configure -DCMAKE_BUILD_TYPE=MinSizeRel
compile MinSizeRel
exit $failed
