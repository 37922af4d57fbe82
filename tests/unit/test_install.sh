#!/bin/sh
# make install as packagers run it, into scratch DESTDIRs:
#   - `make install DESTDIR=... prefix=/opt/mcoll libdir=/opt/mcoll/lib64`: the files land under
#     the libdir given to make, mcoll.pc names that libdir, and every installed program carries
#     RUNPATH /opt/mcoll/lib64 and nothing of the build tree: it runs (LD_LIBRARY_PATH unset)
#     with the loader pointed at the staged lib64 only, and does not start without it;
#   - with ENABLE_SHARED=no (configure --disable-shared) only libmcoll.a is installed, and
#     `pkg-config --static --libs mcoll` links an MPI program against it that runs under mpirun
#     through the plug-in;
#   - make uninstall removes every file and every directory the installs created.
# Environment: BUILD (build directory, beside the Makefile), SRCDIR, MPIRUN.
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MPIRUN=${MPIRUN:-mpirun}
TOP=$(dirname "$BUILD")
[ -f "$TOP/Makefile" ] && [ -f "$BUILD/lib/libmcoll.so" ] || { echo "skip: no configured build at $TOP"; exit 77; }
for t in readelf pkg-config; do
    command -v $t >/dev/null 2>&1 || { echo "skip: $t not found"; exit 77; }
