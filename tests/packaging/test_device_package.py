#!/usr/bin/env python3
"""The device package (powertrain-workbench-device), built by packaging/device/build-deb into a
temporary directory and checked as dpkg and lintian see it.

    test_device_package.py [--source-dir SRC] [--version X.Y.Z] [unittest arguments]

SRC defaults to the checkout this file is in; --version (the project's, from CMake) is checked
against the package's. Checks: architecture all, Depends; the files, their owners (root/root)
and modes (helper 0755, sudoers drop-in 0440, a conffile); the helper is byte for byte
remote/agent/ptwb_helper.py (the agent compares the installed helper's hash with its own copy);
the sudoers drop-in passes `visudo -c` and allows exactly %powertrain-workbench to run exactly
ptwb_helper.INSTALL_PATH; the maintainer scripts are valid sh and do what docs/install.md says;
the build is reproducible; lintian finds no error and no warning, and every override says why.
The helper's install_problem() checks (owner, parents, modes on the device) need the package
installed by root, so they are not repeated here: the owners and modes in the archive are.
"""
import argparse
import gzip
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

import lintianchecks  # beside this file

ARGS = None
DEB = None
WORK = None
ROOT = None  # the unpacked package (dpkg-deb --raw-extract: files and DEBIAN/)
PACKAGE = "powertrain-workbench-device"
GROUP = "powertrain-workbench"
UNIT = "powertrain-workbench-boot.service"
ptwb_helper = None  # remote/agent/ptwb_helper.py, imported once the source dir is known


def run(command, timeout=600, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)


def build(outdir):
    result = run(["bash", os.path.join(ARGS.source_dir, "packaging/device/build-deb"), outdir])
    if result.returncode != 0:
        sys.exit("build-deb failed:\n" + result.stdout + result.stderr)
    return result.stdout.strip().splitlines()[-1]


def package_field(field):
    return run(["dpkg-deb", "--field", DEB, field]).stdout.strip()


def contents():
    """path -> (mode string, owner/group) from dpkg-deb --contents, as dpkg will install them."""
    result = run(["dpkg-deb", "--contents", DEB])
    assert result.returncode == 0, result.stderr
    entries = {}
    for line in result.stdout.splitlines():
        fields = line.split(None, 5)
        path = fields[5].split(" -> ")[0]
        entries[path[1:] if path.startswith(".") else path] = (fields[0], fields[1])
    return entries


def changelog_version():
    with open(os.path.join(ARGS.source_dir, "packaging/changelog"), encoding="utf-8") as handle:
        match = re.match(r"powertrain-workbench \(([^)]+)\) ", handle.readline())
    assert match, "packaging/changelog does not start with an entry"
    return match.group(1)


