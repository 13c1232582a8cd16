"""RTC's target of the power-cut harness (tests/powerloss/run_powerloss.py
--target pack, which finds this file through the registry): `atf pack` of a
finished session (made outside the logged root) into an RTC file, cut by
the power; `atf unpack` of the cut RTC file must recover a session that
holds the same as every session state does (conformant, only events the run
wrote). Units lost at the start renumber the events: they are compared by
content (by_content).

    TARGET               the --target name
    target_class(Target, run)
                         the target: a subclass of the harness's Target
"""

import os

TARGET = "pack"


def target_class(Target, run):
    class PackTarget(Target):
        """`atf pack` of a finished session (made outside the logged root)."""
        by_content = True

        def commands(self):
            src = os.path.join(self.work, "src")
            r = run([self.a.atf, "demo", "--threads", "2", "--events", "300", "--detail-every", "3", src])
            if r.returncode: raise SystemExit("powerloss: atf demo failed")
            self.src = src
            # atf pack --sync: the whole file is durable once pack has
            # exited 0 (fdatasync, then an fsync of its directory).
            return [([self.a.atf, "pack", "--sync", "--unit-size", "4096", src, os.path.join(self.root, "s.rtc")],
                     "durable all")]

        def reference(self):
            return self.src

        def session_in(self, d):
            rtc = os.path.join(d, "s.rtc")
            if not os.path.exists(rtc): return None
            out = os.path.join(d, "unpacked")
            r = run([self.a.atf, "unpack", rtc, out])
            if r.returncode == 2 and b"not an RTC file" in r.stderr:
                return None   # nothing of it reached the disk (before pack's sync)
            if r.returncode not in (0, 1):
                return ("unpack", r)
            return out if os.path.isdir(out) else None

    return PackTarget
