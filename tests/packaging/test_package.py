#!/usr/bin/env python3
"""The Debian package, built and used as a user would: CPack builds the .deb from the build tree,
it is unpacked into a temporary root, and the programs run from there with no build tree in reach
(an installed program never looks into one, see core/util/installlayout.h).

    test_package.py --build-dir BUILD --version X.Y.Z

Checks: the files land in the standard places; Depends holds exactly the packages that own the
libraries the ELF files link (plus python3 for the Python agent and simulator), so it cannot go
stale; the desktop entry and AppStream metainfo validate; the man page documents every command;
`ptwb --version` and `ptwb demo` run from the unpacked root and use its engine and scripts;
the window renders a screenshot from it; lintian finds no error and no warning; the copyright file
is machine-readable and the Debian changelog matches the package's version.
"""
import argparse
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import lintianchecks  # beside this file

ARGS = None
ROOT = None  # the unpacked package
DEB = None
WORK = None


def run(command, timeout=600, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)


def clean_environment(home):
    """An environment with nothing that points back at the build: no PTWB_* overrides, a fresh
    HOME, and a PATH of system directories only."""
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("PTWB_")
                   and key not in ("LD_LIBRARY_PATH", "PYTHONDONTWRITEBYTECODE")}
    environment.update(HOME=home, PATH="/usr/bin:/bin", XDG_RUNTIME_DIR=home,
                       XDG_DATA_HOME="", XDG_CONFIG_HOME="", QT_QPA_PLATFORM="offscreen")
    return environment


def package_field(field):
    return run(["dpkg-deb", "--field", DEB, field]).stdout.strip()


def depends_packages():
    """Package names in Depends, alternatives included, versions and arch qualifiers dropped."""
    names = set()
    for clause in package_field("Depends").split(","):
        for alternative in clause.split("|"):
            name = alternative.strip().split(" ")[0].split(":")[0]
            if name:
                names.add(name)
    return names


def elf_files(root):
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    yield path


def needed_libraries(path):
    dynamic = run(["readelf", "--dynamic", path]).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)


def library_paths():
    """soname -> path, from the dynamic linker's cache; on a multiarch system the entries of this
    machine's architecture win over, say, i386 ones."""
    native = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(os.uname().machine)
    found = {}  # soname -> (path, native)
    # ldconfig lives in /sbin, which a normal user's PATH may lack.
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    for line in run([ldconfig, "-p"]).stdout.splitlines()[1:]:
        match = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if not match:
            continue
        soname, flags, path = match.groups()
        is_native = bool(native) and native in flags
        if soname not in found or (is_native and not found[soname][1]):
            found[soname] = (path, is_native)
    return {soname: path for soname, (path, _) in found.items()}


def owning_package(path):
    """The Debian package that owns a library file, trying the /usr-merged spellings too."""
    candidates = [path, os.path.realpath(path)]
    candidates += [c.replace("/usr/lib/", "/lib/", 1) for c in list(candidates)]
    candidates += [c.replace("/lib/", "/usr/lib/", 1) for c in list(candidates)
                   if c.startswith("/lib/")]
    for candidate in candidates:
        result = run(["dpkg-query", "--search", candidate])
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return None


