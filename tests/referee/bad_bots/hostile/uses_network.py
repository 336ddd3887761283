# verdict: ok
# args: connect={port} unix={unix} abstract={abstract} listen={listen} wait=0.2
"""Connects to a TCP listener of the host on 127.0.0.1 and to Unix sockets outside its
folder, and listens on a port for a moment; then plays."""

import network
from _attack import args
from _tron import play

network.main(args())
play()
