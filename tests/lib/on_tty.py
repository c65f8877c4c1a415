#!/usr/bin/python3
"""Run a command on a terminal of its own (a pty, as a person's shell would have it: the command's session and
controlling terminal, 24x80), and say whether that terminal was as it was when the command exited.
Usage: on_tty.py [--type TEXT --after WORD] CMD [ARG...]: with --type, TEXT and a carriage return are typed once
WORD is in the output. Prints the command's output, then 'exit N' and either 'terminal unchanged' or what changed;
exit 0 only when the command exited and nothing changed. Everything waits with a deadline."""
import fcntl
import os
import select
import struct
import sys
import termios
import time


def state(fd):
    attrs = termios.tcgetattr(fd)
    size = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
    return attrs, size


def main():
    args, typed, after = sys.argv[1:], None, None
    if args[:1] == ["--type"]:
        typed, after, args = args[1].encode(), args[3].encode(), args[4:]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    before = state(slave)
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.execvp(args[0], args)
    out = b""
    deadline = time.monotonic() + 120
    status = None
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                out += os.read(master, 65536)
            except OSError:
                pass
        if typed is not None and after in out:
            os.write(master, typed + b"\r")
            typed = None
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(st)
        elif not r:
            break
    sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print("the command did not exit in 120 s")
        return 1
    after = state(slave)
    print(f"exit {status}")
    if after == before:
        print("terminal unchanged")
        return 0
    names = ["iflag", "oflag", "cflag", "lflag", "ispeed", "ospeed", "cc"]
    for n, a, b in zip(names, before[0], after[0]):
        if a != b:
            print(f"terminal changed: {n} {a!r} -> {b!r}")
    if before[1] != after[1]:
        print(f"terminal changed: size {before[1]} -> {after[1]}")
    return 1


sys.exit(main())
