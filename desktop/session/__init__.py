"""The catalog session: what the window and the command line drive to reach skills."""
