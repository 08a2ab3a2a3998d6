#!/usr/bin/env bash
# The system packages the course needs beyond Python, from Debian's archive.
#
#   chromium     headless browser for the JupyterLab browser test (tests/browser/)
#   bubblewrap   the per-submission grading sandbox (instructor/sandbox/)
#   sudo         the staff's one privileged path on `course hub` (instructor/hub/privileged.py)
#   postgresql   the server tests/coursedir/test_postgres.py starts for `course grade --db postgresql://...`
#   qemu-system-x86, debootstrap  the cgroup v2 test (tests/cgroup2/) boots a Debian VM under qemu; its image
#                is made here too (Debian's packages, kept in /var/cache/seqmodels-vm, made again only when
#                tests/cgroup2/vm.py's inputs change)
#   configurable-http-proxy (npm, pinned)  JupyterHub's proxy for `course hub` (tests/hub/); Node.js from Debian if missing
#
# Run as root (CI does: .ci/run calls this). Elsewhere: sudo bash scripts/install-system-packages.sh
# Safe to run twice: apt-get skips what is installed.
set -euo pipefail

PACKAGES=(
    chromium
    fonts-dejavu-core
    bubblewrap
    sudo
    # PostgreSQL server binaries (initdb, pg_ctl) for the shared-gradebook tests
    postgresql
    # a Debian bookworm VM with a cgroup v2 kernel for tests/cgroup2/ (TCG: no KVM needed)
    qemu-system-x86
    debootstrap
    e2fsprogs
)

if [ "$(id -u)" -ne 0 ]; then
    echo "install-system-packages: run as root (sudo $0)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"

# JupyterHub's proxy for `course hub`: a released version from the npm registry
CHP_VERSION=5.3.0
if ! command -v npm >/dev/null; then
    apt-get install -y -qq --no-install-recommends nodejs npm
fi
if [ "$(configurable-http-proxy --version 2>/dev/null)" != "$CHP_VERSION" ]; then
    npm install -g --no-audit --no-fund "configurable-http-proxy@$CHP_VERSION"
fi

# The cgroup v2 test's VM image: Debian bookworm from debootstrap, about 2 minutes the first time (the download).
# Made with the rest of the system's software, not by the first test run; the test makes it only when missing.
(cd "$(dirname "$0")/.." && python3 -m tests.cgroup2.vm build)
