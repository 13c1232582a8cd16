"""RTC's commands in cli/tests/check_commands.py (`atf pack`, `atf unpack`):
how each is given no input and a real input whose name starts with '-'.
The harness loads this file (cli/CMakeLists.txt passes every registered
format's tests/*/cli_commands.py) and calls, with its context ctx (atf,
work, run, check, show, dash: the demo session's name, out_dir()):

  COMMANDS                     the commands this format contributes
  prepare(ctx)                 inputs made once, before the commands run
  no_input_argv(ctx, cmd, path, dd)
                               the arguments that give cmd PATH (dd: [] or
                               ["--"] before it)
  dash_argv(ctx, cmd)          the arguments that read a real input named
                               '-...' after `--`
"""

import os

COMMANDS = ("pack", "unpack")


def prepare(ctx):
    # The session packed into a file whose name starts with '-'.
    rc, _, err = ctx.run([ctx.atf, "pack", "--", ctx.dash, "-p.rtc"])
    ctx.check(rc == 0, "atf pack -- %r -p.rtc: exit %s %s" % (ctx.dash, rc, ctx.show(err)))


def no_input_argv(ctx, cmd, path, dd):
    if cmd == "pack":
        return ["pack"] + dd + [path, os.path.join(ctx.work, "o.rtc")]
    return ["unpack"] + dd + [path, ctx.out_dir()]


def dash_argv(ctx, cmd):
    if cmd == "pack":
        return ["pack", "--", ctx.dash, "-q.rtc"]
    return ["unpack", "--", "-p.rtc", "-u" + str(ctx.rnd.getrandbits(32))]
