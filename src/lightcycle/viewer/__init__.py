"""Watching games: the terminal player, keyboard play, self-contained HTML, images, and a
local replay browser.

Sits beside the referee: it reads replays and draws with `lightcycle.render`, and nothing
below it knows it exists. The pure parts (`terminal`'s state machine, `keys`' decoder,
`facts`, `data`) are tested without a terminal or a browser; `keys.RawTerminal`,
`images` (Pillow) and `server` (FastAPI) are the thin edges.
"""
