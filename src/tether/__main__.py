"""`python -m tether`: the same as the `tether` command."""

from tether.main import console_main

console_main()
