"""The ruleset seam (base.py), what rulesets share (common.py, engagement.py), the registry,
and one package per ruleset."""
