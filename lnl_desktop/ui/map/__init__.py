"""The battle map: a QGraphicsView of the encounter's grid and tokens, and the gestures on it.

``MapView(controller)`` is the widget the main window embeds; it owns a :class:`MapScene`. The
map shows the core's state and sends it actions through ``controller.do``; it decides nothing.
"""

from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.map.token_look import TokenLook
from lnl_desktop.ui.map.tokens import TokenItem
from lnl_desktop.ui.map.view import TOOLS, MapView

__all__ = ["TOOLS", "MapScene", "MapView", "TokenItem", "TokenLook"]
