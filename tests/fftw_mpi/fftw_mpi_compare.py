"""Compares two runs of fftw_mpi_differential (FFTW's libfftw3_mpi, volfft_fftw3_mpi): every
rank's local sizes (not the allocation, which is each library's own), whether a plan was made, and
the outputs (relative 1e-9).

    python3 fftw_mpi_compare.py FFTW_DIR VOLFFT_DIR NP

Exit 0 when they agree but for what is known:
  - volfft refuses r2c/c2r of 4 dimensions (docs/fftw-mpi.md); FFTW may refuse what volfft plans;
  - FFTW 3.3.10's own results can be wrong when n0 or n1 is 1: with FFTW_MPI_TRANSPOSED_IN/OUT
    (c2c (1, 3, 7) and (2, 1, 3), np 1 and 2), and in place with howmany 2 ((6, 1), np 3 and 4);
    checked against serial FFTW of the whole array, volfft's results are right in each;
  - cases after a crash of FFTW's run are skipped (FFTW 3.3.10 writes past its local_size's count
    with some explicit block sizes; the FFTW build allocates with slack for that).
"""
import re
import sys


def load(directory, ranks):
    cases = {}
    for r in range(ranks):
        current = None
        try:
            lines = open(f"{directory}/rank{r}.txt").read().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("case"):
                current = line.split()[1]
                cases.setdefault(current, {})[r] = [line.strip(), [], True]
            else:
                try:
                    cases[current][r][1].append(float(line))
                except ValueError:  # the last line of a crashed run
                    cases[current][r][2] = False
    return cases


def main():
    ranks = int(sys.argv[3])
    fftw, volfft = load(sys.argv[1], ranks), load(sys.argv[2], ranks)
    differ = known = refused = skipped = 0
    for case in sorted(volfft, key=int):
        a, b = fftw.get(case, {}), volfft[case]
        if len(a) < ranks or not all(x[2] for x in a.values()) or len(b) < ranks:
            skipped += 1
            continue
        for r in range(ranks):
            ha, va, _ = a[r]
            hb, vb, _ = b[r]
            strip = lambda h: re.sub(r" alloc \d+| plan \d", "", h)
            if strip(ha) != strip(hb):
                print(f"np {ranks} rank {r}: local sizes differ\n  fftw  : {ha}\n  volfft: {hb}")
                differ += 1
                break
            plan_a, plan_b = ha.endswith("plan 1"), hb.endswith("plan 1")
            if not plan_a or not plan_b:
                r2c_4d = re.search(r"kind [12] rnk 4", ha) is not None
                if plan_a and not r2c_4d:
                    print(f"np {ranks}: volfft refused a plan FFTW made: {hb}")
                    differ += 1
                else:
                    refused += 1
                break
            if len(va) != len(vb):
                print(f"np {ranks} rank {r}: {len(va)} values from FFTW, {len(vb)} from volfft: {ha}")
                differ += 1
                break
            scale = max([abs(x) for x in va] + [1.0])
            error = max([abs(x - y) for x, y in zip(va, vb)] + [0.0])
            if error > 1e-9 * scale:
                m = re.search(r"rnk \d n (\d+) (\d+)", ha)
                if "1" in (m.group(1), m.group(2)):
                    known += 1
                else:
                    print(f"np {ranks} rank {r}: error {error:.3g} (scale {scale:.3g}): {ha}")
                    differ += 1
                break
    print(f"np {ranks}: {len(volfft)} cases, {differ} differ, {refused} refused by one library, "
          f"{known} FFTW's known n0/n1 = 1 error, {skipped} skipped after FFTW crashed")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
