#!/usr/bin/env bash
# FFTW's own MPI test harness (FFTW 3.3.10's tests/check.pl driving mpi/mpi-bench) run against
# volfft's FFTW-MPI library, volfft_fftw3_mpi.
#
#   tests/fftw_mpi/fftw_harness.sh BUILD_DIR
#
# BUILD_DIR holds libvolfft_fftw3_mpi.so; the harness works in BUILD_DIR/fftw-harness (FFTW's
# source, its configured build, the relinked mpi-bench, logs), never in the repository: FFTW is
# GPL and none of it belongs in volfft's tree. The unpacked source and the objects are kept there
# between runs, so only the first run downloads and configures.
#
# Each problem FFTW's harness poses ends in one of three classes:
#   passed   mpi-bench --verify succeeded (FFTW's libbench2 checks: impulse, linearity, shifts)
#   refused  volfft_fftw3_mpi returned a NULL plan and said why ("volfft_fftw3_mpi: ..."), for
#            what docs/fftw-mpi.md says it refuses: 1-D, r2c/c2r of >3-D, scrambled and R2HC/HC2R/DHT
#   FAILED   anything else: a wrong result, a crash, a hang, or a NULL plan without that message
# Exit status: 0 when nothing FAILED, 1 otherwise, 77 (SKIPPED) when FFTW's source cannot be had
# (no network, no apt, not Debian) or a tool the harness needs is missing.
#
# Environment (all optional):
#   FFTW_HARNESS_NP=3           process counts; each runs the fixed list and the random rounds
#                               (3: odd, uneven rows, and the ranks that hold nothing when n0 = 2;
#                               test_fftw_mpi covers np 1-5 and 7 through the API directly)
#   FFTW_HARNESS_PRECISION=double  "double float" adds single precision (fftwf_mpi_*: its own
#                               configure --enable-float and mpi-bench; twice the time)
#   FFTW_HARNESS_COUNT=3        check.pl -c: random problem rounds per process count (each round
#                               poses up to 6 problems). The defaults make about 60 mpirun calls,
#                               sized for the README's test run on a 2-core machine; the longer
#                               run of docs/fftw-mpi.md is NP="1 2 3 4" COUNT=10 (about 330)
#   FFTW_HARNESS_MAXSIZE=10000  check.pl --maxsize (FFTW's own "make check" uses 10000)
#   FFTW_HARNESS_SEED           Perl's srand seed for check.pl (default: from the clock; printed,
#                               so a run can be repeated)
#   FFTW_HARNESS_OWN_FFTW=1     link FFTW's libraries built here (about a minute per precision on
#                               2 cores) even where Debian's libfftw3 3.3.10 is installed
#   FFTW_HARNESS_TIMEOUT=120    seconds per mpi-bench run before it counts as a hang (FAILED)
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
self="$here/$(basename "${BASH_SOURCE[0]}")"
repo="$(cd "$here/../.." && pwd)"
mpirun_sh="$repo/scripts/mpirun.sh"
fftw_version=3.3.10

