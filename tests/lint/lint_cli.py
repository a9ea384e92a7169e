"""The command line the source checks of tests/lint/ share: `SCRIPT REPO_ROOT` runs the check and
prints one line per finding on stderr (exit 1 if any), `SCRIPT --self-test` runs its self-test."""
import sys


def run(argv, doc, check, self_test, clean, found):
    """check(root) -> findings; clean: the line printed when there are none; found: '{n} ...'."""
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(doc, file=sys.stderr)
        return 2
    findings = check(argv[1])
    for finding in findings:
        print(finding, file=sys.stderr)
    print(found.format(n=len(findings)) if findings else clean)
    return 1 if findings else 0
