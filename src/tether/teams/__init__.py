"""Teams: the task tools agents use on a team's shared board (workers and teammates build on
them)."""
