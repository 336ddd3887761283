"""The ``lightcycle`` command. Imported by nothing else."""
