"""Where the formats' independent Python implementations are. The list of
formats is the build's registry, formats/formats.cmake (``set(ATF_FORMATS
...)``), read here so that Python and CMake never disagree; a format's
Python part is its folder formats/<name>/python/, holding one package with
a module ``format.py`` (the format's descriptor, tracepy.registry.Format).

    REPO            the source tree's root
    registered()    the names in ATF_FORMATS, in registry order
    python_parts()  [(name, folder, package)] of the formats that have a
                    python/ folder, in registry order
    use()           puts each of those folders on sys.path (once)
"""

import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FORMATS_DIR = os.path.join(REPO, "formats")
REGISTRY = os.path.join(FORMATS_DIR, "formats.cmake")

_SET = re.compile(r"^\s*set\(\s*ATF_FORMATS\b([^)]*)\)", re.M)


def registered():
    """The format names of formats/formats.cmake's ``set(ATF_FORMATS ...)``.
    ValueError when the file holds no such list."""
    with open(REGISTRY, encoding="utf-8") as f:
        text = f.read()
    m = _SET.search(text)
    if m is None:
        raise ValueError("%s: no set(ATF_FORMATS ...)" % REGISTRY)
    body = "\n".join(line.split("#", 1)[0] for line in m.group(1).splitlines())
    return body.split()


def python_parts():
    """(name, folder, package) of every registered format that has a Python
    implementation: formats/<name>/python/ with one package holding a
    format.py. ValueError when that folder holds none or several."""
    out = []
    for name in registered():
        folder = os.path.join(FORMATS_DIR, name, "python")
        if not os.path.isdir(folder):
            continue
        found = sorted(glob.glob(os.path.join(folder, "*", "format.py")))
        if len(found) != 1:
            raise ValueError("%s: %d packages with a format.py, expected one" % (folder, len(found)))
        out.append((name, folder, os.path.basename(os.path.dirname(found[0]))))
    return out


def use():
    """Puts every format's python/ folder on sys.path (after what is there)."""
    for _name, folder, _package in python_parts():
        if folder not in sys.path:
            sys.path.append(folder)
