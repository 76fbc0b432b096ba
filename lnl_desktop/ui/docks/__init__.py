"""The dock widgets around the map: combatants, the combatant sheet, the round log, the bestiary.

Each is a plain QWidget taking ``(controller, parent=None)``; the main window wraps them in
QDockWidgets. They show the core's state and change it only through ``controller.do(action)``.
"""

from lnl_desktop.ui.docks.bestiary import BestiaryPanel
from lnl_desktop.ui.docks.combatants import CombatantsPanel
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.docks.sheet import CombatantSheet

__all__ = ["BestiaryPanel", "CombatantSheet", "CombatantsPanel", "RoundLog"]
