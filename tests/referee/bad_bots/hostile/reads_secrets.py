# verdict: ok
# args: neighbour={good}/secret.txt relative=../good/secret.txt database={database}
# args: repository={repository} root_entry={root_entry}
"""Reads /etc/shadow, the other bot's secret (by absolute and relative path), the judge's
database and the repository, and lists /root; then plays."""

import read_files
from _attack import args
from _tron import play

read_files.main(args())
play()
