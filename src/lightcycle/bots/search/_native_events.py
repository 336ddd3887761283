"""Why the compiled search loop handed back to `endgame.solve_fill` (its events).

`_native_search.Solver.run` returns one of these codes and the pure solver acts on it
(`endgame.solve_fill`'s ``run_deep``), so both sides need them. They live here, below
both, rather than in `native`: the compiled loop imports nothing of the seam that loads
it. The file is plain Python (no numba), so the solver imports it with or without the
``fast`` extra. Its name starts with ``_native_`` on purpose: numba compiles these
values into the loop's machine code, so they belong to the sources whose hash names
the compiled cache (`native._cache_by_source`): a change here recompiles the loop.
"""

FINISHED, SHARE_SPENT, PROBE_DUE, POLISH_DUE, STOP, POLL_DUE, FRAMES_FULL, KNOWN_FULL = range(8)
"""Why the compiled search loop (`native.Searcher.run`) handed back: the search is
finished, its share is spent, a probe or a polish is due, the search must stop (the node
budget, or a path as long as the root's bound), the clock is due a look; the last two are
handled by `native.Searcher.run` itself (a table grown)."""
