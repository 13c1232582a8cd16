#!/usr/bin/env python3
"""Real programs' life under `atf record` (recorder/README.md, "Front ends"):
life.c / life_cxx.cpp / plugin.c built with -finstrument-functions, recorded
with `atf record`, every session validated with `atf validate` (warnings
allowed only where the program was killed), function names checked in
`atf dump --json`.

Usage: run_life.py CASE ATF BINDIR WORKDIR
  CASE: threads fork exec signal longjmp kill exit dlopen cxx static errors readme xray lua
"""
import glob
import re
import json
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)
    return ok


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240, **kw)


class Ctx:
    def __init__(self, atf, bindir, work):
        self.atf, self.bindir, self.work = atf, bindir, work

    def exe(self, name):
        return os.path.join(self.bindir, name)

    def record(self, root, prog, *args, opts=()):
        r = run([self.atf, "record", "-o", root] + list(opts) + ["--", prog] + list(args))
        sys.stdout.write(r.stderr)
        return r

    def pids(self, root):
        return sorted(glob.glob(os.path.join(root, "session_*", "pid_*")))

    def validate(self, path, what):
        r = run([self.atf, "validate", path])
        check(r.returncode == 0, "%s: atf validate %s -> %d %s" % (what, path, r.returncode, r.stdout.strip()[-300:]))
        return r

    def dump(self, path):
        r = run([self.atf, "dump", "--json", path])
        check(r.returncode == 0, "dump %s" % path)
        return [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]

    def manifest(self, pid_dir):
        with open(os.path.join(pid_dir, "manifest.json")) as f:
            return json.load(f)


def count(events, name, kind=1, thread=None):
    return sum(1 for e in events if e.get("symbol") == name and e["event_kind"] == kind
               and (thread is None or e["thread"] == thread))


def names(events):
    return {e.get("symbol") for e in events}


def summary_ok(r, what):
    check("atf record: session " in r.stderr and " events, " in r.stderr and " lost" in r.stderr,
          "%s: session and summary lines on stderr" % what)


def case_threads(c, root):
    r = c.record(root, c.exe("life"), "threads", "4")
    check(r.returncode == 0, "threads: exit status 0 (%d)" % r.returncode)
    summary_ok(r, "threads")
    check("5 threads in 1 process, 0 lost" in r.stderr, "threads: summary counts 5 threads, 0 lost")
    p = c.pids(root)
    if not check(len(p) == 1, "threads: one process session"):
        return
    c.validate(p[0], "threads")
    ev = c.dump(p[0])
    tids = sorted({e["thread"] for e in ev})
    check(tids == [0, 1, 2, 3, 4], "threads: thread_0..thread_4 (%s)" % tids)
    for t in tids[1:]:
        check(count(ev, "life_leaf", 1, t) == 1000 and count(ev, "life_leaf", 2, t) == 1000
              and count(ev, "life_worker", 1, t) == 1,
              "threads: thread_%d has life_worker once and 1000 life_leaf calls and returns" % t)
    check(count(ev, "main", 1, 0) == 1 and count(ev, "main", 2, 0) == 1, "threads: main in thread_0")
    check(None not in names(ev), "threads: every function named")
    m = c.manifest(p[0])
    mods = [x for x in m.get("modules", []) if x.get("path", "").endswith("/life")]
    check(len(mods) == 1 and len(mods[0].get("uuid", "")) == 40 and mods[0]["base_address"] > 0
          and mods[0]["size"] > 0, "threads: manifest module of the program with its build id")


