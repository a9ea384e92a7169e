#!/usr/bin/env python3
"""Includes point down the domain order, and no two modules include each other.

The code lives in a folder per domain, the same names under src/, include/ecgpipe/, kernels/ and
tests/ (docs/architecture.md). A domain may include its own files and those of the domains that
ALLOWED names for it, nothing else: the table below is the architecture, and this test holds it.
Tests (tests/<domain>/) mirror the code but sit above every domain: nothing includes them, and a
signal test may synthesise its input (eval) or run the pipeline; their includes are checked for form.

A module is the files of one stem in one domain: x.hpp, x.cpp and x.cu, with its GPU half
(x_cuda.*), its JSON face (x_json.hpp) and the internals its halves share (x_internal.hpp). Two modules that include each other (directly or through
a longer cycle) fail, because neither can then be read, tested or moved without the other.

Other rules checked here, each with its reason:
  - quoted includes name their file from a root: "ecgpipe/<domain>/x.hpp" (include/), "<domain>/x.hpp"
    (src/, internal), "kernels/<domain>/x" (the repository root); never "../" or a bare name, so a
    reader knows which file is meant;
  - public headers (include/ecgpipe/) include only public headers: they are the library's face;
  - kernels are free of I/O and logging (no spdlog, iostream, fstream, cstdio);
  - LibTorch is included only by the model code (src/model/, tests/model/), with the exceptions
    listed in TORCH_EXCEPTIONS and their reasons.

Usage: include_order_test.py REPO_ROOT    (exit 1 and one line per finding)
       include_order_test.py --self-test  (plants an upward include, a loop and a bad include in a
                                           copy of a tiny tree and checks that each is found)
"""
import re
import sys
import tempfile
from pathlib import Path

import lint_cli  # beside this file

# The order, lowest first. A domain may include the domains listed for it (and itself).
ALLOWED = {
    "common": [],
    "io": ["common"],
    "signal": ["common"],
    "classify": ["common", "signal"],
    "rhythm": ["common", "signal", "classify"],
    "model": ["common", "signal", "classify"],
    "eval": ["common", "io", "signal", "classify", "rhythm"],
    "report": ["common", "io", "signal", "classify", "rhythm", "model", "eval"],
    "view": ["common", "io", "signal", "classify", "rhythm", "model", "eval"],
    "pipeline": ["common", "io", "signal", "classify", "rhythm", "model", "eval", "report"],
    "batch": ["common", "io", "signal", "classify", "rhythm", "model", "eval", "report", "pipeline"],
    "cli": ["common", "io", "signal", "classify", "rhythm", "model", "eval", "report", "view", "pipeline", "batch"],
    # The Python module (src/python): the pipeline's other face, beside cli.
    "python": ["common", "io", "signal", "classify", "rhythm", "model", "eval", "report", "pipeline", "batch"],
}

