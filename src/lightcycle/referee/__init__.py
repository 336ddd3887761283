"""Running matches: players, the turn loop, results and replays."""
