#!/usr/bin/python3
"""Every `atf` command keeps the README's contract (issue 24, item 3).

    check_commands.py ATF WORKDIR [PLUGIN.py...]

The commands are read from `atf --help` (every entry of its "commands:"
section), so a command added to the usage text is checked with no change
here. A command a format contributes is given its inputs by that format's
PLUGIN (formats/<name>/tests/*/cli_commands.py, passed by cli/CMakeLists.txt;
its docstring says what it holds). For each command:

  * `atf CMD --help` and `atf CMD -h` print that command's usage on stdout
    (a line starting with "  CMD") and exit 0, with nothing on stderr;
  * no ATF input: a directory of random files, both named with a newline
    and an escape character, exit 2 ("PATH is no ATF input"); a random file
    given by name exits 1 from the ATF readers (info, dump, merge, export,
    validate: an invalid ATF file, one verdict for all) and 2 from the
    others (not their kind of input at all); the messages name the path with
    the control characters escaped (\\n, \\x1b) and hold none raw;
  * `--` ends the options: a real input (a session, or what a plugin makes
    of it) whose name starts with '-' and holds a newline is read after
    `--` (exit 0), and the no-ATF paths after `--` still exit 2.

Commands that read no input (`version`) get only the --help and `--`
checks. A command this script knows nothing about is run as `atf CMD PATH`
and `atf CMD -- PATH`. The last line is `N passed, M failed`; exit 1 on any
failure.
"""

import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys

FAILS = []
PASSED = [0]
BAD = "ran\ndom\x1b"           # control characters a path may hold
BAD_ESC = "ran\\ndom\\x1b"     # how every message must show them


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILS.append(what)
        print("FAIL " + what)


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "hang", "", ""


