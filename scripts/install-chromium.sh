#!/usr/bin/env bash
# The web view's end-to-end tests drive Debian's Chromium (/usr/bin/chromium) headless through playwright-core,
# which downloads no browser of its own. Installs it when missing; needs root (or sudo) and Debian's apt.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
