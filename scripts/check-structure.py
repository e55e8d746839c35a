#!/usr/bin/env python3
"""Structural rules the code keeps (docs/architecture.md), checked so they cannot drift:

1. no import circles between the modules of any folder, in every crate (core/src,
   std-adapters/src, python/src) and the Python package (python/zinto): a module's uses of
   another (`crate::a::b`, `super::x`, `self::x` paths, tests excepted; Python's `import` and
   `from ... import`) make an edge between the two siblings below their nearest common folder
   (`metadata/v3.rs` using `metadata/codecs.rs` is `v3 -> codecs` in `metadata/`), and no
   folder's edges may form a circle. A use of what a folder's `mod.rs` (or `__init__.py`)
   re-exports counts as a use of the folder. `src/bin` is excluded (the binary is a crate of
   its own, which calls `cli::run`);
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


def rust_modules(src):
    """Every module of a crate, as its path from the crate root (`['metadata', 'v3']`; a
    folder's `mod.rs` is the folder), with its file."""
    out = {}
    for path in rust_files(src):
        rel = os.path.relpath(path, src)[:-3].split(os.sep)
        if rel[0] == "bin":
            continue
        if rel[-1] in ("mod", "lib"):
            rel = rel[:-1]
        out[tuple(rel)] = path
    return out


def rust_uses(text, module):
    """The module paths `text` (of `module`) names: `crate::a::b`, `super::x`, `self::x`,
    with one level of braces (`super::{a, b}`) spread."""
    text = re.sub(r"//.*", "", text)
    found = []
    for m in re.finditer(r"\b(crate|super|self)((?:::[A-Za-z_]\w*)+)(::\{([^{}]*)\})?", text):
        head, rest, group = m.group(1), m.group(2), m.group(4)
        base = {"crate": [], "super": list(module[:-1]), "self": list(module)}[head]
        parts = base + rest.strip(":").split("::")
        found.append(parts)
        for item in (group or "").split(","):
            item = item.strip().split(" as ")[0].split("::")
            if item and item[0] and item[0] != "self":
                found.append(parts + item)
    for m in re.finditer(r"\b(super|self)::\{([^{}]*)\}", text):
        base = list(module[:-1]) if m.group(1) == "super" else list(module)
        for item in m.group(2).split(","):
            item = item.strip().split(" as ")[0].split("::")
            if item and item[0] and item[0] != "self":
                found.append(base + item)
    return found


def edges_between_siblings(modules, uses_of):
    """`{folder: {a: {b, ...}}}`: module `a` below `folder` uses module `b` below it."""
    graph = {}
    for module in modules:
        for parts in uses_of(module):
            # The longest prefix that is a module: an item's path names its module.
            target = next((tuple(parts[:k]) for k in range(len(parts), -1, -1)
                           if tuple(parts[:k]) in modules), None)
            if target is None:
                continue
            common = 0
            while (common < min(len(module), len(target))
                   and module[common] == target[common]):
                common += 1
            if common < len(module) and common < len(target):
                folder = module[:common]
                graph.setdefault(folder, {}).setdefault(module[common], set()).add(target[common])
    return graph


def rust_graph(src):
    modules = rust_modules(src)

    def uses_of(module):
        text = "\n".join(without_tests(open(modules[module]).read().split("\n")))
        return rust_uses(text, module)

    return edges_between_siblings(modules, uses_of)


def python_graph(package):
    """The sibling edges of a Python package's modules (see `edges_between_siblings`)."""
    root = os.path.dirname(package)
    modules = {}
    for dirpath, _, names in os.walk(package):
        for name in sorted(names):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, name), root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                modules[tuple(rel)] = os.path.join(dirpath, name)

    def uses_of(module):
        is_package = modules[module].endswith("__init__.py")
        here = list(module) if is_package else list(module[:-1])
        found = []
        for line in open(modules[module]).read().split("\n"):
            m = re.match(r"\s*from (\.*)([\w.]*) import (.+)", line)
            if m:
                dots, name, items = m.groups()
                base = here[:len(here) - max(len(dots) - 1, 0)] if dots else []
                base = base + (name.split(".") if name else [])
                for item in items.strip("()").split(","):
                    item = item.strip().split(" as ")[0]
                    if item:
                        found.append(base + [item])
                continue
            m = re.match(r"\s*import ([\w.]+)", line)
            if m:
                found.append(m.group(1).split("."))
        return found

    return edges_between_siblings(modules, uses_of)


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
    graphs = [(d + "/src", rust_graph(os.path.join(ROOT, d, "src")))
              for d in ("core", "std-adapters", "python")]
    # The package's module paths begin with its name (`zinto`, as absolute imports name it).
    graphs.append(("python", python_graph(os.path.join(ROOT, "python", "zinto"))))
    for name, graph in graphs:
        for folder, edges in sorted(graph.items()):
            for cycle in cycles(edges):
                where = "/".join((name,) + folder)
                problems.append(f"import circle in {where}: " + " -> ".join(cycle))
    roots = [os.path.join(ROOT, d, "src") for d in ("core", "std-adapters", "python")]
    for f in long_functions(roots):
        problems.append(f"function over {MAX_LINES} lines: {f}")
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("no new import circle in any folder of core, std-adapters, python/src and "
          f"python/zinto; no library function over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
