"""Observability out of the process: the event log every session writes, webhook sinks."""
