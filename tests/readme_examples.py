"""The README shows the examples that the tests compile and run: verbatim, or this fails."""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
missing = [p for p in ("examples/cpp_example.cpp", "examples/c_example.c") if (root / p).read_text() not in readme]
if missing:
    print("README.md does not show these files verbatim:", ", ".join(missing))
    sys.exit(1)
print("README examples match examples/")
