"""The encounter document: the shared models, the actions a person takes, the events the log keeps, errors in words."""
