#!/usr/bin/python3
"""Run a command and print its wall time and the largest resident set of it and its children, as
'wall_s N max_rss_kb N exit N' on the last line (getrusage of the children, as /usr/bin/time -v reports it).
Usage: measure.py CMD [ARG...] (its output goes to /dev/null)."""
import resource
import subprocess
import sys
import time

start = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"wall_s {wall:.2f} max_rss_kb {rss} exit {rc}")
sys.exit(0)