def parse_deb822(text):
    """Paragraphs of "Field: value" lines with indented continuation lines, as dicts."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields, name = {}, None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and name:
                fields[name] += "\n" + line[1:]
            else:
                match = re.match(r"([^\s:]+):\s?(.*)$", line)
                if not match:
                    raise ValueError(f"not a deb822 line: {line!r}")
                name = match.group(1)
                fields[name] = match.group(2)
        paragraphs.append(fields)
    return paragraphs


def python_caches():
    return glob.glob(os.path.join(ROOT, "**/__pycache__"), recursive=True)


class Package(unittest.TestCase):
    def test_files_are_in_the_standard_places(self):
        expected = [
            "usr/bin/ptwb",
            "usr/bin/powertrain-workbench",
            "usr/share/powertrain-workbench/remote/agent/ptwb_agent.py",
            "usr/share/powertrain-workbench/remote/agent/ptwb_launch.py",
            "usr/share/powertrain-workbench/remote/simulator/sim_train.py",
            "usr/share/powertrain-workbench/remote/simulator/standin/torch/optim.py",
            "usr/share/powertrain-workbench/remote/simulator/ptwb_simjetson.py",
            "usr/share/powertrain-workbench/remote/simulator/profiles.json",
            "usr/share/powertrain-workbench/resources/devices/orin-agx.json",
            "usr/share/powertrain-workbench/resources/devices/xavier-agx.json",
            "usr/share/powertrain-workbench/resources/devices/orin-nano.json",
            "usr/share/applications/io.github.powertrain_workbench.Workbench.desktop",
            "usr/share/metainfo/io.github.powertrain_workbench.Workbench.metainfo.xml",
            "usr/share/icons/hicolor/scalable/apps/io.github.powertrain_workbench.Workbench.svg",
            "usr/share/man/man1/ptwb.1.gz",
            "usr/share/man/man1/powertrain-workbench.1.gz",
            "usr/share/doc/powertrain-workbench/README.md",
            "usr/share/doc/powertrain-workbench/docs/user-guide.md",
        ]
        missing = [path for path in expected if not os.path.isfile(os.path.join(ROOT, path))]
        self.assertEqual(missing, [], "missing from the package")
        engines = glob.glob(os.path.join(ROOT, "usr/lib/**/powertrain-workbench/"
                                               "libptwb_predict_engine.so"), recursive=True)
        self.assertEqual(len(engines), 1, "the prediction engine module")
        for program in ("usr/bin/ptwb", "usr/bin/powertrain-workbench"):
            self.assertTrue(os.access(os.path.join(ROOT, program), os.X_OK), program)
        self.assertEqual(python_caches(), [], "byte-code caches do not belong in the package")

    def test_depends_are_exactly_what_the_programs_link(self):
        depends = depends_packages()
        self.assertIn("python3", depends, "the agent and the simulator are Python programs")
        paths = library_paths()
        linked = {}
        for elf in elf_files(ROOT):
            for soname in needed_libraries(elf):
                self.assertIn(soname, paths, f"{elf} links {soname}, which this system lacks")
                package = owning_package(paths[soname])
                self.assertIsNotNone(package, f"no Debian package owns {paths[soname]}")
                linked.setdefault(package, set()).add(os.path.relpath(elf, ROOT))
        for expected in ("libssh-4", "libsqlite3-0", "libqt6core6", "libqt6widgets6"):
            self.assertIn(expected, linked, f"the programs should link {expected}: {linked}")
        self.assertTrue(any(name.startswith("libtorch") for name in linked),
                        f"the prediction engine should link libtorch: {linked}")
        missing = sorted(set(linked) - depends)
        self.assertEqual(missing, [], f"linked but not in Depends: "
                         f"{ {name: sorted(linked[name]) for name in missing} }")
        unexplained = sorted(depends - set(linked) - {"python3"})
        self.assertEqual(unexplained, [], "in Depends but linked by nothing in the package")

    def test_desktop_entry_and_metainfo_validate(self):
        desktop = glob.glob(os.path.join(ROOT, "usr/share/applications/*.desktop"))[0]
        result = run(["desktop-file-validate", desktop])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("error", (result.stdout + result.stderr).lower())
        with open(desktop) as handle:
            entry = handle.read()
        self.assertIn("Exec=powertrain-workbench\n", entry)
        icon = re.search(r"^Icon=(.+)$", entry, re.M).group(1)
        self.assertTrue(glob.glob(os.path.join(ROOT, f"usr/share/icons/hicolor/*/apps/{icon}.*")),
                        f"the desktop entry's icon {icon} is not installed")
        metainfo = glob.glob(os.path.join(ROOT, "usr/share/metainfo/*.xml"))[0]
        result = run(["appstreamcli", "validate", "--no-net", metainfo])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(metainfo) as handle:
            self.assertIn(f"<launchable type=\"desktop-id\">{os.path.basename(desktop)}<",
                          handle.read())

    def test_man_page_documents_every_command(self):
        with gzip.open(os.path.join(ROOT, "usr/share/man/man1/ptwb.1.gz"), "rt") as handle:
            page = handle.read()
        overview = run([os.path.join(ROOT, "usr/bin/ptwb"), "--help"],
                       env=clean_environment(WORK)).stdout
        commands = re.findall(r"^  (\w+)\s{2,}", overview.split("Commands:")[1], re.M)
        self.assertGreaterEqual(len(commands), 10, overview)
        for command in commands:
            self.assertIn(f'.SS "ptwb {command} ', page, f"the man page lacks '{command}'")
        self.assertNotIn(os.path.expanduser("~/"), page, "the builder's home leaked in")
        for name in ("ptwb.1.gz", "powertrain-workbench.1.gz"):
            result = run(["man", "--warnings", "-l", os.path.join(ROOT, "usr/share/man/man1", name)],
                         env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING=""))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr.strip(), "", f"{name}: roff warnings")

    def test_version_uses_the_unpacked_installation(self):
        result = run([os.path.join(ROOT, "usr/bin/ptwb"), "--version"],
                     env=clean_environment(WORK), cwd=WORK)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], f"ptwb {ARGS.version}")
        engine = lines[1].split(": ", 1)[1]
        scripts = lines[2].split(": ", 1)[1]
        self.assertTrue(engine.startswith(ROOT + "/"), f"engine from outside the package: {engine}")
        self.assertTrue(scripts.startswith(ROOT + "/"), f"scripts from outside the package: {scripts}")

    def test_an_incomplete_installation_does_not_borrow_from_the_build_tree(self):
        # ptwb alone in a prefix: without the gate it would find the build tree's engine and
        # the checkout's scripts, which would hide a package that forgot them.
        lonely = os.path.join(tempfile.mkdtemp(dir=WORK), "usr/bin")
        os.makedirs(lonely)
        shutil.copy2(os.path.join(ROOT, "usr/bin/ptwb"), lonely)
        result = run([os.path.join(lonely, "ptwb"), "--version"], env=clean_environment(WORK),
                     cwd=WORK)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("prediction engine: not found", result.stdout)
        self.assertIn("device scripts: not found", result.stdout)
        result = run([os.path.join(lonely, "ptwb"), "demo"], env=clean_environment(WORK),
                     cwd=WORK, timeout=120)
        self.assertNotEqual(result.returncode, 0, "a demo without its simulator cannot succeed")
        self.assertIn("simulated Jetson", result.stdout + result.stderr)

    def test_demo_runs_from_the_unpacked_installation(self):
        home = tempfile.mkdtemp(dir=WORK)
        demo = os.path.join(home, "demo")
        result = run([os.path.join(ROOT, "usr/bin/ptwb"), "demo", "--dir", demo],
                     env=clean_environment(home), cwd=home, timeout=600)
        self.assertEqual(result.returncode, 0, result.stdout[-3000:] + result.stderr[-3000:])
        self.assertIn("Done in", result.stdout)
        self.assertRegex(result.stdout, r"30 W")
        self.assertTrue(os.path.isfile(os.path.join(demo, "front.csv")), result.stdout[-2000:])
        with open(os.path.join(demo, "front.csv")) as handle:
            self.assertGreater(len(handle.read().splitlines()), 2, "an empty Pareto front")
        self.assertEqual(python_caches(), [],
                         "running the simulator wrote byte-code caches into the installation")

    def test_lintian_reports_no_errors_or_warnings(self):
        lintianchecks.assert_lintian_clean(self, DEB)

    def test_lintian_overrides_are_justified(self):
        lintianchecks.assert_overrides_justified(
            self, os.path.join(ROOT, "usr/share/lintian/overrides/powertrain-workbench"),
            "powertrain-workbench")

    def test_copyright_file_is_machine_readable(self):
        path = os.path.join(ROOT, "usr/share/doc/powertrain-workbench/copyright")
        self.assertTrue(os.path.isfile(path), "the package has no copyright file")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        self.assertEqual(text.splitlines()[0], "Format: "
                         "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
        paragraphs = parse_deb822(text)
        header, rest = paragraphs[0], paragraphs[1:]
        self.assertIn("Upstream-Name", header)
        files = [p for p in rest if "Files" in p]
        licences = {p["License"].splitlines()[0].strip(): p["License"]
                    for p in rest if "Files" not in p and "License" in p}
        self.assertTrue(files, "no Files paragraph")
        self.assertEqual(files[0]["Files"].strip(), "*", "the first Files paragraph covers all")
        for paragraph in files:
            self.assertIn("Copyright", paragraph, paragraph)
            name = paragraph["License"].splitlines()[0].strip()
            self.assertIn(name, licences, f"no License paragraph gives the text of {name}")
        self.assertEqual(files[0]["License"].strip(), "GPL-3.0-or-later")
        self.assertIn("/usr/share/common-licenses/GPL-3", licences["GPL-3.0-or-later"])

    def test_debian_changelog_is_compressed_reproducibly_and_matches_the_version(self):
        path = os.path.join(ROOT, "usr/share/doc/powertrain-workbench/changelog.Debian.gz")
        self.assertTrue(os.path.isfile(path), "the package has no changelog.Debian.gz")
        with open(path, "rb") as handle:
            header = handle.read(10)
        # gzip header: magic, method, flags (no FNAME), MTIME 0, XFL 2 (-9).
        self.assertEqual(header[:3], b"\x1f\x8b\x08")
        self.assertEqual(header[3] & 0x08, 0, "the file name is stored: gzip without -n")
        self.assertEqual(header[4:8], b"\0\0\0\0", "a time stamp is stored: gzip without -n")
        self.assertEqual(header[8], 2, "not compressed with gzip -9")
        plain = os.path.join(WORK, "changelog")
        with gzip.open(path, "rb") as source, open(plain, "wb") as target:
            target.write(source.read())
        result = run(["dpkg-parsechangelog", "-l", plain])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr.strip(), "", "dpkg-parsechangelog warnings")
        fields = parse_deb822(result.stdout)[0]
        self.assertEqual(fields["Source"], "powertrain-workbench")
        self.assertEqual(fields["Version"], package_field("Version"),
                         "the changelog's latest entry is not the package's version")
        self.assertTrue(fields["Version"].startswith(ARGS.version + "-"), fields["Version"])

    def test_window_renders_from_the_unpacked_installation(self):
        home = tempfile.mkdtemp(dir=WORK)
        picture = os.path.join(home, "devices.png")
        result = run([os.path.join(ROOT, "usr/bin/powertrain-workbench"), "--db",
                      os.path.join(home, "w.sqlite"), "--screenshot", picture, "--view", "devices"],
                     env=clean_environment(home), cwd=home, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(picture, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(picture), 20000, "a nearly empty picture")


def build_and_unpack():
    global ROOT, DEB, WORK
    WORK = tempfile.mkdtemp(prefix="ptwb-package-")
    build = os.path.realpath(ARGS.build_dir)
    # The unpacked root must not sit in the build tree, or the programs could use it.
    assert not WORK.startswith(build + "/"), WORK
    out = os.path.join(WORK, "out")
    result = run(["cpack", "-G", "DEB", "-B", out, "--config",
                  os.path.join(build, "CPackConfig.cmake")], timeout=900)
    if result.returncode != 0:
        sys.exit("cpack failed:\n" + result.stdout[-4000:] + result.stderr[-4000:])
    debs = glob.glob(os.path.join(out, "*.deb"))
    if len(debs) != 1:
        sys.exit(f"cpack made {debs}, expected one .deb\n{result.stdout[-2000:]}")
    DEB = debs[0]
    ROOT = os.path.join(WORK, "root")
    result = run(["dpkg-deb", "--extract", DEB, ROOT])
    if result.returncode != 0:
        sys.exit("dpkg-deb --extract failed: " + result.stderr)
    print(f"package: {DEB} ({os.path.getsize(DEB) // 1024} KiB)\nDepends: {package_field('Depends')}",
          flush=True)


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--version", required=True)
    ARGS, rest = parser.parse_known_args()
    build_and_unpack()
    try:
        unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
