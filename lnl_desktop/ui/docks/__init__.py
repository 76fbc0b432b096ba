"""The dock widgets around the map: turns, the action panel, combatants, the combatant sheet, the
round log, the damage forecast, the bestiary.

Each is a plain QWidget taking ``(controller, parent=None)``; the main window wraps them in
QDockWidgets, building each when it is first shown (so nothing here is imported up front).
They show the core's state and change it only through ``controller.do(action)``.
"""
