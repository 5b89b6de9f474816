#!/bin/sh
# Installs a Browser Pilot native archive after verifying it.
#
#   sh install.sh [--prefix DIR] [--force] browser-pilot-<version>-<platform>.tar.gz
#
# 1. The archive must match its checksum: <archive>.sha256 next to it, else the line for it in
#    SHA256SUMS in the same directory. A mismatch or a missing checksum installs nothing.
# 2. Every entry must stay inside the archive's top directory (no absolute paths, no '..').
# 3. After unpacking, every file must match the archive's own SHA256SUMS.
# 4. The archive's platform must be this machine's.
# Then it lives in PREFIX/lib/browser-pilot/<version>-<platform>/ and PREFIX/bin/bp and
# PREFIX/bin/browser-pilot link to it (on macOS, a bp whose signature does not verify is
# re-signed ad hoc first). PREFIX defaults to $HOME/.local; a relative one is taken from the
# current directory. --force replaces a bp in PREFIX/bin that this script did not install.
# Exit codes: 2 usage, 3 no checksum, 4 checksum mismatch, 5 unsafe or damaged archive,
# 6 wrong platform, 7 PREFIX/bin/bp is not ours.
set -eu

prog=install.sh
die() {
  code=$1
  shift
  printf '%s: %s\n' "$prog" "$*" >&2
  exit "$code"
}

prefix=${HOME:-}/.local
force=0
archive=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || die 2 "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die 2 "unknown option $1" ;;
    *) [ -z "$archive" ] || die 2 "one archive at a time"; archive=$1; shift ;;
  esac
done
[ -n "$archive" ] || die 2 "usage: sh install.sh [--prefix DIR] [--force] browser-pilot-<version>-<platform>.tar.gz"
[ -n "$prefix" ] || die 2 "no --prefix and no HOME"
# The links in PREFIX/bin point at an absolute path, so they work from any directory.
case $prefix in
  "~") prefix=${HOME:?} ;;
  "~/"*) prefix=${HOME:?}/${prefix#"~/"} ;;
  /*) ;;
  *) prefix=$(pwd)/$prefix ;;
esac
[ -f "$archive" ] || die 2 "no such archive: $archive"

name=$(basename "$archive")
dir=$(cd "$(dirname "$archive")" && pwd)
case $name in
  browser-pilot-*.tar.gz) top=${name%.tar.gz} ;;
  *.zip) die 2 "$name is a Windows archive: check it against $name.sha256 and unzip it with Windows tools" ;;
  *) die 2 "$name is not a browser-pilot-<version>-<platform>.tar.gz archive" ;;
esac

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else die 3 "no sha256sum, shasum or openssl to verify with"
  fi
}

# 1. The archive's checksum.
expected=
if [ -f "$dir/$name.sha256" ]; then
  expected=$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f); if (f == n) { print $1; exit } }' "$dir/$name.sha256")
  source="$name.sha256"
elif [ -f "$dir/SHA256SUMS" ]; then
  expected=$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f); if (f == n) { print $1; exit } }' "$dir/SHA256SUMS")
  source=SHA256SUMS
fi
[ -n "$expected" ] || die 3 "no checksum for $name: put $name.sha256 or SHA256SUMS from the release next to it; nothing was installed"
actual=$(sha256 "$archive")
expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f')
if [ "$actual" != "$expected" ]; then
  printf '%s: checksum mismatch for %s\n  expected %s (%s)\n  actual   %s\nThe archive is damaged or not the published one; nothing was installed.\n' "$prog" "$name" "$expected" "$source" "$actual" >&2
  exit 4
fi

# 2. Entries stay inside the top directory.
list=$(tar -tzf "$archive") || die 5 "$name cannot be read as a tar.gz"
printf '%s\n' "$list" | while IFS= read -r entry; do
  case $entry in
    "$top"|"$top"/*) ;;
    *) die 5 "$name holds '$entry' outside $top/; nothing was installed" ;;
  esac
  case /$entry/ in
    */../*) die 5 "$name holds '$entry' with '..'; nothing was installed" ;;
  esac
done || exit $?

# 3. Unpack into a staging directory and check every file.
root=$prefix/lib/browser-pilot
mkdir -p "$root" "$prefix/bin"
stage=$(mktemp -d "$root/.staging.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT TERM
tar -xzf "$archive" -C "$stage" || die 5 "$name could not be unpacked"
pkg=$stage/$top
[ -f "$pkg/SHA256SUMS" ] && [ -f "$pkg/manifest.json" ] || die 5 "$name has no SHA256SUMS or manifest.json"
while read -r hash file; do
  case $file in /*|*..*) die 5 "SHA256SUMS names unsafe path $file" ;; esac
  [ -f "$pkg/$file" ] || die 5 "$file listed in SHA256SUMS is missing from $name"
  [ "$(sha256 "$pkg/$file")" = "$hash" ] || die 5 "$file does not match the archive's SHA256SUMS; nothing was installed"
done < "$pkg/SHA256SUMS"

# 4. The platform.
field() { sed -n "s/^  \"$1\": \"\\(.*\\)\",\$/\\1/p" "$pkg/manifest.json" | head -n 1; }
version=$(field version)
platform=$(field platform)
[ -n "$version" ] && [ -n "$platform" ] || die 5 "manifest.json names no version or platform"
case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) os=$(uname -s) ;; esac
case $(uname -m) in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
[ "$platform" = "$os-$arch" ] || die 6 "$name is for $platform; this machine is $os-$arch"

# Install: the versioned directory, then the links.
for cmd in bp browser-pilot; do
  link=$prefix/bin/$cmd
  [ -e "$link" ] || [ -L "$link" ] || continue
  # Ours: a link into PREFIX/lib/browser-pilot/. Anything else (a file, npm's link) is not.
  if [ -L "$link" ]; then
    case $(readlink "$link") in "$root"/*) continue ;; esac
  fi
  [ "$force" -eq 1 ] || die 7 "$link exists and was not installed by this script; use --force to replace it"
done
dest=$root/$version-$platform
rm -rf "$dest"
mv "$pkg" "$dest"
for cmd in bp browser-pilot; do
  rm -f "$prefix/bin/$cmd"
  ln -s "$dest/bp" "$prefix/bin/$cmd"
done
# macOS refuses a Mach-O whose signature does not match it; Bun leaves a stale one on some
# targets (manifest.json says signature "invalid"). An ad-hoc signature makes it runnable.
if [ "$os" = darwin ] && command -v codesign >/dev/null 2>&1 && ! codesign -v "$dest/bp" >/dev/null 2>&1; then
  codesign --force --sign - "$dest/bp" || die 5 "could not re-sign $dest/bp ad hoc"
  printf 're-signed %s ad hoc (its signature did not match the file)\n' "$dest/bp"
fi
installed=$("$prefix/bin/bp" --version) || die 5 "the installed bp does not run on this machine"
printf 'installed bp %s at %s/bin/bp\n' "$installed" "$prefix"
case :${PATH:-}: in
  *:"$prefix/bin":*) ;;
  *) printf 'add %s/bin to PATH to run bp\n' "$prefix" ;;
esac
