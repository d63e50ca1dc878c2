"""The ``volfft`` console command: one entry point, one module per subcommand."""
from __future__ import annotations

import importlib
import sys

# subcommand -> module with ``main(argv: list[str]) -> int``. Modules are imported only when their
# subcommand runs, so ``volfft map`` never needs MPI.
SUBCOMMANDS = {
    "bench": ("volfft.bench_cli", "run volfft-bench under mpirun and print/plot its phase table"),
    "map": ("volfft.mapping.cli", "build placements and write map files for launchers"),
    "model": ("volfft.model.cli", "predict exchange times, rank placements, calibrate"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: volfft {" + ",".join(SUBCOMMANDS) + "} [options]\n")
        for name, (_, text) in SUBCOMMANDS.items():
            print(f"  {name:<7} {text}")
        return 0
    name = argv[0]
    if name not in SUBCOMMANDS:
        print(f"volfft: unknown subcommand {name!r}; expected one of {', '.join(SUBCOMMANDS)}",
              file=sys.stderr)
        return 2
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
