"""The main window, its chrome (menus, layout, the document it edits) and the players' window."""
