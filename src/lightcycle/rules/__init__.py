"""The rules engine: variants as named, versioned lists of small stages.

``step(state, moves) -> state`` applies one simultaneous turn. Nothing here touches a
clock, a process, a file or global randomness.
"""