# ---------------------------------------------------------------------------------------------
# --run-one RESULTS NP MPI_BENCH ARGS...: one mpi-bench run, classified. check.pl calls this as its
# "program" (check.pl only knows pass/fail per run, and it would count our documented refusals as
# failures), and the fixed list below calls it the same way. One problem per run (check.pl's
# --flushcount=-1): mpi-bench aborts the whole job at the first plan it cannot make, so a batch
# would hide the problems after a refused one.
# Returns 0 for passed and refused, 1 for FAILED (check.pl then prints "FAILED" too; it runs with
# -k so that it goes on).
if [ "${1:-}" = "--run-one" ]; then
  results="$2" np="$3" bench="$4"
  shift 4
  problem=""
  prev=""
  for a in "$@"; do
    [ "$prev" = "--verify" ] && problem="$problem${problem:+ }$a"
    prev="$a"
  done
  prec="${FFTW_HARNESS_PREC:-double}"
  log="$(dirname "$results")/logs/${prec}_np${np}_$(printf '%s' "$problem" | tr -c 'A-Za-z0-9._-' '_').log"
  mkdir -p "$(dirname "$log")"
  timeout "${FFTW_HARNESS_TIMEOUT:-120}" "$mpirun_sh" -np "$np" "$bench" "$@" >"$log" 2>&1
  rc=$?
  reason=""
  # The refusals docs/fftw-mpi.md lists (1-D, more than 3 dimensions, scrambled, R2HC/HC2R/DHT):
  # any other NULL plan, even with a volfft_fftw3_mpi reason, is a problem FFTW plans and volfft
  # should, so it is FAILED.
  documented="distributed 1-D transforms|rnk [0-9]+ takes dft and r2r plans|FFTW_MPI_SCRAMBLED_IN/OUT are not supported|r2r kind [0-9]+ is not supported"
  if [ $rc -eq 0 ]; then
    class=passed
  elif grep -q "the program calls fftw_execute from" "$log"; then
    # Our library refuses everything when another fftw_execute wins: a broken relink, not a refusal.
    class=FAILED reason="link order: $(grep -m1 'volfft_fftw3_mpi:' "$log")"
  elif grep -q "^No can_do for " "$log" && grep -qE "^volfft_fftw3_mpi: ($documented)" "$log"; then
    class=refused reason="$(grep -m1 '^volfft_fftw3_mpi: ' "$log")"
  else
    class=FAILED
    if [ $rc -eq 124 ]; then reason="timed out after ${FFTW_HARNESS_TIMEOUT:-120} s"
    else reason="exit $rc: $(grep -m1 -E 'Found relative error|No can_do|assertion|volfft|signal|Segmentation' "$log")"; fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$class" "$prec" "$np" "$problem" "$reason" "$log" >>"$results"
  [ "$class" = FAILED ] && { echo "FAILED $prec np=$np $problem: $reason (log $log)"; exit 1; }
  exit 0
fi

# ---------------------------------------------------------------------------------------------
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build="$(cd "$1" && pwd)"
lib="$build/libvolfft_fftw3_mpi.so"
work="$build/fftw-harness"
skip() { echo "SKIPPED: $*"; exit 77; }
[ -e "$lib" ] || { echo "no $lib: build volfft first (scripts/build.sh)"; exit 2; }
for tool in mpicc perl make tar timeout readelf nm; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
mkdir -p "$work"
src="$work/fftw-$fftw_version"

# --- FFTW's source, through Debian's source package -------------------------------------------
# The release tarball as Debian ships it (fftw3_3.3.10.orig.tar.gz), verified by apt against the
# archive's signed Sources index. apt reads a temporary configuration of its own (sources list,
# package lists, cache in a temp dir, removed on exit): the system's apt setup is never touched and
# no root rights are needed. The unpacked source is cached in $work.
if [ ! -f "$src/tests/check.pl" ]; then
  command -v apt-get >/dev/null || skip "no apt-get (FFTW's source comes from Debian's source package)"
  codename="$(. /etc/os-release 2>/dev/null && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || skip "not Debian (FFTW's source comes from Debian's source package)"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -r "$keyring" ] || skip "no $keyring to verify Debian's archive"
  apt_tmp="$(mktemp -d)"
  trap 'rm -rf "$apt_tmp"' EXIT
  chmod 755 "$apt_tmp"  # apt's download sandbox user (_apt) must be able to write there
  mkdir -p "$apt_tmp/lists/partial" "$apt_tmp/cache/archives/partial" "$apt_tmp/dl"
  echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename main" >"$apt_tmp/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt_tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$apt_tmp/lists" -o "Dir::Cache=$apt_tmp/cache" -o Debug::NoLocking=1)
  # (NoLocking: the lists and cache are ours alone; a system apt run at the same time is no
  # reason to wait or fail.)
  echo "fetching FFTW's source: apt-get source fftw3 ($codename, temporary apt configuration)"
  if ! timeout 300 apt-get -q "${apt_opts[@]}" update >"$work/apt.log" 2>&1; then
    skip "apt-get update for Debian's source index failed (no network?); see $work/apt.log"
  fi
  # apt-get update only warns when an index cannot be downloaded: look for the index itself.
  ls "$apt_tmp/lists/"*Sources* >/dev/null 2>&1 ||
    skip "could not download Debian's $codename source index (no network?); see $work/apt.log"
  chmod 777 "$apt_tmp/dl"
  if ! (cd "$apt_tmp/dl" && timeout 300 apt-get -q "${apt_opts[@]}" source --download-only fftw3) >>"$work/apt.log" 2>&1; then
    skip "apt-get source fftw3 failed; see $work/apt.log"
  fi
  orig="$apt_tmp/dl/fftw3_$fftw_version.orig.tar.gz"
  [ -f "$orig" ] || skip "Debian's $codename has no FFTW $fftw_version source ($(ls "$apt_tmp/dl"))"
  rm -rf "$src"
  tar -C "$work" -xzf "$orig" || { echo "could not unpack $orig"; exit 1; }
  rm -rf "$apt_tmp"
  trap - EXIT
