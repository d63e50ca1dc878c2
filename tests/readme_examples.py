"""The README shows the examples that the tests compile and run, verbatim, and its Python
snippet runs (one rank)."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
missing = [p for p in ("examples/cpp_example.cpp", "examples/c_example.c") if (root / p).read_text() not in readme]
if missing:
    print("README.md does not show these files verbatim:", ", ".join(missing))
    sys.exit(1)
snippet = re.search(r"```python\n(.*?)```", readme, re.S)
if snippet is None:
    print("README.md has no Python example")
    sys.exit(1)
# run_job: a job past its time is stopped whole; subprocess.run would kill the interpreter alone
# and could then wait for ever on the pipes that what it started still holds.
sys.path.insert(0, str(root / "python"))  # volfft._launch, installed or not (standard library only)
from volfft._launch import run_job  # noqa: E402

run = run_job([sys.executable, "-c", snippet.group(1)], timeout=300)
if run.returncode != 0:
    print("README's Python example failed:\n" + run.stdout + run.stderr)
    sys.exit(1)
print("README examples match examples/, and the Python example runs")

# Every command the docs show runs as shown on a fresh machine, root or not, with more ranks than
# cores: launches go through scripts/mpirun.sh, not a bare mpirun (docs/cluster.md's mpirun
# lines are the emulated cluster's own, shown as what `tools.vcluster mpirun` runs).
bare = []
for doc in [root / "README.md", *sorted((root / "docs").glob("**/*.md")), *sorted((root / "docs").glob("**/*.py"))]:
    if doc.name == "cluster.md":
        continue
    for number, line in enumerate(doc.read_text().splitlines(), 1):
        if re.match(r"\s*(\$ )?(mpirun|mpiexec) ", line):
            bare.append(f"{doc.relative_to(root)}:{number}: {line.strip()}")
if bare:
    print("commands that use a bare mpirun (use scripts/mpirun.sh):\n" + "\n".join(bare))
    sys.exit(1)
print("docs launch MPI jobs through scripts/mpirun.sh")
