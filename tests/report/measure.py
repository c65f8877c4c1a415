#!/usr/bin/python3
"""Run a command and print its wall time, its CPU time (user and system) and the largest resident set of it and
its children, as 'wall_s N cpu_s N max_rss_kb N exit N' on the last line (getrusage of the children, as
/usr/bin/time -v reports it). CPU time is what a busy host changes least.
Usage: measure.py CMD [ARG...] (its output goes to /dev/null)."""
import resource
import subprocess
import sys
import time

start = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.monotonic() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"wall_s {wall:.2f} cpu_s {ru.ru_utime + ru.ru_stime:.2f} max_rss_kb {ru.ru_maxrss} exit {rc}")
sys.exit(0)
