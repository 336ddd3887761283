"""The judge's use cases: contest file, store and work queue, workers, pipeline.

- `contest`: `load_contest` reads and checks a contest file into a `Contest`.
- `store`: `JudgeStore`, the judge's tables (users, submissions, steps, games, blobs,
  jobs) and the queue operations workers use (claim, heartbeat, complete, requeue).
- `worker`: `run_worker`, the loop that claims jobs and runs their steps.
"""
