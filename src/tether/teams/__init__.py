"""Teams: the task board's tools and workers, and a git worktree per task (see README.md)."""
