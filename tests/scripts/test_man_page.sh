#!/usr/bin/env bash
# The man page the build writes (cli/man_page.cmake) is a page for gemmtune with a section for
# every subcommand its --help lists, and the install puts it under share/man/man1.
#   tests/scripts/test_man_page.sh GEMMTUNE_BINARY MAN_PAGE BUILD_DIR
set -euo pipefail
G=${1:?usage: test_man_page.sh GEMMTUNE_BINARY MAN_PAGE BUILD_DIR}
page=${2:?}
build=${3:?}
grep -q '^\.TH GEMMTUNE "1"' "$page" || { echo "$page: no .TH GEMMTUNE 1 header" >&2; exit 1; }
missing=0
for sub in $("$G" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p'); do
  upper=$(echo "$sub" | tr a-z A-Z)
  grep -q "^\.SH \"SUBCOMMAND $upper\"" "$page" || { echo "$page: no section for $sub" >&2; missing=1; }
done
[[ $missing -eq 0 ]] || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work" > /dev/null
[[ -s "$work/share/man/man1/gemmtune.1" ]] || { echo "the install has no share/man/man1/gemmtune.1" >&2; exit 1; }
echo "man page: every subcommand, installed"
