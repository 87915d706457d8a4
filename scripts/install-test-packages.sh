#!/usr/bin/env bash
# The Debian packages the tests drive: etcd (etcd-server, and etcdctl from etcd-client) for the etcd storage tests,
# and Chromium (/usr/bin/chromium, driven headless by playwright-core, which downloads no browser of its own) for
# the web view's. Installs what is missing, in one apt-get run; needs root (or sudo).
set -euo pipefail
missing=()
command -v etcd >/dev/null || missing+=(etcd-server)
command -v etcdctl >/dev/null || missing+=(etcd-client)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
