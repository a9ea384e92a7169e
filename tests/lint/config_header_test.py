#!/usr/bin/env python3
"""Every source file that tests a build-time macro of ecgpipe/config.hpp (ECGPIPE_WITH_CUDA,
ECGPIPE_TORCH_CUDA) includes that header itself, before the test.

Why: the macros come from the generated header, not from the compiler's command line, so a file
that tests one without the header silently compiles its other branch. template_distance.cpp did:
every GPU run scored template distances with LibTorch's loop instead of the kernels written for
it (found 2026-11-24). Usage: config_header_test.py SOURCE_DIR; exit 1 with the files named."""
import pathlib
import re
import sys

MACRO_TEST = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b.*\bECGPIPE_(WITH|TORCH)_CUDA\b")
CONFIG_INCLUDE = re.compile(r'^\s*#\s*include\s+"ecgpipe/config\.hpp"')


def first_problem(path):
    """The line number of the first macro test before any include of the config header, or None."""
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if CONFIG_INCLUDE.match(line):
            return None
        if MACRO_TEST.match(line):
            return number
    return None


def main():
    root = pathlib.Path(sys.argv[1])
    bad = []
    for folder in ("src", "include", "kernels", "tests"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".cpp", ".hpp", ".cu", ".cuh", ".in") and path.name != "config.hpp.in":
                line = first_problem(path)
                if line is not None:
                    bad.append(f"{path.relative_to(root)}:{line}: tests a config.hpp macro before including ecgpipe/config.hpp")
    for message in bad:
        print(message)
    print(f"{len(bad)} file(s) test a config.hpp macro without including it first" if bad else "config.hpp included before every macro test")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
