#!/usr/bin/env bash
# Builds sqlimport as a release binary with the Swift runtime linked in statically, and
# installs it with its man page and shell completions:
#
#   bash scripts/install.sh [PREFIX]        # default /usr/local
#
#   PREFIX/bin/sqlimport
#   PREFIX/share/man/man1/sqlimport.1
#   PREFIX/share/bash-completion/completions/sqlimport
#   PREFIX/share/zsh/site-functions/_sqlimport
#   PREFIX/share/fish/vendor_completions.d/sqlimport.fish
#   PREFIX/share/sqlimport/BUILD            (the commit, for --version)
#
# Building needs a Swift 6 toolchain and the C libraries of scripts/install-deps.sh; the
# installed binary needs neither the toolchain nor its runtime (libzstd, zlib and
# libsqlite3 stay shared: they come with every Debian-like system).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"
bash scripts/install-deps.sh
# A build folder of its own, so that the regular release build is not rebuilt.
scratch=.build-static
swift build -c release --product sqlimport --static-swift-stdlib --scratch-path "$scratch"
bin="$scratch/release/sqlimport"
if ldd "$bin" 2>/dev/null | grep -q 'libswift\|libFoundation\|libdispatch'; then
  echo "install.sh: $bin still links the Swift runtime:" >&2
  ldd "$bin" >&2
  exit 1
fi
mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 755 "$bin" "$prefix/bin/sqlimport"
strip "$prefix/bin/sqlimport" 2>/dev/null || true
# ArgumentParser's plugin writes the man page from the commands' own help.
swift package --scratch-path "$scratch" plugin --allow-writing-to-package-directory generate-manual >/dev/null
install -m 644 "$scratch/plugins/GenerateManual/outputs/sqlimport/sqlimport.1" "$prefix/share/man/man1/sqlimport.1"
"$prefix/bin/sqlimport" --generate-completion-script bash >"$prefix/share/bash-completion/completions/sqlimport"
"$prefix/bin/sqlimport" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_sqlimport"
"$prefix/bin/sqlimport" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/sqlimport.fish"
# The commit this binary was built from, for `sqlimport --version`.
mkdir -p "$prefix/share/sqlimport"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "unknown (not a git checkout)")
[ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit (with uncommitted changes)"
echo "$commit, $(date -u +%Y-%m-%d)" >"$prefix/share/sqlimport/BUILD"
size=$(du -h "$prefix/bin/sqlimport" | cut -f1)
echo "installed $prefix/bin/sqlimport ($size), its man page and completions" >&2
