"""RTC's second target of the power-cut harness (tests/powerloss/
run_powerloss.py --target unpack): `atf unpack --sync` of a whole RTC file
(a finished session packed outside the logged root) into a new session
directory, cut by the power. Every state must hold a conformant session
(or none yet), and once unpack has exited the whole session must be there:
--sync makes every file it wrote and every name durable (fdatasync of the
files, then fsync of the thread directories, the session directory and its
parent). The module's surface (TARGET, target_class) is powerloss_pack.py's.
"""

import os

TARGET = "unpack"


def target_class(Target, run):
    class UnpackTarget(Target):
        """`atf unpack --sync` of a packed finished session."""

        def commands(self):
            src = os.path.join(self.work, "src")
            rtc = os.path.join(self.work, "s.rtc")
            for cmd in ([self.a.atf, "demo", "--threads", "2", "--events", "300", "--detail-every", "3", src],
                        [self.a.atf, "pack", "--unit-size", "4096", src, rtc]):
                r = run(cmd)
                if r.returncode:
                    raise SystemExit("powerloss: %s failed" % " ".join(cmd))
            return [([self.a.atf, "unpack", "--sync", rtc, os.path.join(self.root, "s")], "durable all")]

    return UnpackTarget
