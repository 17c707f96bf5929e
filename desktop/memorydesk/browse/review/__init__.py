"""The review queue over a workspace: what a person should look at first (``scan``).

``items`` reads what is scanned, ``text`` runs the per-text rules (``core.review``),
``vectors`` finds close pairs through an inverted-file index of the embeddings,
``duplicates`` and ``corrections`` judge them with the recall audit's machinery,
``decay`` lists unreachable and fading facts, ``cache`` keeps a window's results in
the desk's own tables so only what changed is scanned again.
"""
