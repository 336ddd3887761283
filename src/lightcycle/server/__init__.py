"""The game server: remote clients and built-in bots playing in one asyncio process.

Clients connect over TCP (the Scheme course's exchange on one port, lightcycle's jsonl
hello on another), a lobby pairs them in named queues, and each game runs as one
coroutine with the referee's clocks, verdicts and replays (`game.run_game`). Nothing here
starts a process: remote seats are sockets and fill bots are in-process built-in bots, so
a hostile client can cost only its own seat and connection, never another game.
"""
