"""Map data: boards with walls and start cells, a registry of built-in maps, generators and
fairness checks."""