fi

# --- mpi-bench, relinked on volfft's library, per precision ------------------------------------
# FFTW's configure (--enable-mpi: FFTW's mpi/ directory, where mpi-bench lives; --enable-shared;
# --enable-float for single precision) gives the config.h that mpi-bench's sources and libbench2
# compile against; FFTW's make builds those objects. Each precision has its own build folder.
# Sets $bench; $1: double or float.
build_bench() {
  # x: the API's prefix (fftw_, fftwf_); l: the library's name (libfftw3, libfftw3f)
  local prec="$1" x=fftw l=fftw3 conf=() pkg=libfftw3-double3
  [ "$prec" = float ] && x=fftwf l=fftw3f conf=(--enable-float) pkg=libfftw3-single3
  local fbuild="$work/build-$prec"
  if [ ! -f "$fbuild/config.h" ]; then
    rm -rf "$fbuild" && mkdir -p "$fbuild"
    echo "configuring FFTW $fftw_version for $prec (--enable-mpi --enable-shared ${conf[*]})"
    (cd "$fbuild" && "$src/configure" --enable-mpi --enable-shared --disable-fortran "${conf[@]}" MPICC=mpicc) \
      >"$work/configure-$prec.log" 2>&1 || { echo "FFTW's configure failed; see $work/configure-$prec.log"; exit 1; }
  fi
  local objs=(mpi/mpi_bench-mpi-bench.o mpi/mpi_bench-fftw-bench.o mpi/mpi_bench-hook.o)
  (cd "$fbuild" && make -C libbench2 libbench2.a && make -C mpi "${objs[@]#mpi/}") >"$work/make-$prec.log" 2>&1 ||
    { echo "building mpi-bench's objects failed; see $work/make-$prec.log"; exit 1; }
  objs=("${objs[@]/#/$fbuild/}")

  # FFTW's serial library, shared (never static: an fftw_execute inside the executable would win
  # over volfft's, and volfft's library would then rightly refuse every plan). Debian's libfftw3
  # is built from this very source package (3.3.10-1); hook.c uses FFTW internals (the planner's
  # hook), so the library must be this version. Without it, FFTW's own libraries are built here.
  local sys_lib=/usr/lib/x86_64-linux-gnu fftw_libs
  if [ -z "${FFTW_HARNESS_OWN_FFTW:-}" ] && [ -e "$sys_lib/lib$l.so.3" ] && dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null | grep -q "^$fftw_version-"; then
    fftw_libs=("$sys_lib/lib$l.so.3")
    [ -e "$sys_lib/lib${l}_mpi.so.3" ] && fftw_libs=("$sys_lib/lib${l}_mpi.so.3" "${fftw_libs[@]}")
    fftw_from="Debian's lib$l $(dpkg-query -W -f '${Version}' "$pkg")"
  else
    if [ ! -e "$fbuild/.libs/lib$l.so" ] || [ ! -e "$fbuild/mpi/.libs/lib${l}_mpi.so" ]; then
      echo "building FFTW $fftw_version's shared $prec libraries (no system lib$l $fftw_version; takes minutes)"
      (cd "$fbuild" && make -j"$(nproc)") >>"$work/make-$prec.log" 2>&1 ||
        { echo "building FFTW failed; see $work/make-$prec.log"; exit 1; }
    fi
    fftw_libs=("$fbuild/mpi/.libs/lib${l}_mpi.so" "$fbuild/.libs/lib$l.so")
    fftw_from="FFTW $fftw_version built in $fbuild"
  fi
  # volfft's library first on the link line, so that it is the first NEEDED entry and its
  # fftw_mpi_* and fftw_execute/destroy_plan/... win over FFTW's; FFTW's libfftw3_mpi stays on the
  # line, as in a relinked FFTW-MPI program (-lvolfft_fftw3_mpi -lfftw3_mpi -lfftw3).
  # --no-as-needed: keep the order even where the toolchain defaults to --as-needed.
  bench="$work/mpi-bench-volfft-$prec"
  # The run path names every library's folder: FFTW's own, when built here, must not be swapped
  # for the system's at run time.
  local rpath="$build" f
  for f in "${fftw_libs[@]}"; do rpath="$rpath:$(dirname "$f")"; done
  mpicc -o "$bench" "${objs[@]}" -Wl,--no-as-needed -L"$build" -Wl,-rpath,"$rpath" \
    -lvolfft_fftw3_mpi "${fftw_libs[@]}" "$fbuild/libbench2/libbench2.a" -lm >>"$work/make-$prec.log" 2>&1 ||
    { echo "linking mpi-bench on volfft_fftw3_mpi failed; see $work/make-$prec.log"; exit 1; }
  local first_needed
  first_needed="$(readelf -d "$bench" | awk '/NEEDED/ {print $NF; exit}')"
  case "$first_needed" in
    "[libvolfft_fftw3_mpi.so"*) ;;
    *) echo "FAILED: mpi-bench's first NEEDED library is $first_needed, not volfft_fftw3_mpi"; exit 1 ;;
  esac
  # Every fftw_mpi_* mpi-bench calls must be volfft's: one volfft lacked would quietly be FFTW's.
  local missing
  missing="$(comm -23 <(nm -u "${objs[@]}" | awk '{print $NF}' | grep "^${x}_mpi_" | sort -u) \
                      <(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u))"
  [ -z "$missing" ] || { echo "FAILED: volfft_fftw3_mpi does not define $missing (FFTW's would run)"; exit 1; }
}

