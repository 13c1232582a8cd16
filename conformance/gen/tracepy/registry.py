"""The formats of the Python implementations, one descriptor each, on
libarchive's model: each format package holds a module ``format`` whose
FORMAT (a Format) says how the format is recognised (bid), summarised
(info), dumped (the canonical lines of `atf dump --json`) and validated
(the report of `atf validate`), with its clause table, spec, golden corpus
and command-line tool. Adding a format is its folder formats/<name>/python/
(one package with a format.py) plus its line in formats/formats.cmake, the
one registry of the build (tracepy.layout reads it); the scripts that treat
every format alike (the clause-coverage check, tracepy_tool.py) iterate
formats() and never name one.

    formats()              the descriptors, in registry order
    get(name)              one descriptor by name (its folder formats/<name>/)
    detect(path)           the descriptor that bids highest for ``path``
                           (None: no format takes it); the bytes are read once
    of_clauses(ids)        the format whose clause IDs these are
"""

import importlib
import os

from . import layout

HEAD = 65536          # the bytes of a file every bid sees


class Format:
    """One format's entry points.

    name           short name: the C tool's (`--format`), the corpus folder's
    title          what it is called in prose
    package        its independent Python implementation (a package in its folder)
    clause_prefix  the prefix of its clause IDs ("XYZ-"), None for the one
                   format whose IDs have none (ATF's)
    spec, corpus   its spec (under conformance/) and golden corpus (under corpus/)
    tool           its command-line front end (a script in its folder)
    folder         its folder, formats/<name>/python/ (set by formats())
    tool_path      the tool's path (set by formats())
    suffixes       the file-name endings it is usually written with (a hint)
    bid(path, head)   confidence 0..100 that ``path`` is of this format;
                   ``head``: the first HEAD bytes of a file, None for a directory
    info(path)     a dict that summarises what ``path`` holds
    dump_lines(path)  the canonical dump's lines
    validate(path, strict=False)  a tracepy.report.Report (UsageError: exit 2)
    validate_bytes(data, name, strict=False)  the same of a file's bytes
                   (None for a format of directories)
    clauses        the clause table: (ID, severity, summary) in the spec's order
    """

    def __init__(self, name, title, package, clause_prefix, spec, corpus, tool, suffixes,
                 bid, info, dump_lines, validate, validate_bytes, clauses):
        self.name, self.title, self.package = name, title, package
        self.clause_prefix, self.spec, self.corpus, self.tool = clause_prefix, spec, corpus, tool
        self.suffixes = suffixes
        self.bid, self.info, self.dump_lines = bid, info, dump_lines
        self.validate, self.validate_bytes, self.clauses = validate, validate_bytes, clauses
        self.folder = self.tool_path = None

    def owns_clause(self, cid):
        if self.clause_prefix is not None:
            return cid.startswith(self.clause_prefix)
        return not any(f.clause_prefix and cid.startswith(f.clause_prefix) for f in formats())

    def __repr__(self):
        return "Format(%s)" % self.name


_FORMATS = None


def formats():
    global _FORMATS
    if _FORMATS is None:
        layout.use()
        found = []
        for name, folder, package in layout.python_parts():
            f = importlib.import_module(package + ".format").FORMAT
            if (f.name, f.package) != (name, package):
                raise ValueError("%s: %s.format describes %s (%s)" % (folder, package, f.name, f.package))
            f.folder, f.tool_path = folder, os.path.join(folder, f.tool)
            found.append(f)
        _FORMATS = tuple(found)
    return _FORMATS


def get(name):
    for f in formats():
        if f.name == name:
            return f
    raise KeyError("no format %r (formats: %s)" % (name, ", ".join(f.name for f in formats())))


def names():
    return [f.name for f in formats()]


def detect(path):
    """The format that bids highest for ``path`` (the first in registry
    order on a tie), or None when every bid is 0. OSError when ``path`` cannot be read."""
    head = None
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            head = f.read(HEAD)
    best, score = None, 0
    for f in formats():
        s = f.bid(path, head)
        if s > score:
            best, score = f, s
    return best


def of_clauses(ids):
    """The format all of whose clauses ``ids`` are (None when they are of
    several formats or none)."""
    ids = list(ids)
    for f in formats():
        if ids and all(f.owns_clause(cid) for cid in ids):
            return f
    return None
