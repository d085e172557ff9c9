"""What the Python tests of the pscan tool share (test_cli.py, test_plot.py, test_trace.py):
check() counts a passed or failed expectation, printing the failed ones; finish() ends the run
with "N passed, N failed" and the exit status, like the C tests."""
import os
import sys

_counts = {"passed": 0, "failed": 0}


def check(cond, what):
    if cond:
        _counts["passed"] += 1
    else:
        _counts["failed"] += 1
        print("FAIL:", what)


def tool_run_setup():
    """(PSCAN, WORK, rng) of a tool test run as `test.py PSCAN WORKDIR`: WORK made empty, and a
    random.Random from PSCAN_TEST_SEED or a fresh seed, printed so that a run can be repeated."""
    import random
    import shutil
    pscan, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    seed = int(os.environ.get("PSCAN_TEST_SEED", random.randrange(1 << 32)))
    print(f"seed {seed} (PSCAN_TEST_SEED={seed} reproduces this run)")
    return pscan, work, random.Random(seed)


def read_csv(path, header):
    """The rows of the CSV at path (as dicts; [] when it is missing), after checking its first
    line against header."""
    import csv
    if not os.path.exists(path):
        return []
    with open(path) as f:
        check(f.readline().strip() == header, f"CSV header of {path}")
    with open(path) as f:
        return list(csv.DictReader(f))


def finish(skipped=False):
    """Exit status 1 if a check failed, else 77 (ctest's SKIP_RETURN_CODE for the tool tests)
    when the test could not check what it is for, else 0."""
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 77 if skipped else 0)