# --- the problems -----------------------------------------------------------------------------
results="$work/results.tsv"
rm -rf "$work/logs" "$work/sanity.tsv" "$results"
: >"$results"
nps="${FFTW_HARNESS_NP:-3}"
precisions="${FFTW_HARNESS_PRECISION:-double}"
count="${FFTW_HARNESS_COUNT:-3}"
maxsize="${FFTW_HARNESS_MAXSIZE:-10000}"
seed="${FFTW_HARNESS_SEED:-$(date +%s)}"

# Fixed problems (libbench2's syntax: i/o in or out of place, f/b forward/backward, c complex,
# r real (r2c forward, c2r backward), k r2r with a kind per dimension (e00..e11 REDFT, o00..o11
# RODFT, h DHT, b HC2R), vN howmany interleaved, ] FFTW_MPI_TRANSPOSED_OUT, [ TRANSPOSED_IN (for
# rank >= 2; for 1-D they become SCRAMBLED), d destroy input; "ok1v8:1:6x6:8:1x1:1:1" is an
# 8x6 transpose; "[]" both flags; n0 = 2 leaves ranks empty from np 3). Expected to pass: 2-D, 3-D,
# and dft/r2r of more dimensions. Expected refused: 1-D, r2c/c2r of 4-D, DHT/HC2R, scrambled.
# (Not here: 1-D r2c/r2r, split arrays and "*" strided howmany, which mpi-bench itself does not
# plan; check.pl leaves them out in --mpi mode for the same reason.)
fixed=(
  ocf12x8 icb8x6 ocb9x7 icf6x10x4 ocb5x7x6 ocf6x5x4v3 icf12x8v2
  "ocf]12x8" "icb[8x6" "ocf]6x9x10" "icb[6x9x10" "ocf]4x6x5v3"
  orf8x8 irf10x6 obr8x8 ibr9x6x4 orf6x7x8v2 "orf]8x6x5" "obr[8x6x5" "obrd[6x9x10" irf6x8v2
  ok8e00x8o10 ik6e10x8o01 ok6e11x5o11x4e01 "ok]8o00x6e10" "ik[6o01x8e00v2"
  ok1v8:1:6x6:8:1x1:1:1 ik1v8:1:6x6:8:1x1:1:1 ok1v7:3:15x5:21:3x3:1:1
  "ocf[]8x6x5" "ik[]6e10x5o01" "ok[]1v6:2:10x5:12:2x2:1:1" "ik]1v7:3:15x5:21:3x3:1:1"
  obr2x9x4v2 "icf[2x9x3"
  ocf64 "ocf]64" ocf4x4x4x4 "icb[5x4x3x2" "ok]4e10x5o01x3e11x2" ocf3x2x4x2x3v2 orf6x4x4x4 ok8hx6e00 ok8bx6e10
)
for prec in $precisions; do
  case "$prec" in double|float) ;; *) echo "FFTW_HARNESS_PRECISION: double and/or float, not $prec"; exit 2 ;; esac
  build_bench "$prec"
  export FFTW_HARNESS_PREC="$prec"  # for --run-one, also when check.pl runs it
  echo "FFTW $fftw_version's check.pl and mpi-bench ($prec) on $lib"
  echo "  serial FFTW: $fftw_from; launcher: $mpirun_sh; np: $nps"
  echo "  check.pl --random -c=$count --maxsize=$maxsize, seed $seed (+np); $(uptime)"
  # A problem volfft plans on every process count: if it does not pass, the relink is wrong and
  # nothing below would mean anything.
  if ! "$self" --run-one "$work/sanity.tsv" 2 "$bench" --verify ocf12x8 >/dev/null; then
    echo "FAILED: the sanity problem ocf12x8 ($prec) at np 2 does not pass: $(cut -f5 "$work/sanity.tsv" | tail -1)"
    exit 1
  fi
  for np in $nps; do
    for p in "${fixed[@]}"; do
      "$self" --run-one "$results" "$np" "$bench" --verify "$p"
    done
    # FFTW's random problems, one per mpi-bench run (--flushcount=-1), every one run (-k).
    perl -we 'srand(shift @ARGV); do shift @ARGV; die $@ if $@' "$((seed + np))" "$src/tests/check.pl" \
      --random -c="$count" --maxsize="$maxsize" --flushcount=-1 -k \
      --mpi "$self --run-one $results $np $bench"
  done
