"""Structural and cross-lane checks of a session or thread directory.

Errors (the input is invalid):
  * a file that cannot be decoded (bad magic/version/sizes, footer count beyond
    the file, checksum mismatch);
  * an index event_kind other than 1, 2, 3; timestamps going backwards (index
    or detail lane);
  * the index header's has_detail_file flag disagreeing with the presence of
    detail.atf;
  * a forward link (detail_seq) that does not reach a detail event pointing
    back, or a backward link (index_seq) that does not reach an index event
    pointing forward -- unless the file it points into was crash-truncated
    (no footer), which is a warning.
Warnings: no footer (recovered), manifest has_detail without a detail file,
non-zero reserved bytes.
"""

import os

from .files import parse_detail_file, parse_index_file
from .records import AtfFormatError, EVENT_CALL, EVENT_EXCEPTION, EVENT_RETURN
from .session import load_manifest, parse_manifest_int


def validate_thread(tdir, manifest_has_detail=None):
    errors, warnings = [], []
    ipath, dpath = os.path.join(tdir, "index.atf"), os.path.join(tdir, "detail.atf")
    try:
        with open(ipath, "rb") as f:
            idx = parse_index_file(f.read())
    except (OSError, AtfFormatError) as e:
        return ["%s: %s" % (ipath, e)], warnings
    det = None
    if os.path.exists(dpath):
        try:
            with open(dpath, "rb") as f:
                det = parse_detail_file(f.read())
        except AtfFormatError as e:
            errors.append("%s: %s" % (dpath, e))
            return errors, warnings
    if idx.recovered:
        warnings.append("%s: no footer, %d events recovered" % (ipath, len(idx.events)))
    if det is not None and det.recovered:
        warnings.append("%s: no footer, %d events recovered" % (dpath, len(det.events)))
    if idx.header.reserved_nonzero or any(e.reserved_nonzero for e in idx.events):
        warnings.append("%s: non-zero reserved bytes" % ipath)
    if idx.header.has_detail_file != (det is not None):
        errors.append("%s: has_detail_file is %d but detail.atf %s" % (
            ipath, idx.header.has_detail_file, "exists" if det is not None else "is missing"))
    if manifest_has_detail and det is None:
        warnings.append("%s: manifest says has_detail, no detail.atf" % tdir)
    bad = [i for i, e in enumerate(idx.events)
           if e.event_kind not in (EVENT_CALL, EVENT_RETURN, EVENT_EXCEPTION)]
    if bad:
        errors.append("%s: %d event(s) with an unknown event_kind (first seq %d)"
                      % (ipath, len(bad), bad[0]))
    for what, ts in ((ipath, [e.timestamp_ns for e in idx.events]),
                     (dpath, [e.timestamp for _, e in (det.events if det else [])])):
        back = [i for i in range(1, len(ts)) if ts[i] < ts[i - 1]]
        if back:
            errors.append("%s: timestamps go backwards at %d place(s) (first seq %d)"
                          % (what, len(back), back[0]))
    devs = det.events if det is not None else []
    fwd_bad = fwd_lost = 0
    for seq, e in enumerate(idx.events):
        if e.detail_seq is None:
            continue
        if e.detail_seq >= len(devs):
            if det is not None and det.recovered:
                fwd_lost += 1
            else:
                fwd_bad += 1
        elif devs[e.detail_seq][1].index_seq != seq:
            fwd_bad += 1
    back_bad = back_lost = 0
    for dseq, (_, d) in enumerate(devs):
        if d.index_seq >= len(idx.events):
            if idx.recovered:
                back_lost += 1
            else:
                back_bad += 1
        elif idx.events[d.index_seq].detail_seq != dseq:
            back_bad += 1
    if fwd_bad:
        errors.append("%s: %d forward link(s) do not resolve" % (ipath, fwd_bad))
    if back_bad:
        errors.append("%s: %d backward link(s) do not resolve" % (dpath, back_bad))
    if fwd_lost:
        warnings.append("%s: %d forward link(s) into the lost part of a truncated detail file"
                        % (ipath, fwd_lost))
    if back_lost:
        warnings.append("%s: %d backward link(s) into the lost part of a truncated index file"
                        % (dpath, back_lost))
    return errors, warnings


def validate_path(path):
    """(errors, warnings) for a session directory or a thread directory."""
    mpath = os.path.join(path, "manifest.json")
    if not os.path.exists(mpath):
        return validate_thread(path)
    errors, warnings = [], []
    try:
        manifest = load_manifest(mpath)
        threads = [(parse_manifest_int(t["id"]), bool(t.get("has_detail")))
                   for t in manifest["threads"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return ["%s: %s" % (mpath, e)], warnings
    for tid, has_detail in sorted(threads):
        e, w = validate_thread(os.path.join(path, "thread_%d" % tid), has_detail)
        errors += e
        warnings += w
    return errors, warnings
