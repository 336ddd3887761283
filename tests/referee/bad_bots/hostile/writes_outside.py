# verdict: ok
# args: out={out} tag={tag}
"""Plants files in the match's output folder, its own folder and /dev/shm, and a note in
/tmp for a later game; then plays."""

import write_files
from _attack import args
from _tron import play

write_files.main(args())
play()
