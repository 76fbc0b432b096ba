"""The dialogs and the editors they share."""
