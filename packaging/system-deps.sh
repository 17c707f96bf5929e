#!/bin/sh
# Make sure the Debian packages a Qt platform needs are installed, before anything else.
#   packaging/system-deps.sh [offscreen|xcb]      (default xcb: the real window)
# As root it installs what is missing; otherwise it prints the one command that would,
# and fails. Elsewhere than Debian or Ubuntu it checks nothing (the desk itself names
# a missing library when its platform cannot load).
set -eu
platform=${1:-xcb}
list=${MEMORYDESK_PLATFORM_LIST:-$(dirname "$0")/../resources/qt-platform-libraries.txt}
command -v dpkg-query >/dev/null 2>&1 || exit 0
[ -r "$list" ] || { echo "system-deps: cannot read $list" >&2; exit 2; }
packages=$(awk -v p="$platform" '$1 !~ /^#/ && NF >= 3 && ($1 == "offscreen" || $1 == p) { print $2 }' "$list" | sort -u)
missing=""
for package in $packages; do
  dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing the system libraries Qt's $platform platform needs:$missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing >/dev/null
  exit 0
fi
echo "Qt's $platform platform needs system libraries that are not installed; install them, then try again:" >&2
echo "sudo apt-get install -y$missing" >&2
exit 1
