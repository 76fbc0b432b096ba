"""The engine: applies actions through the ruleset, returns events, keeps the undo history."""
