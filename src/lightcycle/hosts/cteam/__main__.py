"""``python -m lightcycle.hosts.cteam LIBRARY.so``: play a C team over ``jsonl``."""

import sys

from lightcycle.hosts.cteam.host import main

sys.exit(main())