# Files outside the model code that may include LibTorch, and why: none. (The CPU band-pass's FFT
# is LibTorch's, behind src/signal/circular_convolution.hpp, defined in src/model/torch_fft.cpp:
# the command line loads LibTorch only where it is needed, src/model/torch_module_loader.cpp.)
TORCH_EXCEPTIONS = set()
TORCH_INCLUDE = re.compile(r'^\s*#\s*include\s*<(torch|ATen|c10)/')
KERNEL_IO_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](spdlog/[^>"]*|iostream|fstream|cstdio|stdio\.h)[>"]')
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h"}
# Files every test may include (tests/, not a domain).
TEST_SUPPORT = {"test_util.hpp", "gpu_test_util.hpp", "fuzz_util.hpp"}
# Generated at build time (CMake): where they would live.
GENERATED = {"ecgpipe/config.hpp": "include/ecgpipe/config.hpp.in"}


def domain_of(rel):
    """(kind, domain) of a repository-relative path, or None when it is not under a domain."""
    parts = rel.split("/")
    if parts[0] == "include" and len(parts) >= 4 and parts[1] == "ecgpipe":
        return "public", parts[2]
    if parts[0] in ("src", "kernels") and len(parts) >= 3:
        return parts[0], parts[1]
    return None


def module_of(rel):
    kind_domain = domain_of(rel)
    stem = Path(rel).stem
    stem = re.sub(r"_(cuda|json|internal)$", "", stem)
    return f"{kind_domain[1]}/{stem}" if kind_domain else rel


def resolve(root, include):
    """The repository-relative file a canonical include names, or None."""
    if include in GENERATED:
        return GENERATED[include]
    for prefix in ("include/", "src/", ""):
        candidate = prefix + include
        if (root / candidate).is_file() and (prefix != "" or include.startswith("kernels/")):
            return candidate
    return None


def check(root):
    root = Path(root)
    findings = []
    edges = {}
    files = [p for folder in ("src", "include", "kernels", "tests") for p in sorted((root / folder).rglob("*"))
             if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    if not files:
        return [f"{root}: no source files found"]
    for path in files:
        rel = path.relative_to(root).as_posix()
        here = domain_of(rel)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            where = f"{rel}:{number}"
            in_model = rel.startswith(("src/model/", "tests/model/"))
            if TORCH_INCLUDE.match(line) and not in_model and rel not in TORCH_EXCEPTIONS:
                findings.append(f"{where}: LibTorch included outside the model code")
            if rel.startswith("kernels/") and KERNEL_IO_INCLUDE.match(line):
                findings.append(f"{where}: a kernel file includes I/O or logging")
            match = QUOTED_INCLUDE.match(line)
            if not match:
                continue
            include = match.group(1)
            if Path(include).name in TEST_SUPPORT and rel.startswith("tests/"):
                continue
            if ".." in include.split("/"):
                findings.append(f'{where}: "{include}" climbs with ../; name it from its root')
                continue
            target = resolve(root, include)
            if target is None:
                findings.append(f'{where}: "{include}" is not a file under include/, src/ or kernels/')
                continue
            there = domain_of(target) if target not in GENERATED.values() else ("public", "common")
            if here is None:
                continue  # tests: they sit above every domain (a signal test may synthesise its input)
            if here[0] == "public" and there[0] != "public":
                findings.append(f'{where}: public header includes the internal "{include}"')
            if there[1] != here[1] and there[1] not in ALLOWED[here[1]]:
                findings.append(f'{where}: {here[1]} -> {there[1]} ("{include}") points up or sideways; '
                                f"{here[1]} may include {', '.join(ALLOWED[here[1]]) or 'nothing else'}")
            a, b = module_of(rel), module_of(target)
            if a != b and not rel.startswith("tests/"):
                edges.setdefault(a, {}).setdefault(b, where)
    for cycle in cycles(edges):
        arrows = ", ".join(edges[a][b] for a, b in zip(cycle, cycle[1:]))
        findings.append(f"include loop: {' -> '.join(cycle)} ({arrows})")
    return findings


def cycles(edges):
    """One cycle per strongly connected group of modules (Tarjan), each as a closed path."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    result = []
    for group in groups:
        members = set(group)
        path, seen = [group[0]], {group[0]}
        while True:  # walk inside the group until a module repeats
            nxt = next(w for w in sorted(edges[path[-1]]) if w in members)
            if nxt in seen:
                result.append(path[path.index(nxt):] + [nxt])
                break
            path.append(nxt)
            seen.add(nxt)
    return result


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def write(rel, text):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)

        write("include/ecgpipe/common/error.hpp", "#pragma once\n")
        write("include/ecgpipe/io/csv.hpp", '#pragma once\n#include "ecgpipe/common/error.hpp"\n')
        write("src/io/csv.cpp", '#include "ecgpipe/io/csv.hpp"\n')
        assert check(root) == [], check(root)
        # An upward include: common may include nothing else.
        write("src/common/paths.cpp", '#include "ecgpipe/io/csv.hpp"\n')
        found = check(root)
        assert len(found) == 1 and "common -> io" in found[0], found
        (root / "src/common/paths.cpp").unlink()
        # A loop between two modules of one domain.
        write("include/ecgpipe/io/wfdb.hpp", '#pragma once\n#include "ecgpipe/io/edf.hpp"\n')
        write("include/ecgpipe/io/edf.hpp", '#pragma once\n#include "ecgpipe/io/wfdb.hpp"\n')
        found = check(root)
        assert found == ["include loop: io/edf -> io/wfdb -> io/edf (include/ecgpipe/io/edf.hpp:2, "
                         "include/ecgpipe/io/wfdb.hpp:2)"], found
        (root / "include/ecgpipe/io/edf.hpp").write_text("#pragma once\n")
        assert check(root) == [], check(root)
        # A relative include, LibTorch outside the model, logging in a kernel.
        write("src/io/edf.cpp", '#include "../io/csv.hpp"\n#include <torch/torch.h>\n')
        write("kernels/io/csv.cu", "#include <spdlog/spdlog.h>\n")
        found = check(root)
        assert len(found) == 3 and "climbs" in found[0] and "LibTorch" in found[1] and "kernel" in found[2], found
    print("include_order_test self-test: upward include, loop, relative include, LibTorch and kernel logging found")
    return 0


if __name__ == "__main__":
    sys.exit(lint_cli.run(sys.argv, __doc__, check, self_test, "every include points down the domain order; no loops", "{n} include finding(s)"))
