#!/usr/bin/env python3
"""Runs a build tree's ctest suite in tiers, starting no new chunk after a deadline.

    scripts/ctest-tiers.py BUILD_DIR [--start-by EPOCH_SECONDS] [--chunk N]

Tier 0 is the tests labelled "smoke" (the MPI-free unit tests; transforms, errors and the C and
FFTW-MPI interfaces at 2 ranks): they always run, deadline or not. Tier 1 is every
other test without one of the labels in EXTENDED_LABELS (the transforms, engines, errors,
C/C++/Fortran/Python APIs at every process count, the examples); tier 2 is the rest (forced
large-array paths, FFTW's own harness, the emulated cluster, installing). Within a tier
the tests run by the ranks they declare (ctest's PROCESSORS), fewest first, and in registration
order among equals: every program at 1-2 ranks before any at 3-4, and those before 5-7, so that
a run cut short has covered every test program. A few tests go to a ctest call, a test with a
timeout of 10 minutes or more alone; before each call the deadline is checked, and once it has
passed the tests not yet run are named as left out, not failed. Without --start-by every test
runs.

Why: scripts/test.sh is the CI's command, and the CI machine is a shared 2-core VM whose speed
varies severalfold between runs (this suite's predecessor ran, build and all, in 19 minutes; the
next two runs, of a suite not much larger, did not finish in 90). A deadline keeps the run
inside the CI's limit on a slow day and still runs everything on a normal one; what was left out
is printed, with how to run it.

Exit status: 0 when every test that ran passed, 1 otherwise (2: bad arguments or no tests).
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys
import time

EXTENDED_LABELS = {"forced", "fftw-suite", "cluster", "install"}
LONG_TIMEOUT_S = 600  # a test whose timeout is at least this runs in a ctest call of its own

Test = collections.namedtuple("Test", "name labels processors timeout")


def list_tests(build_dir):
    """Every registered test, in registration order (timeout in s, or None)."""
    out = subprocess.run(["ctest", "-N", "--show-only=json-v1"], cwd=build_dir, check=True,
                         capture_output=True, text=True).stdout
    tests = []
    for test in json.loads(out)["tests"]:
        props = {prop["name"]: prop["value"] for prop in test.get("properties", [])}
        tests.append(Test(test["name"], set(props.get("LABELS", [])),
                          int(props.get("PROCESSORS", 1)), props.get("TIMEOUT")))
    return tests


def tier_of(test):
    """0: smoke, 2: any label of EXTENDED_LABELS, 1: the rest."""
    if "smoke" in test.labels:
        return 0
    return 2 if test.labels & EXTENDED_LABELS else 1


def tiers(tests):
    """Three lists of tests: each tier by declared ranks, registration order among equals."""
    ordered = sorted(tests, key=lambda test: (tier_of(test), test.processors))  # stable
    return [[test for test in ordered if tier_of(test) == tier] for tier in range(3)]


def chunks(tests, size):
    """Consecutive groups of at most `size` names; a test with a long timeout alone."""
    group = []
    for test in tests:
        if test.timeout is not None and test.timeout >= LONG_TIMEOUT_S:
            if group:
                yield group
            yield [test.name]
            group = []
            continue
        group.append(test.name)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def failed_names(build_dir):
    """The tests the last ctest call recorded as failed (its LastTestsFailed.log)."""
    log = pathlib.Path(build_dir) / "Testing" / "Temporary" / "LastTestsFailed.log"
    if not log.exists():
        return []
    return [line.split(":", 1)[1].strip() for line in log.read_text().splitlines() if ":" in line]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--start-by", type=float, default=None,
                        help="time (seconds since the epoch) after which no chunk starts")
    parser.add_argument("--chunk", type=int, default=4, help="tests to a ctest call (default 4)")
    args = parser.parse_args()
    if args.chunk < 1:
        parser.error(f"--chunk: expected a positive number of tests, got {args.chunk}")

    tests = list_tests(args.build_dir)
    if not tests:
        print("ctest-tiers: no tests registered in " + args.build_dir, file=sys.stderr)
        return 2
    failed, left_out = [], []
    for tier_number, tier in enumerate(tiers(tests)):
        print(f"ctest-tiers: tier {tier_number}: {len(tier)} tests", flush=True)
        for chunk in chunks(tier, args.chunk):
            past_deadline = args.start_by is not None and time.time() >= args.start_by
            if tier_number > 0 and past_deadline:
                left_out += chunk
                continue
            regex = "^(" + "|".join(chunk) + ")$"
            rc = subprocess.run(["ctest", "--output-on-failure", "--timeout", "900", "-R", regex],
                                cwd=args.build_dir).returncode
            if rc != 0:
                chunk_failed = [n for n in failed_names(args.build_dir) if n in chunk]
                failed += chunk_failed or chunk  # no log: count the whole chunk as failed
    ran = len(tests) - len(left_out)
    print(f"ctest-tiers: {ran} of {len(tests)} tests ran, {len(failed)} failed", flush=True)
    if failed:
        print("ctest-tiers: failed: " + " ".join(failed))
    if left_out:
        print(f"ctest-tiers: {len(left_out)} tests left out because the run's deadline passed "
              "(a slow machine; not run, so neither passed nor failed): " + " ".join(left_out))
        print(f"ctest-tiers: run them with: cd {args.build_dir} && ctest -R '^("
              + "|".join(left_out) + ")$'")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
