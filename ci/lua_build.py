"""Lua 5.4, the real program of the tracing tests and of bench/trace-real:
its source (Debian's source package, fetched once by fetch-lua-source.sh
next to this file, or $ATF_LUA_SRC) and its build, plain or with
-finstrument-functions. One copy for real_program.py, run_life.py and
bench/trace-real.

    import lua_build            (with this folder on sys.path)
    src, why = lua_build.source(cache_dir)       # src None: why says why
    exe, why = lua_build.build(src, out_dir, instrumented=True)
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def source(cache_dir):
    """(directory holding src/lua.c, None) or (None, why). $ATF_LUA_SRC
    wins; else fetch-lua-source.sh unpacks it under cache_dir/lua-source
    ($ATF_LUA_CACHE instead of cache_dir when set), once for every test that
    asks side by side."""
    src = os.environ.get("ATF_LUA_SRC")
    if not src:
        cache = os.path.join(os.environ.get("ATF_LUA_CACHE") or cache_dir, "lua-source")
        r = subprocess.run(["sh", os.path.join(HERE, "fetch-lua-source.sh"), cache],
                           capture_output=True, text=True)
        if r.returncode:
            return None, "ci/fetch-lua-source.sh: " + r.stderr.strip()[-400:]
        src = r.stdout.strip()
    if not os.path.isfile(os.path.join(src, "src", "lua.c")):
        return None, "no src/lua.c under " + src
    return src, None


def build(src, out, instrumented, cc="cc"):
    """Builds the lua interpreter into out/lua: -O2, -rdynamic (so that the
    front end finds its symbols), with -finstrument-functions if asked.
    Lua's string hash seed is fixed (luai_makeseed 0) so that two runs of a
    script call the same functions the same number of times. Returns
    (path, None) or (None, why)."""
    os.makedirs(out, exist_ok=True)
    # Debian's luaconf.h includes the multiarch header its packaging writes.
    with open(os.path.join(out, "lua5.4-deb-multiarch.h"), "w") as f:
        f.write('#define DEB_HOST_MULTIARCH "unknown"\n')
    srcs = sorted(os.path.join(src, "src", f) for f in os.listdir(os.path.join(src, "src"))
                  if f.endswith(".c") and f not in ("luac.c", "onelua.c"))
    exe = os.path.join(out, "lua")
    flags = ["-O2", "-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX", "-Dluai_makeseed(L)=0", "-I" + out]
    if instrumented:
        flags.append("-finstrument-functions")
    r = subprocess.run([cc] + flags + srcs + ["-o", exe, "-rdynamic", "-lm", "-ldl"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, "building Lua failed: " + r.stderr.strip()[-500:]
    return exe, None
