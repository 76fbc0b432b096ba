"""A GM's session (RULES §16): the party roster, bringing it into fights and carrying it on, rest,
the session folder, its odds and its log."""
