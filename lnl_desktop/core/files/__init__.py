"""Files: the .lnl encounter file, the recovery journal, exports of the log, Universal VTT maps, map pictures."""