def case_fork(c, root):
    r = c.record(root, c.exe("life"), "fork")
    check(r.returncode == 0, "fork: exit status 0")
    check("2 processes" in r.stderr, "fork: summary counts 2 processes")
    p = c.pids(root)
    if not check(len(p) == 2 and os.path.dirname(p[0]) == os.path.dirname(p[1]),
                 "fork: two pid_N sessions in one session directory (%s)" % p):
        return
    evs = {d: c.dump(d) for d in p}
    for d in p:
        c.validate(d, "fork")
        check(c.manifest(d)["recorder"]["state"] == "complete", "fork: %s finalized" % d)
    child = [d for d in p if count(evs[d], "life_in_child") == 1]
    parent = [d for d in p if count(evs[d], "life_in_parent") == 1]
    check(len(child) == 1 and len(parent) == 1 and child != parent, "fork: child and parent each in their own pid_N")
    if child and parent:
        check(count(evs[parent[0]], "life_in_child") == 0 and count(evs[child[0]], "life_in_parent") == 0,
              "fork: neither records into the other's session")
        check(count(evs[parent[0]], "main", 1) == 1 and count(evs[parent[0]], "main", 2) == 1,
              "fork: the parent's main is whole")
        check(count(evs[child[0]], "main", 2) == 1 and os.path.basename(child[0]) == "pid_%d" %
              c.manifest(child[0])["recorder"]["pid"], "fork: the child's session is named by its pid")


def case_exec(c, root):
    r = c.record(root, c.exe("life"), "exec")
    check(r.returncode == 0, "exec: exit status 0")
    p = c.pids(root)
    if not check(len(p) == 2, "exec: two sessions (%s)" % p):
        return
    before = [d for d in p if count(c.dump(d), "life_before_exec") == 1]
    after = [d for d in p if count(c.dump(d), "life_after_exec") == 1]
    check(len(before) == 1 and len(after) == 1 and before != after, "exec: before and after in different sessions")
    check(any("_exec1" in d for d in after), "exec: the new image's session is SESSION_exec1")
    for d in p:
        c.validate(d, "exec")
        check(c.manifest(d)["recorder"]["state"] == "complete", "exec: %s finalized (stopped before exec)" % d)


def case_signal(c, root):
    r = c.record(root, c.exe("life"), "signal")
    check(r.returncode == 0, "signal: exit status 0")
    p = c.pids(root)
    if not check(len(p) == 1, "signal: one session"):
        return
    c.validate(p[0], "signal")
    ev = c.dump(p[0])
    calls, rets = count(ev, "life_on_signal", 1), count(ev, "life_on_signal", 2)
    # A signal that lands inside the hook has its handler's events queued and
    # recorded when the hook is done: every handler run is there, paired.
    # A thread that waits long in the recorder (backpressure) can be
    # interrupted by more handlers than the queue holds: those events are
    # counted and said on stderr, never lost silently.
    m = re.search(r"(\d+) events of signal handlers not recorded", r.stderr)
    lost = int(m.group(1)) if m else 0
    if lost == 0:
        check(200 <= calls <= 202 and calls == rets, "signal: handler recorded %d calls, %d returns" % (calls, rets))
    else:
        check(rets <= calls <= 202 and calls + lost >= 200,
              "signal: %d handler calls recorded, %d returns, %d handler events reported lost" % (calls, rets, lost))
    check(count(ev, "life_leaf", 1) == count(ev, "life_leaf", 2), "signal: life_leaf balanced")


def case_longjmp(c, root):
    r = c.record(root, c.exe("life"), "longjmp")
    check(r.returncode == 0, "longjmp: exit status 0")
    p = c.pids(root)
    if not check(len(p) == 1, "longjmp: one session"):
        return
    c.validate(p[0], "longjmp")
    ev = c.dump(p[0])
    check(count(ev, "life_dive", 1) == 1100 and count(ev, "life_dive", 2) == 0,
          "longjmp: 1100 life_dive calls, no returns (longjmp skips them)")
    out = os.path.join(c.work, "longjmp.perfetto")
    e = run([c.atf, "export", "--format", "perfetto", "-o", out, p[0]])
    check(e.returncode == 0 and os.path.getsize(out) > 0, "longjmp: atf export --format perfetto (%s)" % e.stderr.strip())


