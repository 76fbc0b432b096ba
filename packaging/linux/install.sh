#!/bin/sh
# Put Laurels & Loot Desktop in the applications menu of the current user.
#
#   ./install.sh              menu entry, icons and ~/.local/bin/lnl-desktop, for this folder
#   ./install.sh --uninstall  take them away again (the folder itself stays)
#
# The program stays in this folder (move the folder first if you want it elsewhere, e.g.
# ~/.local/opt). Nothing is written outside ~/.local (or $XDG_DATA_HOME); no root needed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=$HOME/.local/bin
sizes="16 24 32 48 64 128 256 512"

refresh() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$data/applications/lnl-desktop.desktop"
    for size in $sizes; do
        rm -f "$data/icons/hicolor/${size}x${size}/apps/lnl-desktop.png"
    done
    if [ -L "$bin/lnl-desktop" ]; then rm -f "$bin/lnl-desktop"; fi
    refresh
    echo "Laurels & Loot Desktop: menu entry, icons and command removed."
    exit 0
fi

if [ ! -x "$here/lnl-desktop" ]; then
    echo "install.sh: $here/lnl-desktop is missing: run install.sh from the unpacked folder" >&2
    exit 1
fi

for size in $sizes; do
    mkdir -p "$data/icons/hicolor/${size}x${size}/apps"
    cp "$here/share/icons/hicolor/${size}x${size}/apps/lnl-desktop.png" "$data/icons/hicolor/${size}x${size}/apps/"
done

# Exec= with the full path, quoted as the Desktop Entry spec wants: \ " ` $ escaped inside the
# quotes, then every backslash doubled once more (string escaping of the file format).
program=$(printf '%s' "$here/lnl-desktop" | sed -e 's/[\\"`$]/\\&/g' -e 's/\\/\\\\/g')
mkdir -p "$data/applications"
LNL_EXEC="\"$program\" %f" LNL_TRYEXEC="$here/lnl-desktop" awk '
    /^Exec=/ { print "Exec=" ENVIRON["LNL_EXEC"]; next }
    /^TryExec=/ { print "TryExec=" ENVIRON["LNL_TRYEXEC"]; next }
    { print }
' "$here/lnl-desktop.desktop" > "$data/applications/lnl-desktop.desktop"

mkdir -p "$bin"
ln -sf "$here/lnl-desktop" "$bin/lnl-desktop"
refresh
echo "Laurels & Loot Desktop is in your applications menu; from a terminal: $bin/lnl-desktop"
