#!/usr/bin/env python3
"""Structural rules the code keeps (docs/architecture.md), checked so they cannot drift:

1. no import circles between the std crate's top-level modules (`crate::X` paths outside
   tests, `src/bin` excluded: the binary is a crate of its own, which calls `cli::run`);
2. no library function longer than 80 lines (from its `fn` line to its closing brace) in
   core/src, std-adapters/src and python/src, tests excepted.

Exits 1 naming every breach. No dependencies beyond Python 3.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 80


def rust_files(root):
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(".rs"):
                yield os.path.join(dirpath, name)


def without_tests(lines):
    """The lines before a `#[cfg(test)]` test module (attributes may sit between the two)."""
    for i, line in enumerate(lines):
        if re.match(r"\s*#\[cfg\(test\)\]", line):
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith("#["):
                j += 1
            if j < len(lines) and re.match(r"\s*mod \w+\s*\{", lines[j]):
                return lines[:i]
    return lines


def import_graph(src):
    graph = {}
    for path in rust_files(src):
        rel = os.path.relpath(path, src)[:-3].split(os.sep)
        if rel[0] == "bin" or rel == ["lib"]:
            continue
        module = rel[0]
        text = "\n".join(without_tests(open(path).read().split("\n")))
        text = re.sub(r"//.*", "", text)
        for target in re.findall(r"crate::([a-z_]\w*)", text):
            if target != module:
                graph.setdefault(module, set()).add(target)
    return graph


def cycles(graph):
    """Every module that lies on a cycle, with one cycle through it."""
    found = []
    seen_cycles = set()

    def walk(node, path, on_path):
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_path:
                cycle = path[path.index(nxt):]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    found.append(cycle + [nxt])
            elif len(path) < 12:
                walk(nxt, path + [nxt], on_path | {nxt})

    for start in sorted(graph):
        walk(start, [start], {start})
    return found


def long_functions(roots):
    out = []
    for root in roots:
        for path in rust_files(root):
            lines = without_tests(open(path).read().split("\n"))
            i = 0
            while i < len(lines):
                m = re.match(r"^(\s*)(pub(\([^)]*\))? )?(const )?(async )?(unsafe )?fn (\w+)", lines[i])
                if not m:
                    i += 1
                    continue
                indent, name = m.group(1), m.group(7)
                j = i
                while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
                    j += 1
                if j == len(lines) or lines[j].rstrip().endswith(";"):
                    i = j + 1
                    continue
                k = j + 1
                while k < len(lines) and lines[k] != indent + "}":
                    k += 1
                if k - i + 1 > MAX_LINES:
                    out.append(f"{os.path.relpath(path, ROOT)}:{i + 1} {name}: {k - i + 1} lines")
                i = j + 1
    return out


def main():
    problems = []
    for cycle in cycles(import_graph(os.path.join(ROOT, "std-adapters", "src"))):
        problems.append("import circle in std-adapters/src: " + " -> ".join(cycle))
    roots = [os.path.join(ROOT, d, "src") for d in ("core", "std-adapters", "python")]
    for f in long_functions(roots):
        problems.append(f"function over {MAX_LINES} lines: {f}")
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"no import circles in std-adapters/src; no library function over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
