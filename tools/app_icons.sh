#!/usr/bin/env bash
# Writes Public/icons/: the PNG icons the web app manifest (Public/manifest.webmanifest) and
# iOS (apple-touch-icon) ask for, from Public/favicon.svg (a white speech bubble on the
# sidebar's purple). Run from the repository root; the output is committed, so run it again
# only after the favicon changes. Needs rsvg-convert (Debian: librsvg2-bin).
#
#   icon-192.png, icon-512.png          "any": the favicon as it is (rounded, transparent corners)
#   maskable-192.png, maskable-512.png  "maskable": purple to every edge, the bubble centred and
#                                       inside the middle 80% circle that any launcher mask keeps
#   apple-touch-icon.png (180)          opaque square (iOS rounds it itself): the maskable design
#   badge-96.png                        the bubble alone, white on transparent: Android draws a
#                                       notification's badge from its alpha channel only
set -euo pipefail

SOURCE=Public/favicon.svg
OUT=Public/icons
PURPLE='#3f0e40'
mkdir -p "$OUT"

# The bubble is the favicon's only <path>. Its outline spans x 7..25, y 8..26 of the 32-unit
# box; the point farthest from its centre (16, 17) is 11.1 units away. Moved up one unit it is
# centred, and 11.1 / 32 = 35% of the width stays inside the 40% radius of the safe zone.
bubble=$(grep -o '<path [^>]*/>' "$SOURCE")
[ -n "$bubble" ] || { echo "no <path> in $SOURCE" >&2; exit 1; }
full_bleed=$(mktemp --suffix=.svg)
badge=$(mktemp --suffix=.svg)
trap 'rm -f "$full_bleed" "$badge"' EXIT
cat >"$full_bleed" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="$PURPLE"/><g transform="translate(0 -1)">$bubble</g></svg>
SVG
# The bubble's 18-unit outline in a 20-unit box: a unit of margin all round.
cat >"$badge" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" viewBox="6 7 20 20">$bubble</svg>
SVG

render() { # svg size name
  rsvg-convert --width "$2" --height "$2" --format png --output "$OUT/$3" "$1"
}

render "$SOURCE" 192 icon-192.png
render "$SOURCE" 512 icon-512.png
render "$full_bleed" 192 maskable-192.png
render "$full_bleed" 512 maskable-512.png
render "$full_bleed" 180 apple-touch-icon.png
render "$badge" 96 badge-96.png
ls -l "$OUT"
