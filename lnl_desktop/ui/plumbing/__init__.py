"""What every part of the Qt layer shares: the controller, undo commands, focus, theme, style, widgets, workers."""
