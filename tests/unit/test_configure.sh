#!/bin/sh
# configure takes what packagers pass to autoconf scripts (run in a scratch directory, so the
# build tree's Makefile is left alone):
#   - Debian's dh_auto_configure line (--build, ${prefix}-relative directories, --libdir,
#     --disable-option-checking, ...) with --disable-fortran, --without-hwloc, --enable-static=no
#     and VAR=value arguments: accepted, and the Makefile holds the values as given;
#   - config.log starts with the exact command line and holds each check's command and output;
#   - --version, --help, unknown options (refused), unknown features (warned), CC from the
#     environment that is not the MPI wrapper (gets the wrapper's flags).
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_configure.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# The Makefile's value of a variable, as written.
mkvar() { sed -n "s/^$1 *= *//p" Makefile; }

version=$(cat "$SRCDIR/VERSION")
[ "$("$SRCDIR/configure" --version)" = "mcoll configure $version" ] || bad "--version does not print the version of VERSION"
for o in --libdir --disable-fortran --without-hwloc --disable-static --disable-shared --exec-prefix --datarootdir; do
    "$SRCDIR/configure" --help | grep -q -- "$o" || bad "--help does not mention $o"
done
[ -f config.log ] && bad "--help or --version wrote config.log"

if ! "$SRCDIR/configure" --build=x86_64-linux-gnu --prefix=/usr '--includedir=${prefix}/include' \
        '--mandir=${prefix}/share/man' '--infodir=${prefix}/share/info' --sysconfdir=/etc --localstatedir=/var \
        --disable-option-checking --disable-silent-rules '--libdir=${prefix}/lib/x86_64-linux-gnu' --runstatedir=/run \
        --disable-maintainer-mode --disable-dependency-tracking --docdir /usr/share/doc/mcoll \
        --disable-fortran --without-hwloc --enable-static=no --host=x86_64-linux-gnu \
        CFLAGS='-g -O2 -fstack-protector-strong' CPPFLAGS=-D_FORTIFY_SOURCE=2 LDFLAGS=-Wl,-z,relro > out 2> err; then
    bad "configure refused the packager's options:"; cat err
fi
grep -q "note: --host=x86_64-linux-gnu ignored" out || bad "--host not reported as ignored"
grep -q "unrecognized" err && bad "options were reported unrecognized despite --disable-option-checking"
[ "$(mkvar prefix)" = /usr ] || bad "prefix is '$(mkvar prefix)'"
[ "$(mkvar libdir)" = '${prefix}/lib/x86_64-linux-gnu' ] || bad "libdir is '$(mkvar libdir)'"
[ "$(mkvar includedir)" = '${prefix}/include' ] || bad "includedir is '$(mkvar includedir)'"
[ "$(mkvar docdir)" = /usr/share/doc/mcoll ] || bad "docdir (two-word form) is '$(mkvar docdir)'"
[ "$(mkvar sysconfdir)" = /etc ] || bad "sysconfdir is '$(mkvar sysconfdir)'"
[ "$(mkvar ENABLE_STATIC)" = no ] && [ "$(mkvar ENABLE_SHARED)" = yes ] || bad "--enable-static=no not in the Makefile"
[ "$(mkvar HAVE_FORTRAN)" = no ] || bad "--disable-fortran not in the Makefile"
mkvar MCOLL_CFLAGS | grep -q -- "-DMCOLL_HAVE_HWLOC=0" || bad "--without-hwloc did not turn hwloc off"
[ -z "$(mkvar HWLOC_LIBS)" ] || bad "--without-hwloc still links '$(mkvar HWLOC_LIBS)'"
[ "$(mkvar CFLAGS)" = "-g -O2 -fstack-protector-strong" ] || bad "CFLAGS is '$(mkvar CFLAGS)'"
[ "$(mkvar CPPFLAGS)" = "-D_FORTIFY_SOURCE=2" ] || bad "CPPFLAGS is '$(mkvar CPPFLAGS)'"
[ "$(mkvar LDFLAGS)" = "-Wl,-z,relro" ] || bad "LDFLAGS is '$(mkvar LDFLAGS)'"
[ "$(mkvar VERSION)" = "$version" ] || bad "VERSION is '$(mkvar VERSION)'"

# config.log: the exact command line first, then every check with its command and output.
[ -f config.log ] || bad "no config.log"
line=$(grep -m1 '^  \$ ' config.log)
case "$line" in
    *"configure --build=x86_64-linux-gnu --prefix=/usr '--includedir=\${prefix}/include' "*"'CFLAGS=-g -O2 -fstack-protector-strong' CPPFLAGS=-D_FORTIFY_SOURCE=2 LDFLAGS=-Wl,-z,relro") ;;
    *) bad "config.log does not start with the command line: $line" ;;
esac
[ "$(grep -c '^configure: checking ' config.log)" -eq "$(grep -c '^checking ' out)" ] || bad "config.log does not hold every check"
grep -q '^configure: running: .*nvcc.* -arch=sm_90 -c ' config.log || bad "config.log lacks the nvcc probe's command"
grep -q '^configure: running: .*PMPI\|^configure: running: .*t\.c -o ' config.log || bad "config.log lacks the compile commands"
grep -q 'Cuda compilation tools' config.log || bad "config.log lacks nvcc --version's output"
grep -q '^configure: exit 0' config.log || bad "config.log does not end with the exit status"

# Unknown options are refused; unknown features are warned about.
"$SRCDIR/configure" -q --frobnicate > out 2> err && bad "--frobnicate accepted"
grep -q "unknown option --frobnicate" err || bad "no error naming --frobnicate"
grep -q "configure: error: unknown option --frobnicate" config.log || bad "the error is not in config.log"
"$SRCDIR/configure" -q --enable-frob --with-frob=3 > out 2> err || bad "configure failed on an unknown feature"
grep -q "WARNING: unrecognized options: --enable-frob --with-frob=3" err || bad "unknown features not warned about"
"$SRCDIR/configure" -q --disable-shared --disable-static > out 2> err && bad "nothing to install was accepted"
"$SRCDIR/configure" -q --prefix=relative/dir > out 2> err && bad "a relative prefix was accepted"
"$SRCDIR/configure" -q '--with-hwloc=no' > out 2> err || bad "--with-hwloc=no refused"
mkvar MCOLL_CFLAGS | grep -q -- "-DMCOLL_HAVE_HWLOC=0" || bad "--with-hwloc=no did not turn hwloc off"

# A plain C compiler from the environment gets the MPI wrapper's flags.
if command -v gcc >/dev/null 2>&1 && mpicc --showme:compile >/dev/null 2>&1; then
    CC=gcc "$SRCDIR/configure" -q > out 2> err || { bad "CC=gcc from the environment refused"; cat err; }
    [ "$(mkvar CC)" = gcc ] || bad "CC from the environment ignored: '$(mkvar CC)'"
    [ -n "$(mkvar MPI_LIBS)" ] || bad "CC=gcc got no MPI flags"
fi

[ $fail -eq 0 ] && echo "configure: packager options, config.log, errors and warnings as expected"
exit $fail
