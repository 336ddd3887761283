"""Pure functions from a game state or replay to something to look at."""
