"""The nouns and the rules. Pure Python: no Qt, no network, no keyring."""
