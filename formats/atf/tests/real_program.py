#!/usr/bin/python3
"""real_program: a real program no one in this project wrote (Lua 5.4 from
Debian's source package) built with -finstrument-functions, recorded by
`atf record`; the session validates, every function is named, and the
per-function call counts of `atf report --json` equal `uftrace report`'s on
the same binary and workload; and the Perfetto export of a smaller run,
decoded by protoc, matches its session event by event, names included.

  real_program.py ATF_CLI WORKDIR FETCH_SCRIPT

Lua's source and build: ci/lua_build.py, next to FETCH_SCRIPT
(ci/fetch-lua-source.sh): $ATF_LUA_SRC, else fetched once into
WORKDIR/lua-source. If it cannot be had, the test fails.

Known differences, each with its cause:
- uftrace adds "linux:schedule (pre-empted)" rows: its scheduler events
  (the kernel preempted the thread), not functions of the program; ignored.
- Lua seeds its string hash with time(NULL) and addresses (luai_makeseed),
  so two runs of one binary differ in hash-table work and in when the GC
  runs; the binary is built with luai_makeseed fixed at 0 so that both
  tracers see the same calls.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

LUA_SCRIPT = r"""
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(20))
local t = {}
for i = 1, 5000 do t[i] = string.format("k%07d", (i * 7919) % 5003) end
table.sort(t)
print(t[1], #t)
"""

SMALL_SCRIPT = r"""
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(12))
"""

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    atf, work, fetch = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(fetch)))
    global lua_build
    import lua_build
    src, why = lua_build.source(work)
    if not check(src is not None, "Lua 5.4's source: %s" % (why or src)):
        return
    if not check(shutil.which("uftrace") is not None, "uftrace installed (ci/lib.sh)"):
        return
    build = os.path.join(work, "build")
    shutil.rmtree(build, ignore_errors=True)
    lua, why = lua_build.build(src, build, instrumented=True)
    if not check(lua is not None, "Lua built with -finstrument-functions %s" % (why or "")):
        return
    script = os.path.join(build, "work.lua")
    with open(script, "w") as f:
        f.write(LUA_SCRIPT)
    plain = run([lua, script])
    root = os.path.join(build, "atf")
    r = run([atf, "record", "-o", root, "--", lua, script])
    check(r.returncode == 0 and r.stdout == plain.stdout, "atf record: exit 0, output unchanged")
    check(" 0 lost" in r.stderr, "atf record: 0 lost (%s)" % r.stderr.strip()[-200:])
    pids = glob.glob(os.path.join(root, "session_*", "pid_*"))
    if not check(len(pids) == 1, "one session (%s)" % pids):
        return
    session = pids[0]
    r = run([atf, "validate", session])
    check(r.returncode == 0, "atf validate: conformant (%s)" % (r.stdout + r.stderr).strip()[-300:])
    r = run([atf, "report", "--json", "--sort", "name", session])
    if not check(r.returncode == 0, "atf report --json (%s)" % r.stderr.strip()[-300:]):
        return
    rep = json.loads(r.stdout)
    check(r.stderr == "", "atf report: clean session, nothing on stderr (%s)" % r.stderr.strip()[-200:])
    unnamed = [f for f in rep["functions"] if f["name"].startswith("0x")]
    check(not unnamed, "every function named (%d unnamed)" % len(unnamed))
    ours = {}
    for f in rep["functions"]:
        ours[f["name"]] = ours.get(f["name"], 0) + f["calls"]
    ud = os.path.join(build, "uftrace.data")
    r = run(["uftrace", "record", "--no-libcall", "-d", ud, lua, script])
    if not check(r.returncode == 0 and r.stdout == plain.stdout, "uftrace record (%s)" % r.stderr.strip()[-300:]):
        return
    r = run(["uftrace", "report", "-d", ud, "-f", "call", "--no-pager"])
    if not check(r.returncode == 0, "uftrace report (%s)" % r.stderr.strip()[-300:]):
        return
    theirs = {}
    for line in r.stdout.splitlines()[2:]:   # "Calls  Function" and a rule
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0].isdigit():
            name = parts[1].strip()
            if name.startswith("linux:"):    # scheduler events, not functions (see above)
                continue
            theirs[name] = theirs.get(name, 0) + int(parts[0])
    diff = sorted((k, ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    check(len(theirs) > 300 and sum(theirs.values()) > 500000,
          "uftrace counted %d functions, %d calls" % (len(theirs), sum(theirs.values())))
    check(not diff, "atf report's calls = uftrace report's for all %d functions (%d calls); differences: %s"
          % (len(ours), sum(ours.values()), diff[:20]))
    for name in ("main", "luaV_execute", "luaD_precall", "luaH_getshortstr", "sort"):
        check(ours.get(name, 0) > 0, "%s counted (%d calls)" % (name, ours.get(name, 0)))
    check_perfetto_export(atf, lua, build)


def check_perfetto_export(atf, lua, build):
    """`atf export --format perfetto` of a recorded Lua run, decoded by
    protoc --decode_raw and matched event by event with the session
    (tools/tests/viewers/check_perfetto.py: tracks, balanced slices, every
    slice a call of the session with its timestamp and its function's name).
    A small run (Lua's start-up and fib(12), some 20,000 events), as that
    check holds every event in memory."""
    script = os.path.join(build, "small.lua")
    with open(script, "w") as f:
        f.write(SMALL_SCRIPT)
    root = os.path.join(build, "atf-small")
    r = run([atf, "record", "-o", root, "--", lua, script])
    if not check(r.returncode == 0 and r.stdout == "144\n", "atf record (small run): %s" % r.stderr.strip()[-200:]):
        return
    pids = glob.glob(os.path.join(root, "session_*", "pid_*"))
    if not check(len(pids) == 1, "small run: one session (%s)" % pids):
        return
    viewers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "tests", "viewers")
    sys.path.insert(0, viewers)
    import check_perfetto
    import checks
    before = len(checks.FAILS)
    pid = int(os.path.basename(pids[0])[len("pid_"):])
    check_perfetto.check_export(atf, pids[0], os.path.join(build, "small.pftrace"), "Lua", pid)
    check(len(checks.FAILS) == before, "atf export --format perfetto of Lua's session: protoc --decode_raw "
          "decodes it and it matches the session, names included (%s)" % checks.FAILS[before:][:5])


if __name__ == "__main__":
    main()
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")
