#!/usr/bin/env python3
"""Writes a gzipped man page for ptwb or powertrain-workbench from the program's own --help.

    manpage.py ptwb PROGRAM OUT.1.gz                  # every command's --help as well
    manpage.py powertrain-workbench PROGRAM OUT.1.gz

The help texts are run with HOME=~ so the defaults they print read ~/.local/share/... rather than
the builder's home; option blocks are kept as the program prints them (no-fill), so the page says
exactly what --help says.
"""
import gzip
import os
import re
import subprocess
import sys

VERSION_RE = re.compile(r"(\d+\.\d+\.\d+)")


def help_text(program, *arguments):
    environment = dict(os.environ, HOME="~", XDG_DATA_HOME="", XDG_CONFIG_HOME="",
                       QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR="/tmp")
    result = subprocess.run([program, *arguments], capture_output=True, text=True,
                            env=environment, check=False)
    if result.returncode != 0:
        sys.exit(f"manpage.py: '{program} {' '.join(arguments)}' exited with "
                 f"{result.returncode}: {result.stderr.strip()}")
    return result.stdout


def escape(text):
    """Roff-escapes running text: backslashes, leading dots and quotes, hyphens."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def verbatim(lines):
    out = [".nf"]
    out += [escape(line) for line in lines]
    out.append(".fi")
    return out


def split_sections(text):
    """Splits --help output into its paragraphs (blank-line separated), stripped of the end."""
    return [block.splitlines() for block in text.strip("\n").split("\n\n")]


def options_block(text):
    """The lines from 'Options:' on, without the heading."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("Options:"):
            return [line for line in lines[index + 1:] if line.strip()]
    return []


def ptwb_page(program):
    overview = help_text(program, "--help")
    blocks = split_sections(overview)
    description = " ".join(line.strip() for line in blocks[1])
    commands = []
    for line in blocks[2][1:]:  # after "Commands:"
        match = re.match(r"\s+(\S+)\s+(.*)", line)
        if match:
            commands.append((match.group(1), match.group(2)))
    notes = [line for block in blocks[3:] for line in block if not line.startswith("Options:")
             and not line.startswith("  -")]
    version = VERSION_RE.search(help_text(program, "--version").splitlines()[0]).group(1)

    page = [f'.TH PTWB 1 "" "ptwb {version}" "User Commands"',
            ".SH NAME",
            "ptwb \\- PowerTrain Workbench on the command line",
            ".SH SYNOPSIS",
            ".B ptwb",
            ".I COMMAND",
            "[\\fIoptions\\fR]",
            ".br",
            ".B ptwb",
            "[\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR]",
            ".SH DESCRIPTION",
            escape(description),
            ".PP",
            escape(" ".join(note.strip() for note in notes if not note.startswith("Exit"))),
            ".SH COMMANDS"]
    for name, summary in commands:
        page += [".TP 12", f"\\fB{escape(name)}\\fR", escape(summary)]
    page += [".SH COMMAND OPTIONS"]
    for name, _ in commands:
        text = help_text(program, name, "--help")
        usage = text.splitlines()[0].replace("Usage: ", "")
        summary = text.splitlines()[1]
        page += [f'.SS "{escape(usage)}"', escape(summary), ".PP"]
        page += verbatim(options_block(text))
    page += [".SH EXIT STATUS",
             ".TP", "0", "success",
             ".TP", "1", "the work failed (a device error, a failed training, ...)",
             ".TP", "2", "bad usage or bad input; the message names the file, line and field",
             ".SH FILES",
             ".TP", "\\fI~/.local/share/powertrain\\-workbench/workbench.sqlite\\fR",
             "The database the window and the command line share (\\fB\\-\\-db\\fR picks "
             "another).",
             ".TP", "\\fI/usr/share/powertrain\\-workbench/remote/\\fR",
             "The device agent, uploaded to a Jetson over SFTP, and the simulated Jetson.",
             ".SH ENVIRONMENT",
             ".TP", "\\fBPTWB_REMOTE_DIR\\fR",
             "A directory holding agent/ and simulator/ to use instead of the installed ones.",
             ".TP", "\\fBPTWB_ENGINE\\fR",
             "The prediction engine module to load instead of the installed one.",
             ".SH SEE ALSO",
             "\\fBpowertrain\\-workbench\\fR(1); the user guide in "
             "\\fI/usr/share/doc/powertrain\\-workbench/\\fR."]
    return page


def window_page(program):
    text = help_text(program, "--help")
    version = VERSION_RE.search(help_text(program, "--version")).group(1)
    return [f'.TH POWERTRAIN\\-WORKBENCH 1 "" "powertrain-workbench {version}" "User Commands"',
            ".SH NAME",
            "powertrain\\-workbench \\- explore and choose power modes of NVIDIA Jetson devices",
            ".SH SYNOPSIS",
            ".B powertrain\\-workbench",
            "[\\fIoptions\\fR]",
            ".SH DESCRIPTION",
            "The PowerTrain Workbench window: every power mode of a Jetson in power against "
            "training time with the observed and predicted Pareto fronts, budget sliders and a "
            "recommendation that can be applied to the device; profiling sweeps; training and "
            "transferring the predictors; comparing mode-selection strategies. It starts on a "
            "simulated Jetson AGX Orin.",
            ".SH OPTIONS"] + verbatim(options_block(text)) + [
            ".SH FILES",
            ".TP", "\\fI~/.local/share/powertrain\\-workbench/workbench.sqlite\\fR",
            "The database the window and \\fBptwb\\fR(1) share.",
            ".TP", "\\fI~/.config/powertrain\\-workbench/powertrain\\-workbench.conf\\fR",
            "The window's settings: layout, devices, last view.",
            ".SH SEE ALSO",
            "\\fBptwb\\fR(1); the user guide in \\fI/usr/share/doc/powertrain\\-workbench/\\fR."]


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("ptwb", "powertrain-workbench"):
        sys.exit(__doc__)
    kind, program, out = sys.argv[1:]
    page = ptwb_page(program) if kind == "ptwb" else window_page(program)
    data = ("\n".join(page) + "\n").encode()
    # mtime=0 and no file name inside: the same help gives the same bytes.
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                               compresslevel=9, mtime=0) as zipped:
        zipped.write(data)


if __name__ == "__main__":
    main()