done

# --- counts -----------------------------------------------------------------------------------
echo
echo "problems by class (logs: $work/logs, all results: $results)"
for prec in $precisions; do
  for np in $nps; do
    printf '  %-6s np %-2s  passed %4d  refused %4d  FAILED %4d\n' "$prec" "$np" \
      "$(awk -F'\t' -v p="$prec" -v n="$np" '$1=="passed" && $2==p && $3==n' "$results" | wc -l)" \
      "$(awk -F'\t' -v p="$prec" -v n="$np" '$1=="refused" && $2==p && $3==n' "$results" | wc -l)" \
      "$(awk -F'\t' -v p="$prec" -v n="$np" '$1=="FAILED" && $2==p && $3==n' "$results" | wc -l)"
  done
done
total="$(wc -l <"$results")"
passed="$(grep -c '^passed' "$results")"
refused="$(grep -c '^refused' "$results")"
failed="$(grep -c '^FAILED' "$results")"
echo "  total   $total problems: passed $passed, refused as unsupported $refused, FAILED $failed"
echo "refused, by reason:"
awk -F'\t' '$1=="refused" {print $5}' "$results" | sed -E 's/; got [0-9]+$//; s/r2r kind [0-9]+/r2r kind K/' |
  sort | uniq -c | sed 's/^/  /'
if [ "$failed" -gt 0 ]; then
  echo "FAILED problems (precision, np, problem, reason):"
  awk -F'\t' '$1=="FAILED" {printf "  %s np %s  %s  %s\n", $2, $3, $4, $5}' "$results"
  exit 1
fi
exit 0