def commands(atf):
    rc, out, _ = run([atf, "--help"])
    if rc != 0 or "commands:" not in out:
        return []
    section = out.split("commands:", 1)[1].split("\nFILTERS:", 1)[0]
    names = []
    for line in section.splitlines():
        m = re.match(r"^  ([a-z][a-z0-9-]*)\b", line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def show(s):
    return repr(s.strip()[-300:])


def load_plugins(paths):
    """The plugins' modules, and {command: module}."""
    mods, by_cmd = [], {}
    for i, path in enumerate(paths):
        spec = importlib.util.spec_from_file_location("cli_plugin_%d" % i, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
        for c in mod.COMMANDS:
            by_cmd[c] = mod
    return mods, by_cmd


class Context:
    """What a plugin is given."""
    def __init__(self, atf, work, rnd, dash):
        self.atf, self.work, self.rnd, self.dash = atf, work, rnd, dash
        self.run, self.check, self.show = run, check, show

    def out_dir(self):
        return os.path.join(self.work, "out%d" % self.rnd.getrandbits(32))


def main():
    atf, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    plugins, plugin_of = load_plugins([os.path.abspath(p) for p in sys.argv[3:]])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rnd = random.Random(24)
    # No ATF input: a directory of random files, and a random file.
    bad_dir = os.path.join(work, BAD)
    os.makedirs(bad_dir)
    for i in range(3):
        with open(os.path.join(bad_dir, "f%d" % i), "wb") as f:
            f.write(bytes(rnd.getrandbits(8) for _ in range(2000 + 500 * i)))
    bad_file = os.path.join(work, BAD + ".bin")
    with open(bad_file, "wb") as f:
        f.write(bytes(rnd.getrandbits(8) for _ in range(3000)))
    # Real inputs whose names start with '-': a session, and what the plugins make of it.
    dash = "-s\nx"
    os.chdir(work)
    rc, _, err = run([atf, "demo", "--threads", "2", "--events", "200", "--", dash])
    check(rc == 0, "atf demo -- %r: exit %s %s" % (dash, rc, show(err)))
    ctx = Context(atf, work, rnd, dash)
    for p in plugins:
        p.prepare(ctx)

    names = commands(atf)
    known = ["info", "dump", "merge", "export", "validate", "conform", "demo", "version"] + list(plugin_of)
    check(all(k in names for k in known), "atf --help lists %s, expected at least %s" % (names, known))

    # Per command: (arguments before PATH, arguments after PATH) for no-ATF input,
    # and the valid input read after `--` (None: the command has no input).
    no_input = {"version"}
    for cmd in names:
        for h in ("--help", "-h"):
            rc, out, err = run([atf, cmd, h])
            check(rc == 0 and re.search(r"^(  |usage: atf )" + re.escape(cmd) + r"\b", out, re.M) is not None and err == "",
                  "atf %s %s: exit %s, stdout %s, stderr %s" % (cmd, h, rc, show(out[:200]), show(err)))
        if cmd in no_input:
            rc, out, err = run([atf, cmd, "--"])
            check(rc == 0, "atf %s --: exit %s %s" % (cmd, rc, show(err)))
            continue
        for path in (bad_dir, bad_file):
            for dd in ([], ["--"]):
                if cmd == "export":
                    argv = ["export", "--format", "perfetto", "-o", os.path.join(work, "o.json")] + dd + [path]
                elif cmd in plugin_of:
                    argv = plugin_of[cmd].no_input_argv(ctx, cmd, path, dd)
                elif cmd == "conform":
                    argv = ["conform", "--reader", "true", "--corpus", path] + dd
                elif cmd == "demo":   # DIR is its output: a directory that holds files is refused
                    if path != bad_dir:
                        continue
                    argv = ["demo"] + dd + [path]
                else:
                    argv = [cmd] + dd + [path]
                rc, out, err = run([atf] + argv)
                what = "atf %s" % " ".join(a.replace("\n", "\\n").replace("\x1b", "\\x1b") for a in argv)
                # A file given by name is judged as the file it claims to be: a
                # lone file that is no ATF file is invalid ATF (exit 1, the same
                # for every reader); a directory holding no ATF input, or no
                # input of the command's kind at all, is exit 2.
                want = 1 if path == bad_file and cmd in ("info", "dump", "merge", "export", "validate", "report") else 2
                if cmd == "record":
                    # PATH is the program to run: a launcher's exit codes, as
                    # env(1) and the shells have them (126 found but not executable).
                    want = 126
                check(rc == want, "%s: exit %s, expected %d %s" % (what, rc, want, show(err)))
                both = out + err
                check(BAD not in both and "\x1b" not in both,
                      "%s: a raw control character in a message: %s" % (what, show(both)))
                check(BAD_ESC in both, "%s: no message names the path (escaped %s): %s"
                      % (what, BAD_ESC, show(both)))
                check("unknown option" not in err and "usage:" not in err,
                      "%s: refused as a usage error: %s" % (what, show(err)))
        # `--` then a real input whose name starts with '-'.
        if cmd in ("info", "dump", "merge", "validate"):
            argv = [cmd, "--", dash]
        elif cmd == "export":
            argv = ["export", "--format", "chrome-json", "-o", os.path.join(work, "e.json"), "--", dash]
        elif cmd in plugin_of:
            argv = plugin_of[cmd].dash_argv(ctx, cmd)
        elif cmd == "demo":
            argv = ["demo", "--events", "10", "--", "-d" + str(rnd.getrandbits(32))]
        elif cmd == "conform":
            argv = ["conform", "--list", "--"]
        else:
            continue
        rc, out, err = run([atf] + argv)
        check(rc == 0, "atf %s: exit %s %s" % (" ".join(argv).replace("\n", "\\n"), rc, show(err)))
        check("\x1b" not in err and "-s\nx" not in err,
              "atf %s: a raw control character on stderr: %s" % (" ".join(argv).replace("\n", "\\n"), show(err)))
    print("%d commands; %d passed, %d failed" % (len(names), PASSED[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
