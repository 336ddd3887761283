"""The knobs of the duel search (`SearchOptions`), on their own so both searches read them.

`duel.DuelSearch` takes them, and so does its compiled copy (`native.evaluator`,
`native.duel_for`, which build the compiled evaluation's tables from them). Kept below
both, the options are the one thing the pure search and the compiled seam share, and
neither has to import the other for it: `duel` imports `native`, never the reverse.
`duel` re-exports `SearchOptions`, where the search's users have always found it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SearchOptions:
    """Knobs of the search (the ladder's medium bot turns most of them off).

    Attributes:
        tt: use the transposition table.
        killers: use killer moves.
        chambers: count only usable territory when the board is tight (the chamber
            tree, or the front-aware count of ``front``).
        chamber_cells: the free-cell count at or below which ``chambers`` applies
            (500: the medium boards with rooms, keyhole or chambers, are where the
            usable count matters; on open boards it would cost several times the raw
            count's nodes a second).
        fill_cells: the largest region a separated leaf bounds by the chamber tree; a
            larger one gets the parity bound (the chamber tree costs about 4 ms on 1,000
            cells, and a leaf bounds two regions: on a 50x50 board a few such leaves
            overran the move's deadline).
        max_depth: the deepest iteration, in joint moves.
        draw: the value of a draw for the searching side (a head-on crash into the same
            cell, or both cycles stuck at once). Below 0 it is contempt: the bot avoids
            a draw unless everything else looks worse by more than ``-draw``.
        edge_weight: what each move inside a territory (a free neighbour of one of its
            cells) adds to the territory's value, a cell counting 1. Open space is worth
            more than a corridor of as many cells: it can be filled in any order and
            fought over, while a corridor leaves one way on. The champion of the 2010
            contest weighed edges 194 to a cell's 55; at 3, strong scored +99 Elo (95%
            CI +41..+164) over the same search counting cells alone, both at 2,000
            nodes a move.
        partial: when an iteration is cut short, answer with a root move it has
            already proven better than the previous iteration's choice. The previous
            best is searched first, so any move that beats it afterwards has an exact
            value at the deeper depth: the time spent on an unfinished iteration is
            not wasted, and the clock may start iterations it cannot finish.
        front: how ``chambers`` counts a territory. 0: the chamber tree
            (`chambers.fill_bound`), every pocket a path could chain. 1: the 2010
            champion's front-aware count (`chambers.front_space`): the territory's
            chambers with only their moves inside it, a chamber that touches the front
            counted alone plus the moves to reach it. 2 (the default): the same, with a
            chamber alone as a candidate too (the champion's count drops a whole room
            for any front cell past it). At 100 ms a move, 2 with ``chamber_cells`` 500
            scored +58 Elo (95% CI +12..+104) against 0 with 160 (200 games), and
            53.8% against the champion (40 games) where 0 scored 43.1% (160).
    """

    tt: bool = True
    killers: bool = True
    chambers: bool = True
    chamber_cells: int = 500
    fill_cells: int = 400
    max_depth: int = 64
    draw: int = 0
    edge_weight: int = 3
    partial: bool = True
    front: int = 2