def case_kill(c, root):
    pidfile = os.path.join(c.work, "kill.pid")
    proc = subprocess.Popen([c.atf, "record", "-o", root, "--", c.exe("life"), "kill", pidfile],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not os.path.exists(pidfile) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(0.3)
    pid = int(open(pidfile).read()) if os.path.exists(pidfile) else 0
    # Past the writer's manifest rewrite (at most 1 s after the symbols were
    # added), then killed while recording.
    time.sleep(1.5)
    if pid:
        os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    sys.stdout.write(err)
    check(proc.returncode == 128 + signal.SIGKILL, "kill: atf record exits 137 (%d)" % proc.returncode)
    check("killed by signal 9" in err, "kill: says the program was killed")
    p = c.pids(root)
    if not check(len(p) == 1, "kill: one session"):
        return
    r = run([c.atf, "validate", p[0]])
    check(r.returncode == 0, "kill: crash-truncated session validates with warnings only (%d)" % r.returncode)
    ev = c.dump(p[0])
    check(count(ev, "life_spin", 1) == 1 and count(ev, "life_leaf", 1) > 1000,
          "kill: names resolved from the manifest written while recording")
    check(c.manifest(p[0])["recorder"]["state"] == "recording", "kill: the manifest is the one written while recording")


def case_exit(c, root):
    r = c.record(root, c.exe("life"), "exit")
    check(r.returncode == 0, "exit: exit status 0")
    summary_ok(r, "exit")
    p = c.pids(root)
    if not check(len(p) == 1, "exit: one session"):
        return
    c.validate(p[0], "exit")
    m = c.manifest(p[0])
    check(len(m["threads"]) == 5, "exit: 5 threads listed")
    rec = m["recorder"]
    lost = rec["events_lost_at_stop"] + rec["events_dropped_ring_full"] + rec["events_lost_io"]
    check(m["events_dropped"] >= lost, "exit: every loss counted in events_dropped (%d)" % m["events_dropped"])
    ev = c.dump(p[0])
    for t in range(1, 5):
        check(count(ev, "life_forever", 1, t) == 1 and count(ev, "life_leaf", 1, t) > 0,
              "exit: thread_%d recorded until exit()" % t)


def case_dlopen(c, root):
    so = c.exe("libatf_life_plugin.so")
    r = c.record(root, c.exe("life"), "dlopen", so)
    check(r.returncode == 0, "dlopen: exit status 0")
    p = c.pids(root)
    if not check(len(p) == 1, "dlopen: one session"):
        return
    c.validate(p[0], "dlopen")
    ev = c.dump(p[0])
    check(count(ev, "plugin_work", 1) == 1 and count(ev, "plugin_inner", 1) == 10,
          "dlopen: the plugin's functions named")
    mods = [x["path"] for x in c.manifest(p[0]).get("modules", [])]
    check(any(x.endswith("libatf_life_plugin.so") for x in mods), "dlopen: plugin listed in modules (%s)" % mods)


def case_cxx(c, root):
    r = c.record(root, c.exe("life_cxx"))
    check(r.returncode == 0, "cxx: exit status 0")
    p = c.pids(root)
    if not check(len(p) == 1, "cxx: one session"):
        return
    c.validate(p[0], "cxx")
    ev = c.dump(p[0])
    go_calls, go_rets = count(ev, "life::Thrower::go(int)", 1), count(ev, "life::Thrower::go(int)", 2)
    check(go_calls == sum(6 + i % 3 for i in range(50)), "cxx: demangled life::Thrower::go(int) called %d times" % go_calls)
    compiler = os.environ.get("ATF_LIFE_CXX_ID", "GNU")
    out = os.path.join(c.work, "cxx.perfetto")
    e = run([c.atf, "export", "--format", "perfetto", "-o", out, p[0]])
    check(e.returncode == 0, "cxx: atf export --format perfetto")
    if compiler == "GNU":
        # GCC calls the exit hook of every frame the unwinder leaves.
        check(go_calls == go_rets, "cxx (GCC): exit hooks ran while unwinding (%d returns)" % go_rets)
    else:
        # Clang does not: the frames an exception leaves stay open, and the
        # exporter closes and counts them.
        check(go_rets == 0, "cxx (%s): no exit hook while unwinding (%d returns)" % (compiler, go_rets))
        # Each catcher's return closes the go() frames above it ("unwound").
        m = re.search(r"(\d+) frames closed by an outer return", e.stderr)
        check(m is not None and int(m.group(1)) == go_calls,
              "cxx (%s): export closes and counts the unwound frames (%s)" % (compiler, m.group(0) if m else e.stderr))
    check(count(ev, "life::catcher(int)", 1) == 50, "cxx: life::catcher(int) named")


def case_static(c, root):
    # The front end linked in (libatf_cyg.a), no launcher: the environment
    # names the output root.
    env = dict(os.environ, ATF_RECORD_ROOT=root)
    env.pop("ATF_RECORD_SESSION", None)
    r = run([c.exe("life_linked"), "threads", "3"], env=env)
    check(r.returncode == 0, "static: exit status 0 (%s)" % r.stderr.strip())
    p = c.pids(root)
    if not check(len(p) == 1, "static: one session"):
        return
    c.validate(p[0], "static")
    ev = c.dump(p[0])
    check(sorted({e["thread"] for e in ev}) == [0, 1, 2, 3] and count(ev, "life_leaf", 1) == 3000,
          "static: 4 threads, 3000 life_leaf calls, named")


def case_errors(c, root):
    r = c.record(root, c.exe("life_plain"), "nothing")
    check(r.returncode == 2 and "not built with -finstrument-functions" in r.stderr
          and len(r.stderr.strip().splitlines()) == 1, "errors: uninstrumented program: one line, exit 2")
    check(not c.pids(root), "errors: no empty session left behind")
    r = c.record(root, c.exe("static_hello"))
    check(r.returncode == 2 and "static binary" in r.stderr, "errors: static binary refused")
    r = c.record("/proc/atf-no-such-dir/x", c.exe("life"), "threads", "1")
    check(r.returncode == 2 and "cannot create the output root" in r.stderr, "errors: unwritable root")
    r = c.record(root, os.path.join(c.work, "no-such-program"))
    check(r.returncode == 127 and "not found" in r.stderr, "errors: missing program: 127")
    r = run([c.atf, "record", "--help"])
    check(r.returncode == 0 and r.stdout.startswith("usage: atf record"), "errors: --help on stdout, exit 0")
    r = run([c.atf, "record", "--bogus", "--", "x"])
    check(r.returncode == 2 and "unknown option" in r.stderr, "errors: unknown option")
    # `--` ends the options: PROG's own options are PROG's.
    r = c.record(root, c.exe("life"), "threads", "2", opts=("--drop", "--budget", "8M"))
    check(r.returncode == 0 and "3 threads" in r.stderr, "errors: options then -- then PROG's arguments")
    m = c.manifest(c.pids(root)[0])
    check(m["recorder"]["overflow"] == "drop" and m["recorder"]["memory_bound_bytes"] == 8 << 20,
          "errors: --drop and --budget reach the recorder")
    io_root = os.path.join(root, "io")
    r = c.record(io_root, c.exe("life"), "threads", "1", opts=("--io", "buffered"))
    p = c.pids(io_root)
    check(r.returncode == 0 and len(p) == 1 and c.manifest(p[0])["recorder"]["io_method"] == "buffered",
          "errors: --io buffered reaches the recorder")
    r = run([c.atf, "record", "--io", "sideways", "--", c.exe("life")])
    check(r.returncode == 2 and "--io sideways" in r.stderr, "errors: --io with a bad method: exit 2")


def case_xray(c, root):
    # Not recording: the sleds stay unpatched, no session is made.
    env = dict(os.environ)
    for k in ("ATF_RECORD_SESSION", "ATF_RECORD_ROOT"):
        env.pop(k, None)
    r = run([c.exe("life_xray"), "threads", "2"], env=env, cwd=c.work)
    check(r.returncode == 0 and not os.path.exists(os.path.join(c.work, "ada_traces")),
          "xray: without atf record the program runs untraced")
    r = c.record(root, c.exe("life_xray"), "threads", "3")
    check(r.returncode == 0 and "4 threads in 1 process, 0 lost" in r.stderr, "xray: atf record, 4 threads, 0 lost")
    p = c.pids(root)
    if not check(len(p) == 1, "xray: one session"):
        return
    c.validate(p[0], "xray")
    ev = c.dump(p[0])
    check(count(ev, "life_leaf", 1) == 3000 and count(ev, "life_leaf", 2) == 3000
          and count(ev, "life_worker", 1) == 3 and count(ev, "main", 1) == 1,
          "xray: 3000 life_leaf calls and returns, life_worker x3, main, named")


LUA_SCRIPT = """
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
print(fib(12))
local t = {}
for i = 1, 2000 do t[i] = tostring((i * 7919) % 2003) end
table.sort(t)
print(#t, t[1], t[#t])
"""


def case_lua(c, root):
    # Lua 5.4's source, a real program no one in this project wrote, and its
    # build: ci/lua_build.py (the same source cache as real_program).
    sys.path.insert(0, os.path.join(ROOT, "ci"))
    import lua_build
    src, why = lua_build.source(c.bindir)
    if not check(src is not None, "lua: Lua's source (%s)" % why):
        return
    build = os.path.join(c.work, "lua")
    exe, why = lua_build.build(src, build, instrumented=True)
    if not check(exe is not None, "lua: built with -finstrument-functions (%s)" % why):
        return
    script = os.path.join(build, "bench.lua")
    with open(script, "w") as f:
        f.write(LUA_SCRIPT)
    r = c.record(root, os.path.join(build, "lua"), script)
    check(r.returncode == 0 and r.stdout.startswith("144\n"), "lua: runs under atf record, output unchanged")
    check(" 0 lost" in r.stderr, "lua: nothing lost")
    p = c.pids(root)
    if not check(len(p) == 1, "lua: one session"):
        return
    c.validate(p[0], "lua")
    ev = c.dump(p[0])
    unnamed = {e["function_id"] for e in ev if e.get("symbol") is None}
    check(not unnamed, "lua: every function id named (%d unnamed)" % len(unnamed))
    for name in ("main", "lua_newstate", "luaV_execute", "luaD_precall", "luaH_getshortstr", "sort"):
        check(count(ev, name, 1) > 0, "lua: %s called and named" % name)
    calls = sum(1 for e in ev if e["event_kind"] == 1)
    rets = sum(1 for e in ev if e["event_kind"] == 2)
    check(calls == rets and calls > 100000, "lua: %d calls, %d returns" % (calls, rets))


def case_readme(c, root):
    """The README's "Trace your program" commands, run as written (with
    build/ the build tree) from an empty directory."""
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "README.md")
    text = open(readme).read()
    sec = text.split("## Trace your program", 1)[1]
    snippet = sec.split("```sh\n", 1)[1].split("```\n", 1)[0]
    d = os.path.join(c.work, "readme")
    os.makedirs(d)
    os.symlink(os.path.abspath(os.path.join(c.bindir, "..", "..", "..")), os.path.join(d, "build"))
    r = run(["sh", "-e", "-c", snippet], cwd=d)
    sys.stdout.write(r.stdout[-2000:] + r.stderr[-2000:])
    check(r.returncode == 0, "readme: the commands run as written (%d)" % r.returncode)
    check('"fib"' in r.stdout and "conformant (0 error(s)" in r.stdout, "readme: fib named, session conformant")
    check(os.path.getsize(os.path.join(d, "fib.perfetto")) > 0 if os.path.exists(os.path.join(d, "fib.perfetto")) else False,
          "readme: the Perfetto export written")


def main():
    case, atf, bindir, work = sys.argv[1:5]
    work = os.path.join(work, case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    c = Ctx(atf, bindir, work)
    globals()["case_" + case](c, os.path.join(work, "out"))
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
