"""The pure domain: boards, cycles, moves and seeded randomness. Standard library only."""
