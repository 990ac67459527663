#!/usr/bin/env python3
"""Checks that every relative link in the project's Markdown resolves: the file it names exists,
and a #fragment names a heading of that file (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens). Links to the web (http, https, mailto) are not fetched. Run by .ci/run.

usage: scripts/check_links.py [FILE.md ...]   (default: README.md, CHANGELOG.md, docs/, bench/)
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*```")


def anchors_of(path):
    anchors = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            anchors.add(slug)
    return anchors


def links_of(path):
    in_fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            yield number, target


def broken_links(path):
    for number, target in links_of(path):
        if re.match(r"^(https?|mailto):", target):
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            yield f"{path.relative_to(ROOT)}:{number}: {target}: no such file"
        elif fragment and linked.suffix == ".md" and fragment not in anchors_of(linked):
            yield f"{path.relative_to(ROOT)}:{number}: {target}: no heading #{fragment} in {linked.relative_to(ROOT)}"


def main():
    if len(sys.argv) > 1:
        files = [pathlib.Path(name).resolve() for name in sys.argv[1:]]
    else:
        files = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
        files += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "bench").glob("*.md"))
    problems = [problem for path in files for problem in broken_links(path)]
    for problem in problems:
        print(problem)
    print(f"check_links: {len(files)} files, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
