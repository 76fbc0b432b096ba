"""The dock widgets around the map: turns, the action panel, combatants, the combatant sheet, the
round log, the damage forecast, the bestiary.

Each is a plain QWidget taking ``(controller, parent=None)``; the main window wraps them in
QDockWidgets. They show the core's state and change it only through ``controller.do(action)``.
"""

from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.bestiary import BestiaryPanel
from lnl_desktop.ui.docks.combatants import CombatantsPanel
from lnl_desktop.ui.docks.forecast import ForecastPanel
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.docks.turns import TurnsPanel

__all__ = [
    "ActionPanel",
    "BestiaryPanel",
    "CombatantSheet",
    "CombatantsPanel",
    "ForecastPanel",
    "RoundLog",
    "TurnsPanel",
]
