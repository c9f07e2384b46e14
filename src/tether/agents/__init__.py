"""Subagents: definitions and the Task tool that runs them."""
