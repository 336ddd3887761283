"""Series of games between bots: duels with statistics, grading, tournaments, ratings.

This layer sits between the command line and the referee: it decides which games to play
and what their results mean; the referee plays each game.
"""
