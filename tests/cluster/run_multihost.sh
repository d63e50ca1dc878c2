#!/usr/bin/env bash
# Run MPI test executables across an emulated 4-host cluster (network namespaces on a bridge,
# shaped links, TCP between hosts), one after the other, each with a timeout.
#
#   tests/cluster/run_multihost.sh [options] TEST [TEST ...]
#
# Each TEST is one argument: an executable path, optionally followed by its arguments inside
# the same (quoted) argument, e.g.  "build/tests/mpi/test_c2c --engine alltoallw".
# Options: --hosts N (4)  -k RANKS_PER_HOST (1)  --rate RATE (1gbit)  --timeout SECONDS (120)
#          --mpi openmpi|mpich (openmpi)  --topology "switch" | "torus2d 2x2" ...  (switch)
#
# Exit status: 0 when every test passed, or when the machine cannot make network namespaces
# (then it prints "SKIPPED: <reason>"); 1 when a test failed or timed out; 2 on bad usage.
# The cluster is always destroyed (also on Ctrl-C), and the script checks that nothing of it
# is left (namespaces, links, qdiscs live in the namespaces and go with them).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The emulated cluster is the package tools/vcluster of this repository.
vcluster=(env "PYTHONPATH=$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m tools.vcluster)

hosts=4 k=1 rate=1gbit timeout=120 mpi=openmpi topology=switch
tests=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    -k) k="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --mpi) mpi="$2"; shift 2 ;;
    --topology) topology="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    --) shift; tests+=("$@"); break ;;
    -*) echo "run_multihost.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) tests+=("$1"); shift ;;
  esac
done
if [ ${#tests[@]} -eq 0 ]; then
  echo "run_multihost.sh: give at least one test executable (see --help)" >&2
  exit 2
fi

skip() { echo "SKIPPED: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "multi-host tests need root for network namespaces (running as uid $(id -u))"
command -v ip >/dev/null && command -v tc >/dev/null || skip "iproute2 (ip, tc) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
probe_ns="vc-chk$$"
# Root in a container may still lack CAP_SYS_ADMIN/CAP_NET_ADMIN: try once.
if ! ip netns add "$probe_ns" 2>/dev/null; then
  skip "cannot create network namespaces here (ip netns add failed)"
fi
ip netns del "$probe_ns"
if [ "$mpi" = openmpi ]; then
  command -v mpirun >/dev/null || skip "Open MPI's mpirun is not installed"
fi

for t in "${tests[@]}"; do
  read -ra words <<< "$t"
  if [ ! -x "${words[0]}" ]; then
    echo "run_multihost.sh: not an executable: ${words[0]}" >&2
    exit 2
  fi
done

name="mh$(( $$ % 10000 ))"
cleanup() {
  "${vcluster[@]}" destroy "$name" >/dev/null 2>&1
  if "${vcluster[@]}" list 2>/dev/null | grep -q "^$name "; then
    echo "run_multihost.sh: cluster $name was not removed completely" >&2
  fi
}
child=""
on_signal() {
  # bash runs traps only between commands, so the job runs in the background (see below)
  # and is stopped here; tools.vcluster then stops the MPI processes in the namespaces.
  echo "run_multihost.sh: interrupted" >&2
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM HUP

read -ra topo_words <<< "$topology"
topo_args=(--topology "${topo_words[@]}")
[ "${topo_words[0]}" = switch ] || [ "${topo_words[0]}" = ring ] || [ "${topo_words[0]}" = line ] \
  && topo_args+=(--hosts "$hosts")
if ! "${vcluster[@]}" create "$name" "${topo_args[@]}" --rate "$rate"; then
  echo "FAIL: could not create the cluster" >&2
  exit 1
fi

passed=0 failed=0 failures=()
for t in "${tests[@]}"; do
  read -ra words <<< "$t"
  echo "=== ${words[*]}  ($mpi, $k rank(s)/host, $topology, $rate)"
  start=$SECONDS
  "${vcluster[@]}" mpirun "$name" -k "$k" --mpi "$mpi" --timeout "$timeout" -- "${words[@]}" &
  child=$!
  wait "$child"
  rc=$?
  child=""
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); echo "--- PASS ${words[0]##*/} ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("${words[0]##*/} (exit $rc$([ $rc -eq 124 ] && echo ', timeout'))")
    echo "--- FAIL ${words[0]##*/} (exit $rc, $((SECONDS - start)) s)"
  fi
done

cleanup
trap - EXIT
left="$("${vcluster[@]}" list 2>/dev/null | grep "^$name " || true)"
leftover_ns="$(ip netns list | grep -c "^vc-$name-" || true)"
leftover_links="$(ip -o link show | grep -c "vc-$name-" || true)"
echo "multi-host: $passed passed, $failed failed; cluster removed: $([ -z "$left" ] && [ "$leftover_ns" = 0 ] && [ "$leftover_links" = 0 ] && echo yes || echo NO)"
for f in "${failures[@]+"${failures[@]}"}"; do echo "  failed: $f"; done
if [ -n "$left" ] || [ "$leftover_ns" != 0 ] || [ "$leftover_links" != 0 ]; then
  exit 1
fi
[ $failed -eq 0 ]
