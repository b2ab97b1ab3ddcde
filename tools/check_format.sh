#!/usr/bin/env bash
# Checks that Kiln's C++ sources are formatted as .clang-format says (clang-format 14: another
# major version formats differently, so it is refused rather than trusted).
#
#   tools/check_format.sh              every tracked .cpp/.h: exit 1 and list the files that differ
#   tools/check_format.sh --changed [REF]   only files changed against REF (default HEAD), staged or not
#   tools/check_format.sh --fix [FILE...]   format in place (all tracked sources, or the FILEs)
#
# CLANG_FORMAT picks the binary (default clang-format-14, else clang-format). `make test` runs the
# check when KILN_FORMAT_CHECK=1, which is the default in CI (CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."

CF=${CLANG_FORMAT:-}
if [ -z "$CF" ]; then
  if command -v clang-format-14 >/dev/null; then CF=clang-format-14; else CF=clang-format; fi
fi
if ! command -v "$CF" >/dev/null; then
  echo "check_format: $CF not found (apt-get install clang-format)" >&2
  exit 2
fi
major=$("$CF" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$major" != "14" ]; then
  echo "check_format: $CF is version $major; .clang-format is tuned for clang-format 14" >&2
  exit 2
fi

# Kiln's own C++ sources: tracked .cpp/.h files (nothing generated is tracked).
sources() { git ls-files -- '*.cpp' '*.h'; }

mode=check
files=()
case "${1:-}" in
  --fix) mode=fix; shift; files=("$@") ;;
  --changed)
    ref=${2:-HEAD}
    mapfile -t files < <({ git diff --name-only --diff-filter=d "$ref" -- '*.cpp' '*.h'
                          git ls-files --others --exclude-standard -- '*.cpp' '*.h'; } | sort -u)
    if [ ${#files[@]} -eq 0 ]; then echo "check_format: no changed C++ files"; exit 0; fi ;;
  "") ;;
  *) echo "usage: tools/check_format.sh [--changed [REF] | --fix [FILE...]]" >&2; exit 2 ;;
esac
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(sources)

if [ "$mode" = fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$CF" -i --style=file
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$CF" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted (tools/check_format.sh --fix FILE...):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
