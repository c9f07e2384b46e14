"""Teams: the task tools agents use on a team's shared board, and a git worktree per task
(workers and teammates build on them; see README.md)."""
