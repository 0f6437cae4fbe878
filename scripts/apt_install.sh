#!/usr/bin/env bash
# Install the named Debian packages that are not installed yet (quiet when none are missing).
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
export NEEDRESTART_MODE=l
log=$(mktemp)
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 </dev/null; then
  tail -n 30 "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
