#!/usr/bin/env python3
"""The docs check (issue 52): fails when the docs point at something that is not there.

- Every relative link in README.md and docs/*.md names a file that exists, and an anchor
  (`file.md#section`, `#section`) names a heading of that file, slugged as GitHub slugs it.
- Every figure the README quotes (a number in a table's cell, a ratio `1.62x` or a share
  `0.7%` in its prose) appears in docs/benchmarks.md, so the README cannot quote a number the
  benchmarks page does not hold.
- With `--run-cli BIN`: every `cargo run --release --bin zinto -- ...` line of the shell
  blocks of README.md and docs/cli.md runs with BIN in its place, in a fresh folder where
  `examples/` is the repository's, and must succeed.

`--self-test` first checks that each rule catches what it is for (a missing file, a missing
heading, a figure the benchmarks page lacks). Standard library only: CI runs it before any
venv exists.

    python3 scripts/check-docs.py [--run-cli target/debug/zinto] [--self-test]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FIGURE_IN_PROSE = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)(x|%)(?!\w)")
NUMERIC_CELL = re.compile(r"^\s*(\d[\d,]*(?:\.\d+)?)(x|%)?\s*$")
CLI_PREFIX = "cargo run --release --bin zinto -- "


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def without_code(text):
    """The text with fenced blocks and inline code blanked (links there are not links)."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", FENCE.sub("", text), re.M)}


def link_problems(page, text):
    problems = []
    for target in LINK.findall(without_code(text)):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            problems.append(f"{page.name}: link to {target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
            problems.append(f"{page.name}: link to {target}: no heading '{anchor}' in {dest.name}")
    return problems


def quoted_figures(readme):
    """The figures the README quotes: numeric table cells and ratios or shares in prose."""
    figures = set()
    for line in without_code(readme).splitlines():
        if line.lstrip().startswith("|"):
            for cell in line.strip().strip("|").split("|"):
                m = NUMERIC_CELL.match(cell)
                if m:
                    figures.add(m.group(1) + (m.group(2) or ""))
        else:
            figures.update(a + b for a, b in FIGURE_IN_PROSE.findall(line))
    return figures


def figure_problems(readme, benchmarks):
    problems = []
    for figure in sorted(quoted_figures(readme)):
        plain = re.escape(figure)
        spaced = re.escape(re.sub(r"(\d)(?=(\d{3})+(?!\d))", r"\1,", figure.replace(",", "")))
        found = any(re.search(rf"(?<![\w.,]){f}(?![\w])", benchmarks) for f in {plain, spaced})
        if not found:
            problems.append(f"README.md quotes {figure}, which docs/benchmarks.md does not hold")
    return problems


def cli_lines(text):
    """The arguments of each `cargo run ... zinto -- ARGS  # comment` line of the shell blocks."""
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            if line.startswith(CLI_PREFIX):
                yield line[len(CLI_PREFIX):].split(" # ")[0].strip()


def run_cli(binary):
    problems = []
    with tempfile.TemporaryDirectory(prefix="zinto-docs-") as tmp:
        (Path(tmp) / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
        (Path(tmp) / "target").mkdir()
        for page in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
            for args in cli_lines(page.read_text()):
                done = subprocess.run(["bash", "-c", f'"{binary}" {args}'], cwd=tmp,
                                      capture_output=True, text=True)
                print(f"{page.name}: zinto {args} -> exit {done.returncode}")
                if done.returncode != 0:
                    problems.append(f"{page.name}: `zinto {args}` failed: {done.stderr.strip()[-500:]}")
    return problems


def self_test():
    """Each rule fails on what it exists to catch."""
    page = ROOT / "README.md"
    assert link_problems(page, "[a](docs/no-such-page.md)"), "a missing file passed"
    assert link_problems(page, "[a](docs/benchmarks.md#no-such-heading)"), "a missing heading passed"
    assert not link_problems(page, "[a](docs/benchmarks.md)"), "an existing file failed"
    assert not link_problems(page, "`[a](nothing.md)`"), "a link inside code was checked"
    assert slug("Small random reads (issue 50)") == "small-random-reads-issue-50"
    assert slug("Against zarr-python 3.4.2 and its `two` pipelines") == \
        "against-zarr-python-342-and-its-two-pipelines"
    readme = "| zinto | 1800 | 0.7% |\nIt reads 3.07x as fast, at 2% extra; zarr 3.4.2 `9.9x`."
    assert quoted_figures(readme) == {"1800", "0.7%", "3.07x", "2%"}, quoted_figures(readme)
    assert figure_problems(readme, "1,800 MB/s 0.7% 3.07x 2%") == []
    assert figure_problems(readme, "1800 0.7% 13.07x 2%") == [
        "README.md quotes 3.07x, which docs/benchmarks.md does not hold"]
    print("check-docs self-test: each rule catches what it is for")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run-cli", type=Path, help="a zinto binary to run the shell examples with")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        self_test()
    problems = []
    for page in pages():
        problems += link_problems(page, page.read_text())
    problems += figure_problems((ROOT / "README.md").read_text(),
                                (ROOT / "docs" / "benchmarks.md").read_text())
    if args.run_cli:
        problems += run_cli(os.path.abspath(args.run_cli))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit(f"check-docs: {len(problems)} problem(s)")
    print(f"check-docs: links in {len(pages())} pages and the README's figures hold")


if __name__ == "__main__":
    main()
