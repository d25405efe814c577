#!/bin/sh
# setup-pytorch.sh: installs what bench-pytorch needs (Debian's PyTorch 1.13 and numpy; perf for
# its comparison), as root or through sudo.  On Debian 12: 175 packages, 147 MB to fetch, 636 MB
# installed: too much for CI, where the benches do not run.
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends python3-torch python3-numpy
$SUDO apt-get install -y --no-install-recommends linux-perf || echo "setup-pytorch: no linux-perf here; bench-pytorch will skip its perf comparison"
