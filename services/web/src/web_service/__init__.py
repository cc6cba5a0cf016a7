"""The faces of the system: the studio console, the player view and the rules pages."""
