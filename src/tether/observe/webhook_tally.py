"""What became of a webhook sink's records (`Tally`), said for the user (`Tally.report`) and,
at exit, for the receiver (`Tally.payload`: the body of the last `webhook_dropped` record).

Two kinds of loss are told apart: a record not delivered (dropped, failed, refused, never
sent), and a record sent (its request written) whose answer had not come when the process
had to exit: the receiver may have it (`unanswered`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    attempts: int
    """Tries a record gets (for the report)."""
    delivered: int = 0
    full: int = 0
    """Dropped because the queue was full."""
    failed: int = 0
    """Given up after the retries (`last_failure` says how the last one ended)."""
    refused: Counter[int] = field(default_factory=Counter[int])
    """Answered with a 4xx that is not retried, by status."""
    circuit: int = 0
    """Dropped while the endpoint was left alone (the circuit open)."""
    unsent: int = 0
    """Still queued (or on their way, the request not written yet) when the deadline came."""
    last_failure: str = ""
    cut: int = 0
    """Failed, and their retries cut short by the deadline (`cut_failure`: the last try)."""
    cut_failure: str = ""
    unanswered: list[int] = field(default_factory=list[int])
    """The `seq` of each record sent (the request written) and not answered when the deadline
    came: it may have arrived."""
    first_lost: int | None = None
    last_lost: int | None = None
    """The lowest and highest `seq` of the records not delivered."""

    @property
    def dropped(self) -> int:
        """Records not delivered (`unanswered` apart: those may have been)."""
        return (
            self.full + self.failed + self.refused.total() + self.circuit + self.unsent + self.cut
        )

    def lost(self, seq: int) -> None:
        """Note `seq` as one of the records not delivered (counted by its cause apart)."""
        self.first_lost = seq if self.first_lost is None else min(self.first_lost, seq)
        self.last_lost = seq if self.last_lost is None else max(self.last_lost, seq)

    def causes(self) -> dict[str, int]:
        """The records not delivered, by why (only the causes that lost some)."""
        named = {
            "queue_full": self.full,
            "failed": self.failed,
            "failed_at_exit": self.cut,
            **{f"http_{status}": n for status, n in sorted(self.refused.items())},
            "endpoint_down": self.circuit,
            "not_sent": self.unsent,
        }
        return {cause: n for cause, n in named.items() if n}

    def report(self, place: str) -> str | None:
        """What was lost, in a line for the user (None: nothing)."""
        lost, unanswered = self.dropped, len(self.unanswered)
        if not lost and not unanswered:
            return None
        total = self.delivered + lost + unanswered
        parts: list[str] = []
        if lost:
            refused = [(n, f"answered HTTP {status}") for status, n in sorted(self.refused.items())]
            reasons = [
                f"{n} {why}"
                for n, why in (
                    (self.full, "dropped: queue full"),
                    (
                        self.failed,
                        f"failed after {self.attempts} attempts (the last: {self.last_failure})",
                    ),
                    (
                        self.cut,
                        f"failed, not tried again before exit (the last: {self.cut_failure})",
                    ),
                    *refused,
                    (self.circuit, "dropped while the endpoint was down"),
                    (self.unsent, "not sent before exit"),
                )
                if n
            ]
            parts.append(f"{lost} of {total} events not delivered ({'; '.join(reasons)})")
        if unanswered:
            of = "" if lost else f" of {total} events"
            parts.append(f"{unanswered}{of} sent, unanswered at exit: may have arrived")
        return f"webhook {place}: {'; '.join(parts)}"

    def payload(self, message: str, offered: int) -> dict[str, Any]:
        """The last record's payload, for the receiver: `offered`, the records numbered before
        it (`seq` 1 to `offered`); the records lost by cause, the first and last `seq` lost;
        the `seq` of those sent and unanswered."""
        return {
            "message": message,
            "offered": offered,
            "lost": self.causes(),
            "first_seq": self.first_lost,
            "last_seq": self.last_lost,
            "unanswered": sorted(self.unanswered),
        }
