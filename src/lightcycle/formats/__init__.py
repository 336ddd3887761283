"""Text <-> objects for the files lightcycle reads and writes; parsers only, no I/O."""
