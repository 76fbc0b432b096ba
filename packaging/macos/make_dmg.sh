#!/bin/sh
# macOS: put the .app that packaging/build.py made into a compressed disk image, with a link to
# /Applications to drag it onto.
#
#   sh packaging/macos/make_dmg.sh    ->  dist/lnl-desktop-VERSION-macos-ARCH.dmg
#
# The version comes from lnl_desktop/__init__.py (through build.py), like the .app's Info.plist.
set -eu
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
version=$("$python" packaging/build.py --print-version)
app="dist/Laurels & Loot Desktop.app"
dmg="dist/lnl-desktop-$version-macos-$(uname -m).dmg"
[ -d "$app" ] || { echo "make_dmg.sh: $app is missing: run packaging/build.py first" >&2; exit 1; }

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# ditto keeps the bundle's symbolic links, permissions and code signature as they are.
ditto "$app" "$staging/Laurels & Loot Desktop.app"
ln -s /Applications "$staging/Applications"
rm -f "$dmg"
hdiutil create -volname "Laurels & Loot Desktop $version" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$dmg"
echo "$dmg"
