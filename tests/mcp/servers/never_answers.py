"""A server that never answers its handshake and does not end when its stdin does (it keeps
sleeping, as a hung one would), writing down what ends it: `TERM` at SIGTERM (then it exits),
`EOF` when its stdin closed and no SIGTERM followed within a second (the SDK's way gives a
closed stdin 2 s first). Its stdin may close as tether exits just after the SIGTERM, and the
reading thread may run before the main thread's handler does: EOF alone says nothing of the
order. Its process id goes first in the record file named by argv[1]."""

import os
import signal
import sys
import threading
import time

record = open(sys.argv[1], "a", buffering=1)  # noqa: SIM115
record.write(f"{os.getpid()}\n")


def ended(_signal: int, _frame: object) -> None:
    record.write("TERM\n")
    os._exit(0)


def read() -> None:
    for _line in sys.stdin:
        pass
    time.sleep(1)  # a SIGTERM sent with the close ends the process before this ends
    record.write("EOF\n")


signal.signal(signal.SIGTERM, ended)
threading.Thread(target=read, daemon=True).start()
while True:
    time.sleep(60)
