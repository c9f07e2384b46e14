"""Evaluation runs: suites of tasks run by headless tether processes, checked, judged and
reported (see README.md)."""
