"""The lintian checks both package tests make (test_package.py: the desktop package,
test_device_package.py: the device one)."""

import os
import shutil
import subprocess


def _run(command, timeout=600):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def assert_lintian_clean(test, deb):
    """lintian finds no error and no warning in `deb`. lintian is a build dependency, so its
    absence is a failure (a skip would let a CI image without it pass unchecked)."""
    lintian = shutil.which("lintian")
    if lintian is None:
        test.fail("lintian is not installed; it is a build dependency (scripts/packages.txt): "
                  "run scripts/install-deps as root, or apt-get install lintian")
    supports_fail_on = "--fail-on" in _run([lintian, "--help"]).stdout
    command = [lintian, "--display-info", "--tag-display-limit", "0"]
    if supports_fail_on:
        command += ["--fail-on", "error,warning"]
    result = _run(command + [deb], timeout=900)
    output = result.stdout + result.stderr
    print(f"\n{' '.join(command)} {os.path.basename(deb)}:\n{output}", flush=True)
    # lintian reports a tag as "E: package: tag ..."; N: lines are notes, not findings.
    findings = [line for line in result.stdout.splitlines() if line[:3] in ("E: ", "W: ")]
    test.assertEqual(findings, [], "lintian errors or warnings")
    if supports_fail_on:
        test.assertEqual(result.returncode, 0, f"lintian failed:\n{output}")
    else:  # an old lintian exits 1 on errors only, and 2 when it could not run at all
        test.assertNotEqual(result.returncode, 2, f"lintian could not run:\n{output}")


def assert_overrides_justified(test, path, package):
    """An override hides a finding from lintian's check, so each one says why, right above it."""
    if not os.path.exists(path):
        return
    with open(path) as handle:
        lines = [line.rstrip("\n") for line in handle]
    for number, line in enumerate(lines):
        if line.strip() and not line.startswith("#"):
            test.assertTrue(line.startswith(package + ": "), line)
            test.assertTrue(number > 0 and lines[number - 1].startswith("# "),
                            f"override without a comment saying why: {line}")
