"""The judge: a website where students submit bots that are built, tested and qualified.

- `lightcycle.judge.service`: the use cases (the contest file, the database and its work
  queue, the worker loop, the pipeline of steps); no web imports.
- `lightcycle.judge.web`: the FastAPI site on top of the service.

It sits above `lightcycle.tournament` and beside `lightcycle.server`, which it never
imports (docs/judge.md).
"""
