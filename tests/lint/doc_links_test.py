#!/usr/bin/env python3
"""Links between the README and the docs pages resolve, and the README stays short.

For README.md and every docs/*.md: each relative Markdown link [text](path) or (path#anchor) names
a file that exists (relative to the linking file's folder), and an anchor names a heading of the
target page as GitHub makes anchors (lower case, spaces to '-', punctuation other than '-' and '_'
dropped; a repeated heading gets -1, -2, ...). Links inside fenced code blocks, and http(s) and
mailto links, are not checked. README.md must have at most MAX_README_LINES lines: the rest lives
in docs/ (issue 26).

Usage: doc_links_test.py REPO_ROOT    (exit 1 and one line per broken link on stderr)
       doc_links_test.py --self-test  (a scratch tree with one good link, one broken link and one
                                       broken anchor: exactly the two broken ones are reported)
"""
import re
import sys
import tempfile
from pathlib import Path

import lint_cli  # beside this file
from urllib.parse import unquote

MAX_README_LINES = 250
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def outside_fences(page):
    """(line number, line) of the lines of `page` outside fenced code blocks: a fence is closed by
    a line of the same character, at least as long (CommonMark)."""
    fence = None
    for number, line in enumerate(page.read_text(errors="replace").splitlines(), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not line.strip().lstrip(fence[0]):
            fence = None


def anchors_of(page):
    """The anchors GitHub gives the headings of `page`."""
    seen = {}
    out = set()
    for _, line in outside_fences(page):
        match = re.match(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if not match:
            continue
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # a link's text only
        text = re.sub(r"`([^`]*)`", r"\1", text).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def links_of(page):
    """(line number, target) of every link outside fenced code blocks."""
    for number, line in outside_fences(page):
        line = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
        for match in LINK.finditer(line):
            yield number, match.group(1)


def check(root):
    root = Path(root)
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    findings = []
    for page in pages:
        if not page.is_file():
            findings.append(f"{page}: missing")
            continue
        for number, target in links_of(page):
            if re.match(r"^(https?:|mailto:)", target):
                continue
            path, _, anchor = target.partition("#")
            path, anchor = unquote(path), unquote(anchor)
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(root)}:{number}"
            if not dest.exists():
                findings.append(f"{where}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors_of(dest):
                findings.append(f"{where}: {target}: no heading with anchor #{anchor}")
    readme = root / "README.md"
    if readme.is_file():
        lines = len(readme.read_text(errors="replace").splitlines())
        if lines > MAX_README_LINES:
            findings.append(f"README.md: {lines} lines, more than {MAX_README_LINES} (move the rest to docs/)")
    return findings


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / "README.md").write_text(
            "# T\n\nSee [cli](docs/cli.md#exit-codes), [gone](docs/gone.md) and [bad](docs/cli.md#nowhere).\n"
            "```\n[in code](docs/also-gone.md)\n```\n[web](https://example.org/x)\n"
            "~~~~\n```\n[in a longer fence](docs/gone-too.md)\n~~~~\n"
            "`[inline code](docs/not-a-link.md)`, [again](docs/cli.md#exit-codes-1), "
            "[option](docs/cli.md#outputs-in---out), [here](#t)\n")
        (root / "docs" / "cli.md").write_text(
            "# CLI\n\n## Exit codes\n\nBack to [README](../README.md#t).\n\n## Exit codes\n\n"
            "## Outputs (in `--out`)\n")
        found = check(root)
        assert len(found) == 2, found
        assert "docs/gone.md: no such file" in found[0], found
        assert "#nowhere" in found[1], found
        (root / "README.md").write_text("x\n" * (MAX_README_LINES + 1))
        found = check(root)
        assert f"README.md: {MAX_README_LINES + 1} lines, more than {MAX_README_LINES} (move the rest to docs/)" in found, found
    print("doc_links_test self-test: a missing page, a missing anchor and a long README found; code and web links skipped")
    return 0


if __name__ == "__main__":
    sys.exit(lint_cli.run(sys.argv, __doc__, check, self_test, "every link between README.md and docs/ resolves", "{n} broken doc link(s)"))
