"""The git kind (``--git [LABEL=]URL[#REF]``): skills in a git repository, pinned by commit.

``remote.py`` reads what a person types (the URL and the ref) and refuses what must
never reach git; ``runner.py`` runs git, and nothing else, in the private cache;
``listing.py`` finds the skills of a commit's tree; ``pins.py`` keeps each source's
pinned commit; ``updates.py`` compares the pinned commit with the remote's newest;
``kind.py`` is the kind as it registers.
"""
