"""The judge's use cases: contest file, store and work queue, workers, pipeline.

- `contest`: what a contest is (`Contest`); `contest_file.load_contest` reads and checks
  a contest file into one.
- `store`: `JudgeStore`, the judge's tables (users, submissions, steps, games, blobs,
  jobs) and the queue operations workers use (claim, heartbeat, complete, requeue).
- `worker`: `run_worker`, the loop that claims jobs and runs their steps.
"""
