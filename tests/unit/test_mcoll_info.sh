#!/bin/sh
# mcoll_info links the shared library and reports the one actually loaded:
#   - --help, --version and -a give distinct outputs; an unknown option exits 2;
#   - --version names the build tree's libmcoll.so.VERSION and its API, which match the files
#     VERSION and include/mcoll.h;
#   - with another copy preloaded (LD_PRELOAD), it names that copy;
#   - -a prints the whole settings table (every variable of src/core/config.c's table), the
#     default output only the MCOLL_* variables set.
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
INFO=$BUILD/bin/mcoll_info
[ -x "$INFO" ] || { echo "skip: $INFO not built"; exit 77; }
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_mcoll_info.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }
version=$(cat "$SRCDIR/VERSION")
api=$(sed -n 's/^#define MCOLL_API_VERSION_MAJOR \([0-9]*\)/\1/p' "$SRCDIR/include/mcoll.h").$(sed -n 's/^#define MCOLL_API_VERSION_MINOR \([0-9]*\)/\1/p' "$SRCDIR/include/mcoll.h")
unset LD_PRELOAD

readelf -d "$INFO" 2>/dev/null | grep -q 'NEEDED.*libmcoll.so' || bad "mcoll_info does not link libmcoll.so"
"$INFO" --help > "$tmp/help" || bad "--help failed"
"$INFO" --version > "$tmp/version" || bad "--version failed"
"$INFO" -a > "$tmp/all" || bad "-a failed"
env -u MCOLL_DEBUG MCOLL_TIMEOUT=7 "$INFO" > "$tmp/default" || bad "no option failed"
set -- help version all default
for a; do
    shift
    for b; do cmp -s "$tmp/$a" "$tmp/$b" && bad "$a and $b print the same"; done
done
grep -q "^Usage: mcoll_info" "$tmp/help" || bad "--help prints no usage"
"$INFO" --frob > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || bad "an unknown option does not exit 2"
grep -q "unknown option --frob" "$tmp/err" || bad "an unknown option is not named"

[ "$(head -n 1 "$tmp/version")" = "mcoll_info $version (API $api)" ] || bad "--version first line: $(head -n 1 "$tmp/version")"
lib=$(cd "$BUILD/lib" && pwd -P)/libmcoll.so.$version
grep -qx "library: *$lib (version $version, API $api)" "$tmp/version" || bad "--version does not name $lib: $(cat "$tmp/version")"

# A copy preloaded is the one reported.
mkdir -p "$tmp/other"
cp "$BUILD/lib/libmcoll.so.$version" "$tmp/other/libmcoll.so.$version"
LD_PRELOAD=$tmp/other/libmcoll.so.$version "$INFO" --version > "$tmp/preload" 2>&1 || bad "--version with LD_PRELOAD failed"
grep -q "^library: *$(cd "$tmp/other" && pwd -P)/libmcoll.so.$version " "$tmp/preload" ||
    bad "with LD_PRELOAD the preloaded copy is not reported: $(cat "$tmp/preload")"

# Every variable of the settings table in -a; the default output shows only what is set.
for v in $(sed -n 's/^ *{"\(MCOLL_[A-Z_]*\)",.*/\1/p' "$SRCDIR/src/core/config.c"); do
    grep -q "^$v " "$tmp/all" || bad "-a does not list $v"
done
grep -q "^settings: *MCOLL_TIMEOUT=7" "$tmp/default" || bad "the default output does not show MCOLL_TIMEOUT=7"
grep -q "^MCOLL_BUFFER_SIZE " "$tmp/default" && bad "the default output prints the whole table"

[ $fail -eq 0 ] && echo "mcoll_info: $(sed -n 's/^library: *//p' "$tmp/version")"
exit $fail
