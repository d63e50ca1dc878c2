"""Node-name lists: Slurm-style compressed host lists (``nid[0001-0004,0007],login1``)."""
from __future__ import annotations

import itertools
import os
import re

_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def _split_top_level(text: str) -> list[str]:
    # Commas inside brackets separate ranges, not host names.
    parts, depth, current = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"hosts: unbalanced ']' in {text!r}")
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if depth != 0:
        raise ValueError(f"hosts: unbalanced '[' in {text!r}")
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _expand_range(body: str, whole: str) -> list[str]:
    out = []
    for item in body.split(","):
        item = item.strip()
        if re.fullmatch(r"\d+", item):
            out.append(item)
        elif m := re.fullmatch(r"(\d+)-(\d+)", item):
            lo, hi = m.group(1), m.group(2)
            if int(hi) < int(lo):
                raise ValueError(f"hosts: range {item!r} in {whole!r} runs backwards")
            width = len(lo)  # zero padding follows the lower bound, as Slurm does
            out.extend(str(v).zfill(width) for v in range(int(lo), int(hi) + 1))
        else:
            raise ValueError(f"hosts: expected numbers or ranges like 01-16 inside [...], got "
                             f"{item!r} in {whole!r}")
    return out


def expand_hostlist(text: str) -> list[str]:
    """Expand a Slurm-style host list into node names, in order.

    Parameters
    ----------
    text : str
        Comma-separated names, each possibly with bracketed numeric ranges, e.g.
        ``"nid[001-003,007]"`` -> nid001, nid002, nid003, nid007. Several brackets in one name
        expand as a product, the last bracket fastest.

    Returns
    -------
    list of str
    """
    names: list[str] = []
    for part in _split_top_level(text):
        pieces = _BRACKET.split(part)  # literal, range, literal, range, ..., literal
        choices = [[pieces[i]] if i % 2 == 0 else _expand_range(pieces[i], part)
                   for i in range(len(pieces))]
        names.extend("".join(combo) for combo in itertools.product(*choices))
    return names


def read_hosts(spec: str) -> list[str]:
    """Node names from a file (one per line, ``#`` comments) or from a host-list string."""
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8") as handle:
            lines = [ln.split("#", 1)[0].strip() for ln in handle]
        names: list[str] = []
        for line in lines:
            if line:
                names.extend(expand_hostlist(line))
        return names
    return expand_hostlist(spec)
