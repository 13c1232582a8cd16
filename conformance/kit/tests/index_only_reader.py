#!/usr/bin/python3
"""A reader for the reader kit that reads no detail lanes: it prints the
canonical dump of the index data only (`atf dump --json` with every index
event's "detail" member removed) and declares so (`--capabilities`).

    index_only_reader.py --atf ATF [--caps TEXT] PATH
    index_only_reader.py --atf ATF [--caps TEXT] --capabilities

--caps replaces the declaration ("\\n" separates lines; "none": declare
nothing, exit 2). Standard library only.
"""
import json
import shlex
import subprocess
import sys

DEFAULT_CAPS = "atf-reader-capabilities 1\nlayouts 1 2\ndetail no\nmanifest yes\n"


def main(argv):
    atf, caps, rest = None, DEFAULT_CAPS, []
    i = 0
    while i < len(argv):
        if argv[i] == "--atf":
            atf = argv[i + 1]; i += 1
        elif argv[i] == "--caps":
            caps = argv[i + 1].replace("\\n", "\n"); i += 1
        else:
            rest.append(argv[i])
        i += 1
    if rest == ["--capabilities"]:
        if caps == "none":
            return 2
        sys.stdout.write(caps)
        return 0
    if len(rest) != 1 or not atf:
        sys.stderr.write("usage: index_only_reader.py --atf ATF PATH\n")
        return 2
    p = subprocess.run(shlex.split(atf) + ["dump", "--json", rest[0]], stdout=subprocess.PIPE, stderr=sys.stderr)
    if p.returncode != 0:
        return 1
    out = []
    for line in p.stdout.decode("utf-8").splitlines():
        ev = json.loads(line)
        ev.pop("detail", None)
        out.append(json.dumps(ev, separators=(",", ":"), ensure_ascii=True))
    sys.stdout.write("".join(l + "\n" for l in out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