done
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_install.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
# The make running make check must not hand its job server or variables to these.
unset MAKEFLAGS MFLAGS MAKELEVEL
version=$(cat "$SRCDIR/VERSION")
MPICC=$(sed -n 's/^MPICC *= *//p' "$TOP/Makefile")
fail=0
bad() { echo "FAIL: $*"; fail=1; }
runpath() { readelf -d "$1" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p'; }

# --- shared and static, libdir given to make -------------------------------------------------
D=$tmp/root
mkdir -p "$D"
make -C "$TOP" -j2 install DESTDIR="$D" prefix=/opt/mcoll libdir=/opt/mcoll/lib64 > "$tmp/install.log" 2>&1 ||
    { bad "make install failed"; tail -n 20 "$tmp/install.log"; exit 1; }
P=$D/opt/mcoll
for f in lib64/libmcoll.so.$version lib64/libmcoll.so.0 lib64/libmcoll.so lib64/libmcoll.a include/mcoll.h \
         lib64/pkgconfig/mcoll.pc bin/mcoll_info bin/mcoll_osu_allreduce bin/mcoll-bench; do
    [ -e "$P/$f" ] || bad "$f not installed"
done
[ -e "$P/lib" ] && bad "something went to lib/ instead of the libdir given to make"

pc() { dir=$1; shift; PKG_CONFIG_PATH=$dir/lib64/pkgconfig:$dir/lib/pkgconfig pkg-config "$@"; }
[ "$(pc "$P" --variable=libdir mcoll)" = /opt/mcoll/lib64 ] || bad "mcoll.pc has libdir $(pc "$P" --variable=libdir mcoll)"
[ "$(pc "$P" --variable=includedir mcoll)" = /opt/mcoll/include ] || bad "mcoll.pc has includedir $(pc "$P" --variable=includedir mcoll)"
[ "$(pc "$P" --modversion mcoll)" = "$version" ] || bad "mcoll.pc has version $(pc "$P" --modversion mcoll)"
[ "$(pc "$P" --define-variable=prefix="$P" --variable=libdir mcoll)" = "$P/lib64" ] ||
    bad "mcoll.pc's libdir does not follow prefix"

readelf -d "$P/bin/mcoll_info" | grep -q 'NEEDED.*libmcoll.so.0' || bad "installed mcoll_info does not link libmcoll.so"
for prog in "$P"/bin/*; do
    # Scripts (mcoll-bench-plot) have no RUNPATH to check.
    head -c 4 "$prog" | grep -q "ELF" || continue
    rp=$(runpath "$prog")
    case ":$rp:" in *:/opt/mcoll/lib64:*) ;; *) bad "$(basename "$prog") has RUNPATH '$rp', not /opt/mcoll/lib64" ;; esac
    case "$rp" in *"$BUILD"* | *"$TOP"*) bad "$(basename "$prog") has the build tree in its RUNPATH: $rp" ;; esac
    readelf -d "$prog" | grep -q '(RPATH)' && bad "$(basename "$prog") has an RPATH (LD_LIBRARY_PATH could not override it)"
done

installed_runpath=$(runpath "$P/bin/mcoll_osu_allreduce")

# Run the installed programs with the loader pointed at the staged lib64 only: the build tree's
# lib/ is out of reach (it is in no RUNPATH), as after make clean.
ldso=$(readelf -l "$P/bin/mcoll_info" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
if [ -x "$ldso" ]; then
    for prog in mcoll_osu_allreduce mcoll_info; do
        env -u LD_LIBRARY_PATH -u LD_PRELOAD "$ldso" --library-path "$P/lib64" "$P/bin/$prog" -h > "$tmp/run.out" 2>&1 ||
            { bad "installed $prog -h does not run from the staged lib64:"; cat "$tmp/run.out"; }
    done
    # mcoll_info names the library it loaded: the staged one.
    env -u LD_LIBRARY_PATH -u LD_PRELOAD "$ldso" --library-path "$P/lib64" "$P/bin/mcoll_info" --version > "$tmp/run.out" 2>&1
    grep -q "^library: *$P/lib64/libmcoll.so.$version (version $version," "$tmp/run.out" ||
        { bad "installed mcoll_info --version does not report the staged library:"; cat "$tmp/run.out"; }
    if [ ! -e /opt/mcoll/lib64/libmcoll.so.0 ]; then
        env -u LD_LIBRARY_PATH -u LD_PRELOAD "$P/bin/mcoll_osu_allreduce" -h > "$tmp/run.out" 2>&1 &&
            bad "installed mcoll_osu_allreduce started without /opt/mcoll/lib64: it found a library elsewhere"
        grep -q "libmcoll.so.0" "$tmp/run.out" || bad "unexpected failure without /opt/mcoll/lib64: $(cat "$tmp/run.out")"
    fi
else
    echo "note: no program interpreter found; installed programs not run"
fi

# --- static only, linked through pkg-config --static ----------------------------------------
S=$tmp/static
mkdir -p "$S"
make -C "$TOP" -j2 install DESTDIR="$S" prefix=/opt/mcoll ENABLE_SHARED=no > "$tmp/install-static.log" 2>&1 ||
    { bad "make install ENABLE_SHARED=no failed"; tail -n 20 "$tmp/install-static.log"; }
Q=$S/opt/mcoll
ls "$Q"/lib/libmcoll.so* > /dev/null 2>&1 && bad "ENABLE_SHARED=no installed the shared library"
[ -f "$Q/lib/libmcoll.a" ] || bad "ENABLE_SHARED=no did not install libmcoll.a"
readelf -d "$Q/bin/mcoll_osu_allreduce" | grep -q 'libmcoll' && bad "programs installed with ENABLE_SHARED=no need libmcoll.so"
pc "$Q" --libs mcoll | grep -q cudart_static && bad "pkg-config --libs (not --static) lists the private libraries"
libs=$(pc "$Q" --define-variable=prefix="$Q" --static --cflags --libs mcoll)
case "$libs" in *-lcudart_static*-lstdc++*) ;; *) bad "pkg-config --static --libs mcoll lacks the static CUDA runtime: $libs" ;; esac
cat > "$tmp/static.c" <<'EOF'
#include <stdio.h>
#include <mcoll.h>
int main(int argc, char **argv)
{
    int one = 1, sum = 0, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("sum %d of %d, API %d\n", sum, size, mcoll_version());
    MPI_Finalize();
    return sum != size;
}
EOF
# shellcheck disable=SC2086
if ${MPICC:-mpicc} "$tmp/static.c" -o "$tmp/prog" $libs > "$tmp/link.log" 2>&1; then
    readelf -d "$tmp/prog" | grep -q libmcoll && bad "the program linked through pkg-config --static needs libmcoll.so"
    "$MPIRUN" -np 2 --oversubscribe -x MCOLL_DEBUG=INFO "$tmp/prog" > "$tmp/static.out" 2>&1 ||
        { bad "the statically linked program failed:"; tail -n 10 "$tmp/static.out"; }
    [ "$(grep -c "PMPI plug-in active" "$tmp/static.out")" -eq 2 ] || bad "the static plug-in did not start on both ranks"
    [ "$(grep -c "^sum 2 of 2" "$tmp/static.out")" -eq 2 ] || bad "wrong sums from the statically linked program"
else
    bad "linking with pkg-config --static --libs mcoll failed:"; grep -c 'undefined reference' "$tmp/link.log"; tail -n 5 "$tmp/link.log"
fi

# --- uninstall: nothing left, not even the directories ---------------------------------------
make -C "$TOP" uninstall DESTDIR="$D" prefix=/opt/mcoll libdir=/opt/mcoll/lib64 > "$tmp/uninstall.log" 2>&1 || bad "make uninstall failed"
make -C "$TOP" uninstall DESTDIR="$S" prefix=/opt/mcoll > "$tmp/uninstall-static.log" 2>&1 || bad "make uninstall (static) failed"
for d in "$D" "$S"; do
    left=$(find "$d" -mindepth 1 | head -n 5)
    [ -z "$left" ] || bad "make uninstall left: $left"
done

[ $fail -eq 0 ] && echo "install: RUNPATH $installed_runpath, static link through pkg-config, clean uninstall"
exit $fail
