"""Qt item models over the core's collections; they keep no copy of the data."""