def sudoers_rules(text):
    """The drop-in's lines that are not comments or blank."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


class DevicePackage(unittest.TestCase):
    def test_control_fields(self):
        self.assertEqual(package_field("Package"), PACKAGE)
        self.assertEqual(package_field("Architecture"), "all")
        self.assertEqual(package_field("Source"), "powertrain-workbench")
        version = package_field("Version")
        self.assertEqual(version, changelog_version(), "not the version in packaging/changelog")
        if ARGS.version:
            self.assertTrue(version.startswith(ARGS.version + "-"),
                            f"{version} is not a Debian version of the project's {ARGS.version}")
        self.assertEqual(os.path.basename(DEB), f"{PACKAGE}_{version}_all.deb")
        depends = [clause.strip() for clause in package_field("Depends").split(",")]
        self.assertEqual(sorted(depends), sorted(["python3 (>= 3.8)", "sudo", "adduser"]))
        synopsis, *body = package_field("Description").splitlines()
        self.assertLess(len(synopsis), 80)
        for line in body:
            self.assertLess(len(line), 80, line)
        self.assertIn(f"sudo adduser $USER {GROUP}", "\n".join(body))

    def test_files_owners_and_modes(self):
        entries = contents()
        expected = {
            "/etc/sudoers.d/powertrain-workbench": "-r--r-----",
            "/usr/lib/powertrain-workbench/ptwb-helper": "-rwxr-xr-x",
            f"/lib/systemd/system/{UNIT}": "-rw-r--r--",
            f"/usr/share/doc/{PACKAGE}/copyright": "-rw-r--r--",
            f"/usr/share/doc/{PACKAGE}/changelog.Debian.gz": "-rw-r--r--",
            f"/usr/share/lintian/overrides/{PACKAGE}": "-rw-r--r--",
        }
        files = {path: mode for path, (mode, _) in entries.items() if not mode.startswith("d")}
        self.assertEqual(files, expected)
        for path, (mode, owner) in entries.items():
            self.assertEqual(owner, "root/root", path)
            if mode.startswith("d"):
                self.assertEqual(mode, "drwxr-xr-x", path)
        self.assertEqual(ptwb_helper.INSTALL_PATH, "/usr/lib/powertrain-workbench/ptwb-helper")
        self.assertEqual(ptwb_helper.SUDOERS_FILE, "/etc/sudoers.d/powertrain-workbench")
        # sudo skips drop-ins whose name has a dot or ends in "~"; dpkg's .dpkg-dist/-old copies
        # of the conffile have a dot and are therefore never read.
        name = os.path.basename(ptwb_helper.SUDOERS_FILE)
        self.assertNotIn(".", name)
        self.assertFalse(name.endswith("~"))
        with open(os.path.join(ROOT, "DEBIAN/conffiles")) as handle:
            self.assertEqual(handle.read().split(), [ptwb_helper.SUDOERS_FILE])
        # The state directory is made by postinst, not shipped (it must stay root-only, 0700).
        self.assertNotIn("/var/lib/powertrain-workbench/", entries)

    def test_helper_is_the_agents_helper_byte_for_byte(self):
        with open(os.path.join(ROOT, ptwb_helper.INSTALL_PATH.lstrip("/")), "rb") as handle:
            packaged = handle.read()
        with open(os.path.join(ARGS.source_dir, "remote/agent/ptwb_helper.py"), "rb") as handle:
            source = handle.read()
        self.assertEqual(hashlib.sha256(packaged).hexdigest(), hashlib.sha256(source).hexdigest(),
                         "the agent would reject this helper as modified")
        self.assertTrue(packaged.startswith(b"#!/usr/bin/python3"), packaged[:40])
        self.assertEqual(ptwb_helper.installed_version(
            os.path.join(ROOT, ptwb_helper.INSTALL_PATH.lstrip("/"))), ptwb_helper.HELPER_VERSION)

    def test_boot_unit_is_the_helpers_and_enabled_by_postinst(self):
        self.assertEqual(ptwb_helper.BOOT_UNIT, UNIT)
        with open(os.path.join(ROOT, "lib/systemd/system", UNIT), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), ptwb_helper.BOOT_UNIT_TEXT,
                             "`ptwb device setup` would install another unit than the package")
        self.assertIn(f"ExecStart={ptwb_helper.INSTALL_PATH} boot\n", ptwb_helper.BOOT_UNIT_TEXT)
        with open(os.path.join(ROOT, "DEBIAN/postinst"), encoding="utf-8") as handle:
            postinst = handle.read()
        self.assertIn(f"unit={UNIT}\n", postinst)
        self.assertIn('deb-systemd-helper enable "$unit"', postinst)
        self.assertIn("if command -v deb-systemd-helper >/dev/null 2>&1; then", postinst)
        with open(os.path.join(ROOT, "DEBIAN/postrm"), encoding="utf-8") as handle:
            postrm = handle.read()
        self.assertIn('deb-systemd-helper purge "$unit"', postrm)

    def test_sudoers_allows_the_group_exactly_the_helper(self):
        path = os.path.join(ROOT, ptwb_helper.SUDOERS_FILE.lstrip("/"))
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        rules = sudoers_rules(text)
        # The same rule `ptwb device setup` writes for one user, given to the group instead.
        self.assertEqual(rules, [ptwb_helper.sudoers_line("%" + GROUP).rstrip("\n")])
        rule = rules[0]
        self.assertTrue(rule.endswith("NOPASSWD: " + ptwb_helper.INSTALL_PATH), rule)
        for wildcard in ("*", "?", "[", "ALL:", ",", "\\", "!"):
            self.assertNotIn(wildcard, rule.split("NOPASSWD:", 1)[1], rule)
        self.assertEqual(rule.split()[0], "%" + GROUP)
        self.assertEqual(rule.split()[1], "ALL=(root)")

    def test_sudoers_passes_visudo(self):
        visudo = shutil.which("visudo", path="/usr/sbin:/usr/bin:/sbin:/bin:" + os.environ["PATH"])
        if visudo is None:
            self.skipTest("visudo not found (package sudo, scripts/packages.txt): the drop-in "
                          "was not checked with visudo -c")
        path = os.path.join(ROOT, ptwb_helper.SUDOERS_FILE.lstrip("/"))
        result = run([visudo, "-c", "-f", path])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_maintainer_scripts(self):
        for name in ("postinst", "postrm"):
            path = os.path.join(ROOT, "DEBIAN", name)
            self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR, f"{name} is not executable")
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            self.assertTrue(text.startswith("#!/bin/sh\n"), name)
            self.assertRegex(text, r"(?m)^set -e$", name)
            result = run(["sh", "-n", path])
            self.assertEqual(result.returncode, 0, f"{name}: {result.stderr}")
        with open(os.path.join(ROOT, "DEBIAN/postinst"), encoding="utf-8") as handle:
            postinst = handle.read()
        self.assertIn(f"getent group {GROUP}", postinst)  # idempotent: only when missing
        self.assertIn(f"addgroup --system --quiet {GROUP}", postinst)
        self.assertIn(f"state={ptwb_helper.STATE_DIR}\n", postinst)
        self.assertIn('chown root:root "$state"', postinst)
        self.assertIn('chmod 0700 "$state"', postinst)
        with open(os.path.join(ROOT, "DEBIAN/postrm"), encoding="utf-8") as handle:
            postrm = handle.read()
        purge = re.search(r"(?ms)^\s+purge\)\n(.*?);;", postrm)
        self.assertIsNotNone(purge, "postrm has no purge case")
        self.assertEqual(purge.group(1).strip(), "rm -rf " + ptwb_helper.STATE_DIR)

    def test_changelog_and_copyright(self):
        doc = os.path.join(ROOT, "usr/share/doc", PACKAGE)
        with open(os.path.join(doc, "changelog.Debian.gz"), "rb") as handle:
            header = handle.read(10)
        self.assertEqual(header[3] & 0x08, 0, "the file name is stored: gzip without -n")
        self.assertEqual(header[4:8], b"\0\0\0\0", "a time stamp is stored: gzip without -n")
        self.assertEqual(header[8], 2, "not compressed with gzip -9")
        with gzip.open(os.path.join(doc, "changelog.Debian.gz"), "rb") as handle, \
                open(os.path.join(ARGS.source_dir, "packaging/changelog"), "rb") as source:
            self.assertEqual(handle.read(), source.read())
        with open(os.path.join(doc, "copyright"), "rb") as handle, \
                open(os.path.join(ARGS.source_dir, "packaging/copyright"), "rb") as source:
            self.assertEqual(handle.read(), source.read())

    def test_build_is_reproducible(self):
        again = build(os.path.join(WORK, "again"))
        with open(DEB, "rb") as first, open(again, "rb") as second:
            self.assertEqual(hashlib.sha256(first.read()).hexdigest(),
                             hashlib.sha256(second.read()).hexdigest())

    def test_lintian_reports_no_errors_or_warnings(self):
        lintianchecks.assert_lintian_clean(self, DEB)

    def test_lintian_overrides_are_justified(self):
        lintianchecks.assert_overrides_justified(
            self, os.path.join(ROOT, "usr/share/lintian/overrides", PACKAGE), PACKAGE)


def main():
    global ARGS, DEB, WORK, ROOT, ptwb_helper
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--version", help="the project's version (CMake's PROJECT_VERSION)")
    ARGS, rest = parser.parse_known_args()
    ARGS.source_dir = os.path.realpath(ARGS.source_dir)
    sys.path.insert(0, os.path.join(ARGS.source_dir, "remote/agent"))
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    import ptwb_helper as module
    ptwb_helper = module
    if shutil.which("dpkg-deb") is None:
        sys.exit("dpkg-deb is not installed (package dpkg): cannot build the device package")
    WORK = tempfile.mkdtemp(prefix="ptwb-device-package-")
    try:
        DEB = build(os.path.join(WORK, "out"))
        ROOT = os.path.join(WORK, "root")
        result = run(["dpkg-deb", "--raw-extract", DEB, ROOT])
        if result.returncode != 0:
            sys.exit("dpkg-deb --raw-extract failed: " + result.stderr)
        print(f"package: {DEB} ({os.path.getsize(DEB)} bytes)", flush=True)
        unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
