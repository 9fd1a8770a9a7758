#!/usr/bin/env bash
# The Python client installs from the repository with pip, as its users
# install it (here offline: Debian's setuptools and wheel, no index), and
# its module imports from the installed copy.
#
#   client_installs.sh CLIENT_DIR
set -euo pipefail
client=$(realpath "$1")
python=/usr/bin/python3
if ! "$python" -c 'import venv, ensurepip, wheel' 2>/dev/null; then
  echo "skip: python3-venv and python3-wheel are not installed (scripts/install-deps)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy: pip builds in the source directory it is given.
cp -r "$client" "$work/src"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q --no-build-isolation --no-index "$work/src"
cd "$work"
installed=$("$work/venv/bin/python3" -c 'import vigil_sandbox; print(vigil_sandbox.__file__)')
[[ $installed == "$work/venv/"* ]] || { echo "not ok - imported from $installed"; exit 1; }
echo "ok - pip install ./client/python: vigil_sandbox from $installed"
