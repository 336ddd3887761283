# verdict: ok
# args: total=300 tag={tag}
"""Writes up to 300 MiB into its own folder and 300 MiB into /tmp, leaving the files
behind; then plays."""

import disk_fill
from _attack import args
from _tron import play

for where in ("cwd", "tmp"):
    disk_fill.main({**args(), "where": where})
play()
