"""The review queue's rules over one piece of text: secrets (detect-secrets), personal data
(phonenumbers, python-stdnum), injected instructions and hidden characters (rules as data).
Pure: no SQL, no Qt. The finders that read a workspace are in ``browse.review``."""
