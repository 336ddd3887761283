# verdict: ok
# args: count=5000
"""Opens files until refused (up to 5000, after raising its soft limit); then plays."""

import fd_hog
from _attack import args
from _tron import play

fd_hog.main(args())
play()
