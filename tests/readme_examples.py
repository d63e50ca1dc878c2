"""The README shows the examples that the tests compile and run, verbatim, and its Python
snippet runs (one rank)."""
import pathlib
import re
import subprocess
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
run = subprocess.run([sys.executable, "-c", snippet.group(1)], capture_output=True, text=True, timeout=300)
if run.returncode != 0:
    print("README's Python example failed:\n" + run.stdout + run.stderr)
    sys.exit(1)
print("README examples match examples/, and the Python example runs")
