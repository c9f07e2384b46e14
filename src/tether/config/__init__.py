"""Settings files and tether's home directory."""
