"""Viewers of finished games: self-contained HTML, images, and a local replay browser.

Sits beside the referee: it reads replays and draws with `lightcycle.render`, and nothing
below it knows it exists.
"""
